package acctadmin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// ServicesClient reads and orders services: subscriptions, such as a
// registered-agent service, of a company in a jurisdiction.
type ServicesClient service

// The routes of services.
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

// ServiceStatus is the state of a service. Values the API adds later are
// kept as they come.
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
	ID             uuid.UUID     `json:"id"`
	CreatedAt      time.Time     `json:"created_at"`
	UpdatedAt      time.Time     `json:"updated_at"`
	Status         ServiceStatus `json:"status"`
	Type           string        `json:"type"`
	Jurisdiction   string        `json:"jurisdiction"`
	JurisdictionID uuid.UUID     `json:"jurisdiction_id"`
	Company        string        `json:"company"`
	CompanyID      uuid.UUID     `json:"company_id"`
}

// serviceWire is a service as the API writes it.
// It embeds the service without its UnmarshalJSON.
type serviceWire struct {
	plainService
	CreatedAt Time `json:"created_at"`
	UpdatedAt Time `json:"updated_at"`
}

type plainService Service

// UnmarshalJSON reads a service in any shape the API writes it.
func (s *Service) UnmarshalJSON(data []byte) error { return decodeWire[serviceWire](data, s) }

func (w serviceWire) record() Service {
	s := Service(w.plainService)
	s.CreatedAt, s.UpdatedAt = w.CreatedAt.Time, w.UpdatedAt.Time
	return s
}

// maxServicesLimit is the largest page of GET /services.
const maxServicesLimit = 100

// ServiceListParams filters GET /services. Zero values are not sent.
type ServiceListParams struct {
	// Limit is the page size (API default 50, at most 100).
	Limit int
	// Offset is the number of services to skip.
	Offset int
	// Company filters by company name; give it or CompanyID, not both.
	Company string
	// CompanyID filters by company id.
	CompanyID uuid.UUID
}

func (p *ServiceListParams) validate() error {
	return firstErr(
		checkPage(p.Limit, maxServicesLimit, p.Offset),
		checkNotBoth("company", p.Company != "", "company_id", p.CompanyID != uuid.Nil),
	)
}

func (p *ServiceListParams) paging() (limit, offset *int) { return &p.Limit, &p.Offset }

func (p *ServiceListParams) query() *query {
	q := &query{}
	q.int("limit", p.Limit)
	q.int("offset", p.Offset)
	q.str("company", p.Company)
	q.id("company_id", p.CompanyID)
	return q
}

// List returns one page of the account's services. GET /services.
func (s *ServicesClient) List(ctx context.Context, p *ServiceListParams) ([]Service, error) {
	return listRecords[serviceWire](ctx, s.c, routeServicesList, p)
}

// All returns every service, page after page (100 a page unless p.Limit
// says otherwise), reading the next page while the loop works on the
// current one. GET /services.
func (s *ServicesClient) All(ctx context.Context, p *ServiceListParams) iter.Seq2[Service, error] {
	return paginate(ctx, listingOf(p, maxServicesLimit, s.List, func(v Service) uuid.UUID { return v.ID }))
}

// ServiceCreateParams orders services for a company: exactly one of
// Company and CompanyID, and exactly one of Jurisdictions and
// JurisdictionIDs.
type ServiceCreateParams struct {
	// Company names the company; CompanyID identifies it instead.
	Company   string
	CompanyID uuid.UUID
	// Jurisdictions names the jurisdictions to order the service in;
	// JurisdictionIDs identifies them instead.
	Jurisdictions   []string
	JurisdictionIDs []uuid.UUID
}

func (p *ServiceCreateParams) validate() error {
	return firstErr(
		checkOne("company", p.Company != "", "company_id", p.CompanyID != uuid.Nil),
		checkOne("jurisdictions", len(p.Jurisdictions) > 0, "jurisdiction_ids", len(p.JurisdictionIDs) > 0),
		checkIDs("jurisdiction_ids", p.JurisdictionIDs),
	)
}

