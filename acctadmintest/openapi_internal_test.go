package acctadmintest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestContractChecksReportDrift: an answer that leaves the document is
// reported, with the route, and still sent; one that keeps to it is not.
func TestContractChecksReportDrift(t *testing.T) {
	var reports []error
	f := NewFake(WithContractChecks(func(err error) { reports = append(reports, err) }))
	defer f.Close()
	op, err := contractRoute(http.MethodGet, "/callbacks")
	require.NoError(t, err)

	answer := func(h func(*call) error) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, "/callbacks", nil)
		c := &call{f: f, w: rec, r: r}
		require.NoError(t, f.checkedAnswer(op, c, h))
		return rec
	}

	rec := answer(listCallbacks)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Empty(t, reports, "the real handler keeps to the document")

	rec = answer(func(c *call) error {
		writeJSON(c.w, http.StatusOK, map[string]any{"success": true, "result": []any{map[string]any{"id": "not-a-uuid"}}})
		return nil
	})
	require.Equal(t, http.StatusOK, rec.Code, "the answer is sent all the same")
	require.Len(t, reports, 1)
	msg := reports[0].Error()
	require.Contains(t, msg, "GET /callbacks")
	require.True(t, strings.Contains(msg, "timestamp") || strings.Contains(msg, "created_at"), msg)

	rec = answer(func(c *call) error { return notFound("callback") })
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.Len(t, reports, 1, "errors in the API's error shape keep to the document")
}
