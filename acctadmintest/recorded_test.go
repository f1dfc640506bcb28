package acctadmintest_test

// Tests named after the facts of spec/recorded-behaviour.md: what the
// real server was recorded answering, held against the fake's exact
// answers.

import (
	"archive/zip"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
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
// scheme-less value works on the product listings, where another
// spelling is the fake's 404 (nothing is recorded there).
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
		requireError(t, r, http.StatusNotFound, "matched as registered")
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

// formBToken signs a request in the documented form (S1): the bare path,
// and the SHA-256 of the raw query exactly as sent followed by the body;
// with typ in the header when typ is true.
func formBToken(t *testing.T, srv *acctadmintest.Server, path, rawQuery string, body []byte, typ bool) string {
	h := map[string]any{"alg": "HS256", "access_key": srv.AccessKey}
	if typ {
		h["typ"] = "JWT"
	}
	return handJWT(t, h, map[string]any{"path": path, "content": sha256Hex(append([]byte(rawQuery), body...))}, srv.SecretKey)
}

// TestRecordedS1DocumentedFormAccepted: the documented form (the hash of
// the query followed by the body) and the examples' form (the body
// alone) are both accepted by default; strict signing takes one of them,
// the SDK's (DefaultStrictSigning) when none is named.
func TestRecordedS1DocumentedFormAccepted(t *testing.T) {
	require.Equal(t, acctadmintest.SignQueryAndBody, acctadmintest.DefaultStrictSigning)
	const q = "status=unread&limit=2"
	for _, tc := range []struct {
		name         string
		opts         []acctadmintest.Option
		query, bodyA int
	}{
		{"default", nil, http.StatusOK, http.StatusOK},
		{"strict query", []acctadmintest.Option{acctadmintest.WithStrictSigning(acctadmintest.SignQueryAndBody)}, http.StatusOK, http.StatusUnauthorized},
		{"strict body", []acctadmintest.Option{acctadmintest.WithStrictSigning(acctadmintest.SignBodyOnly)}, http.StatusUnauthorized, http.StatusOK},
		{"strict default", []acctadmintest.Option{acctadmintest.WithStrictSigning()}, http.StatusOK, http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newDemo(t, tc.opts...)
			r := doToken(t, srv, http.MethodGet, "/documents?"+q, nil, formBToken(t, srv, "/documents", q, nil, true))
			require.Equal(t, tc.query, r.Status, "%s", r.Body)
			r = doToken(t, srv, http.MethodGet, "/documents?"+q, nil, signJWT(t, srv.AccessKey, srv.SecretKey, "/documents", nil))
			require.Equal(t, tc.bodyA, r.Status, "%s", r.Body)
		})
	}
}

// TestRecordedS2DocumentedFormOnRecordedQueries: the GETs with a query
// the documented form was recorded working on answer 200 signed so, by
// default and in strict query mode, with the answer each asked for.
func TestRecordedS2DocumentedFormOnRecordedQueries(t *testing.T) {
	acme := acctadmintest.DemoID("company", 1).String()
	site := url.QueryEscape(acctadmintest.DemoWebsiteURL)
	for _, mode := range [][]acctadmintest.Option{nil, {acctadmintest.WithStrictSigning(acctadmintest.SignQueryAndBody)}} {
		srv := newDemo(t, mode...)
		for _, tc := range []struct{ path, query string }{
			{"/websites", "url=" + site},
			{"/registered-agent-products", "url=" + site},
			{"/invoices", "company_id=" + acme},
			{"/companies", "limit=10&offset=0"},
			{"/filing-products", "url=" + acctadmintest.DemoWebsiteURL},
		} {
			r := doToken(t, srv, http.MethodGet, tc.path+"?"+tc.query, nil, formBToken(t, srv, tc.path, tc.query, nil, false))
			requireOK(t, r, "true")
			switch tc.path {
			case "/websites":
				var w map[string]any
				r.Result(t, &w)
				require.Equal(t, acctadmintest.DemoWebsiteURL, w["url"])
			case "/invoices":
				for _, inv := range r.Items(t) {
					require.Equal(t, acme, inv["company_id"])
				}
			default:
				require.NotEmpty(t, r.Items(t), tc.path)
			}
		}
	}
}

