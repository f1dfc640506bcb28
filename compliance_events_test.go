package acctadmin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

var (
	complianceStart = Date{2024, time.January, 1}
	complianceEnd   = Date{2024, time.December, 31}
	acmeID          = uuid.MustParse("5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c01")
)

const complianceEventsJSON = `[
	{"id":"9f8e7d6c-5b4a-4321-8fed-cba987654301","created_at":"2024-05-01 10:00:00 -0600","updated_at":"2024-05-01T10:00:00.123-06:00",
	 "status":"active","due_date":"2024-06-15","jurisdictions":[{"jurisdiction":"Utah"},{"jurisdiction":"Idaho","id":"1b2c3d4e-0000-4000-8000-000000000001"}],
	 "company":"Acme Widgets LLC","company_id":"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c01","filing":"Annual Report","reminder_sent":true},
	{"id":"9f8e7d6c-5b4a-4321-8fed-cba987654302","created_at":null,"updated_at":"","status":"none_required","due_date":"2024-07-01",
	 "jurisdictions":["Nevada"],"company":"Beta Corp","company_id":"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c02","filing":"Beneficial Ownership Report"},
	{"id":"9f8e7d6c-5b4a-4321-8fed-cba987654303","status":"on_hold","due_date":null,"jurisdictions":null,"company":"Gamma Inc","filing":"Franchise Tax"}
]`

func TestComplianceEventsListRequest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     ComplianceEventListParams
		query string
	}{
		{
			"company id and jurisdiction names",
			ComplianceEventListParams{Limit: 10, Offset: 20, CompanyID: acmeID, StartDate: complianceStart, EndDate: complianceEnd, Jurisdictions: []string{"Utah", "New Mexico"}},
			"limit=10&offset=20&company_id=5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c01&start_date=2024-01-01&end_date=2024-12-31&jurisdictions[]=Utah&jurisdictions[]=New+Mexico",
		},
		{
			"company name and jurisdiction ids",
			ComplianceEventListParams{Company: "Acme & Sons", StartDate: complianceStart, EndDate: complianceStart,
				JurisdictionIDs: []uuid.UUID{uuid.MustParse("1b2c3d4e-0000-4000-8000-000000000001"), uuid.MustParse("1b2c3d4e-0000-4000-8000-000000000002")}},
			"company=Acme+%26+Sons&start_date=2024-01-01&end_date=2024-01-01&jurisdiction_ids[]=1b2c3d4e-0000-4000-8000-000000000001&jurisdiction_ids[]=1b2c3d4e-0000-4000-8000-000000000002",
		},
		{
			"dates only",
			ComplianceEventListParams{StartDate: Date{2023, time.February, 28}, EndDate: Date{2024, time.February, 29}},
			"start_date=2023-02-28&end_date=2024-02-29",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(`[]`))
			c := newTestClient(t, srv)
			got, err := c.ComplianceEvents.List(context.Background(), &tc.p)
			if err != nil || got == nil || len(got) != 0 {
				t.Fatalf("List = %v, %v; want an empty list", got, err)
			}
			requireSent(t, srv, http.MethodGet, "/compliance-events", tc.query)
		})
	}
}

func TestComplianceEventsListDecodes(t *testing.T) {
	srv := newAPIServer(t, okText(complianceEventsJSON))
	c := newTestClient(t, srv)
	got, err := c.ComplianceEvents.List(context.Background(), &ComplianceEventListParams{StartDate: complianceStart, EndDate: complianceEnd})
	if err != nil {
		t.Fatal(err)
	}
	requireSent(t, srv, http.MethodGet, "/compliance-events", "start_date=2024-01-01&end_date=2024-12-31")
	if len(got) != 3 {
		t.Fatalf("got %d events, want 3", len(got))
	}

	e := got[0]
	if !e.CreatedAt.Equal(time.Date(2024, 5, 1, 16, 0, 0, 0, time.UTC)) || !e.UpdatedAt.Equal(time.Date(2024, 5, 1, 16, 0, 0, 123e6, time.UTC)) {
		t.Fatalf("first event times %v %v", e.CreatedAt, e.UpdatedAt)
	}
	e.CreatedAt, e.UpdatedAt = time.Time{}, time.Time{}
	want := ComplianceEvent{
		ID: uuid.MustParse("9f8e7d6c-5b4a-4321-8fed-cba987654301"), Status: ComplianceEventActive, DueDate: Date{2024, time.June, 15},
		Jurisdictions: []string{"Utah", "Idaho"}, Company: "Acme Widgets LLC", CompanyID: acmeID, Filing: "Annual Report",
	}
	if !reflect.DeepEqual(e, want) {
		t.Fatalf("first event\n got %+v\nwant %+v", e, want)
	}

	want = ComplianceEvent{
		ID: uuid.MustParse("9f8e7d6c-5b4a-4321-8fed-cba987654302"), Status: ComplianceEventNoneRequired, DueDate: Date{2024, time.July, 1},
		Jurisdictions: []string{"Nevada"}, Company: "Beta Corp", CompanyID: uuid.MustParse("5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c02"),
		Filing: "Beneficial Ownership Report",
	}
	if !reflect.DeepEqual(got[1], want) {
		t.Fatalf("second event\n got %+v\nwant %+v", got[1], want)
	}

	want = ComplianceEvent{
		ID: uuid.MustParse("9f8e7d6c-5b4a-4321-8fed-cba987654303"), Status: ComplianceEventStatus("on_hold"),
		Company: "Gamma Inc", Filing: "Franchise Tax",
	}
	if !reflect.DeepEqual(got[2], want) {
		t.Fatalf("third event\n got %+v\nwant %+v", got[2], want)
	}
}

