package acctadmintest_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

type complianceFixture struct {
	acme, beta acctadmintest.Company
	events     []acctadmintest.ComplianceEvent
}

func seedCompliance(srv *acctadmintest.Server) complianceFixture {
	var f complianceFixture
	f.acme = srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC", HomeState: "Utah"})
	f.beta = srv.AddCompany(acctadmintest.CompanyInput{Name: "Beta Inc", HomeState: "Idaho"})
	day := func(m time.Month, d int) time.Time { return time.Date(2025, m, d, 0, 0, 0, 0, time.UTC) }
	for _, in := range []acctadmintest.ComplianceEventInput{
		{CompanyID: f.acme.ID, DueDate: day(4, 1), Filing: "Annual Report"},                                                    // 0 Utah
		{CompanyID: f.acme.ID, DueDate: day(5, 15), Filing: "Franchise Tax", Jurisdictions: []string{"Utah", "Nevada"}},        // 1
		{CompanyID: f.beta.ID, DueDate: day(4, 30), Filing: "Annual Report"},                                                   // 2 Idaho
		{CompanyID: f.beta.ID, DueDate: day(9, 1), Filing: "Annual Report", Status: acctadmintest.ComplianceNoneRequired},      // 3 Idaho
		{CompanyID: f.beta.ID, DueDate: day(3, 31), Filing: "Statement of Information", Jurisdictions: []string{"Washington"}}, // 4
	} {
		f.events = append(f.events, srv.AddComplianceEvent(in))
	}
	return f
}

func complianceIDs(t *testing.T, srv *acctadmintest.Server, q url.Values) []string {
	t.Helper()
	r := do(t, srv, http.MethodGet, "/compliance-events?"+q.Encode(), nil)
	requireOK(t, r, `"true"`)
	var out []string
	for _, it := range r.Items(t) {
		out = append(out, it["id"].(string))
	}
	return out
}

func TestComplianceEventsShape(t *testing.T) {
	srv := newServer(t)
	fx := seedCompliance(srv)
	r := do(t, srv, http.MethodGet, "/compliance-events?start_date=2025-05-15&end_date=2025-05-15", nil)
	requireOK(t, r, `"true"`)
	items := r.Items(t)
	require.Len(t, items, 1)
	ev := items[0]
	require.Equal(t, fx.events[1].ID.String(), ev["id"])
	require.Equal(t, "2025-05-15", ev["due_date"])
	require.Equal(t, "active", ev["status"])
	require.Equal(t, "Acme LLC", ev["company"])
	require.Equal(t, fx.acme.ID.String(), ev["company_id"])
	require.Equal(t, "Franchise Tax", ev["filing"])
	require.Regexp(t, timestampRE, ev["created_at"])
	require.Regexp(t, timestampRE, ev["updated_at"])
	require.Contains(t, string(r.Body), `"jurisdictions":[{"jurisdiction":"Utah"},{"jurisdiction":"Nevada"}]`)
}

