package acctadmin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// CompaniesClient reads, adds and changes the account's companies.
type CompaniesClient service

// The routes of companies.
var (
	routeCompaniesList   = declare(http.MethodGet, "/companies", "Companies.List")
	routeCompaniesGet    = declare(http.MethodGet, "/companies/{id}", "Companies.Get")
	routeCompaniesCreate = declareOnce(http.MethodPost, "/companies", "Companies.Create",
		"Companies.List shows whether the companies were added")
	routeCompaniesUpdate = declareOnce(http.MethodPatch, "/companies", "Companies.Update",
		"Companies.List shows whether the companies were changed")
)

// Company is a company of the account: the fields known from the
// provider's clients are typed (the shape is undocumented), and the whole
// is in Raw.
type Company struct {
	ID         uuid.UUID       `json:"id"`
	Name       string          `json:"name"`
	HomeState  string          `json:"home_state"` // of its domestic registration, if any
	EntityType string          `json:"entity_type"`
	CreatedAt  time.Time       `json:"created_at"`
	UpdatedAt  time.Time       `json:"updated_at"`
	Raw        json.RawMessage `json:"-"` // the record exactly as the API sent it
}

// UnmarshalJSON reads a company as the API writes it, into Raw too.
func (c *Company) UnmarshalJSON(data []byte) error { return decodeRecord(data, c) }

// List returns every company of the account. GET /companies.
func (s *CompaniesClient) List(ctx context.Context) ([]Company, error) {
	return call[[]Company](ctx, s.c, routeCompaniesList.at(), nil, nil)
}

// CompanyCreateParams describes a company to add with
// CompaniesClient.Create. Name is required; zero values are not sent.
type CompanyCreateParams struct {
	Name string `json:"name"`
	// HomeState, a jurisdiction's name ("Utah") or abbreviation ("UT"),
	// sets the domestic registration.
	HomeState  string `json:"home_state,omitempty"`
	EntityType string `json:"entity_type,omitempty"`
}

// Create adds companies (each needs a name) and returns those added. Sent
// at most once; after ErrOutcomeUnknown, Companies.List shows whether the
// companies were added. POST /companies.
func (s *CompaniesClient) Create(ctx context.Context, companies ...CompanyCreateParams) ([]Company, error) {
	check := checkNotEmpty("companies", len(companies))
	for i, c := range companies {
		check = firstErr(check, checkRequired(fmt.Sprintf("companies[%d].name", i), c.Name))
	}
	body := map[string][]CompanyCreateParams{"companies": companies}
	return send[[]Company](ctx, s.c, check, routeCompaniesCreate.at(), nil, body)
}

// CompanyUpdateParams changes one company: exactly one of Company (its
// current name) and CompanyID says which, and at least one of Name,
// EntityType and HomeState what changes. Zero values are not sent.
type CompanyUpdateParams struct {
	Company    string    `json:"company,omitempty"`
	CompanyID  uuid.UUID `json:"company_id,omitempty"`
	Name       string    `json:"name,omitempty"` // the new name
	EntityType string    `json:"entity_type,omitempty"`
	// HomeState, a jurisdiction's name ("Utah") or abbreviation ("UT"), is
	// the new domestic registration.
	HomeState string `json:"home_state,omitempty"`
}

// Update changes companies and returns those the answer holds (a list, one
// object with an "id", or {"companies": [...]}; else none). Sent at most
// once; after ErrOutcomeUnknown, Companies.List shows whether the
// companies were changed. PATCH /companies.
func (s *CompaniesClient) Update(ctx context.Context, updates ...CompanyUpdateParams) ([]Company, error) {
	if err := checkNotEmpty("companies", len(updates)); err != nil {
		return nil, err
	}
	items := make([]bodyOf, len(updates))
	for i, u := range updates {
		field := fmt.Sprintf("companies[%d].", i)
		if err := checkOne(field+"company", u.Company != "", field+"company_id", u.CompanyID != uuid.Nil); err != nil {
			return nil, err
		}
		if u.Name == "" && u.EntityType == "" && u.HomeState == "" {
			return nil, invalid(field+"name", "nothing to change: give name, entity_type or home_state")
		}
		items[i] = bodyOf{&updates[i]}
	}
	body := map[string][]bodyOf{"companies": items}
	changed, err := call[recordsAnyhow[Company, companiesKey]](ctx, s.c, routeCompaniesUpdate.at(), nil, body)
	return []Company(changed), err
}

// companiesKey names the list of PATCH /companies's answer.
type companiesKey struct{}

func (companiesKey) key() string { return "companies" }

// Get returns the company id. GET /companies/:id.
func (s *CompaniesClient) Get(ctx context.Context, id uuid.UUID) (*Company, error) {
	return getByID[Company](ctx, s.c, routeCompaniesGet, id)
}
