package acctadmintest_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// TestWithoutQuirksAnswersOneFormat: with WithoutQuirks every listing
// answers one wire format: jurisdiction not state, no _links, plain
// lists, one time format, no legacy fields.
func TestWithoutQuirksAnswersOneFormat(t *testing.T) {
	srv := newDemo(t, acctadmintest.WithoutQuirks())

	r := do(t, srv, http.MethodGet, "/documents?limit=1", nil)
	requireOK(t, r, "true")
	d := r.Items(t)[0]
	require.Contains(t, d, "jurisdiction")
	require.NotContains(t, d, "state")
	require.NotContains(t, d, "_links")

	requireOK(t, do(t, srv, http.MethodGet, "/resources", nil), "true")
	require.Contains(t, string(do(t, srv, http.MethodGet, "/resources", nil).Body), `"kind":"url","jurisdiction":"Utah","agency":"Division of Corporations and Commercial Code","entity_types":[]}`)

	r = do(t, srv, http.MethodGet, "/compliance-events?start_date=2025-01-01&end_date=2026-12-31&jurisdictions[]=Nevada", nil)
	requireOK(t, r, "true")
	require.Contains(t, string(r.Body), `"jurisdictions":["Utah","Idaho","Nevada"]`)

	r = do(t, srv, http.MethodGet, "/filing-products?url="+demoURL+"&jurisdiction=Utah", nil)
	require.Contains(t, string(r.Body), `"type":"mail","cost":20.00,"filed_in":{"days":10,"hours":0},"docs_in":{"days":2,"hours":0}`)
	require.NotContains(t, string(r.Body), `[{"days"`)

	r = do(t, srv, http.MethodGet, "/websites?url="+url.QueryEscape(acctadmintest.DemoBareWebsiteURL), nil)
	require.Contains(t, string(r.Body), `"emails":[],"phone_numbers":[],"addresses":[]}`)

	r = do(t, srv, http.MethodGet, "/services?limit=1", nil)
	require.NotContains(t, r.Items(t)[0], "legacy_id")

	// One time format, also for cancel-request.
	var unpaid, other string
	for _, s := range srv.Services() {
		if s.Company == acctadmintest.DemoUnpaidCompany {
			unpaid = s.ID.String()
		} else if other == "" {
			other = s.ID.String()
		}
	}
	r = do(t, srv, http.MethodPost, "/services/"+unpaid+"/cancel-request", nil)
	m := requireError(t, r, http.StatusBadRequest, "unpaid invoices")
	require.Regexp(t, timestampRE, m["timestamp"])
	r = do(t, srv, http.MethodPost, "/services/"+other+"/cancel-request", nil)
	requireOK(t, r, "true")
	var s map[string]any
	r.Result(t, &s)
	require.Regexp(t, timestampRE, s["updated_at"])
}

// TestDefaultFormatsAreTheProvidersOwn: the quirks of the provider's
// wire format are on by default; each is checked once more here in one
// place, on the demo account.
func TestDefaultFormatsAreTheProvidersOwn(t *testing.T) {
	srv := newDemo(t)
	for _, p := range []string{"/documents", "/resources", "/compliance-events?start_date=2025-01-01&end_date=2026-12-31"} {
		require.True(t, strings.HasPrefix(string(do(t, srv, http.MethodGet, p, nil).Body), `{"success":"true",`), p)
	}
	for _, p := range []string{"/services", "/companies", "/invoices", "/callbacks", "/websites?url=" + demoURL, "/filing-products?url=" + demoURL, "/registered-agent-products?url=" + demoURL} {
		require.True(t, strings.HasPrefix(string(do(t, srv, http.MethodGet, p, nil).Body), `{"success":true,`), p)
	}
	docs := srv.Documents()
	require.Contains(t, string(do(t, srv, http.MethodGet, "/documents/"+docs[0].ID.String(), nil).Body), `"jurisdiction":"Utah"`)
	require.Contains(t, string(do(t, srv, http.MethodGet, "/documents?status=read&limit=200", nil).Body), `"state":"Utah"`)
	body := string(do(t, srv, http.MethodGet, "/compliance-events?start_date=2025-01-01&end_date=2026-12-31", nil).Body)
	require.Contains(t, body, `"jurisdictions":[{"jurisdiction":"Utah"},{"jurisdiction":"Idaho"},{"jurisdiction":"Nevada"}]`)
	body = string(do(t, srv, http.MethodGet, "/filing-products?url="+demoURL+"&jurisdiction=Texas", nil).Body)
	require.Contains(t, body, `"type":"fax","cost":300.00,"filed_in":[{"days":5,"hours":0}]`)
	require.Contains(t, body, `"type":"online","cost":300.00,"filed_in":{"days":3,"hours":0}`)
}