func TestComplianceEventsListNullResult(t *testing.T) {
	srv := newAPIServer(t, ok(`null`))
	c := newTestClient(t, srv)
	got, err := c.ComplianceEvents.List(context.Background(), &ComplianceEventListParams{StartDate: complianceStart, EndDate: complianceEnd})
	if err != nil || got != nil {
		t.Fatalf("List = %v, %v; want nil, nil", got, err)
	}
}

func TestComplianceEventsListValidation(t *testing.T) {
	dates := func(p ComplianceEventListParams) *ComplianceEventListParams {
		p.StartDate, p.EndDate = complianceStart, complianceEnd
		return &p
	}
	for _, tc := range []struct {
		name  string
		p     *ComplianceEventListParams
		field string
	}{
		{"nil params", nil, "start_date"},
		{"no start date", &ComplianceEventListParams{EndDate: complianceEnd}, "start_date"},
		{"no end date", &ComplianceEventListParams{StartDate: complianceStart}, "end_date"},
		{"end before start", &ComplianceEventListParams{StartDate: complianceEnd, EndDate: complianceStart}, "end_date"},
		{"end a day before start", &ComplianceEventListParams{StartDate: Date{2024, time.March, 1}, EndDate: Date{2024, time.February, 29}}, "end_date"},
		{"not a calendar date", &ComplianceEventListParams{StartDate: Date{2023, time.February, 29}, EndDate: complianceEnd}, "start_date"},
		{"month out of range", &ComplianceEventListParams{StartDate: complianceStart, EndDate: Date{2024, 13, 1}}, "end_date"},
		{"company and company id", dates(ComplianceEventListParams{Company: "Acme", CompanyID: acmeID}), "company"},
		{"jurisdictions and ids", dates(ComplianceEventListParams{Jurisdictions: []string{"Utah"}, JurisdictionIDs: []uuid.UUID{acmeID}}), "jurisdictions"},
		{"nil jurisdiction id", dates(ComplianceEventListParams{JurisdictionIDs: []uuid.UUID{acmeID, uuid.Nil}}), "jurisdiction_ids"},
		{"limit above 100", dates(ComplianceEventListParams{Limit: 101}), "limit"},
		{"negative limit", dates(ComplianceEventListParams{Limit: -1}), "limit"},
		{"negative offset", dates(ComplianceEventListParams{Offset: -1}), "offset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(`[]`))
			c := newTestClient(t, srv)
			got, err := c.ComplianceEvents.List(context.Background(), tc.p)
			if got != nil {
				t.Fatalf("got %v with an error", got)
			}
			requireRefused(t, srv, err, tc.field)
		})
	}
}

func TestComplianceEventsWrongFieldTypes(t *testing.T) {
	for _, tc := range []struct {
		name, result, path string
	}{
		{"due date", `[{"due_date":"2024-06-15"},{"due_date":"15/06/2024"}]`, "result[1].due_date"},
		{"jurisdiction", `[{"jurisdictions":["Utah",5]}]`, "result[0].jurisdictions"},
		{"company id", `[{"jurisdictions":[]},{"jurisdictions":[{"jurisdiction":"Utah"}],"company_id":"acme"}]`, "result[1].company_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(tc.result))
			c := newTestClient(t, srv)
			got, err := c.ComplianceEvents.List(context.Background(), &ComplianceEventListParams{StartDate: complianceStart, EndDate: complianceEnd})
			if got != nil {
				t.Fatalf("got %v with an error", got)
			}
			requireDecodeError(t, err, "GET /compliance-events", tc.path)
		})
	}
}

func complianceEventJSON(i int) string {
	return fmt.Sprintf(`{"id":"%s","status":"active","due_date":"2024-06-15","jurisdictions":[{"jurisdiction":"Utah"}],"filing":"Filing %d"}`, indexID(i), i)
}

