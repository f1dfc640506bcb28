package acctadmintest_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

func TestFilingProductsWithoutJurisdiction(t *testing.T) {
	srv := newDemo(t)
	r := do(t, srv, http.MethodGet, "/filing-products?url="+demoURL, nil)
	requireOK(t, r, "true")
	items := r.Items(t)
	require.Len(t, items, 4)
	for _, it := range items {
		require.NotContains(t, it, "filing_methods")
		require.ElementsMatch(t, []string{"id", "name", "filing_name", "price"}, keys(it))
	}
	require.Contains(t, string(r.Body), `"name":"Annual Report","filing_name":"annual report","price":149.00}`)
	require.Contains(t, string(r.Body), `"price":49.50}`)
}

func TestFilingProductsWithJurisdiction(t *testing.T) {
	srv := newDemo(t)
	r := do(t, srv, http.MethodGet, "/filing-products?url="+demoURL+"&jurisdiction=utah", nil)
	requireOK(t, r, "true")
	items := r.Items(t)
	require.Len(t, items, 4)
	var methods []any
	for _, it := range items {
		ms, ok := it["filing_methods"].([]any)
		require.True(t, ok, "filing_methods on every item: %v", it)
		methods = append(methods, ms...)
	}
	require.Len(t, methods, 5)
	for _, m := range methods {
		mm := m.(map[string]any)
		require.Equal(t, "Utah", mm["jurisdiction"])
		require.ElementsMatch(t, []string{"id", "name", "type", "cost", "filed_in", "docs_in", "agency_name", "filing_description", "jurisdiction"}, keys(mm))
	}
	body := string(r.Body)
	// Online: objects; mail: an array holding one object.
	require.Contains(t, body, `"type":"online","cost":20.00,"filed_in":{"days":1,"hours":0},"docs_in":{"days":0,"hours":4}`)
	require.Contains(t, body, `"type":"mail","cost":20.00,"filed_in":[{"days":10,"hours":0}],"docs_in":[{"days":2,"hours":0}]`)

	// A jurisdiction without methods: every item has an empty list.
	r = do(t, srv, http.MethodGet, "/filing-products?url="+demoURL+"&jurisdiction=Maine", nil)
	for _, it := range r.Items(t) {
		require.Equal(t, []any{}, it["filing_methods"])
	}
}

func TestFilingProductsValidation(t *testing.T) {
	srv := newDemo(t)
	requireFieldError(t, do(t, srv, http.MethodGet, "/filing-products", nil), "url")
	requireFieldError(t, do(t, srv, http.MethodGet, "/filing-products?jurisdiction=Utah", nil), "url")
	requireFieldError(t, do(t, srv, http.MethodGet, "/filing-products?url="+demoURL+"&jurisdiction=Gondor", nil), "jurisdiction")
	// The URL is matched as the exact text registered (W1): another
	// spelling of the same site names no website, a 404 that says so.
	for _, other := range []string{"https://unknown.example", "https://www.example-agent.com/", "https://www.example-agent.com", "WWW.Example-Agent.com", "www.example-agent.com/"} {
		r := do(t, srv, http.MethodGet, "/filing-products?url="+url.QueryEscape(other), nil)
		requireError(t, r, http.StatusNotFound, `website "`+other+`" (a website's URL is matched as registered, such as www.example.com) not found`)
	}
	r := do(t, srv, http.MethodGet, "/filing-products?url="+url.QueryEscape("www.example-agent.com"), nil)
	requireOK(t, r, "true")
	require.Len(t, r.Items(t), 4)
	// The other website sells nothing.
	r = do(t, srv, http.MethodGet, "/filing-products?url="+url.QueryEscape(acctadmintest.DemoBareWebsiteURL), nil)
	requireOK(t, r, "true")
	require.Equal(t, "[]", string(mustRaw(t, r)))
}

func TestRegisteredAgentProducts(t *testing.T) {
	srv := newDemo(t)
	r := do(t, srv, http.MethodGet, "/registered-agent-products?url="+demoURL, nil)
	requireOK(t, r, "true")
	items := r.Items(t)
	require.Len(t, items, 8)
	require.ElementsMatch(t, []string{"id", "name", "jurisdiction", "price", "duration", "url"}, keys(items[0]))
	require.Contains(t, string(r.Body), `"name":"Registered Agent Service - Utah","jurisdiction":"Utah","price":119.00,"duration":12,"url":"https://www.example-agent.com/registered-agent/ut"}`)
	requireFieldError(t, do(t, srv, http.MethodGet, "/registered-agent-products", nil), "url")
	for _, other := range []string{"https://x.example", "https://" + acctadmintest.DemoWebsiteURL} {
		r := do(t, srv, http.MethodGet, "/registered-agent-products?url="+url.QueryEscape(other), nil)
		requireError(t, r, http.StatusNotFound, `website "`+other+`"`)
	}
}

func TestFilingProductsByEntityType(t *testing.T) {
	srv := newServer(t)
	site := "https://shop.example.com"
	srv.AddWebsite(acctadmintest.WebsiteInput{URL: site, Name: "Shop"})
	llc := srv.AddFilingProduct(acctadmintest.FilingProductInput{WebsiteURL: site, Name: "LLC Amendment", EntityTypes: []string{"LLC", "Limited Liability Company"}})
	corp := srv.AddFilingProduct(acctadmintest.FilingProductInput{WebsiteURL: site, Name: "Corporate Amendment", EntityTypes: []string{"Corporation"}})
	any := srv.AddFilingProduct(acctadmintest.FilingProductInput{WebsiteURL: site, Name: "Annual Report"})
	ids := func(q string) []string {
		out := []string{}
		for _, it := range do(t, srv, http.MethodGet, "/filing-products?url="+url.QueryEscape(site)+q, nil).Items(t) {
			out = append(out, it["id"].(string))
		}
		return out
	}
	require.Equal(t, []string{llc.ID.String(), corp.ID.String(), any.ID.String()}, ids(""))
	require.Equal(t, []string{llc.ID.String(), any.ID.String()}, ids("&entity_type=llc"))
	require.Equal(t, []string{llc.ID.String(), any.ID.String()}, ids("&entity_type=Limited+Liability+Company&jurisdiction=UT"))
	require.Equal(t, []string{corp.ID.String(), any.ID.String()}, ids("&entity_type=Corporation"))
	require.Equal(t, []string{any.ID.String()}, ids("&entity_type=Nonprofit"))
}
