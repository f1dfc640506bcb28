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
	ID           uuid.UUID `json:"id"`
	Name         string    `json:"name"` // the company that owns the website
	URL          string    `json:"url"`
	BillingName  string    `json:"billing_name"`
	LoginURL     string    `json:"login_url"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
	Emails       []string  `json:"emails"`
	PhoneNumbers []string  `json:"phone_numbers"`
	Addresses    []Address `json:"addresses"`
}

// UnmarshalJSON reads a website in every shape the API writes it.
func (w *Website) UnmarshalJSON(data []byte) error {
	type fields Website
	aux := struct {
		*fields
		CreatedAt Time `json:"created_at"`
		UpdatedAt Time `json:"updated_at"`
	}{fields: (*fields)(w)}
	*w = Website{}
	err := readRecord(data, &aux)
	w.CreatedAt, w.UpdatedAt = aux.CreatedAt.Time, aux.UpdatedAt.Time
	return err
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
	q := new(query).str("url", websiteURL)
	return sendOne[Website](ctx, s.c, checkRequired("url", websiteURL), routeWebsitesGet.at(), q, nil)
}
