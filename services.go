package acctadmin

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// ServicesClient reads and orders a company's services in jurisdictions.
type ServicesClient service

var (
	routeServicesList   = declare(http.MethodGet, "/services", "Services.List")
	routeServicesCreate = declareOnce(http.MethodPost, "/services", "Services.Create",
		"Services.List shows whether the services were ordered")
	routeServicesInfo    = declare(http.MethodGet, "/services/{id}/info", "Services.Info")
	routeServicesAddInfo = declareOnce(http.MethodPost, "/services/{id}/info", "Services.AddInfo",
		"Services.Info shows what the service holds")
	routeServicesCancel = declareOnce(http.MethodPost, "/services/{id}/cancel-request", "Services.RequestCancellation",
		"Services.List shows whether the service is cancel-requested")
)

// ServiceStatus is the state of a service.
type ServiceStatus string

// The service states the API documents.
const (
	ServiceActive              ServiceStatus = "active"
	ServiceCancelled           ServiceStatus = "cancelled"
	ServiceAwaitingClientInput ServiceStatus = "awaiting-client-input"
	ServiceCancelRequested     ServiceStatus = "cancel-requested"
)

// Service is a subscription of a company in a jurisdiction.
type Service struct {
	ID              uuid.UUID        `json:"id"`
	CreatedAt       time.Time        `json:"created_at"`
	UpdatedAt       time.Time        `json:"updated_at"`
	Status          ServiceStatus    `json:"status"`
	Type            string           `json:"type"`
	Jurisdiction    string           `json:"jurisdiction"`
	JurisdictionID  uuid.UUID        `json:"jurisdiction_id"`
	Company         string           `json:"company"`
	CompanyID       uuid.UUID        `json:"company_id"`
	RegisteredAgent *RegisteredAgent `json:"registered_agent"` // nil when the answer does not say
}

// RegisteredAgent is the registered agent of a service, and its address.
type RegisteredAgent struct {
	Name    string  `json:"name"`
	Address Address `json:"address"`
}

// UnmarshalJSON reads a service in every shape the API writes it.
func (s *Service) UnmarshalJSON(data []byte) error {
	type fields Service
	w := struct {
		*fields
		CreatedAt Time `json:"created_at"`
		UpdatedAt Time `json:"updated_at"`
	}{fields: (*fields)(s)}
	*s = Service{}
	err := readRecord(data, &w)
	s.CreatedAt, s.UpdatedAt = w.CreatedAt.Time, w.UpdatedAt.Time
	return err
}

// ServiceListParams filters GET /services.
type ServiceListParams struct {
	Limit, Offset int    // page size (API default 50, at most 100), services to skip
	Company       string // a company's name; give it or CompanyID, not both
	CompanyID     uuid.UUID
}

func (p *ServiceListParams) validate() error {
	return firstErr(checkPage(p.Limit, 100, p.Offset),
		checkNotBoth("company", p.Company != "", "company_id", p.CompanyID != uuid.Nil))
}

func (p *ServiceListParams) paging() (limit, offset *int) { return &p.Limit, &p.Offset }

// List returns one page of the account's services. GET /services.
func (s *ServicesClient) List(ctx context.Context, p *ServiceListParams) ([]Service, error) {
	p = orZero(p)
	if err := p.validate(); err != nil {
		return nil, err
	}
	q := new(query).int("limit", p.Limit).int("offset", p.Offset).str("company", p.Company).id("company_id", p.CompanyID)
	var page []Service
	if err := s.c.json(ctx, routeServicesList.at(), q, nil, &page); err != nil {
		return nil, err
	}
	return page, nil
}

// All returns every service (100 a page by default). GET /services.
func (s *ServicesClient) All(ctx context.Context, p *ServiceListParams) iter.Seq2[Service, error] {
	return paginate(ctx, listingOf(p, 100, s.List, func(v Service) uuid.UUID { return v.ID }))
}

// ServiceCreateParams orders services: exactly one of Company and
// CompanyID, and exactly one of Jurisdictions and JurisdictionIDs.
type ServiceCreateParams struct {
	Company         string      `json:"company,omitempty"`
	CompanyID       uuid.UUID   `json:"company_id,omitempty"`
	Jurisdictions   []string    `json:"jurisdictions,omitempty"`
	JurisdictionIDs []uuid.UUID `json:"jurisdiction_ids,omitempty"`
}

