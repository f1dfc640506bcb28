package acctadmintest

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

//go:embed openapi.yaml
var openAPIDoc []byte

//go:embed control.openapi.yaml
var controlOpenAPIDoc []byte

// ControlOpenAPIPath is where the control surface's own OpenAPI document
// is served, beside OpenAPIPath.
const ControlOpenAPIPath = ControlPrefix + "control.openapi.yaml"

// ControlOpenAPI returns the OpenAPI 3 document (YAML) of the control
// surface of WithControl: every endpoint, the fields each body takes and
// their types. The fake validates every control request by it, so that a
// wrong field or type is a 400 that names the field and the expected
// type. The caller owns the returned slice.
func ControlOpenAPI() []byte { return bytes.Clone(controlOpenAPIDoc) }

// OpenAPIPath is where a fake with the control surface, and the standalone
// server, serve OpenAPI: GET it without a token, from loopback.
const OpenAPIPath = ControlPrefix + "openapi.yaml"

// OpenAPI returns the OpenAPI 3 document of the API as this project knows
// it (YAML): every route the provider describes or its example clients
// call, the parameters and bodies they send, and the answers with the
// real API's wire quirks. It is the one machine-readable contract of the
// API: the fake validates every request by it, and the project's tests
// validate every answer the fake gives by it. The same document is
// acctadmintest/openapi.yaml in the repository. The caller owns the
// returned slice.
func OpenAPI() []byte { return bytes.Clone(openAPIDoc) }

// loadDocument parses and checks an embedded OpenAPI document.
func loadDocument(data []byte) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, err
	}
	return doc, nil
}

// The parsed documents, loaded once.
var (
	contract        = sync.OnceValues(func() (*openapi3.T, error) { return loadDocument(openAPIDoc) })
	controlContract = sync.OnceValues(func() (*openapi3.T, error) { return loadDocument(controlOpenAPIDoc) })
)

// mustDocument returns a parsed document; the embedded documents are
// checked by the tests, so a failure here is a broken build.
func mustDocument(load func() (*openapi3.T, error)) *openapi3.T {
	doc, err := load()
	if err != nil {
		panic("acctadmintest: an embedded OpenAPI document is invalid: " + err.Error())
	}
	return doc
}

func mustContract() *openapi3.T { return mustDocument(contract) }

// openAPIPath writes a route pattern ("/documents/:id") as an OpenAPI
// path ("/documents/{id}").
func openAPIPath(pattern string) string { return strings.TrimPrefix(muxPattern("x"+pattern), "x") }

// contractRoute finds the operation of a route in the document.
func contractRoute(method, pattern string) (*routers.Route, error) {
	return documentRoute(mustContract(), method, openAPIPath(pattern))
}

// documentRoute finds the operation of a method and path in a document.
func documentRoute(doc *openapi3.T, method, p string) (*routers.Route, error) {
	item := doc.Paths.Value(p)
	if item == nil {
		return nil, fmt.Errorf("the OpenAPI document has no path %s", p)
	}
	op := item.GetOperation(method)
	if op == nil {
		return nil, fmt.Errorf("the OpenAPI document has no operation %s %s", method, p)
	}
	return &routers.Route{Spec: doc, Path: p, PathItem: item, Method: method, Operation: op}, nil
}

