package acctadmintest_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// Answer makes one route answer exactly what the test says, for the
// route's pattern or its path, after the token is checked; the other
// routes are served as before, every request is logged and counted, and
// the returned function serves the route again.
func TestAnswer(t *testing.T) {
	c, srv := acctadmintest.NewClient(t)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})
	doc := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, Title: "Annual report"})

	remove := srv.Answer(http.MethodGet, "/documents/:id", http.StatusConflict,
		`{"success":false,"message":"document is being replaced"}`)
	_, err := c.Documents.Get(context.Background(), doc.ID)
	var ae *acctadmin.APIError
	require.True(t, errors.As(err, &ae), "err = %v", err)
	require.Equal(t, http.StatusConflict, ae.StatusCode)
	require.Equal(t, "document is being replaced", ae.Message)
	// Another route, and another method of the path, are served.
	companies, err := c.Companies.List(context.Background())
	require.NoError(t, err)
	require.Len(t, companies, 1)
	// A request with a bad token still gets 401, not the answer.
	resp := do(t, srv, http.MethodGet, "/documents/"+doc.ID.String(), nil)
	require.Equal(t, http.StatusConflict, resp.Status, "the test helper signs its requests")
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/documents/"+doc.ID.String(), nil)
	require.NoError(t, err)
	unsigned, err := srv.Client().Do(req)
	require.NoError(t, err)
	unsigned.Body.Close()
	require.Equal(t, http.StatusUnauthorized, unsigned.StatusCode)
	require.Equal(t, 3, srv.RequestCount(http.MethodGet, "/documents/:id"), "answered requests are counted")

	remove()
	got, err := c.Documents.Get(context.Background(), doc.ID)
	require.NoError(t, err)
	require.Equal(t, "Annual report", got.Title)

	// By path, and a success answer in the API's envelope; the newest
	// answer of a route wins.
	srv.Answer(http.MethodGet, "/companies", http.StatusOK, `{"success":true,"result":[]}`)
	srv.Answer(http.MethodGet, "/companies", http.StatusOK,
		`{"success":true,"result":[{"id":"`+uuid.NewString()+`","name":"Canned Co"}]}`)
	companies, err = c.Companies.List(context.Background())
	require.NoError(t, err)
	require.Len(t, companies, 1)
	require.Equal(t, "Canned Co", companies[0].Name)
}

// WithAnswer sets an answer from the start.
func TestWithAnswer(t *testing.T) {
	c, srv := acctadmintest.NewClient(t, acctadmintest.WithAnswer(http.MethodGet, "/companies", http.StatusTooManyRequests,
		`{"success":false,"message":"slow down"}`))
	_, err := c.Companies.List(context.Background())
	require.ErrorIs(t, err, acctadmin.ErrRateLimited)
	require.Equal(t, 4, srv.RequestCount(http.MethodGet, "/companies"), "the client retried the 429 three times")
}
