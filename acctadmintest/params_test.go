package acctadmintest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

func TestAbbreviationsWhereverJurisdictionsAreAccepted(t *testing.T) {
	srv := newDemo(t)
	// Filing products: jurisdiction=UT answers Utah's methods, as
	// jurisdiction=Utah does.
	full := do(t, srv, http.MethodGet, "/filing-products?url="+acctadmintest.DemoWebsiteURL+"&jurisdiction=Utah", nil)
	abbr := do(t, srv, http.MethodGet, "/filing-products?url="+acctadmintest.DemoWebsiteURL+"&jurisdiction=ut", nil)
	requireOK(t, full, "true")
	requireOK(t, abbr, "true")
	require.JSONEq(t, string(mustRaw(t, full)), string(mustRaw(t, abbr)))

	// Companies: home_state as an abbreviation is stored as the name.
	r := do(t, srv, http.MethodPost, "/companies", map[string]any{"companies": []map[string]any{{"name": "Abbrev Co", "home_state": "wy", "entity_type": "LLC"}}})
	requireOK(t, r, "true")
	items := r.Items(t)
	require.Len(t, items, 1)
	require.Equal(t, "Wyoming", items[0]["home_state"])
	r = do(t, srv, http.MethodPatch, "/companies", map[string]any{"companies": []map[string]any{{"company": "Abbrev Co", "home_state": "NV"}}})
	requireOK(t, r, "true")
	require.Equal(t, "Nevada", r.Items(t)[0]["home_state"])

	// Services: POST with jurisdictions given as abbreviations.
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Services Abbrev LLC", HomeState: "ID"})
	require.Equal(t, "Idaho", co.HomeState)
	r = do(t, srv, http.MethodPost, "/services", map[string]any{"company_id": co.ID.String(), "jurisdictions": []string{"ID", "mt"}})
	requireOK(t, r, "true")
	var names []string
	for _, s := range r.Items(t) {
		names = append(names, s["jurisdiction"].(string))
	}
	require.ElementsMatch(t, []string{"Idaho", "Montana"}, names)

	// Listings filtered by jurisdictions[] and jurisdiction.
	byName := do(t, srv, http.MethodGet, "/compliance-events?start_date=2000-01-01&end_date=2100-01-01&jurisdictions[]=Utah", nil)
	byAbbr := do(t, srv, http.MethodGet, "/compliance-events?start_date=2000-01-01&end_date=2100-01-01&jurisdictions[]=UT", nil)
	requireOK(t, byAbbr, `"true"`)
	require.JSONEq(t, string(mustRaw(t, byName)), string(mustRaw(t, byAbbr)))
	require.NotEmpty(t, byAbbr.Items(t))
	byName = do(t, srv, http.MethodGet, "/resources?jurisdiction=Utah", nil)
	byAbbr = do(t, srv, http.MethodGet, "/resources?jurisdiction=uT", nil)
	require.JSONEq(t, string(mustRaw(t, byName)), string(mustRaw(t, byAbbr)))

	// A two-letter code that is no state is still refused, and nothing
	// is created.
	before := len(srv.Companies())
	r = do(t, srv, http.MethodPost, "/companies", map[string]any{"companies": []map[string]any{{"name": "Nowhere Co", "home_state": "XX"}}})
	requireFieldError(t, r, "companies[0].home_state")
	require.Len(t, srv.Companies(), before)
}