func TestComplianceEventsFiltering(t *testing.T) {
	srv := newServer(t)
	fx := seedCompliance(srv)
	id := func(i ...int) []string {
		var out []string
		for _, n := range i {
			out = append(out, fx.events[n].ID.String())
		}
		return out
	}
	nevada, _ := acctadmintest.LookupJurisdiction("Nevada")
	idaho, _ := acctadmintest.LookupJurisdiction("Idaho")
	year := url.Values{"start_date": {"2025-01-01"}, "end_date": {"2025-12-31"}}
	with := func(kv ...string) url.Values {
		q := url.Values{}
		for k, v := range year {
			q[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			q.Add(kv[i], kv[i+1])
		}
		return q
	}
	// Ordered by due date; both bounds inclusive.
	require.Equal(t, id(4, 0, 2, 1, 3), complianceIDs(t, srv, year))
	require.Equal(t, id(4, 0, 2), complianceIDs(t, srv, url.Values{"start_date": {"2025-03-31"}, "end_date": {"2025-04-30"}}))
	require.Empty(t, complianceIDs(t, srv, url.Values{"start_date": {"2026-01-01"}, "end_date": {"2026-12-31"}}))
	// Company.
	require.Equal(t, id(4, 2, 3), complianceIDs(t, srv, with("company", "beta inc")))
	require.Equal(t, id(0, 1), complianceIDs(t, srv, with("company_id", fx.acme.ID.String())))
	// Jurisdictions, with and without [], by name and by id; any match.
	require.Equal(t, id(4, 1), complianceIDs(t, srv, with("jurisdictions[]", "Washington", "jurisdictions[]", "Nevada")))
	require.Equal(t, id(0, 1), complianceIDs(t, srv, with("jurisdictions", "Utah")))
	// Comma-joined, as a Spring client sends lists; only without [].
	require.Equal(t, id(4, 1), complianceIDs(t, srv, with("jurisdictions", "Washington,Nevada")))
	require.Equal(t, id(4, 1), complianceIDs(t, srv, with("jurisdictions", "Washington, Nevada,")))
	r := do(t, srv, http.MethodGet, "/compliance-events?"+with("jurisdictions[]", "Washington,Nevada").Encode(), nil)
	requireError(t, r, http.StatusBadRequest, `unknown jurisdiction: "Washington,Nevada"`)
	require.Equal(t, id(1), complianceIDs(t, srv, with("jurisdiction_ids[]", nevada.ID.String())))
	require.Equal(t, id(2, 3), complianceIDs(t, srv, with("jurisdiction_ids[]", idaho.ID.String(), "company", "Beta Inc")))
	require.Empty(t, complianceIDs(t, srv, with("jurisdictions[]", "Idaho", "company", "Acme LLC")))
	// Paging.
	require.Equal(t, id(2, 1), complianceIDs(t, srv, with("limit", "2", "offset", "2")))
}

func TestComplianceEventsValidation(t *testing.T) {
	srv := newServer(t)
	fx := seedCompliance(srv)
	for _, tc := range []struct{ q, field, msg string }{
		{"end_date=2025-12-31", "start_date", "start_date is required"},
		{"start_date=2025-01-01", "end_date", "end_date is required"},
		{"start_date=2025-01-01T00:00:00Z&end_date=2025-12-31", "start_date", "must be a date"},
		{"start_date=2025-1-1&end_date=2025-12-31", "start_date", "must be a date"},
		{"start_date=2025-01-01&end_date=2025-02-30", "end_date", "must be a date"},
		{"start_date=2025-06-01&end_date=2025-05-31", "end_date", "must not be before start_date"},
		{"start_date=2025-01-01&end_date=2025-12-31&limit=101", "limit", "at most 100"},
		{"start_date=2025-01-01&end_date=2025-12-31&company=Acme+LLC&company_id=" + fx.acme.ID.String(), "company_id", "not both"},
		{"start_date=2025-01-01&end_date=2025-12-31&jurisdictions[]=Utah&jurisdiction_ids[]=" + uuid.NewString(), "jurisdiction_ids", "not both"},
		{"start_date=2025-01-01&end_date=2025-12-31&jurisdictions[]=Mordor", "jurisdictions", "unknown jurisdiction"},
		{"start_date=2025-01-01&end_date=2025-12-31&jurisdiction_ids[]=" + uuid.NewString(), "jurisdiction_ids", "unknown jurisdiction id"},
	} {
		r := do(t, srv, http.MethodGet, "/compliance-events?"+tc.q, nil)
		requireFieldError(t, r, tc.field)
		requireError(t, r, http.StatusBadRequest, tc.msg)
	}
	requireError(t, do(t, srv, http.MethodGet, "/compliance-events?start_date=2025-01-01&end_date=2025-12-31&company=Nobody", nil), http.StatusNotFound, "company not found")
}