// Create orders services for a company in one or more jurisdictions and
// returns them. Sent at most once (see the package doc). POST /services.
func (s *ServicesClient) Create(ctx context.Context, p *ServiceCreateParams) ([]Service, error) {
	p = orZero(p)
	if err := firstErr(checkOne("company", p.Company != "", "company_id", p.CompanyID != uuid.Nil),
		checkOne("jurisdictions", len(p.Jurisdictions) > 0, "jurisdiction_ids", len(p.JurisdictionIDs) > 0),
		checkIDs("jurisdiction_ids", p.JurisdictionIDs)); err != nil {
		return nil, err
	}
	var created []Service
	if err := s.c.json(ctx, routeServicesCreate.at(), nil, bodyOf{p}, &created); err != nil {
		return nil, err
	}
	return created, nil
}

// RequestCancellation asks for the service id to be cancelled and returns
// it; unpaid invoices give an *UnpaidInvoicesError. Sent at most once (see
// the package doc). POST /services/:id/cancel-request.
func (s *ServicesClient) RequestCancellation(ctx context.Context, id uuid.UUID) (*Service, error) {
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	var svc Service
	if err := s.c.json(ctx, routeServicesCancel.at(id.String()), nil, nil, &svc); err != nil {
		var apiErr *APIError
		if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusBadRequest {
			if invoices, ok := unpaidInvoices(apiErr.Body); ok {
				err = &UnpaidInvoicesError{Invoices: invoices, Err: apiErr}
			}
		}
		return nil, err
	}
	return &svc, nil
}

// ServiceInfo is what a service holds: its contact person and the officers
// (of the matching Role) a corporation's service needs.
type ServiceInfo struct {
	ContactPerson *ServiceContact  `json:"contact_person,omitempty"`
	Directors     []ServiceOfficer `json:"official.director,omitempty"`
	Presidents    []ServiceOfficer `json:"official.president,omitempty"`
	Secretaries   []ServiceOfficer `json:"official.secretary,omitempty"`
	Treasurers    []ServiceOfficer `json:"official.treasurer,omitempty"`
	Status        ServiceStatus    `json:"-"` // when the answer says (read only)
	Raw           json.RawMessage  `json:"-"` // the record as the API sent it (read only)
}

// ServiceContact is the contact person of a service.
type ServiceContact struct {
	Title     string         `json:"title,omitempty"`
	FirstName string         `json:"first_name,omitempty"`
	LastName  string         `json:"last_name,omitempty"`
	Phone     string         `json:"phone,omitempty"`
	Email     string         `json:"email,omitempty"`
	Address   ServiceAddress `json:"address"`
}

// ServiceOfficer is an officer of a company, as a service records it.
type ServiceOfficer struct {
	Role      string         `json:"role,omitempty"` // "Director", "President", …
	FirstName string         `json:"first_name,omitempty"`
	LastName  string         `json:"last_name,omitempty"`
	Address   ServiceAddress `json:"address"`
}

// ServiceAddress is an address in the shape the service routes use.
type ServiceAddress struct {
	Line1               string `json:"line_1,omitempty"`
	Line2               string `json:"line_2,omitempty"`
	City                string `json:"city,omitempty"`
	Country             string `json:"country,omitempty"`
	ZipPostalCode       string `json:"zip_postal_code,omitempty"`
	StateProvinceRegion string `json:"state_province_region,omitempty"`
}

// UnmarshalJSON reads the record's "service_info" (as the API answers) or
// "info" object, or the record itself, and keeps the record in Raw.
func (si *ServiceInfo) UnmarshalJSON(data []byte) error {
	type plain ServiceInfo
	var w struct {
		Status ServiceStatus `json:"status"`
	}
	*si = ServiceInfo{}
	info := unwrapped(unwrapped(data, "service_info"), "info")
	err := firstErr(readRecord(data, &w), readRecord(info, (*plain)(si)))
	si.Status, si.Raw = w.Status, keepRaw(data)
	return err
}

// Info returns the information the service id holds. GET /services/:id/info.
func (s *ServicesClient) Info(ctx context.Context, id uuid.UUID) (*ServiceInfo, error) {
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	var si ServiceInfo
	if err := s.c.json(ctx, routeServicesInfo.at(id.String()), nil, nil, &si); err != nil {
		return nil, err
	}
	return &si, nil
}

// AddInfo gives the service id its information and returns what it then
// holds. Sent at most once (see the package doc). POST /services/:id/info.
func (s *ServicesClient) AddInfo(ctx context.Context, id uuid.UUID, info *ServiceInfo) (*ServiceInfo, error) {
	if err := firstErr(checkID("id", id), checkThat(info != nil, "info", "is required")); err != nil {
		return nil, err
	}
	var si ServiceInfo
	if err := s.c.json(ctx, routeServicesAddInfo.at(id.String()), nil, info, &si); err != nil {
		return nil, err
	}
	return &si, nil
}
