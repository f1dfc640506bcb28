package acctadmin

import (
	"bytes"
	"cmp"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Sentinel errors, for errors.Is. Behind the status sentinels is an
// *APIError, behind ErrInvalidParams a *ValidationError, behind
// ErrResponseTooLarge a *DecodeError.
var (
	// ErrNotFound reports a 404: the id or the route is unknown.
	ErrNotFound = errors.New("acctadmin: not found")
	// ErrUnauthorized reports a 401: wrong keys or a refused signature.
	ErrUnauthorized = errors.New("acctadmin: unauthorized")
	// ErrForbidden reports a 403.
	ErrForbidden = errors.New("acctadmin: forbidden")
	// ErrRateLimited reports a 429 still there after the retries, or a
	// Retry-After longer than the call waits (WithMaxRetryAfter,
	// CallMaxRetryAfter, the context's deadline).
	ErrRateLimited = errors.New("acctadmin: rate limited")
	// ErrServer reports a 5xx still there after the retries.
	ErrServer = errors.New("acctadmin: server error")
	// ErrInvalidParams reports a call refused before sending anything.
	ErrInvalidParams = errors.New("acctadmin: invalid params")
	// ErrResponseTooLarge reports a JSON answer over 32 MiB.
	ErrResponseTooLarge = errors.New("acctadmin: response too large")
	// ErrOutcomeUnknown reports an at-most-once call that may have taken
	// effect (see the package doc); the message says which listing shows it.
	ErrOutcomeUnknown = errors.New("acctadmin: outcome unknown")
	// ErrPagingIgnored ends an All (or a Pull) whose API answered a full
	// page again for a later offset, after every item it did send.
	ErrPagingIgnored = errors.New("acctadmin: the API ignored the page offset; the listing cannot be read past its first page")
	// ErrListingUnsettled ends an All over the unread documents, or a Pull,
	// whose listing still changed after 10 walks; the next picks up the rest.
	ErrListingUnsettled = errors.New("acctadmin: the listing was still changing after 10 passes over it; documents may be left in it")
	// ErrSkipDocument, returned (or wrapped) by PullParams.Before, leaves
	// a document alone: Pull does not download it nor count it unfinished.
	ErrSkipDocument = errors.New("acctadmin: document skipped")
	// ErrPaymentRequired reports a refused read of a payment-locked
	// document (pay with Documents.Unlock): a 402, or another 4xx (but 401
	// and 429) or a success false whose message says payment is needed
	// ("locked", "unpaid", "must be paid") and not that a card was declined.
	ErrPaymentRequired = errors.New("acctadmin: payment required")
	// ErrPaymentDeclined reports a charge the card's issuer refused
	// (ShoppingCart.Checkout, Invoices.Pay, Documents.Unlock): a 402, or
	// another 4xx (but 401 and 429) or a success false whose message speaks
	// of a declined card ("declined", "insufficient funds"). Nothing was
	// charged.
	ErrPaymentDeclined = errors.New("acctadmin: payment declined")
	// ErrNoMatch reports a search that found no record that fits (a filing
	// product by name, or the record a write made).
	ErrNoMatch = errors.New("acctadmin: no record fits")
	// ErrAmbiguous reports a search that found more than one record that fits.
	ErrAmbiguous = errors.New("acctadmin: more than one record fits")
	// ErrDuplicateOrder is what a DuplicateOrderError is.
	ErrDuplicateOrder = errors.New("acctadmin: duplicate order")
)

// Limits of an APIError.
const (
	maxErrorBody   = 64 << 10 // of Body
	maxMessage     = 500      // of Message
	maxFieldErrors = 50
	maxFieldText   = 200
)

// APIError is an answer of the API that reports a failure: a status
// outside 2xx, or a 2xx whose envelope says success false. Every text
// from the server in it (Message, Body, Header, Fields) passes through
// the call's redaction (see the package doc) and is bounded.
type APIError struct {
	StatusCode int
	// Method and Path name the request; Path never holds the query string.
	Method string
	Path   string
	// Message is the API's own explanation, or the status text.
	Message string
	// Body is the start of the answer's body (at most 64 KiB, valid UTF-8).
	Body []byte
	// RetryAfter is the wait the answer's Retry-After asked for, or zero.
	RetryAfter time.Duration
	// Header is the answer's header less Authorization, cookies and
	// challenges: each value at most 1 KiB, at most 64 values and 16 KiB
	// by sorted name. Nil for a 2xx saying success false.
	Header http.Header
	// Fields are the API's complaints about single fields of the request
	// ("errors", then "company_errors" and "jurisdiction_errors"), in its
	// order: at most 50, each text at most 200 bytes.
	Fields []FieldError

	// unknown, when not "", marks ErrOutcomeUnknown and says how to find
	// out what happened.
	unknown string
	pay     payRole
	// fromCall marks an error a call made; overWait, that the call would
	// not wait the answer's Retry-After.
	fromCall, overWait bool
}

// FieldError is the API's complaint about one field of a request.
type FieldError struct {
	// Field names the field as the request spelled it ("form_data.ssn").
	Field   string
	Message string
}

// fieldErrors reads the per-field errors of an error body: "errors" as a
// list of {"field", "message"} objects (or "attribute"/"param"/"path",
// "error"/"detail"), or an object of field to message; then
// "company_errors" and "jurisdiction_errors", beside result or in it,
// whose items that name no field are kept under the list's name.
func fieldErrors(body []byte, red *redactor) []FieldError {
	var m, inResult map[string]json.RawMessage
	_ = json.Unmarshal(body, &m)
	_ = json.Unmarshal(m["result"], &inResult) // nil unless result is an object
	var out []FieldError
	for _, list := range []string{"errors", "company_errors", "jurisdiction_errors"} {
		raw := bytes.TrimSpace(m[list])
		if len(raw) == 0 {
			raw = bytes.TrimSpace(inResult[list])
		}
		unnamed := list
		if list == "errors" {
			unnamed = "" // such an item of "errors" is not kept
		}
		for _, fe := range readFieldErrors(raw, unnamed) {
			if len(out) == maxFieldErrors {
				return out
			}
			if fe.Field != "" {
				out = append(out, FieldError{Field: red.clean(fe.Field, maxFieldText), Message: red.clean(fe.Message, maxFieldText)})
			}
		}
	}
	return out
}

// readFieldErrors reads one list of field errors, putting an item that
// names no field under unnamed.
func readFieldErrors(raw json.RawMessage, unnamed string) (out []FieldError) {
	text := func(item json.RawMessage) string {
		if s := messageText(item, 0); s != "" || unnamed == "" {
			return s
		}
		return string(bytes.TrimSpace(item)) // a code or a shape of no known key: kept as written
	}
	var obj map[string]json.RawMessage
	var items []json.RawMessage
	switch {
	case len(raw) == 0:
	case raw[0] == '"':
		out = append(out, FieldError{unnamed, text(raw)})
	case raw[0] == '{' && json.Unmarshal(raw, &obj) == nil:
		for _, k := range sortedKeys(obj) {
			out = append(out, FieldError{joinPath(unnamed, k), text(obj[k])})
		}
	case raw[0] == '[' && json.Unmarshal(raw, &items) == nil:
		for _, item := range items {
			var it struct{ Field, Attribute, Param, Path, Message, Error, Detail string }
			_ = json.Unmarshal(item, &it)
			msg := cmp.Or(it.Message, it.Error, it.Detail)
			if item[0] != '{' || msg == "" && unnamed != "" {
				msg = text(item)
			}
			out = append(out, FieldError{cmp.Or(it.Field, it.Attribute, it.Param, it.Path, unnamed), msg})
		}
	}
	return out
}

// Error implements error.
func (e *APIError) Error() string {
	return fmt.Sprintf("acctadmin: %s %s: %d %s", e.Method, e.Path, e.StatusCode, e.Message) + outcomeText(e.unknown)
}

// outcomeText is the end of the message of an error whose outcome is
// unknown.
func outcomeText(verify string) string {
	if verify == "" {
		return ""
	}
	return "; outcome unknown, the request may have taken effect: " + verify
}

// Is makes errors.Is(err, ErrNotFound) and the other sentinels work.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized
	case ErrForbidden:
		return e.StatusCode == http.StatusForbidden
	case ErrRateLimited:
		// An error made by hand is judged by the default cap.
		return e.StatusCode == http.StatusTooManyRequests || e.overWait || !e.fromCall && e.RetryAfter > maxRetryAfter
	case ErrServer:
		return e.StatusCode >= 500
	case ErrOutcomeUnknown:
		return e.unknown != ""
	case ErrPaymentRequired, ErrPaymentDeclined:
		return e.isPayment(target)
	}
	return false
}

