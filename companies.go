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
// shape; the fields known from the provider's own clients are typed and
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

// UnmarshalJSON decodes the known fields and keeps the whole record in Raw.
func (c *Company) UnmarshalJSON(data []byte) error {
	return decodeRecord[companyWire](data, c, &c.Raw)
}

// companyWire is a company as the API writes it. It embeds the company
// without its UnmarshalJSON, which would otherwise be its own.
type companyWire struct {
	plainCompany
	CreatedAt Time `json:"created_at"`
	UpdatedAt Time `json:"updated_at"`
}

type plainCompany Company

func (w companyWire) record() Company {
	c := Company(w.plainCompany)
	c.CreatedAt, c.UpdatedAt = w.CreatedAt.Time, w.UpdatedAt.Time
	return c
}

// List returns every company of the account. GET /companies.
func (s *CompaniesClient) List(ctx context.Context) ([]Company, error) {
	return call[[]Company](ctx, s.c, routeCompaniesList.at(), nil, nil)
}

// CompanyCreateParams describes a company to add with
// CompaniesClient.Create. Name is required; zero values are not sent.
type CompanyCreateParams struct {
	Name string `json:"name"`
	// HomeState, a jurisdiction name, sets the domestic registration.
	// The full name ("Utah") and the two-letter abbreviation ("UT") both
	// work.
	HomeState  string `json:"home_state,omitempty"`
	EntityType string `json:"entity_type,omitempty"`
}

// Create adds one or more companies in one request and returns the
// companies just added (a name the account already has may be left out
// of the answer). Each company needs a name. It is sent at most once: a
// failure after the request may have arrived is ErrOutcomeUnknown, and
// List shows whether the companies were added. POST /companies.
func (s *CompaniesClient) Create(ctx context.Context, companies ...CompanyCreateParams) ([]Company, error) {
	if len(companies) == 0 {
		return nil, invalid("companies", "give at least one company")
	}
	for i, c := range companies {
		if err := checkRequired(fmt.Sprintf("companies[%d].name", i), c.Name); err != nil {
			return nil, err
		}
	}
	body := struct {
		Companies []CompanyCreateParams `json:"companies"`
	}{companies}
	return call[[]Company](ctx, s.c, routeCompaniesCreate.at(), nil, body)
}

// CompanyUpdateParams describes a change to one company with
// CompaniesClient.Update: exactly one of Company (its current name) and
// CompanyID says which, and at least one of Name, EntityType and HomeState
// says what changes. Zero values are not sent.
type CompanyUpdateParams struct {
	// Company is the current name of the company to change.
	Company string
	// CompanyID is the id of the company to change.
	CompanyID uuid.UUID
	// Name is the company's new name.
	Name string
	// EntityType is the company's new entity type.
	EntityType string
	// HomeState, a jurisdiction name, is the new domestic registration.
	// The full name ("Utah") and the two-letter abbreviation ("UT") both
	// work.
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

// Update changes one or more companies in one request.
//
// The API does not document its answer. When the result is an array, it is
// read as the changed companies; when it is a single company (an object
// with an "id") or an object {"companies": [...]}, as those; any other
// result (a message, true, null) means the API sent no companies, and
// Update returns a nil slice and no error. It is sent at most once: a
// failure after the request may have arrived is ErrOutcomeUnknown, and
// List shows whether the companies were changed. PATCH /companies.
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
	body := struct {
		Companies []companyUpdate `json:"companies"`
	}{items}
	changed, err := call[companyUpdateAnswer](ctx, s.c, routeCompaniesUpdate.at(), nil, body)
	return []Company(changed), err
}

// companyUpdateAnswer reads the undocumented result of PATCH /companies
// as Update describes.
type companyUpdateAnswer []Company

func (a *companyUpdateAnswer) UnmarshalJSON(data []byte) error {
	var list []Company
	if len(data) == 0 {
		*a = nil
		return nil
	}
	switch data[0] {
	case '[':
		if err := json.Unmarshal(data, &list); err != nil {
			return err
		}
	case '{':
		var probe struct {
			ID        json.RawMessage `json:"id"`
			Companies json.RawMessage `json:"companies"`
		}
		if err := json.Unmarshal(data, &probe); err != nil {
			return err
		}
		if probe.ID != nil {
			var c Company
			if err := json.Unmarshal(data, &c); err != nil {
				return err
			}
			list = []Company{c}
		} else if len(probe.Companies) > 0 && probe.Companies[0] == '[' {
			if err := json.Unmarshal(probe.Companies, &list); err != nil {
				return err
			}
		}
	}
	*a = list
	return nil
}

// Get returns the company id. GET /companies/:id.
func (s *CompaniesClient) Get(ctx context.Context, id uuid.UUID) (*Company, error) {
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	return one(call[Company](ctx, s.c, routeCompaniesGet.at(id.String()), nil, nil))
}
