package acctadmintest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

func TestRoutesListsEveryEndpoint(t *testing.T) {
	routes := acctadmintest.Routes()
	require.Len(t, routes, 51)
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

// TestPathTraversalIsNoSuchEndpoint sends dot segments, escaped dots and
// doubled slashes, each signed for exactly the path sent: none reaches
// another endpoint or redirects to a cleaned path, and nothing changes.
func TestPathTraversalIsNoSuchEndpoint(t *testing.T) {
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

// TestUnknownPathIsNoSuchEndpoint: a path no route has, at the root or
// under a known prefix, is a JSON 404 "no such endpoint", logged under
// no route.
func TestUnknownPathIsNoSuchEndpoint(t *testing.T) {
	srv := newDemo(t)
	doc := acctadmintest.DemoID("document", 1)
	targets := []string{
		"/",
		"/nothing",
		"/documents/x/y",
		"/services/",
		"/registered-agents",
		"/documents/" + doc.String() + "/page/1/url/x",
		"/shopping-cart/" + doc.String(),
		"/documents/" + doc.String() + "/pages",
		"/documents/" + doc.String() + "/page/1/extra",
		"/services/" + acctadmintest.DemoID("service", 1).String(),
		"/callbacks/x/y",
		"/nowhere",
		// An escaped slash makes an empty segment: no endpoint has one.
		"/documents/%2F",
	}
	for _, target := range targets {
		t.Run(target, func(t *testing.T) {
			requireError(t, do(t, srv, http.MethodGet, target, nil), http.StatusNotFound, "no such endpoint")
		})
	}
	require.Equal(t, len(targets), srv.RequestCount(http.MethodGet, ""))
}

// TestWrongMethodIs405: a method a known path does not take is a 405 whose
// Allow header lists the methods it does take; HEAD is no method of the
// API, though ServeMux lets GET patterns take it.
func TestWrongMethodIs405(t *testing.T) {
	srv := newDemo(t)
	doc := acctadmintest.DemoID("document", 1)
	cases := []struct {
		method, target, msg, allow string
	}{
		{http.MethodDelete, "/companies", "method DELETE is not allowed on /companies", "GET, PATCH, POST"},
		{http.MethodPut, "/documents/" + uuid.NewString(), "not allowed", "GET"},
		{http.MethodPut, "/companies", "not allowed", "GET, PATCH, POST"},
		{http.MethodGet, "/callbacks/" + doc.String(), "not allowed", "DELETE"},
		{http.MethodHead, "/companies", "", "GET, PATCH, POST"}, // a HEAD answer has no body
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			r := do(t, srv, tc.method, tc.target, nil)
			if tc.msg != "" {
				requireError(t, r, http.StatusMethodNotAllowed, tc.msg)
			}
			require.Equal(t, http.StatusMethodNotAllowed, r.Status)
			require.Equal(t, tc.allow, r.Header.Get("Allow"))
		})
	}
	require.Equal(t, 1, srv.RequestCount(http.MethodHead, "/companies"))
}

// TestIDsInPathsNameNothing: an id that is no record's (not a UUID, a
// NUL, SQL-ish text, the nil UUID, 10,000 characters, an emoji) is about
// the record the route names: a 404 saying it was not found, never
// another endpoint, and nothing is written.
func TestIDsInPathsNameNothing(t *testing.T) {
	srv := newDemo(t)
	cases := []struct {
		method, target, msg string
	}{
		{http.MethodGet, "/documents/not-a-uuid", "document not found"},
		{http.MethodGet, "/documents/%00", "document not found"},
		{http.MethodGet, "/documents/'%20OR%201=1%20--", "document not found"},
		{http.MethodGet, "/documents/00000000-0000-0000-0000-000000000000", "document not found"},
		{http.MethodGet, "/documents/" + strings.Repeat("a", 10000), "document not found"},
		{http.MethodGet, "/documents/%F0%9F%92%A9", "document not found"},
		{http.MethodPost, "/services/'%3B--/cancel-request", "service not found"},
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.target[:min(len(tc.target), 40)], func(t *testing.T) {
			requireError(t, do(t, srv, tc.method, tc.target, nil), http.StatusNotFound, tc.msg)
		})
	}
	require.Empty(t, srv.Writes())
}
