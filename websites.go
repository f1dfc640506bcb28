package acctadmin

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// WebsitesClient reads the account's websites.
type WebsitesClient service

var routeWebsitesGet = declare(http.MethodGet, "/websites", "Websites.Get")

// Website is the contact and billing information of a website.
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

// UnmarshalJSON reads a website, flat or nested under "website".
func (w *Website) UnmarshalJSON(data []byte) error {
	type fields Website
	aux := struct {
		*fields
		CreatedAt Time `json:"created_at"`
		UpdatedAt Time `json:"updated_at"`
	}{fields: (*fields)(w)}
	*w = Website{}
	err := readRecord(unwrapped(data, "website"), &aux)
	w.CreatedAt, w.UpdatedAt = aux.CreatedAt.Time, aux.UpdatedAt.Time
	return err
}

// Address is a postal address: a website's, or a registered agent's (read
// from line1, line2, state_province_region and zip_postal_code).
type Address struct {
	Line1   string `json:"line_1"`
	Line2   string `json:"line_2"`
	City    string `json:"city"`
	State   string `json:"state"`
	ZipCode string `json:"zip_code"`
	Country string `json:"country"`
}

// UnmarshalJSON reads an address in either of its shapes; where both
// give a field, the website's key wins.
func (a *Address) UnmarshalJSON(data []byte) error {
	type fields Address
	aux := struct {
		*fields
		Line1  string `json:"line1"`
		Line2  string `json:"line2"`
		Region string `json:"state_province_region"`
		Zip    string `json:"zip_postal_code"`
	}{fields: (*fields)(a)}
	*a = Address{}
	err := readRecord(data, &aux)
	a.Line1, a.Line2 = cmp.Or(a.Line1, aux.Line1), cmp.Or(a.Line2, aux.Line2)
	a.State, a.ZipCode = cmp.Or(a.State, aux.Region), cmp.Or(a.ZipCode, aux.Zip)
	return err
}

// Get returns the website registered as websiteURL, matched as the text
// registered, scheme and all. None is an *APIError of ErrNotFound (status
// 404, though the API answered 200 with {"website": null}). GET /websites.
func (s *WebsitesClient) Get(ctx context.Context, websiteURL string) (*Website, error) {
	if err := checkRequired("url", websiteURL); err != nil {
		return nil, err
	}
	var w Website
	if err := s.c.json(ctx, routeWebsitesGet.at(), new(query).str("url", websiteURL), nil, &w); err != nil {
		return nil, err
	}
	return &w, nil
}

// absent says that an answer holds no website: null or {"website": null}.
func (*Website) absent(null bool, body []byte) string {
	var env struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if null || json.Unmarshal(body, &env) == nil && env.Result["id"] == nil && string(env.Result["website"]) == "null" {
		return "no website is registered as this url: it must match the registered text exactly, scheme and all"
	}
	return ""
}
