package acctadmintest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// emptyBodyToken signs path with the content of no body at all.
func emptyBodyToken(t *testing.T, srv *acctadmintest.Server, path string) string {
	return signJWT(t, srv.AccessKey, srv.SecretKey, path, nil)
}

func TestAuthAcceptsEmptyObjectSignedAsEmptyOnEveryMethod(t *testing.T) {
	srv := newDemo(t)
	svc := acctadmintest.DemoID("service", 3)
	cb := srv.AddCallback("http://127.0.0.1:1/hook")
	cases := []struct {
		method, target string
		status         int
		msg            string // for answers other than 200
	}{
		{http.MethodGet, "/callbacks", http.StatusOK, ""},
		{http.MethodGet, "/documents?status=unread", http.StatusOK, ""},
		{http.MethodPost, "/services/" + svc.String() + "/cancel-request", 0, ""},
		{http.MethodDelete, "/callbacks/" + cb.ID.String(), http.StatusOK, ""},
		// {} is no company list: the token passed, the body is judged.
		{http.MethodPatch, "/companies", http.StatusBadRequest, "companies"},
		{http.MethodPost, "/companies", http.StatusBadRequest, "companies"},
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			path, _, _ := strings.Cut(tc.target, "?")
			r := doToken(t, srv, tc.method, tc.target, []byte("{}"), emptyBodyToken(t, srv, path))
			require.NotEqual(t, http.StatusUnauthorized, r.Status, "body: %s", r.Body)
			switch tc.status {
			case 0:
				require.Contains(t, []int{http.StatusOK, http.StatusBadRequest}, r.Status, "body: %s", r.Body)
				require.NotContains(t, string(r.Body), "unauthorized")
			case http.StatusOK:
				require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
			default:
				requireError(t, r, tc.status, tc.msg)
			}
		})
	}
	require.Empty(t, srv.Callbacks(), "the DELETE was applied")
}

func TestAuthRejectsOtherBodiesSignedAsEmpty(t *testing.T) {
	srv := newServer(t)
	for _, body := range []string{`{"url":"http://127.0.0.1:1/hook"}`, `[]`, `{ }x`, `null`, ` `} {
		for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete} {
			r := doToken(t, srv, method, "/callbacks", []byte(body), emptyBodyToken(t, srv, "/callbacks"))
			requireError(t, r, http.StatusUnauthorized, "content claim does not match")
		}
	}
	// The body must match its own hash: {} signed as {} passes, {} signed
	// as another body does not.
	r := doToken(t, srv, http.MethodGet, "/callbacks", []byte("{}"), signJWT(t, srv.AccessKey, srv.SecretKey, "/callbacks", []byte("{}")))
	requireOK(t, r, "true")
	r = doToken(t, srv, http.MethodGet, "/callbacks", []byte("{}"), signJWT(t, srv.AccessKey, srv.SecretKey, "/callbacks", []byte(`{"a":1}`)))
	requireError(t, r, http.StatusUnauthorized, "content claim does not match")
	require.Empty(t, srv.Callbacks())
	require.Empty(t, srv.Writes())
}

func TestJurisdictionAbbreviations(t *testing.T) {
	for _, in := range []string{"UT", "ut", " Ut ", "Utah", "UTAH"} {
		j, ok := acctadmintest.LookupJurisdiction(in)
		require.True(t, ok, in)
		require.Equal(t, "Utah", j.Name, in)
	}
	dc, ok := acctadmintest.LookupJurisdiction("dc")
	require.True(t, ok)
	require.Equal(t, "District of Columbia", dc.Name)
	for _, bad := range []string{"U", "UTA", "XX", "PR", "GU", "U.T.", ""} {
		_, ok := acctadmintest.LookupJurisdiction(bad)
		require.False(t, ok, bad)
	}
}

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

func TestUnknownPathUnderKnownPrefixIsNoSuchEndpoint(t *testing.T) {
	srv := newDemo(t)
	doc := acctadmintest.DemoID("document", 1)
	for _, target := range []string{
		"/documents/" + doc.String() + "/page/1/url/x",
		"/shopping-cart/" + doc.String(),
		"/documents/" + doc.String() + "/pages",
		"/documents/" + doc.String() + "/page/1/extra",
		"/services/" + acctadmintest.DemoID("service", 1).String(),
		"/callbacks/x/y",
		"/nowhere",
	} {
		r := do(t, srv, http.MethodGet, target, nil)
		requireError(t, r, http.StatusNotFound, "no such endpoint")
	}
	// A document id that is not one is still about the document.
	r := do(t, srv, http.MethodGet, "/documents/not-a-uuid", nil)
	requireError(t, r, http.StatusNotFound, "document not found")
	// Wrong method: 405 with Allow.
	r = do(t, srv, http.MethodPut, "/companies", nil)
	requireError(t, r, http.StatusMethodNotAllowed, "not allowed")
	require.Equal(t, "GET, PATCH, POST", r.Header.Get("Allow"))
	r = do(t, srv, http.MethodGet, "/callbacks/"+doc.String(), nil)
	requireError(t, r, http.StatusMethodNotAllowed, "not allowed")
	require.Equal(t, "DELETE", r.Header.Get("Allow"))
	// HEAD is no method of the API, though ServeMux lets GET patterns
	// take it.
	r = do(t, srv, http.MethodHead, "/companies", nil)
	require.Equal(t, http.StatusMethodNotAllowed, r.Status)
	require.Equal(t, "GET, PATCH, POST", r.Header.Get("Allow"))
	require.Equal(t, 1, srv.RequestCount(http.MethodHead, "/companies"))
	// Unauthenticated, an unknown path is a 401, not a 404.
	r = doToken(t, srv, http.MethodGet, "/documents/bulk-download", nil, "")
	requireError(t, r, http.StatusUnauthorized, "missing Authorization")
}