func (e *APIError) isPayment(target error) bool {
	if target == ErrPaymentRequired {
		return e.pay == readsLocked && e.refusesPayment() && !saysDeclined(e.Message)
	}
	return e.pay == charges && e.refusesPayment() && (e.StatusCode == http.StatusPaymentRequired || saysDeclined(e.Message))
}

// payRole says what a route does with payments: nothing (zero), charge
// a card, or read a document that may be payment-locked.
type payRole uint8

const (
	_ payRole = iota
	charges
	readsLocked
)

// refusesPayment reports whether the answer may refuse a payment, as the
// payment sentinels' docs say.
func (e *APIError) refusesPayment() bool {
	switch s := e.StatusCode; {
	case s == http.StatusPaymentRequired:
		return true
	case s == http.StatusUnauthorized || s == http.StatusTooManyRequests:
		return false
	case s >= 400 && s < 500, s >= 200 && s < 300:
		return saysDeclined(e.Message) || saysPaymentNeeded(e.Message)
	}
	return false
}

// The words of a declined card, and of a payment the API waits for.
var (
	declinedWords = []string{"declin", "insufficient funds", "do not honor", "card was refused"}
	neededWords   = []string{"payment required", "payment is required", "payment needed", "payment is needed",
		"requires payment", "require payment", "locked", "unpaid", "must be paid", "not been paid", "not paid", "pay to unlock"}
)

