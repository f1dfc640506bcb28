package acctadmintest_test

// Tests named after the facts of spec/recorded-behaviour.md: what the
// real server was recorded answering, held against the fake's exact
// answers.

import (
	"encoding/json"
	"fmt"
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

// TestRecordedC1NullRefused: POST /companies with an explicit null for
// jurisdictions, home_state or duplicate_name_allowed is a 400 naming the
// key, and adds nothing; the same body with the key absent is a 200. Any
// key of a company write is held so, on PATCH too.
func TestRecordedC1NullRefused(t *testing.T) {
	srv := newDemo(t)
	before := len(srv.Companies())
	for _, tc := range []struct{ body, field string }{
		{`{"companies":[{"name":"TEST Null A LLC","entity_type":"LLC","jurisdictions":null}]}`, "companies[0].jurisdictions"},
		{`{"companies":[{"name":"TEST Null B LLC","entity_type":"LLC","home_state":null}]}`, "companies[0].home_state"},
		{`{"companies":[{"name":"TEST Null C LLC","entity_type":"LLC"}],"duplicate_name_allowed":null}`, "duplicate_name_allowed"},
		{`{"companies":[{"name":"TEST Null D LLC","entity_type":null}]}`, "companies[0].entity_type"},
		{`{"companies":[{"name":null}]}`, "companies[0].name"},
		{`{"companies":null}`, "companies"},
	} {
		r := do(t, srv, http.MethodPost, "/companies", tc.body)
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", tc.body, r.Body)
		require.Equal(t, []string{tc.field}, errorFields(t, r), tc.body)
		require.Equal(t, tc.field+" must not be null: leave the key out instead", r.JSON(t)["message"])
	}
	require.Len(t, srv.Companies(), before, "nothing was added")
	require.Empty(t, srv.Writes())

	// The same bodies without the keys are accepted.
	r := do(t, srv, http.MethodPost, "/companies", `{"companies":[{"name":"TEST Absent LLC","entity_type":"LLC"}]}`)
	requireOK(t, r, "true")
	require.Len(t, r.Items(t), 1)

	// PATCH refuses null as well, and changes nothing.
	co := acctadmintest.DemoID("company", 1).String()
	for _, key := range []string{"name", "entity_type", "home_state", "jurisdictions"} {
		r := do(t, srv, http.MethodPatch, "/companies", `{"companies":[{"company_id":"`+co+`","`+key+`":null}]}`)
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", key, r.Body)
		require.Equal(t, []string{"companies[0]." + key}, errorFields(t, r))
	}
	r = do(t, srv, http.MethodPatch, "/companies", `{"companies":[{"company_id":"`+co+`"}],"duplicate_name_allowed":null}`)
	require.Equal(t, []string{"duplicate_name_allowed"}, errorFields(t, r))
	got, _ := srv.Company(acctadmintest.DemoID("company", 1))
	require.Equal(t, "Acme Widgets LLC", got.Name)
	require.Equal(t, "Utah", got.HomeState)
}

// TestRecordedC2InvalidValuesRefused: entity_type "Corporation1" with
// home_state "Oregon1" is a 400, and so is each alone.
func TestRecordedC2InvalidValuesRefused(t *testing.T) {
	srv := newServer(t)
	for _, tc := range []struct{ body, field string }{
		{`{"companies":[{"name":"TEST C2 Inc","entity_type":"Corporation1","home_state":"Oregon1"}]}`, ""},
		{`{"companies":[{"name":"TEST C2 Inc","entity_type":"Corporation1","home_state":"Oregon"}]}`, "companies[0].entity_type"},
		{`{"companies":[{"name":"TEST C2 Inc","entity_type":"Corporation","home_state":"Oregon1"}]}`, "companies[0].home_state"},
		{`{"companies":[{"name":"TEST C2 Inc","entity_type":"Corporation","jurisdictions":["Oregon1"]}]}`, "companies[0].jurisdictions"},
	} {
		r := do(t, srv, http.MethodPost, "/companies", tc.body)
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", tc.body, r.Body)
		if tc.field != "" {
			require.Equal(t, []string{tc.field}, errorFields(t, r), tc.body)
		}
	}
	require.Empty(t, srv.Companies())
	r := do(t, srv, http.MethodPost, "/companies", `{"companies":[{"name":"TEST C2 Inc","entity_type":"LLC"}]}`)
	requireOK(t, r, "true")
	id := r.Items(t)[0]["id"].(string)
	r = do(t, srv, http.MethodPatch, "/companies", `{"companies":[{"company_id":"`+id+`","entity_type":"Corporation1"}]}`)
	require.Equal(t, []string{"companies[0].entity_type"}, errorFields(t, r))
}

// TestRecordedC3FullNamesAccepted: entity_type "Limited Liability
// Company" and "Corporation", and states by full name in home_state and
// jurisdictions, are accepted (and the short forms besides).
func TestRecordedC3FullNamesAccepted(t *testing.T) {
	srv := newServer(t)
	for i, tc := range []struct{ entity, home string }{
		{"Limited Liability Company", "Oregon"}, {"Corporation", "Florida"}, {"LLC", "Texas"}, {"corporation", "TX"}, {"PLLC", "Washington"},
	} {
		body := map[string]any{"companies": []map[string]any{{"name": "TEST C3 " + itoa(i), "entity_type": tc.entity, "home_state": tc.home, "jurisdictions": []string{"Oregon", "Florida", "Texas"}}}}
		r := do(t, srv, http.MethodPost, "/companies", body)
		requireOK(t, r, "true")
		got := r.Items(t)[0]
		require.Equal(t, tc.entity, got["entity_type"])
		require.Equal(t, []any{"Oregon", "Florida", "Texas"}, got["jurisdictions"])
	}
}

// TestRecordedC4CreateAnswersAnArray: POST /companies answers result as
// an array; the new company's id is result[0].id.
func TestRecordedC4CreateAnswersAnArray(t *testing.T) {
	srv := newServer(t)
	r := do(t, srv, http.MethodPost, "/companies", `{"companies":[{"name":"TEST C4 LLC","home_state":"Oregon","entity_type":"Limited Liability Company"}]}`)
	requireOK(t, r, "true")
	var res []map[string]any
	require.NoError(t, json.Unmarshal(mustRaw(t, r), &res))
	require.Len(t, res, 1)
	co := srv.Companies()
	require.Len(t, co, 1)
	require.Equal(t, co[0].ID.String(), res[0]["id"])
}

// TestRecordedC5RenameRules: renaming a company name that does not exist
// is a 404; onto a name the account has, with duplicate_name_allowed
// false (beside companies) a 400, with true a 200.
func TestRecordedC5RenameRules(t *testing.T) {
	srv := newDemo(t)
	r := do(t, srv, http.MethodPatch, "/companies", `{"companies":[{"company":"TEST No Such Co","name":"TEST Other"}]}`)
	requireError(t, r, http.StatusNotFound, "company")
	onto := `{"companies":[{"company":"Acme Widgets LLC","name":"Delta Freight Co"}],"duplicate_name_allowed":%s}`
	r = do(t, srv, http.MethodPatch, "/companies", fmt.Sprintf(onto, "false"))
	requireError(t, r, http.StatusBadRequest, "already the name")
	r = do(t, srv, http.MethodPatch, "/companies", fmt.Sprintf(onto, "true"))
	requireOK(t, r, "true")
	require.Equal(t, "Delta Freight Co", r.Items(t)[0]["name"])
}