// Create orders services for a company in one or more jurisdictions and
// returns the services just created (status active or
// awaiting-client-input). It is sent at most once: a failure after the
// request may have arrived is ErrOutcomeUnknown, and List shows whether
// the services were ordered. POST /services.
func (s *ServicesClient) Create(ctx context.Context, p *ServiceCreateParams) ([]Service, error) {
	if p == nil {
		p = &ServiceCreateParams{}
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	body := struct {
		Company         string      `json:"company,omitempty"`
		CompanyID       *uuid.UUID  `json:"company_id,omitempty"`
		Jurisdictions   []string    `json:"jurisdictions,omitempty"`
		JurisdictionIDs []uuid.UUID `json:"jurisdiction_ids,omitempty"`
	}{p.Company, optID(p.CompanyID), p.Jurisdictions, p.JurisdictionIDs}
	return fromWires(call[wireList[serviceWire, Service]](ctx, s.c, routeServicesCreate.at(), nil, body))
}

// RequestCancellation asks for the service id to be cancelled and returns
// it with status cancel-requested; the provider's staff then cancels it.
// When the service's company has unpaid invoices the API refuses, and the
// error is an *UnpaidInvoicesError listing them.
// It is sent at most once: a failure after the request may have arrived
// is ErrOutcomeUnknown, and List shows whether the service is
// cancel-requested. POST /services/:id/cancel-request.
func (s *ServicesClient) RequestCancellation(ctx context.Context, id uuid.UUID) (*Service, error) {
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	svc, err := fromWire(call[serviceWire](ctx, s.c, routeServicesCancel.at(id.String()), nil, nil))
	if err != nil {
		var apiErr *APIError
		if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusBadRequest {
			if invoices, ok := unpaidInvoices(apiErr.Body); ok {
				return nil, &UnpaidInvoicesError{Invoices: invoices, Err: apiErr}
			}
		}
		return nil, err
	}
	return svc, nil
}

// UnpaidInvoicesError is the answer to a cancellation request for a service
// whose company has unpaid invoices: the API refuses it with status 400 and
// lists the invoices, which must be paid or cancelled first. It unwraps to
// its *APIError.
type UnpaidInvoicesError struct {
	// Invoices are the unpaid invoices the API listed.
	Invoices []Invoice
	// Err is the underlying API answer.
	Err *APIError
}

// Error implements error.
func (e *UnpaidInvoicesError) Error() string {
	return fmt.Sprintf("acctadmin: %s %s: service has %d unpaid invoice(s)", e.Err.Method, e.Err.Path, len(e.Invoices))
}

// Unwrap returns the underlying *APIError.
func (e *UnpaidInvoicesError) Unwrap() error { return e.Err }

// unpaidInvoices reads the invoices listed in a refused cancellation. The
// shape of that answer is not documented, so the list is looked for under
// "result", "invoices", "unpaid_invoices" and "data", or as the whole body.
func unpaidInvoices(body []byte) ([]Invoice, bool) {
	body = bytes.TrimSpace(body)
	var list []Invoice
	if len(body) > 0 && body[0] == '[' {
		if json.Unmarshal(body, &list) == nil {
			return list, true
		}
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return nil, false
	}
	for _, k := range []string{"result", "invoices", "unpaid_invoices", "data"} {
		raw := bytes.TrimSpace(m[k])
		if len(raw) > 0 && raw[0] == '[' && json.Unmarshal(raw, &list) == nil {
			return list, true
		}
	}
	return nil, false
}

// ServiceInfo is the information a service holds: the contact person and
// the officers a corporation's service needs. Its shape is known only from
// the provider's data file for POST /services/:id/info (keys with a dot,
// such as "official.director"); Info reads an answer of any shape, typing
// what it finds there or under "info", and keeps the whole record in Raw.
// Zero values are not sent.
type ServiceInfo struct {
	ContactPerson *ServiceContact `json:"contact_person,omitempty"`
	// Directors, Presidents, Secretaries and Treasurers are the officers,
	// each with the matching Role.
	Directors   []ServiceOfficer `json:"official.director,omitempty"`
	Presidents  []ServiceOfficer `json:"official.president,omitempty"`
	Secretaries []ServiceOfficer `json:"official.secretary,omitempty"`
	Treasurers  []ServiceOfficer `json:"official.treasurer,omitempty"`
	// Status is the service's status, when the answer says (read only).
	Status ServiceStatus `json:"-"`
	// Raw is the record exactly as the API sent it (read only).
	Raw json.RawMessage `json:"-"`
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
	// Role is "Director", "President", "Secretary" or "Treasurer".
	Role      string         `json:"role,omitempty"`
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

// UnmarshalJSON reads the information from the record or from its "info"
// object, and keeps the whole record in Raw.
func (si *ServiceInfo) UnmarshalJSON(data []byte) error {
	type plain ServiceInfo
	var w struct {
		plain
		Status ServiceStatus    `json:"status"`
		Info   *json.RawMessage `json:"info"`
	}
	if string(data) == "null" {
		*si = ServiceInfo{}
		return nil
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	out := ServiceInfo(w.plain)
	if w.Info != nil && string(*w.Info) != "null" {
		var inner plain
		if err := json.Unmarshal(*w.Info, &inner); err != nil {
			return err
		}
		out = ServiceInfo(inner)
	}
	out.Status = w.Status
	out.Raw = append(json.RawMessage(nil), data...)
	*si = out
	return nil
}

// Info returns the information the service id holds.
// GET /services/:id/info.
func (s *ServicesClient) Info(ctx context.Context, id uuid.UUID) (*ServiceInfo, error) {
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	return one(call[ServiceInfo](ctx, s.c, routeServicesInfo.at(id.String()), nil, nil))
}

// AddInfo gives the service id the information it needs (a service
// awaiting client input waits for it) and returns what the service then
// holds. It is sent at most once: a failure after the request may have
// arrived is ErrOutcomeUnknown, and Info shows what the service holds.
// POST /services/:id/info.
func (s *ServicesClient) AddInfo(ctx context.Context, id uuid.UUID, info *ServiceInfo) (*ServiceInfo, error) {
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	if info == nil {
		return nil, invalid("info", "is required")
	}
	return one(call[ServiceInfo](ctx, s.c, routeServicesAddInfo.at(id.String()), nil, info))
}
