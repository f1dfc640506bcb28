package acctadmintest_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

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
