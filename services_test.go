package acctadmin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

var (
	companyID = uuid.MustParse("9a1b2c3d-0000-4000-8000-000000000001")
	utahID    = uuid.MustParse("7c0d9e8f-1111-4000-8000-0000000000aa")
	serviceID = uuid.MustParse("3e4f5a6b-2222-4000-8000-0000000000bb")
)

func TestServicesListRequestAndResponse(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"success":"true","timestamp":"2024-05-01 10:00:00 -0600","result":[
		 {"id":"3e4f5a6b-2222-4000-8000-0000000000bb","created_at":"2024-05-01 10:00:00 -0600","updated_at":"2024-05-03 09:00:00 -0600",
		  "status":"awaiting-client-input","type":"Registered Agent","jurisdiction":"Utah","jurisdiction_id":"7c0d9e8f-1111-4000-8000-0000000000aa",
		  "company":"Acme LLC","company_id":"9a1b2c3d-0000-4000-8000-000000000001","renewal":{"at":"later"}},
		 {"id":"3e4f5a6b-2222-4000-8000-0000000000bc","status":"on-hold","jurisdiction":"Idaho"}]}`)
	})
	c := newTestClient(t, srv)
	got, err := c.Services.List(context.Background(), &ServiceListParams{Limit: 100, Offset: 200, CompanyID: companyID})
	if err != nil {
		t.Fatal(err)
	}
	r := srv.last(t)
	if r.Method != "GET" || r.Path != "/services" || r.RawQuery != "limit=100&offset=200&company_id="+companyID.String() || r.Body != "" || !r.AuthOK {
		t.Fatalf("request %+v", r)
	}
	want := Service{
		ID: serviceID, CreatedAt: time.Date(2024, 5, 1, 16, 0, 0, 0, time.UTC), UpdatedAt: time.Date(2024, 5, 3, 15, 0, 0, 0, time.UTC),
		Status: ServiceAwaitingClientInput, Type: "Registered Agent", Jurisdiction: "Utah", JurisdictionID: utahID, Company: "Acme LLC", CompanyID: companyID,
	}
	s := got[0]
	if len(got) != 2 || s.ID != want.ID || !s.CreatedAt.Equal(want.CreatedAt) || !s.UpdatedAt.Equal(want.UpdatedAt) || s.Status != want.Status ||
		s.Type != want.Type || s.Jurisdiction != want.Jurisdiction || s.JurisdictionID != want.JurisdictionID || s.Company != want.Company || s.CompanyID != want.CompanyID {
		t.Fatalf("got %+v", got)
	}
	// An unknown status is kept as it came.
	if got[1].Status != "on-hold" {
		t.Fatalf("second status %q", got[1].Status)
	}

	if _, err := c.Services.List(context.Background(), &ServiceListParams{Company: "Acme & Sons, LLC"}); err != nil {
		t.Fatal(err)
	}
	if q := srv.last(t).RawQuery; q != "company=Acme+%26+Sons%2C+LLC" {
		t.Fatalf("query %q", q)
	}
}

func TestServicesCreate(t *testing.T) {
	srv := newAPIServer(t, ok(`[{"id":"3e4f5a6b-2222-4000-8000-0000000000bb","status":"active","jurisdiction":"Utah"},
		{"id":"3e4f5a6b-2222-4000-8000-0000000000bc","status":"awaiting-client-input","jurisdiction":"Idaho"}]`))
	c := newTestClient(t, srv)
	cases := []struct {
		p    ServiceCreateParams
		want map[string]any
	}{
		{ServiceCreateParams{Company: "Acme LLC", Jurisdictions: []string{"Utah", "Idaho"}},
			map[string]any{"company": "Acme LLC", "jurisdictions": []any{"Utah", "Idaho"}}},
		{ServiceCreateParams{CompanyID: companyID, JurisdictionIDs: []uuid.UUID{utahID}},
			map[string]any{"company_id": companyID.String(), "jurisdiction_ids": []any{utahID.String()}}},
	}
	for _, tc := range cases {
		got, err := c.Services.Create(context.Background(), &tc.p)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Status != ServiceActive || got[1].Status != ServiceAwaitingClientInput {
			t.Fatalf("created %+v", got)
		}
		r := srv.last(t)
		var body map[string]any
		if err := json.Unmarshal([]byte(r.Body), &body); err != nil {
			t.Fatal(err)
		}
		if r.Method != "POST" || r.Path != "/services" || r.RawQuery != "" || !r.AuthOK || !jsonEqual(body, tc.want) {
			t.Fatalf("request %+v, body %v, want %v", r, body, tc.want)
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestServicesValidationSendsNothing(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv)
	ctx := context.Background()
	cases := []struct {
		name, field string
		call        func() error
	}{
		{"list with company and company_id", "company", func() error {
			_, err := c.Services.List(ctx, &ServiceListParams{Company: "Acme", CompanyID: companyID})
			return err
		}},
		{"list limit above 100", "limit", func() error { _, err := c.Services.List(ctx, &ServiceListParams{Limit: 101}); return err }},
		{"list negative limit", "limit", func() error { _, err := c.Services.List(ctx, &ServiceListParams{Limit: -1}); return err }},
		{"list negative offset", "offset", func() error { _, err := c.Services.List(ctx, &ServiceListParams{Offset: -1}); return err }},
		{"create without company", "company", func() error {
			_, err := c.Services.Create(ctx, &ServiceCreateParams{Jurisdictions: []string{"Utah"}})
			return err
		}},
		{"create with company and company_id", "company", func() error {
			_, err := c.Services.Create(ctx, &ServiceCreateParams{Company: "Acme", CompanyID: companyID, Jurisdictions: []string{"Utah"}})
			return err
		}},
		{"create without jurisdictions", "jurisdictions", func() error {
			_, err := c.Services.Create(ctx, &ServiceCreateParams{Company: "Acme"})
			return err
		}},
		{"create with jurisdictions and ids", "jurisdictions", func() error {
			_, err := c.Services.Create(ctx, &ServiceCreateParams{Company: "Acme", Jurisdictions: []string{"Utah"}, JurisdictionIDs: []uuid.UUID{utahID}})
			return err
		}},
		{"create with a nil jurisdiction id", "jurisdiction_ids", func() error {
			_, err := c.Services.Create(ctx, &ServiceCreateParams{Company: "Acme", JurisdictionIDs: []uuid.UUID{utahID, uuid.Nil}})
			return err
		}},
		{"create nil params", "company", func() error { _, err := c.Services.Create(ctx, nil); return err }},
		{"cancel nil id", "id", func() error { _, err := c.Services.RequestCancellation(ctx, uuid.Nil); return err }},
		{"all with company and company_id", "company", func() error {
			for _, err := range c.Services.All(ctx, &ServiceListParams{Company: "Acme", CompanyID: companyID}) {
				return err
			}
			return nil
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var ve *ValidationError
			if !errors.Is(err, ErrInvalidParams) || !errors.As(err, &ve) || ve.Field != tc.field {
				t.Fatalf("got %v, want a validation error on %s", err, tc.field)
			}
		})
	}
	if srv.count() != 0 {
		t.Fatalf("the server received %d requests", srv.count())
	}
}

func TestServicesRequestCancellation(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"success":true,"timestamp":"2024-05-01T10:00:00.123-06:00","result":
		 {"id":"3e4f5a6b-2222-4000-8000-0000000000bb","created_at":"2024-04-01T09:00:00.000-06:00","updated_at":"2024-05-01T10:00:00.123-06:00",
		  "status":"cancel-requested","jurisdiction":"Utah","company_id":"9a1b2c3d-0000-4000-8000-000000000001"}}`)
	})
	c := newTestClient(t, srv)
	s, err := c.Services.RequestCancellation(context.Background(), serviceID)
	if err != nil {
		t.Fatal(err)
	}
	r := srv.last(t)
	if r.Method != "POST" || r.Path != "/services/"+serviceID.String()+"/cancel-request" || r.Body != "" || !r.AuthOK {
		t.Fatalf("request %+v", r)
	}
	if s.Status != ServiceCancelRequested || s.ID != serviceID || !s.UpdatedAt.Equal(time.Date(2024, 5, 1, 16, 0, 0, 123e6, time.UTC)) ||
		!s.CreatedAt.Equal(time.Date(2024, 4, 1, 15, 0, 0, 0, time.UTC)) {
		t.Fatalf("service %+v", s)
	}
}