// TestQueryValuesStayValues: injected query values stay values (an
// encoded &limit= inside a name, a NUL, a 20-digit limit, a malformed
// escape, SQL-ish text, a javascript: URL), each refused with its reason;
// a repeated scalar takes its first value; a 64 KiB query is read.
func TestQueryValuesStayValues(t *testing.T) {
	srv := newDemo(t)
	acme := acctadmintest.DemoID("company", 1).String()
	cases := []struct {
		target string
		status int
		msg    string
	}{
		{"/services?company=Acme%20Widgets%20LLC%26limit%3D1", 404, "company not found"},
		{"/services?limit=100000000000000000000", 400, "limit must be an integer"},
		{"/services?limit=%205", 400, "limit must be an integer"},
		{"/services?offset=-1", 400, "offset must be at least 0"},
		{"/services?limit=101", 400, "limit must be at most 100"},
		{"/documents?limit=201", 400, "limit must be at most 200"},
		{"/companies?limit=0", 400, "limit must be at least 1"},
		{"/documents/" + acctadmintest.DemoID("document", 1).String() + "/page/0?dpi=96", 400, "dpi must be one of 72, 150, 300"},
		{"/documents/" + acctadmintest.DemoID("document", 1).String() + "/page/0?dpi=high", 400, "dpi must be an integer"},
		{"/services?company_id=" + acme + "%00", 400, "company_id must be a UUID"},
		{"/documents?status=unread%00", 400, "status must be read or unread"},
		{"/documents?%zz=1", 400, "malformed query string"},
		{"/compliance-events?start_date=2025-01-01&end_date=2025-12-31&jurisdictions[]=Utah%00", 400, "unknown jurisdiction"},
		{"/compliance-events?start_date=2025-01-01&end_date=2025-12-31&jurisdictions[]=UT&jurisdiction_ids[]=x", 400, "must not both be given"},
		{"/invoices?companies[]=%27%20OR%201%3D1", 404, "not found"},
		{"/services?company=javascript:alert(1)", 404, "company not found"},
		{"/services?limit=%zz", 400, "malformed query"},
	}
	for _, tc := range cases {
		t.Run(tc.target[:min(len(tc.target), 60)], func(t *testing.T) {
			r := do(t, srv, http.MethodGet, tc.target, nil)
			requireError(t, r, tc.status, tc.msg)
		})
	}
	// A repeated scalar takes its first value: the second cannot widen
	// the listing.
	r := do(t, srv, http.MethodGet, "/services?company_id="+acme+"&company_id=", nil)
	requireOK(t, r, "true")
	for _, s := range r.Items(t) {
		require.Equal(t, acme, s["company_id"])
	}
	// A 64 KiB query is read, not a crash.
	r = do(t, srv, http.MethodGet, "/documents?x="+strings.Repeat("y", 64<<10), nil)
	requireOK(t, r, `"true"`)
}

// TestBadBodiesAreRefused: a body over 1 MiB is a 413; 20,000-deep
// nesting, a duplicated key whose last value is bad, a BOM, trailing data,
// a file: or javascript: callback URL are a 400 naming the field or the
// reason; a method-override header is ignored.
func TestBadBodiesAreRefused(t *testing.T) {
	srv := newServer(t)
	nested := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	cases := []struct {
		method, path, body string
		field, msg         string
		status             int // 400 when 0
	}{
		{http.MethodPost, "/callbacks", `{"url":"http://127.0.0.1/` + strings.Repeat("a", 1<<20) + `"}`, "", "larger than 1 MiB", http.StatusRequestEntityTooLarge},
		{http.MethodPost, "/companies", `{"companies":` + nested + `}`, "", "not valid JSON", 0},
		{http.MethodPost, "/callbacks", `{"url":"http://127.0.0.1:1/a","url":"javascript:alert(1)"}`, "url", "", 0},
		{http.MethodPost, "/callbacks", `{"url":"file:///etc/passwd"}`, "url", "", 0},
		{http.MethodPost, "/callbacks", "\xef\xbb\xbf" + `{"url":"http://127.0.0.1:1/a"}`, "", "JSON object", 0},
		{http.MethodPost, "/callbacks", `{"url":"http://127.0.0.1:1/a"} trailing`, "", "not valid JSON", 0},
		{http.MethodPost, "/companies", `{"companies":[{"name":"` + strings.Repeat("\u202e", 10) + `","home_state":"ZZ"}]}`, "companies[0].home_state", "", 0},
		{http.MethodPatch, "/companies", `{"companies":[{"company":"Nobody","company_id":"x"}]}`, "companies[0].company", "", 0},
	}
	for i, tc := range cases {
		t.Run(fmt.Sprintf("%d %s %s", i, tc.method, tc.path), func(t *testing.T) {
			r := do(t, srv, tc.method, tc.path, tc.body)
			switch {
			case tc.field != "":
				requireFieldError(t, r, tc.field)
			case tc.status != 0:
				requireError(t, r, tc.status, tc.msg)
			default:
				requireError(t, r, http.StatusBadRequest, tc.msg)
			}
		})
	}
	// A method override header changes nothing: this POST registers.
	body := []byte(`{"url":"http://127.0.0.1:1/override"}`)
	tok := signJWT(t, srv.AccessKey, srv.SecretKey, "/callbacks", body)
	status, _, resp := rawRequest(t, srv, http.MethodPost, "/callbacks", map[string]string{"Authorization": "Bearer " + tok, "X-HTTP-Method-Override": "DELETE"}, string(body))
	require.Equal(t, http.StatusOK, status, resp)
	require.Len(t, srv.Callbacks(), 1)
	require.Empty(t, srv.Companies())
	require.Len(t, srv.Writes(), 1)
}
