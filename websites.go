package acctadmin

import (
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// WebsitesClient reads the contact and billing information of the
// websites associated with the account.
type WebsitesClient service

// routeWebsitesGet is the route of websites.
var routeWebsitesGet = declare(http.MethodGet, "/websites", "Websites.Get")

// Website is the contact and billing information of a website.
// GET /websites.
type Website struct {
	ID uuid.UUID `json:"id"`
	// Name is the name of the company that owns the website.
	Name         string    `json:"name"`
	URL          string    `json:"url"`
	BillingName  string    `json:"billing_name"`
	LoginURL     string    `json:"login_url"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
	Emails       []string  `json:"emails"`
	PhoneNumbers []string  `json:"phone_numbers"`
	Addresses    []Address `json:"addresses"`
}

// websiteWire is a website as the API writes it.
// It embeds the website without its UnmarshalJSON.
type websiteWire struct {
	plainWebsite
	CreatedAt Time `json:"created_at"`
	UpdatedAt Time `json:"updated_at"`
}

type plainWebsite Website

// UnmarshalJSON reads a website in any shape the API writes it.
func (w *Website) UnmarshalJSON(data []byte) error { return decodeWire[websiteWire](data, w) }

func (w websiteWire) record() Website {
	site := Website(w.plainWebsite)
	site.CreatedAt, site.UpdatedAt = w.CreatedAt.Time, w.UpdatedAt.Time
	return site
}

// Address is a postal address of a website. GET /websites.
type Address struct {
	Line1   string `json:"line_1"`
	Line2   string `json:"line_2"`
	City    string `json:"city"`
	State   string `json:"state"`
	ZipCode string `json:"zip_code"`
	Country string `json:"country"`
}

// Get returns the website whose full URL is websiteURL (required).
// GET /websites.
func (s *WebsitesClient) Get(ctx context.Context, websiteURL string) (*Website, error) {
	if err := checkRequired("url", websiteURL); err != nil {
		return nil, err
	}
	q := &query{}
	q.str("url", websiteURL)
	return fromWire(call[websiteWire](ctx, s.c, routeWebsitesGet.at(), q, nil))
}
