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

// floridaAgent is the registered agent and address the real server
// answered for a Florida service (V1).
var floridaAgent = map[string]any{
	"name": "Registered Agents Inc",
	"address": map[string]any{
		"line1": "7901 4th St N", "line2": "STE 300", "city": "St. Petersburg",
		"state_province_region": "FL", "zip_postal_code": "33702",
	},
}

// TestRecordedV1ServiceAnswersItsRegisteredAgent: POST /services for
// Florida answers at once, before any invoice is paid, result an array
// whose item has id, status active and the registered agent with its
// address; the listing carries it too.
func TestRecordedV1ServiceAnswersItsRegisteredAgent(t *testing.T) {
	srv := newDemo(t)
	co := acctadmintest.DemoID("company", 1).String() // Utah home state
	r := do(t, srv, http.MethodPost, "/services", map[string]any{"company_id": co, "jurisdictions": []string{"Florida"}})
	requireOK(t, r, "true")
	items := r.Items(t)
	require.Len(t, items, 1)
	it := items[0]
	require.Regexp(t, `^[0-9a-f-]{36}$`, it["id"])
	require.Equal(t, "active", it["status"])
	require.Equal(t, floridaAgent, it["registered_agent"])

	r = do(t, srv, http.MethodGet, "/services?company_id="+co, nil)
	requireOK(t, r, "true")
	var listed map[string]any
	for _, s := range r.Items(t) {
		require.Contains(t, s, "registered_agent")
		if s["id"] == it["id"] {
			listed = s
		}
	}
	require.Equal(t, floridaAgent, listed["registered_agent"])
}

// TestRecordedV2ServiceMakesItsInvoice: creating the service creates an
// unpaid invoice of about 45.00 (the wholesale price), found with
// GET /invoices?company_id=<one id>, a single id without brackets.
func TestRecordedV2ServiceMakesItsInvoice(t *testing.T) {
	srv := newDemo(t)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "TEST Recorded LLC", HomeState: "Florida", EntityType: "Limited Liability Company"})
	r := do(t, srv, http.MethodGet, "/invoices?company_id="+co.ID.String(), nil)
	requireOK(t, r, "true")
	require.Equal(t, "[]", string(mustRaw(t, r)))

	r = do(t, srv, http.MethodPost, "/services", map[string]any{"company_id": co.ID.String(), "jurisdictions": []string{"FL"}})
	requireOK(t, r, "true")
	require.Len(t, r.Items(t), 1)

	r = do(t, srv, http.MethodGet, "/invoices?company_id="+co.ID.String(), nil)
	requireOK(t, r, "true")
	invoices := r.Items(t)
	require.Len(t, invoices, 1)
	require.Equal(t, co.ID.String(), invoices[0]["company_id"])
	require.Equal(t, "unpaid", invoices[0]["status"])
	require.Contains(t, string(r.Body), `"price":45.00,"description":"Registered Agent Service - Florida","quantity":1`)
	// The other companies' invoices are not in it.
	all := do(t, srv, http.MethodGet, "/invoices", nil).Items(t)
	require.Greater(t, len(all), 1)
	// A company_id that names no company is a 404.
	requireError(t, do(t, srv, http.MethodGet, "/invoices?company_id="+acctadmintest.DemoID("service", 1).String(), nil), http.StatusNotFound, "company")
}

// TestRecordedV3ServiceInfoEmptyBeforeAnyAdded: GET /services/{id}/info
// before any info was added answers result {"service_info": {}}; after
// POST it answers what was added there.
func TestRecordedV3ServiceInfoEmptyBeforeAnyAdded(t *testing.T) {
	srv := newDemo(t)
	id := acctadmintest.DemoID("service", 1).String()
	r := do(t, srv, http.MethodGet, "/services/"+id+"/info", nil)
	requireOK(t, r, "true")
	var res map[string]json.RawMessage
	r.Result(t, &res)
	require.Equal(t, "{}", string(res["service_info"]))
	require.NotContains(t, res, "info")

	info := `{"contact_person":{"first_name":"Ada","last_name":"Lovelace"}}`
	r = do(t, srv, http.MethodPost, "/services/"+id+"/info", info)
	requireOK(t, r, "true")
	r = do(t, srv, http.MethodGet, "/services/"+id+"/info", nil)
	r.Result(t, &res)
	require.JSONEq(t, info, string(res["service_info"]))
}

// TestRecordedV4WyomingAwaitsInfo: a Wyoming service awaits client input
// until POST /services/{id}/info, then is active; a Florida service of
// the same company is active at once.
func TestRecordedV4WyomingAwaitsInfo(t *testing.T) {
	srv := newDemo(t)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "TEST Wyoming Corp", HomeState: "Oregon", EntityType: "Corporation"})
	r := do(t, srv, http.MethodPost, "/services", map[string]any{"company_id": co.ID.String(), "jurisdictions": []string{"Wyoming", "Florida"}})
	requireOK(t, r, "true")
	status := map[string]string{}
	var wy string
	for _, s := range r.Items(t) {
		status[s["jurisdiction"].(string)] = s["status"].(string)
		if s["jurisdiction"] == "Wyoming" {
			wy = s["id"].(string)
		}
	}
	require.Equal(t, map[string]string{"Wyoming": "awaiting-client-input", "Florida": "active"}, status)
	r = do(t, srv, http.MethodPost, "/services/"+wy+"/info", `{"contact_person":{"first_name":"Ada"}}`)
	requireOK(t, r, "true")
	var res map[string]any
	r.Result(t, &res)
	require.Equal(t, "active", res["status"])
}

// TestRecordedW3AccountIsWholesale: GET /account of the demo account
// answers type wholesale-registered-agent.
func TestRecordedW3AccountIsWholesale(t *testing.T) {
	srv := newDemo(t)
	r := do(t, srv, http.MethodGet, "/account", nil)
	requireOK(t, r, "true")
	var res struct {
		Account map[string]any `json:"account"`
	}
	r.Result(t, &res)
	require.Equal(t, "wholesale-registered-agent", res.Account["type"])
}