func TestComplianceEventsAllPages(t *testing.T) {
	srv := newAPIServer(t, offsetPager(230, complianceEventJSON))
	c := newTestClient(t, srv)
	got, errs := collectSeq(c.ComplianceEvents.All(context.Background(), &ComplianceEventListParams{
		StartDate: complianceStart, EndDate: complianceEnd, Jurisdictions: []string{"Utah"},
	}))
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if len(got) != 230 {
		t.Fatalf("got %d events, want 230", len(got))
	}
	for i, e := range got {
		if e.ID != indexID(i) || e.Filing != fmt.Sprintf("Filing %d", i) || !reflect.DeepEqual(e.Jurisdictions, []string{"Utah"}) {
			t.Fatalf("event %d is %+v", i, e)
		}
	}
	for _, r := range srv.requests() {
		if !r.AuthOK {
			t.Fatalf("request %s did not verify: %s", r.RawQuery, r.AuthErr)
		}
	}
	const rest = "start_date=2024-01-01&end_date=2024-12-31&jurisdictions[]=Utah"
	checkPagesAsked(t, srv, "limit=100&"+rest, "limit=100&offset=100&"+rest, "limit=100&offset=200&"+rest)
}

func TestComplianceEventsAllValidation(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv)
	got, errs := collectSeq(c.ComplianceEvents.All(context.Background(), &ComplianceEventListParams{StartDate: complianceStart}))
	if len(got) != 0 || len(errs) != 1 {
		t.Fatalf("got %d items and errors %v, want one error", len(got), errs)
	}
	requireRefused(t, srv, errs[0], "end_date")
	got, errs = collectSeq(c.ComplianceEvents.All(context.Background(), nil))
	if len(got) != 0 || len(errs) != 1 {
		t.Fatalf("got %d items and errors %v, want one error", len(got), errs)
	}
	requireRefused(t, srv, errs[0], "start_date")
}

func TestComplianceEventStatusConstants(t *testing.T) {
	if ComplianceEventActive != "active" || ComplianceEventNoneRequired != "none_required" {
		t.Fatalf("constants %q %q", ComplianceEventActive, ComplianceEventNoneRequired)
	}
}

func TestJurisdictionNames(t *testing.T) {
	var j jurisdictionNames
	if err := json.Unmarshal([]byte(`["Utah", {"jurisdiction": "Idaho"}, {"name": "Ohio", "id": 3}]`), &j); err != nil {
		t.Fatal(err)
	}
	if strings.Join(j, ",") != "Utah,Idaho,Ohio" {
		t.Fatalf("got %q", []string(j))
	}
	if err := json.Unmarshal([]byte(`null`), &j); err != nil || j != nil {
		t.Fatalf("null gave %v, %v", j, err)
	}
	for _, in := range []string{`[{"state": "Utah"}]`, `[5]`, `{}`, `5`} {
		if err := json.Unmarshal([]byte(in), &j); err == nil {
			t.Errorf("Unmarshal(%s) = %v, want an error", in, j)
		}
	}
}

// Customers' clients read a compliance event's place from "jurisdiction",
// one name or a list of names.
func TestComplianceEventsJurisdictionAsStringOrList(t *testing.T) {
	for _, tc := range []struct {
		name, event string
		want        []string
	}{
		{"a string", `"jurisdiction":"Utah"`, []string{"Utah"}},
		{"a list", `"jurisdiction":["Utah","Idaho"]`, []string{"Utah", "Idaho"}},
		{"a list of objects", `"jurisdiction":[{"jurisdiction":"Utah"}]`, []string{"Utah"}},
		{"jurisdictions first", `"jurisdictions":["Nevada"],"jurisdiction":"Utah"`, []string{"Nevada"}},
		{"an empty list under jurisdictions", `"jurisdictions":[],"jurisdiction":"Utah"`, []string{"Utah"}},
		{"a string under jurisdictions", `"jurisdictions":"Ohio"`, []string{"Ohio"}},
		{"an empty string", `"jurisdiction":""`, nil},
		{"null", `"jurisdiction":null`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(`[{"id":"`+indexID(1).String()+`","status":"active",`+tc.event+`}]`))
			c := newTestClient(t, srv)
			got, err := c.ComplianceEvents.List(context.Background(), &ComplianceEventListParams{StartDate: complianceStart, EndDate: complianceEnd})
			if err != nil || len(got) != 1 {
				t.Fatalf("List = %v, %v", got, err)
			}
			if !reflect.DeepEqual(got[0].Jurisdictions, tc.want) {
				t.Fatalf("jurisdictions %#v, want %#v", got[0].Jurisdictions, tc.want)
			}
			var e ComplianceEvent // the same through encoding/json
			if err := json.Unmarshal([]byte(`{`+tc.event+`}`), &e); err != nil || !reflect.DeepEqual(e.Jurisdictions, tc.want) {
				t.Fatalf("Unmarshal: %#v, %v", e.Jurisdictions, err)
			}
		})
	}
	srv := newAPIServer(t, ok(`[{"jurisdiction":5}]`))
	_, err := newTestClient(t, srv).ComplianceEvents.List(context.Background(), &ComplianceEventListParams{StartDate: complianceStart, EndDate: complianceEnd})
	requireDecodeError(t, err, "GET /compliance-events", "result[0].jurisdiction")
}