func saysDeclined(msg string) bool { return saysAny(msg, declinedWords) }

func saysPaymentNeeded(msg string) bool { return saysAny(msg, neededWords) }

func saysAny(msg string, words []string) bool {
	msg = strings.ToLower(msg)
	for _, w := range words {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

// newAPIError builds the error for an answer that reports a failure, with
// the call's redaction red.
func newAPIError(status int, method, path string, body []byte, red *redactor) *APIError {
	if len(body) > maxErrorBody {
		body = body[:maxErrorBody]
	}
	msg := red.clean(errorMessage(body), maxMessage)
	if msg == "" {
		msg = strings.ToLower(http.StatusText(status))
		if msg == "" {
			msg = "unexpected status"
		}
	}
	return &APIError{StatusCode: status, Method: method, Path: path, Message: msg, Body: red.cleanBytes(body, maxErrorBody),
		Fields: fieldErrors(body, red)}
}

// errorMessage finds a human message in the shapes an error body takes
// (the real API's is {"success": false, "result": {"request": "…"}}):
// message, result, error, errors, … each a string, an object or a list.
func errorMessage(body []byte) string {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(body, &m)
	for _, k := range []string{"message", "result", "error", "errors", "error_message", "detail"} {
		if k == "result" && !bytes.HasPrefix(m[k], []byte{'"'}) && !bytes.HasPrefix(m[k], []byte{'{'}) {
			continue // a list (the unpaid invoices of a refused cancellation) says nothing
		}
		if s := messageText(m[k], 0); s != "" {
			return s
		}
	}
	return ""
}

// messageText is the text of raw: a string, the first message of an
// object, or at most five of a list's, joined; it looks four levels down.
func messageText(raw json.RawMessage, depth int) string {
	var s string
	var m map[string]json.RawMessage
	var a []json.RawMessage
	switch {
	case len(raw) == 0 || depth > 3:
	case raw[0] == '"' && json.Unmarshal(raw, &s) == nil:
		return s
	case raw[0] == '{' && json.Unmarshal(raw, &m) == nil:
		for _, k := range []string{"request", "message", "error", "detail"} {
			if s := messageText(m[k], depth+1); s != "" {
				return s
			}
		}
	case raw[0] == '[' && json.Unmarshal(raw, &a) == nil:
		parts := make([]string, 0, min(len(a), 5))
		for _, item := range a {
			if s := messageText(item, depth+1); s != "" {
				parts = append(parts, s)
			}
			if len(parts) == 5 {
				break
			}
		}
		return strings.Join(parts, "; ")
	}
	return ""
}

// truncate cuts s to at most n bytes, on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// ValidationError reports a call refused before anything was sent
// (ErrInvalidParams).
type ValidationError struct {
	// Field names the parameter at fault as the API spells it ("limit").
	Field  string
	Reason string
}

// Error implements error.
func (e *ValidationError) Error() string {
	return "acctadmin: invalid " + e.Field + ": " + e.Reason
}

// Is makes errors.Is(err, ErrInvalidParams) true.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalidParams }

// nilContext is the refusal of a call made with a nil context.
func nilContext() error { return invalid("ctx", "must not be nil") }

func invalid(field, format string, args ...any) error {
	return &ValidationError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// DecodeError reports an answer the client could not read: not JSON, not
// the envelope, a field of an unexpected type, or an unexpected content
// type. It says what kind of value it found and how long ("a string of 40
// bytes"), never the value.
type DecodeError struct {
	Endpoint string // as "GET /documents"
	// Path is the JSON path of the bad field ("result[3].created_at"),
	// empty when the body as a whole is at fault.
	Path    string
	Err     error
	unknown string // as APIError's
}

// Error implements error.
func (e *DecodeError) Error() string {
	if e.Path == "" {
		return "acctadmin: decode " + e.Endpoint + ": " + e.Err.Error() + outcomeText(e.unknown)
	}
	return "acctadmin: decode " + e.Endpoint + ": " + e.Path + ": " + e.Err.Error() + outcomeText(e.unknown)
}

// Is makes errors.Is(err, ErrOutcomeUnknown) work.
func (e *DecodeError) Is(target error) bool {
	return target == ErrOutcomeUnknown && e.unknown != ""
}

// Unwrap returns the cause.
func (e *DecodeError) Unwrap() error { return e.Err }

// typeErrorText says what an *json.UnmarshalTypeError says, less the
// value it quotes ("JSON number of 16 bytes").
func typeErrorText(ute *json.UnmarshalTypeError) string {
	kind, literal, _ := strings.Cut(ute.Value, " ")
	if literal != "" {
		kind += " of " + byteCount(len(literal))
	}
	target := "the field's type"
	if ute.Type != nil {
		target = ute.Type.String()
	}
	return "cannot read JSON " + kind + " as " + target
}

// redactedError says text in place of its cause's own text, and
// errors.Is still sees the cause.
type redactedError struct {
	text  string
	cause error
}

func (e *redactedError) Error() string { return e.text }

func (e *redactedError) Is(target error) bool { return errors.Is(e.cause, target) }

// TransportError reports a call that got no answer, after any retries.
// When no connection could be made its text names the origin it tried
// ("connect to https://api.example.com:443: …"), never a path or query.
type TransportError struct {
	// Method and Path name the request; Path never holds the query string.
	Method   string
	Path     string
	Attempts int
	// Err is the last attempt's cause, for errors.Is and errors.As; its
	// own text (hosts, what the server sent) is not shown.
	Err     error
	unknown string // as APIError's
	text    string // what Error says of Err, redacted and bounded
}

// Error implements error.
func (e *TransportError) Error() string {
	text := e.text
	if text == "" {
		text = truncate((*redactor)(nil).redact(causeText(e.Err)), maxMessage)
	}
	return fmt.Sprintf("acctadmin: %s %s: %s (after %d attempt(s))", e.Method, e.Path, text, e.Attempts) + outcomeText(e.unknown)
}

// Is makes errors.Is(err, ErrOutcomeUnknown) work.
func (e *TransportError) Is(target error) bool {
	return target == ErrOutcomeUnknown && e.unknown != ""
}

// causeText says what err says, less the hosts, addresses and URLs its
// texts name.
func causeText(err error) string {
	if err == nil {
		return "request failed"
	}
	err = stripURL(err)
	var op *net.OpError
	var dns *net.DNSError
	switch {
	case errors.As(err, &op):
		s := op.Op
		if op.Net != "" {
			s += " " + op.Net
		}
		if op.Err != nil {
			s += ": " + causeText(op.Err)
		}
		return s
	case errors.As(err, &dns):
		if dns.IsTimeout {
			return "name lookup timed out"
		}
		return "name lookup failed: " + dns.Err
	case errors.As(err, new(x509.HostnameError)):
		return "tls: the server's certificate is not valid for the API's host name"
	case errors.As(err, new(x509.UnknownAuthorityError)):
		return "tls: the server's certificate is signed by an unknown authority"
	case errors.As(err, new(x509.CertificateInvalidError)):
		return "tls: the server's certificate is not valid"
	case errors.As(err, new(*tls.CertificateVerificationError)):
		return "tls: the server's certificate could not be verified"
	}
	return err.Error()
}

// Unwrap returns the cause.
func (e *TransportError) Unwrap() error { return e.Err }

// PullError reports a Documents.Pull that stopped before the end of its
// listing; it unwraps to its cause.
type PullError struct {
	// Err is the error that stopped the pull.
	Err error
	// Document is the document whose Before, download or fn failed, or
	// the nil UUID when the listing or the context stopped the pull.
	Document uuid.UUID
	// Unfinished lists, in listing order, every document downloaded whose
	// fn did not return nil: the API may have marked them read, so fetch
	// them by id (Documents.Download).
	Unfinished []uuid.UUID
	// Done is how many documents fn returned nil for.
	Done  int
	early bool // PullParams.Before failed: Document was never downloaded
}

// Error implements error.
func (e *PullError) Error() string {
	msg := fmt.Sprintf("acctadmin: pull stopped after %d document(s)", e.Done)
	switch {
	case e.Document != uuid.Nil && e.early:
		msg += " before downloading document " + e.Document.String()
	case e.Document != uuid.Nil:
		msg += " at document " + e.Document.String()
	}
	if n := len(e.Unfinished); n > 0 {
		msg += fmt.Sprintf(", %d left unfinished", n)
	}
	return msg + ": " + causeText(e.Err)
}

// Unwrap returns the cause.
func (e *PullError) Unwrap() error { return e.Err }

// UnpaidInvoicesError is the API's refusal (400) to cancel a service whose
// company has unpaid invoices. It unwraps to its *APIError.
type UnpaidInvoicesError struct {
	Invoices []Invoice // the unpaid invoices the API listed
	Err      *APIError // the underlying answer
}

// Error implements error.
func (e *UnpaidInvoicesError) Error() string {
	return fmt.Sprintf("acctadmin: %s %s: service has %d unpaid invoice(s)", e.Err.Method, e.Err.Path, len(e.Invoices))
}

// Unwrap returns the underlying *APIError.
func (e *UnpaidInvoicesError) Unwrap() error { return e.Err }

// unpaidInvoices reads the invoices of a refused cancellation, whose shape
// is not documented: a list, or one under a known key.
func unpaidInvoices(body []byte) ([]Invoice, bool) {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(body, &m)
	for _, raw := range []json.RawMessage{body, m["result"], m["invoices"], m["unpaid_invoices"], m["data"]} {
		var list []Invoice
		if json.Unmarshal(raw, &list) == nil && list != nil {
			return list, true
		}
	}
	return nil, false
}

// CheckoutOutcomeError is the error of Client.Order when its checkout
// failed: Verdict says whether the card was charged (after a lost answer,
// by listing the invoices and cart again). It unwraps to the checkout's
// and the listings' errors unless the Verdict is Charged.
type CheckoutOutcomeError struct {
	Verdict ChargeVerdict
	// InvoiceIDs are the company's invoices made since the checkout.
	InvoiceIDs []uuid.UUID
	// Err is the checkout's error; CheckErr the listings', if they failed.
	Err      error
	CheckErr error
}

// Error says the verdict and what it rests on.
func (e *CheckoutOutcomeError) Error() string {
	if e.Verdict == NotCharged {
		return "acctadmin: checkout failed (" + e.Err.Error() + "); not charged: the API refused it, or it was never sent"
	}
	msg := "acctadmin: checkout's answer lost (" + e.Err.Error() + "); "
	if e.Verdict == Charged {
		return msg + fmt.Sprintf("charged: %d new invoice(s) listed and the item left the cart; do not order again", len(e.InvoiceIDs))
	}
	const look = "; it may still take effect: Invoices.List and ShoppingCart.List show whether it happened"
	if e.CheckErr != nil {
		return msg + "still unknown: the listings failed (" + e.CheckErr.Error() + ")" + look
	}
	return msg + fmt.Sprintf("still unknown: %d new invoice(s), the item in the cart or not, do not show it", len(e.InvoiceIDs)) + look
}

// Unwrap returns the checkout's error and the listings', unless Charged.
func (e *CheckoutOutcomeError) Unwrap() []error {
	if e.Verdict == Charged {
		return nil
	}
	if e.CheckErr == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.CheckErr}
}

// DuplicateOrderError is the refusal of Client.Order to order a product
// the company has an unfinished order item of; nothing was sent.
// OrderRequest.AllowDuplicate orders anyway.
type DuplicateOrderError struct {
	Item    OrderItem // the unfinished order item
	Product string    // the product's name
}

// Error names the waiting order item.
func (e *DuplicateOrderError) Error() string {
	return fmt.Sprintf("acctadmin: duplicate order: order item %s of %q for company %s is %q; OrderRequest.AllowDuplicate orders anyway",
		e.Item.ID, e.Product, e.Item.CompanyID, e.Item.Status)
}

// Is makes errors.Is(err, ErrDuplicateOrder) true.
func (e *DuplicateOrderError) Is(target error) bool { return target == ErrDuplicateOrder }

// What only a failed call runs.

// apiError reads a failed answer (capped) into an *APIError and closes it.
func (st *callState) apiError(resp *http.Response) *APIError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	drainAndClose(resp.Body)
	e := st.failure(resp, body)
	e.Header = st.secrets().cleanHeader(resp.Header)
	e.RetryAfter, _ = retryAfter(resp.Header.Get("Retry-After"), time.Now())
	e.fromCall, e.overWait = true, st.overWait || e.RetryAfter > st.c.retryAfterMax
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		e.Message = st.redirectText(resp)
	}
	return e
}

