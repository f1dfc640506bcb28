package acctadmintest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// Wire forms of times.
const (
	// TimeLayout is the documented form of timestamps and DateTime fields.
	TimeLayout = "2006-01-02 15:04:05 -0700"
	// ISOTimeLayout is the form the cancel-request response uses instead.
	ISOTimeLayout = "2006-01-02T15:04:05.000-07:00"
	// DateLayout is the form of Date fields and parameters.
	DateLayout = "2006-01-02"
)

// call is one request being handled.
type call struct {
	f     *Fake
	w     http.ResponseWriter
	r     *http.Request
	body  []byte
	in    *params // the parameters, once validated
	route string
	idx   int // number of the request in the log
}

// fieldError is one entry of the errors array of a validation error: the
// parameter at fault and what is wrong with it.
type fieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// apiError is an answer other than success.
type apiError struct {
	status int
	msg    string
	fields []fieldError
	result any  // the cancel-request 400 carries the unpaid invoices
	iso    bool // timestamp in the ISO form
}

func (e *apiError) Error() string { return e.msg }

// invalid is a 400 about one parameter: the message reads "field problem".
func invalid(field, problem string) *apiError {
	return &apiError{
		status: http.StatusBadRequest,
		msg:    field + " " + problem,
		fields: []fieldError{{Field: field, Message: problem}},
	}
}

// invalidf is a 400 about a rule between parameters.
func invalidf(fields []fieldError, format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...), fields: fields}
}

func notFound(what string) *apiError {
	return &apiError{status: http.StatusNotFound, msg: what + " not found"}
}

// successEnvelope is every successful JSON answer.
type successEnvelope struct {
	Success   any    `json:"success"`
	Timestamp string `json:"timestamp"`
	Result    any    `json:"result"`
	// InvoiceIDs is written beside result by checkout and by the unlock
	// of a document.
	InvoiceIDs []uuid.UUID `json:"invoice_ids,omitempty"`
	// Action and Amount are written beside result by the unlock of a
	// document, as the API's other clients read it.
	Action string      `json:"action,omitempty"`
	Amount json.Number `json:"amount,omitempty"`
}

// errorEnvelope is every error answer.
type errorEnvelope struct {
	Success   bool         `json:"success"`
	Timestamp string       `json:"timestamp"`
	Message   string       `json:"message"`
	Errors    []fieldError `json:"errors,omitempty"`
	Result    any          `json:"result"`
}

// errorDetail is the result of an error answer: its message under
// "request", where clients of the real API read it
// (spec/recorded-behaviour.md, E1).
type errorDetail struct {
	Request string `json:"request"`
}

// errorAnswer is the error answer of msg, its detail in result too.
func errorAnswer(timestamp, msg string) errorEnvelope {
	return errorEnvelope{Timestamp: timestamp, Message: msg, Result: errorDetail{Request: msg}}
}

// answer says how a result is written.
type answer struct {
	stringSuccess bool // success as the text "true" (a quirk)
	iso           bool // times in the ISO form (a quirk of cancel-request)
	invoiceIDs    []uuid.UUID
	action        string
	amount        json.Number
}

// ok writes a successful answer.
func (c *call) ok(result any, a answer) error {
	var success any = true
	if a.stringSuccess && c.f.cfg.quirks {
		success = "true"
	}
	writeJSON(c.w, http.StatusOK, successEnvelope{
		Success:    success,
		Timestamp:  c.f.envelopeTime(a.iso),
		Result:     result,
		InvoiceIDs: a.invoiceIDs,
		Action:     a.action,
		Amount:     a.amount,
	})
	return nil
}

// writeError writes err as the API's error shape.
func (c *call) writeError(err error) {
	var e *apiError
	if !errors.As(err, &e) {
		e = &apiError{status: http.StatusInternalServerError, msg: err.Error()}
	}
	out := errorAnswer(c.f.envelopeTime(e.iso), e.msg)
	out.Errors = e.fields
	if e.result != nil {
		out.Result = e.result
	}
	writeJSON(c.w, e.status, out)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only the fake's own wire types are encoded here.
		panic("acctadmintest: encoding an answer: " + err.Error())
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// envelopeTime is the timestamp of an answer made now.
func (f *Fake) envelopeTime(iso bool) string { return f.wire(iso).time(f.now()) }

// wireFormat writes times and chooses the shapes of quirky fields.
type wireFormat struct {
	quirks bool
	iso    bool
	loc    *time.Location
}

func (f *Fake) wire(iso bool) wireFormat {
	return wireFormat{quirks: f.cfg.quirks, iso: iso && f.cfg.quirks, loc: f.cfg.loc}
}

func (wf wireFormat) time(t time.Time) string {
	if wf.iso {
		return t.In(wf.loc).Format(ISOTimeLayout)
	}
	return t.In(wf.loc).Format(TimeLayout)
}

// date writes the calendar date of t as given, without zone conversion.
func date(t time.Time) string { return t.Format(DateLayout) }

// emptyAsNull returns nil for an empty list when quirks are on, so that it
// is written as null, and an empty non-nil list otherwise.
func emptyAsNull[T any](wf wireFormat, list []T) []T {
	if len(list) == 0 {
		if wf.quirks {
			return nil
		}
		return []T{}
	}
	return list
}

// orEmpty makes a nil list encode as [] rather than null.
func orEmpty[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}

// nullable returns a JSON null for "", the string otherwise.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// parseQuery refuses a malformed query string, which the validator would
// read in part.
func (c *call) parseQuery() error {
	if _, err := url.ParseQuery(c.r.URL.RawQuery); err != nil {
		return &apiError{status: http.StatusBadRequest, msg: "malformed query string"}
	}
	return nil
}
