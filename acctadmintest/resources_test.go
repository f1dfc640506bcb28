package acctadmintest_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

func seedResources(srv *acctadmintest.Server) []acctadmintest.Resource {
	return []acctadmintest.Resource{
		srv.AddResource(acctadmintest.ResourceInput{Name: "Utah Articles of Organization", URL: "https://forms.example.gov/ut/aoo.pdf", Jurisdiction: "Utah", Agency: "Division of Corporations", EntityTypes: []string{"LLC"}, Pages: 2}),
		srv.AddResource(acctadmintest.ResourceInput{Name: "Utah Annual Report", URL: "https://forms.example.gov/ut/ar.pdf", Jurisdiction: "Utah", Agency: "Division of Corporations", EntityTypes: []string{"LLC", "Corporation"}}),
		srv.AddResource(acctadmintest.ResourceInput{Name: "Idaho Annual Report", URL: "https://forms.example.gov/id/ar.pdf", Jurisdiction: "Idaho", Agency: "Secretary of State", EntityTypes: []string{"Corporation"}, Pages: 3}),
		srv.AddResource(acctadmintest.ResourceInput{Name: "Idaho Business Search", URL: "https://forms.example.gov/id/search", Kind: acctadmintest.ResourceURL, Jurisdiction: "Idaho", Agency: "Secretary of State"}),
	}
}

func TestResourcesListShape(t *testing.T) {
	srv := newServer(t)
	res := seedResources(srv)
	r := do(t, srv, http.MethodGet, "/resources", nil)
	requireOK(t, r, `"true"`)
	items := r.Items(t)
	require.Len(t, items, 4)
	require.Equal(t, map[string]any{
		"id": res[0].ID.String(), "name": "Utah Articles of Organization", "url": "https://forms.example.gov/ut/aoo.pdf",
		"kind": "document", "jurisdiction": "Utah", "agency": "Division of Corporations", "entity_types": []any{"LLC"},
	}, items[0])
	require.Contains(t, string(r.Body), `"kind":"url","jurisdiction":"Idaho","agency":"Secretary of State","entity_types":null}`)
}

func TestResourcesFilters(t *testing.T) {
	srv := newServer(t)
	res := seedResources(srv)
	ids := func(q url.Values) []string {
		var out []string
		for _, it := range do(t, srv, http.MethodGet, "/resources?"+q.Encode(), nil).Items(t) {
			out = append(out, it["id"].(string))
		}
		return out
	}
	id := func(i ...int) []string {
		var out []string
		for _, n := range i {
			out = append(out, res[n].ID.String())
		}
		return out
	}
	require.Equal(t, id(0, 1), ids(url.Values{"jurisdiction": {"utah"}}))
	require.Equal(t, id(2, 3), ids(url.Values{"agency": {"Secretary of State"}}))
	require.Equal(t, id(1, 2), ids(url.Values{"entity_type": {"corporation"}}))
	require.Equal(t, id(1, 2), ids(url.Values{"name": {"annual"}}))
	require.Equal(t, id(1), ids(url.Values{"name": {"Annual"}, "jurisdiction": {"Utah"}, "entity_type": {"LLC"}, "agency": {"division of corporations"}}))
	require.Empty(t, ids(url.Values{"name": {"Annual"}, "agency": {"Nobody"}}))
	require.Equal(t, id(1, 2), ids(url.Values{"limit": {"2"}, "offset": {"1"}}))
	requireFieldError(t, do(t, srv, http.MethodGet, "/resources?jurisdiction=Atlantis", nil), "jurisdiction")
	requireFieldError(t, do(t, srv, http.MethodGet, "/resources?limit=201", nil), "limit")
}

func TestResourceGetPageDownload(t *testing.T) {
	srv := newServer(t)
	res := seedResources(srv)
	r := do(t, srv, http.MethodGet, "/resources/"+res[2].ID.String(), nil)
	requireOK(t, r, "true")
	var got map[string]any
	r.Result(t, &got)
	require.Equal(t, "Idaho Annual Report", got["name"])
	require.Equal(t, []any{"Corporation"}, got["entity_types"])

	requirePNG(t, do(t, srv, http.MethodGet, "/resources/"+res[2].ID.String()+"/page/2?dpi=72", nil), 612, 792)
	requireError(t, do(t, srv, http.MethodGet, "/resources/"+res[2].ID.String()+"/page/3", nil), http.StatusNotFound, "page 3")
	requireFieldError(t, do(t, srv, http.MethodGet, "/resources/"+res[2].ID.String()+"/page/0?dpi=96", nil), "dpi")

	r = do(t, srv, http.MethodGet, "/resources/"+res[2].ID.String()+"/download", nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, "application/pdf", r.Header.Get("Content-Type"))
	require.Equal(t, `attachment; filename="Idaho Annual Report.pdf"`, r.Header.Get("Content-Disposition"))
	requirePDF(t, r.Body, 3)
	after, _ := srv.Resource(res[2].ID)
	require.Equal(t, res[2], after, "download changes nothing")

	// A link has no file.
	requireError(t, do(t, srv, http.MethodGet, "/resources/"+res[3].ID.String()+"/download", nil), http.StatusNotFound, "it is a link")
	requireError(t, do(t, srv, http.MethodGet, "/resources/"+res[3].ID.String()+"/page/0", nil), http.StatusNotFound, "it is a link")
	requireError(t, do(t, srv, http.MethodGet, "/resources/"+uuid.NewString(), nil), http.StatusNotFound, "resource not found")
	requireError(t, do(t, srv, http.MethodGet, "/resources/"+uuid.NewString()+"/download", nil), http.StatusNotFound, "resource not found")
}

func TestResourcePDFSize(t *testing.T) {
	srv := newServer(t)
	res := srv.AddResource(acctadmintest.ResourceInput{Name: "Handbook", Pages: 7, PDFSize: 300_000})
	r := do(t, srv, http.MethodGet, "/resources/"+res.ID.String()+"/download", nil)
	require.Len(t, r.Body, 300_000)
	requirePDF(t, r.Body, 7)
}