// redirectText says why the redirect resp was not followed, never where
// it led.
func (st *callState) redirectText(resp *http.Response) string {
	loc, err := resp.Location()
	switch {
	case err != nil || resp.Request == nil:
		return "redirect not followed"
	case loc.Host != resp.Request.URL.Host || loc.Scheme != resp.Request.URL.Scheme:
		return "redirect to another host not followed"
	case st.route.class == atMostOnce:
		return "redirect not followed: a write is sent at most once"
	}
	hops := 0
	for r := resp.Request; r.Response != nil && r.Response.Request != nil && hops < maxRedirects; r = r.Response.Request {
		hops++
	}
	if hops >= maxRedirects-1 {
		return "redirect not followed: too many redirects"
	}
	return "redirect not followed"
}

// failure builds the *APIError of an answer resp and its body (or start).
func (st *callState) failure(resp *http.Response, body []byte) *APIError {
	st.noteTokens(resp)
	e := newAPIError(resp.StatusCode, st.method, st.path, body, st.secrets())
	e.pay = st.route.pay
	return e
}

// secrets returns the call's redaction, made on first use: the client's
// keys, the query string, the values of CallRedact, those the body
// carries (a card number, a password, a form's values), and the tokens
// noted so far.
func (st *callState) secrets() *redactor {
	if st.red == nil {
		k := st.c.keys()
		st.red = &redactor{secrets: slices.Clip(k.secrets), marks: slices.Clip(k.marks)} // the client's own stay as they are
		st.red.addQuery(st.query)
		st.red.addBodyValues(st.redactValues, (*redactor).addCallValue)
		if sb, ok := st.in.(secretBody); ok {
			st.red.addBodyValues(sb.secretValues(), (*redactor).addSensitive)
		}
		if pb, ok := st.in.(personalBody); ok {
			st.red.addBodyValues(pb.personalValues(), (*redactor).addPersonal)
		}
	}
	return st.red
}

