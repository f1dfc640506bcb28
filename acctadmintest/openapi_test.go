package acctadmintest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// TestOpenAPIDocumentIsValid: the contract is a valid OpenAPI 3 document,
// as kin-openapi reads it, with an operation for every route the fake
// serves and a route for every operation it describes.
func TestOpenAPIDocumentIsValid(t *testing.T) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(acctadmintest.OpenAPI())
	require.NoError(t, err)
	require.NoError(t, doc.Validate(context.Background()))
	require.Equal(t, "3.0.3", doc.OpenAPI)

	ops := map[string]bool{}
	ids := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			ops[method+" "+path] = true
			require.NotEmpty(t, op.OperationID, "%s %s", method, path)
			require.False(t, ids[op.OperationID], "operationId %s twice", op.OperationID)
			ids[op.OperationID] = true
			require.NotNil(t, op.Responses.Value("200"), "%s %s answers 200", method, path)
			require.NotNil(t, op.Responses.Default(), "%s %s describes its errors", method, path)
		}
	}
	served := map[string]bool{}
	for _, r := range acctadmintest.Routes() {
		method, pattern, _ := strings.Cut(r, " ")
		segs := strings.Split(pattern, "/")
		for i, s := range segs {
			if name, ok := strings.CutPrefix(s, ":"); ok {
				segs[i] = "{" + name + "}"
			}
		}
		key := method + " " + strings.Join(segs, "/")
		served[key] = true
		require.True(t, ops[key], "the fake serves %s, which the document lacks", r)
	}
	for op := range ops {
		require.True(t, served[op], "the document describes %s, which the fake does not serve", op)
	}
	require.Len(t, ops, 51)
}

// TestOpenAPIServed: the fake with its control surface serves the
// document, to anyone, without a token; a fake without it does not.
func TestOpenAPIServed(t *testing.T) {
	srv := newServer(t, acctadmintest.WithControl())
	resp, err := srv.Client().Get(srv.URL + acctadmintest.OpenAPIPath)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "application/yaml", resp.Header.Get("Content-Type"))
	require.Equal(t, acctadmintest.OpenAPI(), body)

	plain := newServer(t)
	resp, err = plain.Client().Get(plain.URL + acctadmintest.OpenAPIPath)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "without the control surface it is an API path")
}

// TestOpenAPICopy: the caller owns what OpenAPI returns.
func TestOpenAPICopy(t *testing.T) {
	a := acctadmintest.OpenAPI()
	a[0] = 'X'
	require.NotEqual(t, a[0], acctadmintest.OpenAPI()[0])
}

// TestRequestsValidatedByContract: what the document forbids is refused
// with 400 and one entry per field at fault, naming the field and the
// expected type; nothing is created.
func TestRequestsValidatedByContract(t *testing.T) {
	srv := newDemo(t)
	before := len(srv.Companies())
	for _, tc := range []struct {
		body   string
		fields []string
		msg    string
	}{
		{`{"companies":[{"name":7}]}`, []string{"companies[0].name"}, "must be a string"},
		{`{"companies":"Acme"}`, []string{"companies"}, "must be an array"},
		{`{"companies":[{"name":"A","home_state":["Utah"]}, {"entity_type":"LLC"}]}`, []string{"companies[0].home_state", "companies[1].name"}, ""},
		{`[1,2]`, []string{"body"}, "JSON object"},
		{`{"companies":`, []string{"body"}, "not valid JSON"},
	} {
		r := do(t, srv, http.MethodPost, "/companies", []byte(tc.body))
		require.Equal(t, http.StatusBadRequest, r.Status, tc.body)
		require.ElementsMatch(t, tc.fields, errorFields(t, r), "%s: %s", tc.body, r.Body)
		require.Contains(t, string(r.Body), tc.msg)
	}
	require.Len(t, srv.Companies(), before, "nothing was created")
}

// TestControlOpenAPIDocumentIsValid: the control surface's document is a
// valid OpenAPI 3 document, served beside the API's, and describes every
// control endpoint.
func TestControlOpenAPIDocumentIsValid(t *testing.T) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(acctadmintest.ControlOpenAPI())
	require.NoError(t, err)
	require.NoError(t, doc.Validate(context.Background()))

	srv := newServer(t, acctadmintest.WithControl())
	resp, err := srv.Client().Get(srv.URL + acctadmintest.ControlOpenAPIPath)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, acctadmintest.ControlOpenAPI(), body)

	r := ctl(t, srv, http.MethodGet, "/_fake/", "")
	var index struct {
		Control []string `json:"control"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &index))
	for _, route := range index.Control {
		method, path, _ := strings.Cut(route, " ")
		item := doc.Paths.Value(path)
		require.NotNil(t, item, "%s is not in the control document", route)
		require.NotNil(t, item.GetOperation(method), "%s is not in the control document", route)
	}
}

// TestControlFieldErrors: a wrong field or type is a 400 that names the
// field and the type it must have, never a Go decoding message; nothing
// is created.
func TestControlFieldErrors(t *testing.T) {
	srv := newServer(t, acctadmintest.WithControl())
	for _, tc := range []struct {
		path, body string
		field, msg string
	}{
		{"/_fake/companies", `{"name":7}`, "name", "must be a string"},
		{"/_fake/companies", `{"name":"A","colour":"red"}`, "colour", "not a field"},
		{"/_fake/documents", `{"company":"A","pages":"two"}`, "pages", "must be an integer"},
		{"/_fake/invoices", `{"company":"A","items":[{"price":"1.00","quantity":"1"}]}`, "items[0].quantity", "must be an integer"},
		{"/_fake/clock", `{"now":"tomorrow"}`, "now", "must be an RFC 3339 time"},
		{"/_fake/events", `{"event":"new-invoice","record_id":"x"}`, "record_id", "must be a UUID"},
		{"/_fake/events", `{"event":"new-invoice","copies":"2"}`, "copies", "must be an integer"},
		{"/_fake/companies", `[]`, "body", "JSON object"},
	} {
		r := ctl(t, srv, http.MethodPost, tc.path, tc.body)
		require.Equal(t, http.StatusBadRequest, r.Status, "%s %s: %s", tc.path, tc.body, r.Body)
		var e struct {
			Error  string `json:"error"`
			Errors []struct {
				Field   string `json:"field"`
				Message string `json:"message"`
			} `json:"errors"`
		}
		require.NoError(t, json.Unmarshal(r.Body, &e))
		require.NotEmpty(t, e.Errors, "%s", r.Body)
		require.Equal(t, tc.field, e.Errors[0].Field, "%s", r.Body)
		require.Contains(t, e.Errors[0].Message, tc.msg, "%s", r.Body)
		require.NotContains(t, e.Error, "json:", "no Go decoding message")
		require.NotContains(t, e.Error, "Go struct")
	}
	require.Empty(t, srv.Companies())
}