// TestRecordedS3HashCoversQueryAsSent: each spelling clients send (+ for
// a space, an unencoded URL, repeated keys without [], comma-joined
// lists) passes when the hash covers exactly the bytes sent, and is
// refused (401) when it covers another spelling of the same values.
func TestRecordedS3HashCoversQueryAsSent(t *testing.T) {
	srv := newDemo(t, acctadmintest.WithStrictSigning(acctadmintest.SignQueryAndBody))
	a, b := acctadmintest.DemoID("company", 1).String(), acctadmintest.DemoID("company", 2).String()
	for _, tc := range []struct{ path, sent, other string }{
		{"/companies", "names=Acme+Widgets+LLC", "names=Acme%20Widgets%20LLC"},
		{"/websites", "url=https://www.example-agent.com/", "url=https%3A%2F%2Fwww.example-agent.com%2F"},
		{"/invoices", "company_ids=" + a + "&company_ids=" + b, "company_ids%5B%5D=" + a + "&company_ids%5B%5D=" + b},
		{"/companies", "names=Acme Widgets LLC,Delta Freight Co", "names=Acme+Widgets+LLC%2CDelta+Freight+Co"},
	} {
		target := tc.path + "?" + strings.ReplaceAll(tc.sent, " ", "%20")
		sent := strings.ReplaceAll(tc.sent, " ", "%20")
		r := doToken(t, srv, http.MethodGet, target, nil, formBToken(t, srv, tc.path, sent, nil, true))
		require.Equal(t, http.StatusOK, r.Status, "%s: %s", sent, r.Body)
		r = doToken(t, srv, http.MethodGet, target, nil, formBToken(t, srv, tc.path, tc.other, nil, true))
		requireError(t, r, http.StatusUnauthorized, "content claim")
	}
}

// TestRecordedS4HeaderVariants: the token's header with or without typ,
// its keys in any order, passes; a claim besides path and content (exp,
// iat) is refused.
func TestRecordedS4HeaderVariants(t *testing.T) {
	srv := newDemo(t, acctadmintest.WithStrictSigning(acctadmintest.SignQueryAndBody))
	const q = "status=unread"
	content := sha256Hex([]byte(q))
	for _, hdr := range []string{
		`{"alg":"HS256","typ":"JWT","access_key":"%s"}`,
		`{"access_key":"%s","alg":"HS256"}`,
		`{"typ":"JWT","access_key":"%s","alg":"HS256"}`,
	} {
		h := b64url(fmt.Sprintf(hdr, srv.AccessKey))
		c := b64url(`{"content":"` + content + `","path":"/documents"}`)
		tok := h + "." + c + "." + hmacB64(srv.SecretKey, h+"."+c)
		r := doToken(t, srv, http.MethodGet, "/documents?"+q, nil, tok)
		require.Equal(t, http.StatusOK, r.Status, "%s: %s", hdr, r.Body)
	}
	for _, extra := range []string{"exp", "iat"} {
		tok := handJWT(t, map[string]any{"alg": "HS256", "access_key": srv.AccessKey},
			map[string]any{"path": "/documents", "content": content, extra: 4102444800}, srv.SecretKey)
		r := doToken(t, srv, http.MethodGet, "/documents?"+q, nil, tok)
		requireError(t, r, http.StatusUnauthorized, `unexpected claim "`+extra+`"`)
	}
}