// noteTokens adds to the call's redaction the token sent for the request
// that got resp, and those of the redirects that led to it.
func (st *callState) noteTokens(resp *http.Response) {
	for i := 0; resp != nil && resp.Request != nil && i <= maxRedirects; i++ {
		if a := resp.Request.Header.Get("Authorization"); a != "" {
			st.secrets().addToken(a)
		}
		resp = resp.Request.Response
	}
}

// learnToken adds to the call's redaction the token the client's signer
// makes for the call (it is deterministic): a transport error may quote
// what was sent before any answer handed the token back.
func (st *callState) learnToken() {
	s, ok := st.c.auth().(*signer)
	if !ok {
		return
	}
	req := &http.Request{URL: &url.URL{Path: st.path, RawQuery: st.query}, Header: make(http.Header, 1)}
	if s.Authenticate(req, st.body) == nil {
		st.secrets().addToken(req.Header.Get("Authorization"))
	}
}

// cleanDecode passes the path (a key the server chose) and the cause (a
// quote of the answer) of a *DecodeError through the call's redaction.
func (st *callState) cleanDecode(err error) error {
	var de *DecodeError
	if !errors.As(err, &de) {
		return err
	}
	r := st.secrets()
	de.Path = r.clean(de.Path, maxDetail)
	if de.Err != nil {
		if text := de.Err.Error(); r.clean(text, maxMessage) != text {
			de.Err = &redactedError{text: r.clean(text, maxMessage), cause: de.Err}
		}
	}
	return err
}

