package acctadmin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// CompaniesClient reads, adds and changes the account's companies.
type CompaniesClient service

var (
	routeCompaniesList   = declare(http.MethodGet, "/companies", "Companies.List")
	routeCompaniesGet    = declare(http.MethodGet, "/companies/{id}", "Companies.Get")
	routeCompaniesCreate = declareOnce(http.MethodPost, "/companies", "Companies.Create",
		"Companies.List shows whether the companies were added")
	routeCompaniesUpdate = declareOnce(http.MethodPatch, "/companies", "Companies.Update",
		"Companies.List shows whether the companies were changed")
)

// Company is a company of the account.
type Company struct {
	ID            uuid.UUID       `json:"id"`
	Name          string          `json:"name"`
	HomeState     string          `json:"home_state"` // of its domestic registration, if any
	EntityType    string          `json:"entity_type"`
	Jurisdictions []string        `json:"jurisdictions"` // where it is registered, if the API says
	CreatedAt     time.Time       `json:"created_at"`
	UpdatedAt     time.Time       `json:"updated_at"`
	Raw           json.RawMessage `json:"-"` // the record exactly as the API sent it
}

// UnmarshalJSON reads a company as the API writes it, into Raw too.
func (c *Company) UnmarshalJSON(data []byte) error {
	type fields Company
	w := struct {
		*fields
		Jurisdictions jurisdictionNames `json:"jurisdictions"`
		CreatedAt     Time              `json:"created_at"`
		UpdatedAt     Time              `json:"updated_at"`
	}{fields: (*fields)(c)}
	*c = Company{}
	err := readRecord(data, &w)
	c.Jurisdictions, c.CreatedAt, c.UpdatedAt, c.Raw = w.Jurisdictions, w.CreatedAt.Time, w.UpdatedAt.Time, keepRaw(data)
	return err
}

// CompanyListParams pages and filters GET /companies (at most 100 a page);
// Names keeps the companies of those names.
type CompanyListParams struct {
	Limit, Offset int
	Names         []string
}

func (p *CompanyListParams) validate() error              { return checkPage(p.Limit, 100, p.Offset) }
func (p *CompanyListParams) paging() (limit, offset *int) { return &p.Limit, &p.Offset }

// List returns the account's companies: without p, what the API answers
// unasked (maybe a first page); with p, the page it asks for. GET /companies.
func (s *CompaniesClient) List(ctx context.Context, p ...*CompanyListParams) ([]Company, error) {
	params := orZero(append(p, nil)[0])
	if err := firstErr(checkThat(len(p) <= 1, "p", fmt.Sprintf("give at most one params struct, got %d", len(p))),
		params.validate()); err != nil {
		return nil, err
	}
	q := new(query).int("limit", params.Limit).int("offset", params.Offset).strs("names", params.Names)
	var page []Company
	if err := s.c.json(ctx, routeCompaniesList.at(), q, nil, &page); err != nil {
		return nil, err
	}
	return page, nil
}

// All returns every company (100 a page by default). GET /companies.
func (s *CompaniesClient) All(ctx context.Context, p *CompanyListParams) iter.Seq2[Company, error] {
	list := func(ctx context.Context, p *CompanyListParams) ([]Company, error) { return s.List(ctx, p) }
	return paginate(ctx, listingOf(p, 100, list, func(v Company) uuid.UUID { return v.ID }))
}

// CompanyCreateParams describes a company to add: Name is required.
type CompanyCreateParams struct {
	Name                 string   `json:"name"`
	HomeState            string   `json:"home_state,omitempty"` // the domestic registration, "Utah" or "UT"
	EntityType           string   `json:"entity_type,omitempty"`
	Jurisdictions        []string `json:"jurisdictions,omitempty"` // what older clients send instead of HomeState
	DuplicateNameAllowed bool     `json:"-"`                       // allows names the account has; one call's companies agree on it
}

// Create adds companies and returns those added. Sent at most once (see
// the package doc). POST /companies.
func (s *CompaniesClient) Create(ctx context.Context, companies ...CompanyCreateParams) ([]Company, error) {
	body, err := companiesBody(companies, func(f string, c *CompanyCreateParams) (bool, error) {
		return c.DuplicateNameAllowed, checkRequired(f+"name", c.Name)
	})
	if err != nil {
		return nil, err
	}
	var added []Company
	if err := s.c.json(ctx, routeCompaniesCreate.at(), nil, body, &added); err != nil {
		return nil, err
	}
	return added, nil
}

// CompanyUpdateParams changes one company, named by exactly one of Company
// and CompanyID: at least one of Name, EntityType, HomeState, Jurisdictions.
type CompanyUpdateParams struct {
	Company              string    `json:"company,omitempty"` // its current name
	CompanyID            uuid.UUID `json:"company_id,omitempty"`
	Name                 string    `json:"name,omitempty"` // the new name
	EntityType           string    `json:"entity_type,omitempty"`
	HomeState            string    `json:"home_state,omitempty"`    // the new domestic registration, "Utah" or "UT"
	Jurisdictions        []string  `json:"jurisdictions,omitempty"` // the new list
	DuplicateNameAllowed bool      `json:"-"`                       // as in CompanyCreateParams
}

// Update changes companies and returns those the answer holds. Sent at
// most once (see the package doc). PATCH /companies.
func (s *CompaniesClient) Update(ctx context.Context, updates ...CompanyUpdateParams) ([]Company, error) {
	body, err := companiesBody(updates, func(f string, u *CompanyUpdateParams) (bool, error) {
		some := u.Name != "" || u.EntityType != "" || u.HomeState != "" || len(u.Jurisdictions) > 0
		return u.DuplicateNameAllowed, firstErr(checkOne(f+"company", u.Company != "", f+"company_id", u.CompanyID != uuid.Nil),
			checkThat(some, f+"name", "nothing to change: give name, entity_type, home_state or jurisdictions"))
	})
	if err != nil {
		return nil, err
	}
	var changed companyList
	if err := s.c.json(ctx, routeCompaniesUpdate.at(), nil, body, &changed); err != nil {
		return nil, err
	}
	return []Company(changed), nil
}

// companyList is the answer of PATCH /companies: a list, one (with an
// "id"), or an object with the list under "companies"; else none.
type companyList []Company

func (l *companyList) UnmarshalJSON(data []byte) error {
	var held struct {
		ID        json.RawMessage `json:"id"`
		Companies json.RawMessage `json:"companies"`
	}
	if json.Unmarshal(data, &held) == nil && held.ID == nil {
		data = nil
		if bytes.HasPrefix(held.Companies, []byte("[")) {
			data = held.Companies
		}
	}
	return listOrOne(data, (*[]Company)(l))
}

// Get returns the company id. GET /companies/:id.
func (s *CompaniesClient) Get(ctx context.Context, id uuid.UUID) (*Company, error) {
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	var co Company
	if err := s.c.json(ctx, routeCompaniesGet.at(id.String()), nil, nil, &co); err != nil {
		return nil, err
	}
	return &co, nil
}