// TestRecordedS5BadSignature401: a token signed with another secret, or
// whose content claim hashes something else, is answered 401, its
// detail in result too.
func TestRecordedS5BadSignature401(t *testing.T) {
	srv := newDemo(t)
	const q = "status=unread"
	tok := handJWT(t, map[string]any{"alg": "HS256", "access_key": srv.AccessKey}, map[string]any{"path": "/documents", "content": sha256Hex([]byte(q))}, "another secret")
	r := doToken(t, srv, http.MethodGet, "/documents?"+q, nil, tok)
	m := requireError(t, r, http.StatusUnauthorized, "token signature is invalid")
	require.Equal(t, map[string]any{"request": "unauthorized: token signature is invalid"}, m["result"])
	r = doToken(t, srv, http.MethodGet, "/documents?"+q, nil, formBToken(t, srv, "/documents", q+"&x=1", nil, true))
	requireError(t, r, http.StatusUnauthorized, "content claim matches neither")
	require.Empty(t, srv.Writes())
}

// hmacB64 is the base64url HMAC-SHA256 of input under secret: a JWT's
// signature, for tokens whose header is written by hand.
func hmacB64(secret, input string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(input))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// TestRecordedW4TestCompaniesCreateAndInvoice: test mode is a second key
// pair on the same base URL, whose companies are named "TEST ..."; such a
// company is created and invoiced like any other (the fake has one key
// pair: a client's test keys are its keys).
func TestRecordedW4TestCompaniesCreateAndInvoice(t *testing.T) {
	srv := newServer(t)
	r := do(t, srv, http.MethodPost, "/companies", `{"companies":[{"name":"TEST Sandbox LLC","home_state":"Florida","entity_type":"Limited Liability Company"}]}`)
	requireOK(t, r, "true")
	id := r.Items(t)[0]["id"].(string)
	r = do(t, srv, http.MethodPost, "/services", map[string]any{"company_id": id, "jurisdictions": []string{"Florida"}})
	requireOK(t, r, "true")
	r = do(t, srv, http.MethodGet, "/invoices?company_id="+id, nil)
	requireOK(t, r, "true")
	invoices := r.Items(t)
	require.Len(t, invoices, 1)
	require.Equal(t, "TEST Sandbox LLC", invoices[0]["company"])
}

// TestRecordedPageURLTakesDPI: dpi on GET /documents/{id}/page/{n}/url
// (seen once in a client) gives the page image at that resolution.
func TestRecordedPageURLTakesDPI(t *testing.T) {
	srv := newDemo(t)
	doc := acctadmintest.DemoID("document", 1).String()
	for _, dpi := range []int{72, 300} {
		var link struct {
			URL string `json:"url"`
		}
		do(t, srv, http.MethodGet, "/documents/"+doc+"/page/0/url?dpi="+itoa(dpi), nil).Result(t, &link)
		resp, err := srv.Client().Get(link.URL)
		require.NoError(t, err)
		w, h := acctadmintest.PagePixels(dpi)
		requirePNG(t, readResponse(t, resp), w, h)
		resp.Body.Close()
	}
	requireFieldError(t, do(t, srv, http.MethodGet, "/documents/"+doc+"/page/0/url?dpi=96", nil), "dpi")
}

// TestRecordedBulkDownloadBareIDs: the bulk download takes ids= without
// brackets, repeated or comma-joined, as it takes ids[]=.
func TestRecordedBulkDownloadBareIDs(t *testing.T) {
	srv := newDemo(t)
	a, b := acctadmintest.DemoID("document", 1).String(), acctadmintest.DemoID("document", 2).String()
	for _, q := range []string{"ids=" + a + "&ids=" + b, "ids=" + a + "," + b, "ids[]=" + a + "&ids[]=" + b} {
		var link struct {
			URL string `json:"url"`
		}
		do(t, srv, http.MethodGet, "/documents/bulk-download?"+q, nil).Result(t, &link)
		resp, err := srv.Client().Get(link.URL)
		require.NoError(t, err)
		zr := readResponse(t, resp)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, zr.Status, q)
		z, err := zip.NewReader(bytes.NewReader(zr.Body), int64(len(zr.Body)))
		require.NoError(t, err)
		require.Len(t, z.File, 2, q)
	}
}