func TestServicesRequestCancellationWithUnpaidInvoices(t *testing.T) {
	bodies := map[string]string{
		"envelope result": `{"success":false,"timestamp":"2024-05-01 10:00:00 -0600","message":"service has unpaid invoices","result":[%s]}`,
		"invoices field":  `{"success":false,"message":"service has unpaid invoices","invoices":[%s]}`,
		"bare array":      `[%s]`,
	}
	invoice := `{"id":"1f2e3d4c-3333-4000-8000-0000000000cc","status":"unpaid","company":"Acme LLC","company_id":"9a1b2c3d-0000-4000-8000-000000000001",
	 "created_at":"2024-04-01 09:00:00 -0600","due_date":"2024-05-15","items":[{"price":"149.00","description":"Registered agent","quantity":1},{"price":25.5,"description":"Late fee","quantity":2}],"memo":"x"}`
	for name, tmpl := range bodies {
		t.Run(name, func(t *testing.T) {
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, http.StatusBadRequest, fmt.Sprintf(tmpl, invoice))
			})
			c := newTestClient(t, srv)
			_, err := c.Services.RequestCancellation(context.Background(), serviceID)
			var unpaid *UnpaidInvoicesError
			if !errors.As(err, &unpaid) || len(unpaid.Invoices) != 1 {
				t.Fatalf("got %v, want an *UnpaidInvoicesError with one invoice", err)
			}
			inv := unpaid.Invoices[0]
			if inv.ID != uuid.MustParse("1f2e3d4c-3333-4000-8000-0000000000cc") || inv.Status != "unpaid" || inv.Company != "Acme LLC" ||
				inv.CompanyID != companyID || inv.DueDate != (Date{2024, time.May, 15}) || len(inv.Items) != 2 ||
				inv.Items[0].Price.String() != "149.00" || inv.Items[1].Price.String() != "25.5" || inv.Items[1].Quantity != 2 ||
				inv.Items[1].Description != "Late fee" || len(inv.Raw) == 0 {
				t.Fatalf("invoice %+v", inv)
			}
			var raw map[string]any
			if err := json.Unmarshal(inv.Raw, &raw); err != nil || raw["memo"] != "x" {
				t.Fatalf("raw record %s", inv.Raw)
			}
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || srv.count() != 1 {
				t.Fatalf("underlying error %v, %d requests", apiErr, srv.count())
			}
		})
	}
}

