package acctadmintest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

func TestUnknownRouteIs404JSON(t *testing.T) {
	srv := newServer(t)
	for _, p := range []string{"/", "/nothing", "/documents/x/y", "/services/", "/registered-agents"} {
		requireError(t, do(t, srv, http.MethodGet, p, nil), http.StatusNotFound, "no such endpoint")
	}
	require.Equal(t, 5, srv.RequestCount(http.MethodGet, ""))
}

func TestWrongMethodIs405(t *testing.T) {
	srv := newServer(t)
	r := do(t, srv, http.MethodDelete, "/companies", nil)
	requireError(t, r, http.StatusMethodNotAllowed, "method DELETE is not allowed on /companies")
	require.Equal(t, "GET, PATCH, POST", r.Header.Get("Allow"))
	r = do(t, srv, http.MethodPut, "/documents/"+uuid.NewString(), nil)
	requireError(t, r, http.StatusMethodNotAllowed, "not allowed")
	require.Equal(t, "GET", r.Header.Get("Allow"))
}

func TestRoutesListsEveryEndpoint(t *testing.T) {
	routes := acctadmintest.Routes()
	require.Len(t, routes, 50)
	require.Contains(t, routes, "GET /documents/:id/page/:page_number")
	require.Contains(t, routes, "DELETE /callbacks/:id")
	require.Contains(t, routes, "PATCH /companies")
	require.Contains(t, routes, "GET /documents/bulk-download")
	require.Contains(t, routes, "POST /shopping-cart/checkout")
	for _, r := range routes {
		method, path, ok := strings.Cut(r, " ")
		require.True(t, ok)
		require.Contains(t, []string{"GET", "POST", "PATCH", "DELETE"}, method)
		require.True(t, strings.HasPrefix(path, "/"))
	}
}

func TestMalformedQueryIs400(t *testing.T) {
	srv := newServer(t)
	requireError(t, do(t, srv, http.MethodGet, "/services?limit=%zz", nil), http.StatusBadRequest, "malformed query")
}

func TestOversizedBodyIs413(t *testing.T) {
	srv := newServer(t)
	body := `{"url":"http://127.0.0.1/` + strings.Repeat("a", 1<<20) + `"}`
	requireError(t, do(t, srv, http.MethodPost, "/callbacks", body), http.StatusRequestEntityTooLarge, "larger than 1 MiB")
}

func TestCallbacks(t *testing.T) {
	srv := newServer(t)
	r := do(t, srv, http.MethodPost, "/callbacks", map[string]any{"url": "https://hooks.example.com/acct?x=1&y=2"})
	requireOK(t, r, "true")
	var cb map[string]any
	r.Result(t, &cb)
	require.ElementsMatch(t, []string{"id", "created_at", "url"}, keys(cb))
	require.Equal(t, "https://hooks.example.com/acct?x=1&y=2", cb["url"])
	require.Equal(t, "2025-03-14 08:09:26 -0700", cb["created_at"])
	require.Contains(t, string(r.Body), `"url":"https://hooks.example.com/acct?x=1&y=2"`, "no HTML escaping")

	do(t, srv, http.MethodPost, "/callbacks", map[string]any{"url": "http://127.0.0.1:9/second"})
	r = do(t, srv, http.MethodGet, "/callbacks", nil)
	requireOK(t, r, "true")
	items := r.Items(t)
	require.Len(t, items, 2)
	require.Equal(t, cb["id"], items[0]["id"])

	for _, body := range []any{map[string]any{}, map[string]any{"url": ""}, map[string]any{"url": "/relative"}, map[string]any{"url": "ftp://x.example"}, map[string]any{"url": "https://"}, map[string]any{"url": 5}} {
		requireFieldError(t, do(t, srv, http.MethodPost, "/callbacks", body), "url")
	}

	r = do(t, srv, http.MethodDelete, "/callbacks/"+cb["id"].(string), nil)
	requireOK(t, r, "true")
	require.JSONEq(t, `{"id":"`+cb["id"].(string)+`"}`, string(mustRaw(t, r)))
	require.Len(t, srv.Callbacks(), 1)
	requireError(t, do(t, srv, http.MethodDelete, "/callbacks/"+cb["id"].(string), nil), http.StatusNotFound, "callback not found")
	requireError(t, do(t, srv, http.MethodDelete, "/callbacks/nope", nil), http.StatusNotFound, "callback not found")
	require.Len(t, srv.Writes(), 3)
}

func TestRequestLogAndCounts(t *testing.T) {
	srv := newServer(t)
	do(t, srv, http.MethodGet, "/services?limit=5", nil)
	do(t, srv, http.MethodGet, "/services", nil)
	do(t, srv, http.MethodPost, "/callbacks", map[string]any{"url": "http://127.0.0.1:9/x"})
	doToken(t, srv, http.MethodGet, "/documents/"+uuid.NewString(), nil, "")

	require.Equal(t, 4, srv.TotalRequests())
	require.Equal(t, 2, srv.RequestCount(http.MethodGet, "/services"))
	require.Equal(t, 0, srv.RequestCount(http.MethodPost, "/services"))
	require.Equal(t, 1, srv.RequestCount("", "/documents/:id"))
	require.Equal(t, map[string]int{"GET /services": 2, "POST /callbacks": 1, "GET /documents/:id": 1}, srv.RequestCounts())

	log := srv.Requests()
	require.Len(t, log, 4)
	require.Equal(t, "limit=5", log[0].Query)
	require.Equal(t, "/services", log[0].Route)
	require.Equal(t, 200, log[0].Status)
	require.Equal(t, `{"url":"http://127.0.0.1:9/x"}`, string(log[2].Body))
	require.Equal(t, 401, log[3].Status)
	require.Equal(t, fixedNow, log[0].Time)

	srv.ResetRequests()
	require.Zero(t, srv.TotalRequests())
	require.Empty(t, srv.Requests())
	require.Empty(t, srv.Writes())
	do(t, srv, http.MethodGet, "/services", nil)
	require.Equal(t, 200, srv.Requests()[0].Status)
}

func TestJurisdictionTable(t *testing.T) {
	js := acctadmintest.Jurisdictions()
	require.Len(t, js, 51)
	seen := map[uuid.UUID]bool{}
	for _, j := range js {
		require.False(t, seen[j.ID])
		seen[j.ID] = true
		require.Equal(t, uuid.NewSHA1(acctadmintest.JurisdictionNamespace, []byte(j.Name)), j.ID)
		byID, ok := acctadmintest.LookupJurisdictionID(j.ID)
		require.True(t, ok)
		require.Equal(t, j, byID)
	}
	dc, ok := acctadmintest.LookupJurisdiction(" district of columbia ")
	require.True(t, ok)
	require.Equal(t, "DC", dc.Abbreviation)
	ut, ok := acctadmintest.LookupJurisdiction("UT")
	require.True(t, ok)
	require.Equal(t, "Utah", ut.Name)
	// Stable across runs: the value is fixed here.
	utah, _ := acctadmintest.LookupJurisdiction("Utah")
	require.Equal(t, "e42a86ae-7bd5-5431-a377-00c95faa0e2c", utah.ID.String())
}
