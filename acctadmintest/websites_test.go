package acctadmintest_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

func TestWebsites(t *testing.T) {
	srv := newDemo(t)
	r := do(t, srv, http.MethodGet, "/websites?url="+demoURL, nil)
	requireOK(t, r, "true")
	var w map[string]any
	r.Result(t, &w)
	require.Equal(t, "Example Agent Services", w["name"])
	require.Equal(t, acctadmintest.DemoWebsiteURL, w["url"])
	require.Equal(t, "Example Agent Services LLC", w["billing_name"])
	require.Equal(t, "https://"+acctadmintest.DemoWebsiteURL+"/login", w["login_url"])
	require.Regexp(t, timestampRE, w["created_at"])
	require.Regexp(t, timestampRE, w["updated_at"])
	require.Equal(t, []any{"support@example-agent.com", "billing@example-agent.com"}, w["emails"])
	require.Equal(t, []any{"+1 208-555-0100"}, w["phone_numbers"])
	require.Equal(t, []any{map[string]any{"line_1": "100 Main Street", "line_2": "Suite 200", "city": "Boise", "state": "ID", "zip_code": "83702", "country": "US"}}, w["addresses"])

	r = do(t, srv, http.MethodGet, "/websites?url="+url.QueryEscape(acctadmintest.DemoBareWebsiteURL), nil)
	requireOK(t, r, "true")
	require.Contains(t, string(r.Body), `"emails":null,"phone_numbers":null,"addresses":null}`)

	requireFieldError(t, do(t, srv, http.MethodGet, "/websites", nil), "url")
	// A URL no website is registered as is success with website null (W1).
	r = do(t, srv, http.MethodGet, "/websites?url=https://nope.example", nil)
	requireOK(t, r, "true")
	require.JSONEq(t, `{"website":null}`, string(mustRaw(t, r)))
}