func TestServicesRequestCancellationOtherBadRequest(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusBadRequest, `{"success":false,"message":"service already cancelled"}`)
	})
	c := newTestClient(t, srv)
	_, err := c.Services.RequestCancellation(context.Background(), serviceID)
	var unpaid *UnpaidInvoicesError
	var apiErr *APIError
	if errors.As(err, &unpaid) || !errors.As(err, &apiErr) || apiErr.Message != "service already cancelled" {
		t.Fatalf("got %v", err)
	}
}

func TestUnpaidInvoicesErrorUnwraps(t *testing.T) {
	apiErr := newAPIError(400, "POST", "/services/x/cancel-request", []byte(`{"message":"unpaid"}`), nil)
	var err error = &UnpaidInvoicesError{Invoices: make([]Invoice, 2), Err: apiErr}
	err = fmt.Errorf("cancel: %w", err)
	var unpaid *UnpaidInvoicesError
	if !errors.As(err, &unpaid) || len(unpaid.Invoices) != 2 {
		t.Fatalf("errors.As: %v", unpaid)
	}
	var got *APIError
	if !errors.As(err, &got) || got != apiErr {
		t.Fatal("it does not unwrap to its *APIError")
	}
	if !strings.Contains(err.Error(), "2 unpaid invoice(s)") {
		t.Fatalf("message %q", err)
	}
}

// Bad parameters of Services are refused before anything is sent, by a
// *ValidationError naming the field as the API spells it.
func TestServicesRefuseBadParams(t *testing.T) {
	checkRefused(t, []badParams{
		{"service info nil id", "id", func(ctx context.Context, c *Client) error { _, err := c.Services.Info(ctx, uuid.Nil); return err }},
		{"add info nil info", "info", func(ctx context.Context, c *Client) error {
			_, err := c.Services.AddInfo(ctx, wcService, nil)
			return err
		}},
	})
}

