package acctadmintest_test

// Tests named after the facts of spec/recorded-behaviour.md: what the
// real server was recorded answering, held against the fake's exact
// answers.

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// TestRecordedE1ErrorDetailInResult: an error answer keeps the envelope,
// success false, with the detail inside result under request, and in
// message too.
func TestRecordedE1ErrorDetailInResult(t *testing.T) {
	srv := newDemo(t)
	for _, tc := range []struct {
		name, method, target string
		body                 any
		status               int
		detail               string
	}{
		{"unknown id", http.MethodGet, "/documents/" + acctadmintest.DemoID("service", 1).String(), nil, http.StatusNotFound, "document not found"},
		{"bad parameter", http.MethodPost, "/callbacks", map[string]any{"url": "ftp://x"}, http.StatusBadRequest, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, srv, tc.method, tc.target, tc.body)
			require.Equal(t, tc.status, r.Status, "%s", r.Body)
			m := r.JSON(t)
			require.Equal(t, false, m["success"])
			msg, _ := m["message"].(string)
			require.NotEmpty(t, msg)
			if tc.detail != "" {
				require.Equal(t, tc.detail, msg)
			}
			require.Equal(t, map[string]any{"request": msg}, m["result"])
		})
	}
	// A 401 carries its detail the same way.
	r := doToken(t, srv, http.MethodGet, "/companies", nil, "")
	require.Equal(t, http.StatusUnauthorized, r.Status)
	require.Equal(t, map[string]any{"request": "unauthorized: missing Authorization header"}, r.JSON(t)["result"])
}

// TestRecordedW1WebsiteNullWhenUnmatched: the account's website is
// registered scheme-less and matched as that text; the URL with a scheme
// and a slash is success with website null, not 404; the same
// scheme-less value works on the product listings, and another
// spelling lists nothing there.
func TestRecordedW1WebsiteNullWhenUnmatched(t *testing.T) {
	srv := newDemo(t)
	require.Equal(t, "www.example-agent.com", acctadmintest.DemoWebsiteURL)

	r := do(t, srv, http.MethodGet, "/websites?url="+url.QueryEscape("www.example-agent.com"), nil)
	requireOK(t, r, "true")
	var w map[string]any
	r.Result(t, &w)
	require.Equal(t, "www.example-agent.com", w["url"])
	require.Equal(t, acctadmintest.DemoID("website", 1).String(), w["id"])

	for _, other := range []string{"https://www.example-agent.com/", "https://www.example-agent.com", "www.example-agent.com/", "WWW.EXAMPLE-AGENT.COM"} {
		r := do(t, srv, http.MethodGet, "/websites?url="+url.QueryEscape(other), nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.JSONEq(t, `{"website":null}`, string(mustRaw(t, r)), other)
		m := r.JSON(t)
		require.Equal(t, true, m["success"])
	}
	for _, route := range []string{"/registered-agent-products", "/filing-products"} {
		r := do(t, srv, http.MethodGet, route+"?url="+url.QueryEscape("www.example-agent.com"), nil)
		requireOK(t, r, "true")
		require.NotEmpty(t, r.Items(t), route)
		r = do(t, srv, http.MethodGet, route+"?url="+url.QueryEscape("https://www.example-agent.com/"), nil)
		requireOK(t, r, "true")
		require.Empty(t, r.Items(t), route)
	}
}

// TestRecordedW2RegisteredAgentProductsCarryDuration: the items of
// GET /registered-agent-products are {id, jurisdiction, price, duration
// (months), name} (and the fake's url).
func TestRecordedW2RegisteredAgentProductsCarryDuration(t *testing.T) {
	srv := newDemo(t)
	r := do(t, srv, http.MethodGet, "/registered-agent-products?url="+url.QueryEscape(acctadmintest.DemoWebsiteURL), nil)
	requireOK(t, r, "true")
	var items []map[string]any
	require.NoError(t, json.Unmarshal(mustRaw(t, r), &items))
	var florida map[string]any
	for _, it := range items {
		require.Equal(t, float64(12), it["duration"], "%v", it)
		if it["jurisdiction"] == "Florida" {
			florida = it
		}
	}
	require.NotNil(t, florida, "a Florida product: %s", r.Body)
	require.Contains(t, string(r.Body), `"name":"Registered Agent Service - Florida","jurisdiction":"Florida","price":119.00,"duration":12,`)
	// A product seeded with another duration says so.
	srv.AddRegisteredAgentProduct(acctadmintest.RegisteredAgentProductInput{WebsiteURL: acctadmintest.DemoWebsiteURL, Name: "Two years", Jurisdiction: "Utah", Price: "200.00", Duration: 24})
	r = do(t, srv, http.MethodGet, "/registered-agent-products?url="+url.QueryEscape(acctadmintest.DemoWebsiteURL), nil)
	require.Contains(t, string(r.Body), `"name":"Two years","jurisdiction":"Utah","price":200.00,"duration":24,`)
}