func (st *callState) endpoint() string { return st.method + " " + st.path }

// redact makes err, a failure to get an answer, a *TransportError whose
// text has no URL nor secret, keeping the cause; an answer over the cap
// is a *DecodeError, and nil stays nil.
func (st *callState) redact(err error) error {
	switch {
	case err == nil || errors.As(err, new(*TransportError)) || errors.As(err, new(*DecodeError)):
		return err
	case errors.Is(err, ErrResponseTooLarge):
		return &DecodeError{Endpoint: st.endpoint(), Err: fmt.Errorf("%w: over %d bytes", ErrResponseTooLarge, maxJSONBody)}
	}
	origin := connectOrigin(err)
	err = stripURL(err)
	st.learnToken()
	r := st.secrets()
	text := r.clean(causeText(err), maxMessage)
	if origin != "" {
		text = "connect to " + r.clean(origin, maxDetail) + ": " + text
	}
	if raw := err.Error(); r.clean(raw, maxMessage) != raw {
		// The cause quotes a secret, or at length: kept for errors.Is only.
		err = &redactedError{text: r.clean(raw, maxMessage), cause: err}
	}
	return &TransportError{Method: st.method, Path: st.path, Attempts: max(st.attempt, 1), Err: err, text: text}
}

// connectOrigin returns "scheme://host:port" of the URL that err failed
// to connect to (a dial, a name, a TLS handshake), else "".
func connectOrigin(err error) string {
	var ue *url.Error
	if !errors.As(err, &ue) || !connectFailure(ue.Err) {
		return ""
	}
	u, perr := url.Parse(ue.URL)
	if perr != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// connectFailure reports whether no connection to the API could be made.
func connectFailure(err error) bool {
	return connectFailed(err) || errors.As(err, new(tls.RecordHeaderError)) || errors.As(err, new(*tls.CertificateVerificationError)) ||
		errors.As(err, new(x509.HostnameError)) || errors.As(err, new(x509.UnknownAuthorityError)) || errors.As(err, new(x509.CertificateInvalidError))
}

// stripURL drops the *url.Error wrappers of err, whose text has the URL.
func stripURL(err error) error {
	var ue *url.Error
	for errors.As(err, &ue) {
		err = ue.Err
	}
	return err
}
