package acctadmintest

import (
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Callback is a registered endpoint that receives the account's events.
type Callback struct {
	ID        uuid.UUID
	CreatedAt time.Time
	URL       string
}

// AddCallback registers a callback URL, as POST /callbacks does, and
// returns it. It panics when the URL is not an absolute http or https URL.
func (f *Fake) AddCallback(rawURL string) Callback {
	if !validCallbackURL(rawURL) {
		panic("acctadmintest: AddCallback: not an absolute http or https URL: " + rawURL)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return *f.insertCallback(rawURL)
}

// insertCallback stores a callback; f.mu must be held.
func (f *Fake) insertCallback(rawURL string) *Callback {
	cb := &Callback{ID: f.newID(), CreatedAt: f.now(), URL: rawURL}
	f.st.callbacks.insert(cb)
	return cb
}

// Callbacks returns the registered callbacks, oldest first.
func (f *Fake) Callbacks() []Callback {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.callbacks.copies()
}

func validCallbackURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	return scheme == "http" || scheme == "https"
}

type callbackWire struct {
	ID        uuid.UUID `json:"id"`
	CreatedAt string    `json:"created_at"`
	URL       string    `json:"url"`
}

func (wf wireFormat) callback(cb *Callback) callbackWire {
	return callbackWire{ID: cb.ID, CreatedAt: wf.time(cb.CreatedAt), URL: cb.URL}
}

// GET /callbacks: every callback, oldest first.
func listCallbacks(c *call) error {
	f := c.f
	wf := f.wire(false)
	out, _ := locked(f, func() ([]callbackWire, error) {
		return mapRows(f.st.callbacks.rows, wf.callback), nil
	})
	return c.ok(out, answer{})
}

type callbackCreateBody struct {
	URL *string `json:"url"`
}

// POST /callbacks: registers url (required; an absolute http or https
// URL). Registering a URL again makes another callback, as nothing says
// the API refuses it.
func createCallback(c *call) error {
	var body callbackCreateBody
	if err := c.decodeBody(&body); err != nil {
		return err
	}
	u := deref(body.URL)
	if u == "" {
		return invalid("url", "is required")
	}
	if !validCallbackURL(u) {
		return invalid("url", "must be an absolute http or https URL")
	}
	f := c.f
	wf := f.wire(false)
	out, _ := locked(f, func() (callbackWire, error) {
		cb := f.insertCallback(u)
		f.recordWrite(c, []uuid.UUID{cb.ID})
		return wf.callback(cb), nil
	})
	return c.ok(out, answer{})
}

// DELETE /callbacks/:id: answers {"id": ...} of the deleted callback.
func deleteCallback(c *call) error {
	id, err := c.pathID("callback")
	if err != nil {
		return err
	}
	f := c.f
	_, err = locked(f, func() (struct{}, error) {
		if !f.st.callbacks.remove(id) {
			return struct{}{}, notFound("callback")
		}
		f.recordWrite(c, nil)
		return struct{}{}, nil
	})
	if err != nil {
		return err
	}
	return c.ok(map[string]uuid.UUID{"id": id}, answer{})
}
