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

// Company is a company of the account. The API does not document its
// shape: the fields known from the provider's own clients are typed, and
// the whole record is kept in Raw. GET /companies.
type Company struct {
	ID   uuid.UUID `json:"id"`
	Name string    `json:"name"`
	// HomeState is the jurisdiction of the company's domestic
	// registration, or "" when none is set.
	HomeState  string    `json:"home_state"`
	EntityType string    `json:"entity_type"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
	// Raw is the record exactly as the API sent it.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON reads a company as the API writes it, into Raw too.
func (c *Company) UnmarshalJSON(data []byte) error { return decodeRecord(data, c) }

// List returns every company of the account. GET /companies.
func (s *CompaniesClient) List(ctx context.Context) ([]Company, error) {
	return request[[]Company](ctx, s.c, routeCompaniesList.at(), nil, nil)
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

// Create adds companies (each needs a name) in one request and returns
// those just added (one whose name the account has may be left out). It
// is sent at most once: a failure after the request may have arrived is
// ErrOutcomeUnknown, and Companies.List shows whether the companies were
// added. POST /companies.
func (s *CompaniesClient) Create(ctx context.Context, companies ...CompanyCreateParams) ([]Company, error) {
	if len(companies) == 0 {
		return nil, invalid("companies", "give at least one company")
	}
	for i, c := range companies {
		if err := checkRequired(fmt.Sprintf("companies[%d].name", i), c.Name); err != nil {
			return nil, err
		}
	}
	body := map[string][]CompanyCreateParams{"companies": companies}
	return request[[]Company](ctx, s.c, routeCompaniesCreate.at(), nil, body)
}

// CompanyUpdateParams is a change to one company with
// CompaniesClient.Update: exactly one of Company (its current name) and
// CompanyID says which, and at least one of Name, EntityType and HomeState
// what changes. Zero values are not sent.
type CompanyUpdateParams struct {
	Company    string
	CompanyID  uuid.UUID
	Name       string // the new name
	EntityType string
	// HomeState, a jurisdiction's name ("Utah") or abbreviation ("UT"), is
	// the new domestic registration.
	HomeState string
}

// companyUpdate is a CompanyUpdateParams as PATCH /companies takes it.
type companyUpdate struct {
	Company    string     `json:"company,omitempty"`
	CompanyID  *uuid.UUID `json:"company_id,omitempty"`
	Name       string     `json:"name,omitempty"`
	EntityType string     `json:"entity_type,omitempty"`
	HomeState  string     `json:"home_state,omitempty"`
}

// Update changes companies in one request and returns the changed ones
// the answer holds: its result read as a list of companies, one company
// (an object with an "id"), or {"companies": [...]}; any other result
// gives none and no error. It is sent at most once: a failure after the
// request may have arrived is ErrOutcomeUnknown, and Companies.List shows
// whether the companies were changed. PATCH /companies.
func (s *CompaniesClient) Update(ctx context.Context, updates ...CompanyUpdateParams) ([]Company, error) {
	if len(updates) == 0 {
		return nil, invalid("companies", "give at least one company")
	}
	items := make([]companyUpdate, len(updates))
	for i, u := range updates {
		field := fmt.Sprintf("companies[%d].", i)
		if err := checkOne(field+"company", u.Company != "", field+"company_id", u.CompanyID != uuid.Nil); err != nil {
			return nil, err
		}
		if u.Name == "" && u.EntityType == "" && u.HomeState == "" {
			return nil, invalid(field+"name", "nothing to change: give name, entity_type or home_state")
		}
		items[i] = companyUpdate{u.Company, optID(u.CompanyID), u.Name, u.EntityType, u.HomeState}
	}
	body := map[string][]companyUpdate{"companies": items}
	changed, err := request[companyUpdateAnswer](ctx, s.c, routeCompaniesUpdate.at(), nil, body)
	return []Company(changed), err
}

// companyUpdateAnswer reads the undocumented result of PATCH /companies
// as Update says.
type companyUpdateAnswer []Company

func (a *companyUpdateAnswer) UnmarshalJSON(data []byte) error {
	*a = nil
	if len(data) > 0 && data[0] == '[' {
		return json.Unmarshal(data, (*[]Company)(a))
	}
	var probe struct{ ID, Companies json.RawMessage }
	if len(data) == 0 || data[0] != '{' {
		return nil
	} else if err := json.Unmarshal(data, &probe); err != nil {
		return err
	}
	switch {
	case probe.ID != nil:
		return json.Unmarshal(data, (*recordsOrOne[Company])(a))
	case len(probe.Companies) > 0 && probe.Companies[0] == '[':
		return json.Unmarshal(probe.Companies, (*[]Company)(a))
	}
	return nil
}

// Get returns the company id. GET /companies/:id.
func (s *CompaniesClient) Get(ctx context.Context, id uuid.UUID) (*Company, error) {
	return getByID[Company](ctx, s.c, routeCompaniesGet, id)
}
