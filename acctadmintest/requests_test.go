package acctadmintest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

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

// TestLogsStayBounded: a long run's memory follows its data, not its
// traffic: with WithLogLimit the request, write and delivery logs keep
// their last entries while the counts stay exact.
func TestLogsStayBounded(t *testing.T) {
	srv := newServer(t, acctadmintest.WithLogLimit(10))
	rc := newReceiver(t)
	srv.AddCallback(rc.URL + "/hook")
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Busy LLC"})
	for i := 0; i < 25; i++ {
		requireOK(t, do(t, srv, http.MethodGet, fmt.Sprintf("/callbacks?n=%d", i), nil), "true")
		require.LessOrEqual(t, len(srv.Requests()), 10)
		requireOK(t, do(t, srv, http.MethodPost, "/companies", map[string]any{"companies": []map[string]any{{"name": fmt.Sprintf("Busy %d", i)}}}), "true")
		require.LessOrEqual(t, len(srv.Writes()), 10)
		srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID})
	}
	ds := waitDeliveries(t, srv, 25)
	require.LessOrEqual(t, len(ds), 10, "the delivery log is bounded")
	require.True(t, ds[len(ds)-1].Final)

	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	require.Equal(t, "POST", last.Method)
	require.Equal(t, http.StatusOK, last.Status, "the status reaches the latest entries")
	require.Equal(t, "n=24", reqs[len(reqs)-2].Query)
	require.Equal(t, 50, srv.TotalRequests(), "counts stay exact")
	require.Equal(t, 25, srv.RequestCount(http.MethodGet, "/callbacks"))
	w := srv.Writes()
	require.Contains(t, string(w[len(w)-1].Body), "Busy 24")
	require.Len(t, srv.Companies(), 26, "the account is not trimmed")
}

// TestRequestLogHeaders: the request log keeps the headers, with the
// token redacted, in Go and on the control surface.
func TestRequestLogHeaders(t *testing.T) {
	srv := newServer(t, acctadmintest.WithControl())
	tok := signJWT(t, srv.AccessKey, srv.SecretKey, "/companies", nil)
	r := doToken(t, srv, http.MethodGet, "/companies", nil, tok)
	require.Equal(t, http.StatusOK, r.Status)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	require.Equal(t, "Bearer "+acctadmintest.Redacted, reqs[0].Header.Get("Authorization"))
	reqs[0].Header.Set("Authorization", "changed")
	require.Equal(t, "Bearer "+acctadmintest.Redacted, srv.Requests()[0].Header.Get("Authorization"), "the log is a copy")

	r = ctl(t, srv, http.MethodGet, "/_fake/requests", "")
	require.Equal(t, http.StatusOK, r.Status)
	require.NotContains(t, string(r.Body), tok)
	require.NotContains(t, string(r.Body), strings.Split(tok, ".")[2])
	var log []struct {
		Headers map[string][]string `json:"headers"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &log))
	require.Equal(t, []string{"Bearer " + acctadmintest.Redacted}, log[0].Headers["Authorization"])
}
