package acctadmintest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
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

func TestHostilePathTraversalIsNoSuchEndpoint(t *testing.T) {
	srv := newServer(t)
	cb := srv.AddCallback("http://127.0.0.1:1/keep")
	id := cb.ID.String()
	for _, target := range []string{
		"/documents/../callbacks",
		"/documents/%2e%2e/callbacks",
		"/callbacks/" + id + "/../" + id,
		"/callbacks/./" + id,
		"//callbacks/" + id,
		"/callbacks//" + id,
	} {
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			// Signed for exactly the path sent, so only routing decides.
			path := target
			tok := signJWT(t, srv.AccessKey, srv.SecretKey, path, nil)
			status, header, body := rawRequest(t, srv, method, target, map[string]string{"Authorization": "Bearer " + tok}, "")
			if status == http.StatusUnauthorized {
				// The client-side path and the server's unescaped one
				// differ (%2e): still refused, never served.
				require.Contains(t, body, "path claim", "%s %s", method, target)
				continue
			}
			require.Equal(t, http.StatusNotFound, status, "%s %s: %s", method, target, body)
			require.Contains(t, body, "no such endpoint", "%s %s", method, target)
			require.Empty(t, header.Get("Location"), "no redirect to the cleaned path")
		}
	}
	require.Len(t, srv.Callbacks(), 1, "nothing was deleted")
	require.Empty(t, srv.Writes())
}

func TestHostileIDsInPaths(t *testing.T) {
	srv := newDemo(t)
	for _, id := range []string{"%00", "' OR 1=1 --", "00000000-0000-0000-0000-000000000000", strings.Repeat("a", 10000), "%F0%9F%92%A9"} {
		target := "/documents/" + strings.ReplaceAll(id, " ", "%20")
		r := do(t, srv, http.MethodGet, target, nil)
		require.Equal(t, http.StatusNotFound, r.Status, "%s: %s", id, r.Body)
		require.Contains(t, string(r.Body), "document not found")
	}
	// An escaped slash makes an empty segment: no endpoint has one.
	r := do(t, srv, http.MethodGet, "/documents/%2F", nil)
	requireError(t, r, http.StatusNotFound, "no such endpoint")
	r = do(t, srv, http.MethodPost, "/services/'%3B--/cancel-request", nil)
	requireError(t, r, http.StatusNotFound, "service not found")
	require.Empty(t, srv.Writes())
}
