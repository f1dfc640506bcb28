package acctadmintest_test

// Tests named after the facts of spec/recorded-behaviour.md: what the
// real server was recorded answering, held against the fake's exact
// answers.

import (
	"net/http"
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