// v1Service is the item of the real API's answer to POST /services for
// Florida, as it was recorded (spec/recorded-behaviour.md, V1).
const v1Service = `{"id":"3e4f5a6b-2222-4000-8000-0000000000bb","status":"active",
	"registered_agent":{"name":"Registered Agents Inc","address":{"line1":"7901 4th St N","line2":"STE 300","city":"St. Petersburg","state_province_region":"FL","zip_postal_code":"33702"}}}`

// v1Agent is what the SDK must read of it.
var v1Agent = RegisteredAgent{Name: "Registered Agents Inc",
	Address: Address{Line1: "7901 4th St N", Line2: "STE 300", City: "St. Petersburg", State: "FL", ZipCode: "33702"}}

// The registered agent and its address come back at once in the answer
// to POST /services, and with each service GET /services lists.
func TestServicesRegisteredAgentAsRecorded(t *testing.T) {
	srv := newAPIServer(t, ok(`[`+v1Service+`]`))
	c := newTestClient(t, srv)
	created, err := c.Services.Create(context.Background(), &ServiceCreateParams{CompanyID: companyID, Jurisdictions: []string{"Florida"}})
	if err != nil || len(created) != 1 || created[0].ID != serviceID || created[0].Status != ServiceActive ||
		created[0].RegisteredAgent == nil || *created[0].RegisteredAgent != v1Agent {
		t.Fatalf("Create = %+v, %v; want the registered agent %+v", created, err, v1Agent)
	}
	listed, err := c.Services.List(context.Background(), nil)
	if err != nil || len(listed) != 1 || listed[0].RegisteredAgent == nil || *listed[0].RegisteredAgent != v1Agent {
		t.Fatalf("List = %+v, %v; want the registered agent %+v", listed, err, v1Agent)
	}
	if r := srv.requests(); len(r) != 2 || r[0].Method != http.MethodPost || r[1].Method != http.MethodGet || r[1].Path != "/services" {
		t.Fatalf("requests %+v", r)
	}
	// A service the answer gives no agent for has none.
	var bare Service
	if err := json.Unmarshal([]byte(`{"id":"3e4f5a6b-2222-4000-8000-0000000000bb","registered_agent":null}`), &bare); err != nil || bare.RegisteredAgent != nil {
		t.Fatalf("no agent: %+v, %v", bare, err)
	}
}

// Service info is read from service_info, as the real API answers it
// (spec/recorded-behaviour.md, V3: {"service_info": {}} before any was
// added), and from info and the record as before.
func TestServicesInfoUnderServiceInfo(t *testing.T) {
	for _, tc := range []struct {
		name, result string
		want         string // the contact's first name; "" for no contact
	}{
		{"recorded empty", `{"service_info":{}}`, ""},
		{"recorded, filled", `{"service_info":{"contact_person":{"first_name":"Ada","address":{"city":"Provo"}}},"status":"active"}`, "Ada"},
		{"info", `{"info":{"contact_person":{"first_name":"Grace"}}}`, "Grace"},
		{"flat", `{"contact_person":{"first_name":"Edsger"}}`, "Edsger"},
		{"service_info null", `{"service_info":null,"contact_person":{"first_name":"Barbara"}}`, "Barbara"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(tc.result))
			c := newTestClient(t, srv)
			got, err := c.Services.Info(context.Background(), serviceID)
			if err != nil || got == nil || string(got.Raw) != tc.result {
				t.Fatalf("Info = %+v, %v", got, err)
			}
			switch {
			case tc.want == "" && (got.ContactPerson != nil || got.Directors != nil):
				t.Fatalf("Info = %+v, want it empty", got)
			case tc.want != "" && (got.ContactPerson == nil || got.ContactPerson.FirstName != tc.want):
				t.Fatalf("Info = %+v, want the contact %s", got, tc.want)
			}
			requireSent(t, srv, http.MethodGet, "/services/"+serviceID.String()+"/info", "")
		})
	}
}
