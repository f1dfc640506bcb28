package acctadmin

import (
	"context"
	"net/http"

	"github.com/google/uuid"
)

// WebsitesClient reads the contact and billing information of the
// websites associated with the account.
type WebsitesClient service

// Website is the contact and billing information of a website.
// GET /websites.
type Website struct {
	ID uuid.UUID `json:"id"`
	// Name is the name of the company that owns the website.
	Name         string    `json:"name"`
	URL          string    `json:"url"`
	BillingName  string    `json:"billing_name"`
	LoginURL     string    `json:"login_url"`
	CreatedAt    Time      `json:"created_at"`
	UpdatedAt    Time      `json:"updated_at"`
	Emails       []string  `json:"emails"`
	PhoneNumbers []string  `json:"phone_numbers"`
	Addresses    []Address `json:"addresses"`
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
	w, err := request[Website](ctx, s.c, http.MethodGet, "/websites", q, nil)
	if err != nil {
		return nil, err
	}
	return &w, nil
}