// validationInput prepares the validation of one request of a route; the
// body is given apart, as the authentication layer has read it.
func validationInput(rt *routers.Route, r *http.Request, body []byte) *openapi3filter.RequestValidationInput {
	params := map[string]string{}
	for _, p := range rt.Operation.Parameters {
		if p.Value != nil && p.Value.In == openapi3.ParameterInPath {
			params[p.Value.Name] = r.PathValue(p.Value.Name)
		}
	}
	req := r.Clone(r.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	if len(body) == 0 {
		req.Body = http.NoBody
	}
	if len(bytes.TrimSpace(body)) > 0 {
		// Bodies are JSON whatever their label: the PHP clients label
		// some, not all, and curl -d labels them as a form.
		req.Header.Set("Content-Type", "application/json")
	}
	return &openapi3filter.RequestValidationInput{
		Request:    req,
		PathParams: params,
		Route:      rt,
		Options: &openapi3filter.Options{
			// The token was checked before: see authenticate.
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
			MultiError:         true,
		},
	}
}

// validateRequest checks a request against its operation in the contract.
// It returns the parameters as the handler reads them (see params), or
// the refusal, with one entry per field at fault.
func validateRequest(rt *routers.Route, r *http.Request, body []byte) (*params, *apiError) {
	if b := bytes.TrimSpace(body); rt.Operation.RequestBody != nil && len(b) > 0 && b[0] != '{' {
		return nil, &apiError{status: http.StatusBadRequest, msg: "request body must be a JSON object",
			fields: []fieldError{{Field: "body", Message: "must be a JSON object"}}}
	}
	in := validationInput(rt, r, body)
	err := openapi3filter.ValidateRequest(context.Background(), in)
	if err == nil {
		return &params{op: rt, query: r.URL.Query(), path: r.PathValue}, nil
	}
	fields := contractFieldErrors(err)
	msgs := make([]string, len(fields))
	for i, fe := range fields {
		msgs[i] = fe.Field + " " + fe.Message
	}
	return nil, &apiError{status: http.StatusBadRequest, msg: strings.Join(msgs, "; "), fields: fields}
}

// contractFieldErrors flattens the validator's errors into the API's
// field-level form: the field is the parameter, or the dotted path into
// the JSON body ("companies.0.name"); "body" when the body as a whole is
// at fault.
func contractFieldErrors(err error) []fieldError {
	var out []fieldError
	var walk func(field string, param bool, err error)
	walk = func(field string, param bool, err error) {
		switch e := err.(type) {
		case openapi3.MultiError:
			for _, x := range e {
				walk(field, param, x)
			}
		case *openapi3filter.RequestError:
			switch {
			case e.Parameter != nil:
				walk(e.Parameter.Name, true, orReason(e))
			case e.RequestBody != nil:
				var se *openapi3.SchemaError
				var me openapi3.MultiError
				if e.Err != nil && !errors.As(e.Err, &se) && !errors.As(e.Err, &me) {
					if e.Err == openapi3filter.ErrInvalidRequired {
						out = append(out, fieldError{Field: "body", Message: "is required: a JSON object"})
						return
					}
					out = append(out, fieldError{Field: "body", Message: "is not valid JSON"})
					return
				}
				walk("body", false, orReason(e))
			default:
				walk(field, param, orReason(e))
			}
		case *openapi3.SchemaError:
			out = append(out, schemaFieldError(field, param, e))
		case *openapi3filter.ParseError:
			// A query value that is not text of the parameter's type.
			msg := "is not valid"
			if typ, ok := strings.CutPrefix(e.Reason, "an invalid "); ok {
				msg = "must be " + article(typ) + " " + typ
			}
			out = append(out, fieldError{Field: field, Message: msg})
		default:
			out = append(out, fieldError{Field: field, Message: err.Error()})
		}
	}
	walk("request", false, err)
	slices.SortStableFunc(out, func(a, b fieldError) int { return strings.Compare(a.Field, b.Field) })
	return slices.Compact(out)
}

// article is the indefinite article of a JSON type's name.
func article(typ string) string {
	if strings.IndexByte("aeiou", typ[0]) >= 0 {
		return "an"
	}
	return "a"
}

// orReason is the cause of a request error, or its reason as an error.
func orReason(e *openapi3filter.RequestError) error {
	if e.Err != nil {
		return e.Err
	}
	return errors.New(e.Reason)
}

// schemaFieldError names the field a schema error is about and says what
// was expected of it.
func schemaFieldError(field string, param bool, se *openapi3.SchemaError) fieldError {
	if ptr := se.JSONPointer(); len(ptr) > 0 {
		var b strings.Builder
		if param {
			b.WriteString(field)
		}
		for _, seg := range ptr {
			if _, err := strconv.Atoi(seg); err == nil {
				fmt.Fprintf(&b, "[%s]", seg)
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(seg)
		}
		field = b.String()
	}
	msg := se.Reason
	if name, ok := strings.CutPrefix(msg, `property "`); ok && strings.HasSuffix(name, `" is unsupported`) {
		name = strings.TrimSuffix(name, `" is unsupported`)
		if field == "body" || field == "" {
			field = name
		} else {
			field += "." + name
		}
		return fieldError{Field: field, Message: "is not a field of this endpoint"}
	}
	if se.SchemaField == "pattern" && se.Schema != nil && se.Schema.Description != "" {
		return fieldError{Field: field, Message: "must be " + se.Schema.Description}
	}
	if (se.SchemaField == "anyOf" || se.SchemaField == "oneOf") && se.Schema != nil {
		var kinds []string
		for _, alt := range append(se.Schema.AnyOf, se.Schema.OneOf...) {
			if alt.Value != nil && alt.Value.Type != nil {
				kinds = append(kinds, strings.Join(alt.Value.Type.Slice(), " or "))
			}
		}
		if len(kinds) > 0 {
			msg = "must be of type " + strings.Join(kinds, " or ")
		}
	}
	switch {
	case msg == "":
		msg = "is not valid"
	case se.SchemaField == "nullable":
		// The real server refuses an explicit null (spec/recorded-behaviour.md, C1).
		msg = "must not be null: leave the key out instead"
	case se.SchemaField == "enum" && se.Schema != nil:
		vals := make([]string, len(se.Schema.Enum))
		for i, v := range se.Schema.Enum {
			if str, ok := v.(string); ok {
				vals[i] = strconv.Quote(str)
			} else {
				vals[i] = fmt.Sprint(v)
			}
		}
		msg = "must be one of " + strings.Join(vals, ", ")
	case se.SchemaField == "minimum" || se.SchemaField == "maximum":
		msg = strings.TrimPrefix(msg, "number ")
	case strings.HasPrefix(msg, "property ") && strings.HasSuffix(msg, " is missing"):
		msg = "is required"
	}
	if field == "body" && se.SchemaField == "type" {
		msg = "must be a JSON object"
	}
	return fieldError{Field: field, Message: msg}
}

// WithContractChecks makes the fake check every answer of the API against
// the OpenAPI document (see OpenAPI) as it writes it: its status, its
// Content-Type and, for JSON, its body. Each answer that does not match is
// passed to report, with the route and what is wrong; the answer is sent
// all the same. The fake's own tests and the SDK's integration tests run
// with it, so that the fake cannot drift from its contract; a user's test
// can too, with report set to t.Errorf's kin:
//
//	acctadmintest.NewServer(acctadmintest.WithContractChecks(func(err error) { t.Error(err) }))
//
// report is called on the goroutine that serves the request, before the
// client has the whole answer.
func WithContractChecks(report func(error)) Option {
	return optionFunc(func(c *config) { c.contractReport = report })
}

// maxCheckedAnswer bounds the JSON answer kept to check it.
const maxCheckedAnswer = 8 << 20

// teeWriter passes an answer on and keeps a copy of a JSON body.
type teeWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
	json   bool
}

func (w *teeWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
		w.json = strings.HasPrefix(w.Header().Get("Content-Type"), "application/json")
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *teeWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.json && w.body.Len()+len(p) <= maxCheckedAnswer {
		w.body.Write(p)
	}
	return w.ResponseWriter.Write(p)
}

func (w *teeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// checkedAnswer runs h and checks its answer against the operation.
func (f *Fake) checkedAnswer(op *routers.Route, c *call, h func(*call) error) error {
	tw := &teeWriter{ResponseWriter: c.w}
	c.w = tw
	err := h(c)
	if err != nil {
		c.writeError(err)
	}
	if tw.status == 0 {
		return nil // nothing written: the connection was dropped
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: validationInput(op, c.r, c.body),
		Status:                 tw.status,
		Header:                 tw.Header(),
		Options: &openapi3filter.Options{
			AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
			IncludeResponseStatus: false,
			MultiError:            true,
			ExcludeResponseBody:   !tw.json,
		},
	}
	in.SetBodyBytes(tw.body.Bytes())
	if verr := openapi3filter.ValidateResponse(context.Background(), in); verr != nil {
		f.cfg.contractReport(fmt.Errorf("acctadmintest: answer %d to %s %s does not match the OpenAPI document: %w",
			tw.status, c.r.Method, c.r.URL.Path, verr))
	}
	return nil
}

// serveDocument answers an OpenAPI document. It is public knowledge, so
// it needs no token and is served to any client.
func serveDocument(w http.ResponseWriter, r *http.Request, doc []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/yaml")
	h.Set("Content-Length", strconv.Itoa(len(doc)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(doc)
	}
}
