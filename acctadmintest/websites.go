package acctadmintest

import (
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Address is a postal address of a website.
type Address struct {
	Line1   string
	Line2   string
	City    string
	State   string
	ZipCode string
	Country string
}

// Website is a website associated with the account: its contact and
// billing information. Filing products and registered-agent products are
// sold on a website and found by its URL.
type Website struct {
	ID           uuid.UUID
	Name         string
	URL          string
	BillingName  string
	LoginURL     string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	Emails       []string
	PhoneNumbers []string
	Addresses    []Address
}

// WebsiteInput describes a website for AddWebsite. Zero fields get
// defaults: a new ID, the current time.
type WebsiteInput struct {
	ID   uuid.UUID
	Name string
	// URL is required: the website as registered, such as
	// www.example.com (the real server registers it without scheme or
	// slash), matched as this exact text.
	URL          string
	BillingName  string
	LoginURL     string
	CreatedAt    time.Time
	Emails       []string
	PhoneNumbers []string
	Addresses    []Address
}

// AddWebsite adds a website and returns it. It panics when the URL is
// empty or another website has the same URL.
func (f *Fake) AddWebsite(in WebsiteInput) Website {
	if strings.TrimSpace(in.URL) == "" {
		panic("acctadmintest: AddWebsite: empty URL")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.websiteByURL(in.URL) != nil {
		panic("acctadmintest: AddWebsite: a website with URL " + in.URL + " exists")
	}
	at := f.timeOr(in.CreatedAt)
	w := &Website{
		ID:           f.idOr(in.ID),
		Name:         in.Name,
		URL:          in.URL,
		BillingName:  in.BillingName,
		LoginURL:     in.LoginURL,
		CreatedAt:    at,
		UpdatedAt:    at,
		Emails:       append([]string(nil), in.Emails...),
		PhoneNumbers: append([]string(nil), in.PhoneNumbers...),
		Addresses:    append([]Address(nil), in.Addresses...),
	}
	f.st.websites.insert(w)
	return f.st.websites.copyOf(w)
}

// Websites returns every website in the order they were added.
func (f *Fake) Websites() []Website {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.websites.copies()
}

// websiteByURL finds a website by its URL, the exact text it was
// registered with (spec/recorded-behaviour.md, W1: the real server
// answers https://www.x.com/ nothing for a website registered as
// www.x.com); f.mu must be held.
func (f *Fake) websiteByURL(u string) *Website {
	return f.st.websites.find(func(w *Website) bool { return w.URL == u })
}

// websiteParam resolves the required url parameter of the website
// endpoints: missing is 400; a URL no website is registered as is nil,
// which GET /websites answers as success with website null (W1). f.mu
// must be held.
func (f *Fake) websiteParam(c *call) (*Website, error) {
	u := c.str("url")
	if u == "" {
		return nil, invalid("url", "is required")
	}
	return f.websiteByURL(u), nil
}

// productsWebsite resolves the url of the product listings, matched as
// websiteParam matches it; a URL no website is registered as is a 404
// that says how websites are matched (nothing is recorded of what the
// real server answers there, and an empty list would hide the mistake).
// f.mu must be held.
func (f *Fake) productsWebsite(c *call) (*Website, error) {
	w, err := f.websiteParam(c)
	if err == nil && w == nil {
		err = notFound("website " + strconv.Quote(c.str("url")) + " (a website's URL is matched as registered, such as www.example.com)")
	}
	return w, err
}

type addressWire struct {
	Line1   string `json:"line_1"`
	Line2   string `json:"line_2"`
	City    string `json:"city"`
	State   string `json:"state"`
	ZipCode string `json:"zip_code"`
	Country string `json:"country"`
}

type websiteWire struct {
	ID           uuid.UUID     `json:"id"`
	Name         string        `json:"name"`
	URL          string        `json:"url"`
	BillingName  string        `json:"billing_name"`
	LoginURL     string        `json:"login_url"`
	CreatedAt    string        `json:"created_at"`
	UpdatedAt    string        `json:"updated_at"`
	Emails       []string      `json:"emails"`
	PhoneNumbers []string      `json:"phone_numbers"`
	Addresses    []addressWire `json:"addresses"`
}

func (wf wireFormat) website(w *Website) websiteWire {
	var addrs []addressWire
	for _, a := range w.Addresses {
		addrs = append(addrs, addressWire(a))
	}
	return websiteWire{
		ID:           w.ID,
		Name:         w.Name,
		URL:          w.URL,
		BillingName:  w.BillingName,
		LoginURL:     w.LoginURL,
		CreatedAt:    wf.time(w.CreatedAt),
		UpdatedAt:    wf.time(w.UpdatedAt),
		Emails:       emptyAsNull(wf, w.Emails),
		PhoneNumbers: emptyAsNull(wf, w.PhoneNumbers),
		Addresses:    emptyAsNull(wf, addrs),
	}
}

// GET /websites?url=: one website, as an object; a URL no website is
// registered as is answered success with {"website": null}, as the real
// server answers it (W1), not 404.
func getWebsite(c *call) error {
	f := c.f
	wf := f.wire(false)
	out, err := locked(f, func() (any, error) {
		w, err := f.websiteParam(c)
		if err != nil {
			return nil, err
		}
		if w == nil {
			return map[string]any{"website": nil}, nil
		}
		return wf.website(w), nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{})
}
