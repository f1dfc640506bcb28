package acctadmin

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Sentinel errors. Test for them with errors.Is; the concrete error behind
// them is an *APIError (for the status sentinels), a *ValidationError (for
// ErrInvalidParams) or a *DecodeError (for ErrResponseTooLarge).
var (
	// ErrNotFound reports a 404 answer: the id or the route is unknown.
	ErrNotFound = errors.New("acctadmin: not found")
	// ErrUnauthorized reports a 401 answer: the keys are wrong or the
	// request signature was refused.
	ErrUnauthorized = errors.New("acctadmin: unauthorized")
	// ErrForbidden reports a 403 answer.
	ErrForbidden = errors.New("acctadmin: forbidden")
	// ErrRateLimited reports a 429 answer that was still there after the
	// retries, or whose Retry-After asked for a longer wait than the call
	// allows (WithMaxRetryAfter, CallMaxRetryAfter) or than its context's
	// deadline leaves.
	ErrRateLimited = errors.New("acctadmin: rate limited")
	// ErrServer reports a 5xx answer that was still there after the retries.
	ErrServer = errors.New("acctadmin: server error")
	// ErrInvalidParams reports a call that the client refused before sending
	// anything, because its parameters break a rule of the API.
	ErrInvalidParams = errors.New("acctadmin: invalid params")
	// ErrResponseTooLarge reports a JSON answer larger than the client reads
	// (32 MiB).
	ErrResponseTooLarge = errors.New("acctadmin: response too large")
	// ErrOutcomeUnknown reports a call that moves money or changes what the
	// account owns (checkout, paying invoices, payment methods, the cart,
	// form data, and every other POST, PATCH and PUT) which failed after
	// its request may have reached the API: the connection broke or timed
	// out once the request was sent, or the answer was a server error
	// (5xx), a redirect (not followed), or a 2xx the SDK cannot read (the
	// package doc states the rule). The call may or may not have taken
	// effect. The SDK does not send such a call again, since the API takes
	// no idempotency key; the method's documentation, and the error's
	// message, say which listing shows whether it happened. The error is
	// still an *APIError, a *DecodeError or a *TransportError for
	// errors.As.
	ErrOutcomeUnknown = errors.New("acctadmin: outcome unknown")
	// ErrPagingIgnored ends an All (or a Pull) whose API answered a full
	// page again for a later offset: it ignores offset, so the rest of the
	// listing cannot be reached. It is yielded once, after every item the
	// API did send.
	ErrPagingIgnored = errors.New("acctadmin: the API ignored the page offset; the listing cannot be read past its first page")
	// ErrListingUnsettled ends an All over a listing that the loop shrinks
	// (the unread documents), or a Pull, whose listing still changed
	// between two walks over it after 10 walks: others read or add
	// documents faster than the walk can confirm it missed none. It comes
	// after every document the walks found; documents may be left in the
	// listing, and the next All or Pull picks them up.
	ErrListingUnsettled = errors.New("acctadmin: the listing was still changing after 10 passes over it; documents may be left in it")
	// ErrSkipDocument, returned (or wrapped) by PullParams.Before, leaves
	// a document alone: Pull does not download it, does not hand it to
	// fn, does not count it unfinished, and goes on with the others.
	ErrSkipDocument = errors.New("acctadmin: document skipped")
	// ErrPaymentRequired reports a refused read of a payment-locked
	// document (its download, a page or a page's URL): it was received
	// for a company without an active registered-agent service and is
	// held until it is paid for, with Documents.Unlock. Which status the
	// real API uses is not shown by any of its clients, so the SDK does
	// not assume one: a 402 on those routes, or any other 4xx (but 401
	// and 429) or a 2xx saying success false whose message says payment
	// is needed ("payment required", "locked", "unpaid", "must be paid"),
	// is this error, unless the message speaks of a declined card. The
	// SDK's fake answers 402 "payment required: the document is locked
	// until it is paid for".
	ErrPaymentRequired = errors.New("acctadmin: payment required")
	// ErrPaymentDeclined reports a charge the card's issuer refused, on a
	// route that charges a card (ShoppingCart.Checkout, Invoices.Pay,
	// Documents.Unlock): a 402 there, or any other 4xx (but 401 and 429)
	// or a 2xx saying success false whose message speaks of a declined
	// card ("declined", "insufficient funds"). Nothing was charged; the
	// error is still the *APIError, for its status and message.
	ErrPaymentDeclined = errors.New("acctadmin: payment declined")
)

// maxErrorBody is how much of an error answer an APIError keeps.
const maxErrorBody = 64 << 10

// maxMessage is how much of the API's own message an APIError keeps.
const maxMessage = 500

// APIError is an answer of the API that reports a failure: any status
// outside 2xx, or a 2xx answer whose envelope says success false.
type APIError struct {
	// StatusCode is the HTTP status of the answer.
	StatusCode int
	// Method and Path name the request; Path never holds the query string.
	Method string
	Path   string
	// Message is the API's own explanation when its body carried one,
	// otherwise the status text.
	Message string
	// Body is the start of the answer's body (at most 64 KiB, cut
	// before a character the bound would split: it is valid UTF-8), with the
	// redaction of Message applied: the client's keys, the request's
	// token and its parts, the secrets its body carried (a card number
	// however its digits are grouped: "4111-1111-1111-1111", "3782 822463
	// 10005"), and the query string and its values read "[redacted]" or
	// "[query]" where the server echoed them; invalid UTF-8 reads as
	// U+FFFD.
	Body []byte
	// RetryAfter is the wait the API asked for in a Retry-After header,
	// or zero.
	RetryAfter time.Duration
	// Header is the answer's header, less anything secret: Authorization,
	// cookies and authentication challenges are dropped, and in every
	// name and value a key or a token reads "[redacted]", the query string
	// or one of its values "[query]". It is bounded: each value is cut to
	// 1 KiB, and at most 64 values and 16 KiB in all are kept, by sorted
	// name. Nil for a 2xx answer whose envelope says success false.
	Header http.Header

	// Fields are the API's complaints about single fields of the request
	// ("errors": [{"field", "message"}]; then "company_errors" and
	// "jurisdiction_errors", where an item that names no field is kept
	// under the list's name), in the order it gave them, so
	// that a refused form says which field: Field as the API names it,
	// the JSON name sent (as ValidationError.Field names a parameter),
	// and Message what is wrong with it. Both pass through the redaction
	// of Message; at most 50 are kept, each text cut to 200 bytes.
	Fields []FieldError

	// unknown, when not "", marks a server error of an at-most-once call
	// (ErrOutcomeUnknown) and says how to find out what happened.
	unknown string
	// pay is what the route does with payments: whether its refusal may
	// be ErrPaymentRequired or ErrPaymentDeclined.
	pay payRole
	// fromCall marks an error a call made; overWait, that its call would
	// not wait the answer's Retry-After (longer than WithMaxRetryAfter or
	// CallMaxRetryAfter allows, or past the context's deadline).
	fromCall, overWait bool
}

// FieldError is the API's complaint about one field of a request.
type FieldError struct {
	// Field names the field as the request spelled it, as "form_data.ssn"
	// or "number".
	Field string
	// Message says what is wrong with it.
	Message string
}

// Limits of APIError.Fields.
const (
	maxFieldErrors = 50
	maxFieldText   = 200
)

// fieldErrors reads the per-field errors of an error body: "errors" as a
// list of {"field", "message"} objects (also "attribute"/"param" and
// "error"/"detail"), or as an object of field to message or messages;
// then "company_errors" and "jurisdiction_errors", beside result or
// inside it, which POST /companies answers may carry: their items are
// read the same way, and one that names no field is kept under the
// list's name, its message the item's text or, failing that, its JSON.
func fieldErrors(body []byte, red *redactor) []FieldError {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return nil
	}
	var inResult map[string]json.RawMessage
	_ = json.Unmarshal(m["result"], &inResult) // nil unless result is an object
	var out []FieldError
	keep := func(field, msg string) bool {
		if field == "" || len(out) == maxFieldErrors {
			return len(out) < maxFieldErrors
		}
		out = append(out, FieldError{Field: red.clean(field, maxFieldText), Message: red.clean(msg, maxFieldText)})
		return true
	}
	for _, list := range []string{"errors", "company_errors", "jurisdiction_errors"} {
		raw := bytes.TrimSpace(m[list])
		if len(raw) == 0 {
			raw = bytes.TrimSpace(inResult[list])
		}
		unnamed := list // the field of an item that names none
		if list == "errors" {
			unnamed = "" // such an item of "errors" is not kept
		}
		if !readFieldErrors(raw, unnamed, keep) {
			break
		}
	}
	return out
}

// readFieldErrors hands keep each complaint of one list of field errors,
// until keep says no more (then it returns false).
func readFieldErrors(raw json.RawMessage, unnamed string, keep func(field, msg string) bool) bool {
	if len(raw) == 0 {
		return true
	}
	text := func(item json.RawMessage) string {
		if s := messageText(item, 0); s != "" || unnamed == "" {
			return s
		}
		return string(bytes.TrimSpace(item)) // a code or a shape of no known key: kept as written
	}
	switch raw[0] {
	case '[':
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return true
		}
		for _, item := range items {
			var it map[string]json.RawMessage
			_ = json.Unmarshal(item, &it)
			field := firstText(it, "field", "attribute", "param", "path")
			if field == "" {
				field = unnamed
			}
			msg := firstText(it, "message", "error", "detail")
			if it == nil || msg == "" && unnamed != "" {
				msg = text(item)
			}
			if !keep(field, msg) {
				return false
			}
		}
	case '{':
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return true
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			field := k
			if unnamed != "" {
				field = unnamed + "." + k
			}
			if !keep(field, text(obj[k])) {
				return false
			}
		}
	case '"':
		return keep(unnamed, text(raw))
	}
	return true
}

// firstText returns the first of the keys of m that holds a string.
func firstText(m map[string]json.RawMessage, keys ...string) string {
	for _, k := range keys {
		var s string
		if json.Unmarshal(m[k], &s) == nil && s != "" {
			return s
		}
	}
	return ""
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

// Is makes errors.Is(err, ErrNotFound) and the other status sentinels work.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized
	case ErrForbidden:
		return e.StatusCode == http.StatusForbidden
	case ErrRateLimited:
		// A 429, or any answer whose Retry-After asked for a longer wait
		// than the call allows (it gave up at once rather than sleep); an
		// error made by hand is judged by the default cap.
		return e.StatusCode == http.StatusTooManyRequests || e.overWait || !e.fromCall && e.RetryAfter > maxRetryAfter
	case ErrServer:
		return e.StatusCode >= 500
	case ErrOutcomeUnknown:
		return e.unknown != ""
	case ErrPaymentRequired:
		return e.pay == readsLocked && e.refusesPayment() && !saysDeclined(e.Message)
	case ErrPaymentDeclined:
		return e.pay == charges && e.refusesPayment() && (e.StatusCode == http.StatusPaymentRequired || saysDeclined(e.Message))
	}
	return false
}

// payRole says what a route does with payments.
type payRole uint8

const (
	// The zero role: routes that neither charge nor read what may be
	// payment-locked.
	_ payRole = iota
	// charges routes charge a card: their refusal may be a decline.
	charges
	// readsLocked routes read a document that may be payment-locked.
	readsLocked
)

// refusesPayment reports whether the answer may be a refusal about a
// payment: a 402, or another 4xx (not 401 nor 429, which say something
// else) or a 2xx saying success false, whose message speaks of payment
// (for a 402 the status says it alone).
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

// The words by which a message speaks of a declined card, and of a
// payment the API waits for.
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

// newAPIError builds the error for an answer that reports a failure. body
// is what was read of the answer (already capped by the caller); red is
// the call's redaction, which Message and Body both pass through.
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

// errorMessage finds a human message in the shapes an error body takes:
// {"message": …}, {"result": …}, {"result": {"request": …}}, {"error": …},
// {"error": {"message": …}}, {"errors": […]}. The real API keeps the
// detail inside result ({"success": false, "result": {"request": "Company
// name already exists"}}), so result is read after message; the shape is
// not documented, so every one of them is tried.
func errorMessage(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return ""
	}
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

func messageText(raw json.RawMessage, depth int) string {
	if len(raw) == 0 || depth > 3 {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case '{':
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			for _, k := range []string{"request", "message", "error", "detail"} {
				if s := messageText(m[k], depth+1); s != "" {
					return s
				}
			}
		}
	case '[':
		var a []json.RawMessage
		if json.Unmarshal(raw, &a) == nil {
			parts := make([]string, 0, len(a))
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

// ValidationError reports a call refused before anything was sent, because
// its parameters break a rule of the API. errors.Is(err, ErrInvalidParams)
// is true for it.
type ValidationError struct {
	// Field names the parameter at fault, as the API spells it
	// (for example "company_id" or "limit").
	Field string
	// Reason says what is wrong with it.
	Reason string
}

// Error implements error.
func (e *ValidationError) Error() string {
	return "acctadmin: invalid " + e.Field + ": " + e.Reason
}

// Is makes errors.Is(err, ErrInvalidParams) true.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalidParams }

// nilContext is the refusal of a call made with a nil context: a fresh
// error each time, so that no caller can change another's.
func nilContext() error { return invalid("ctx", "must not be nil") }

func invalid(field, format string, args ...any) error {
	return &ValidationError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// DecodeError reports an answer the client could not read: a body that is
// not JSON, JSON that is not the API's envelope, a field of an unexpected
// type, or a binary answer of an unexpected content type. It says what
// kind of value it found and how long ("a string of 40 bytes"), never the
// value: a server may have put a secret or the query string there.
type DecodeError struct {
	// Endpoint names the request, as "GET /documents".
	Endpoint string
	// Path is the JSON path of the bad field (for example
	// "result[3].created_at"); empty when the body as a whole is at fault.
	Path string
	// Err says what went wrong.
	Err error

	// unknown, when not "", marks the unreadable 2xx answer of an
	// at-most-once call (ErrOutcomeUnknown) and says how to find out
	// what happened.
	unknown string
}

// Error implements error.
func (e *DecodeError) Error() string {
	if e.Path == "" {
		return "acctadmin: decode " + e.Endpoint + ": " + e.Err.Error() + outcomeText(e.unknown)
	}
	return "acctadmin: decode " + e.Endpoint + ": " + e.Path + ": " + e.Err.Error() + outcomeText(e.unknown)
}

// Is makes errors.Is(err, ErrOutcomeUnknown) true for the answer of an
// at-most-once call that could not be read.
func (e *DecodeError) Is(target error) bool {
	return target == ErrOutcomeUnknown && e.unknown != ""
}

// Unwrap returns the cause.
func (e *DecodeError) Unwrap() error { return e.Err }

// typeErrorText says what an *json.UnmarshalTypeError says, less the
// value: encoding/json quotes a number it cannot store ("number
// 4111111111111111"), which reads "JSON number of 16 bytes" here.
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

// redactedError stands for a cause whose own text showed a secret or ran
// too long: it says text instead, and errors.Is still sees the cause.
type redactedError struct {
	text  string
	cause error
}

func (e *redactedError) Error() string { return e.text }

func (e *redactedError) Is(target error) bool { return errors.Is(e.cause, target) }

// TransportError reports a call that got no answer from the API: the
// connection failed, timed out or broke, after any retries. It names the
// request by method and path; when no connection could be made (refused,
// a name that does not resolve, a TLS handshake or certificate refused)
// its text also names the host it tried, as "connect to
// https://api.example.com:443: …": scheme, host and port, never the
// userinfo, path or query of the URL.
type TransportError struct {
	// Method and Path name the request; Path never holds the query string.
	Method string
	Path   string
	// Attempts is how many times the request was tried.
	Attempts int
	// Err is the cause of the last attempt's failure, for errors.Is and
	// errors.As (for example context.Canceled, or a *net.OpError). Its
	// own text may name hosts and quote what the server sent; Error does
	// not show it (see causeText).
	Err error

	// unknown, when not "", marks a failure of an at-most-once call after
	// its request may have arrived (ErrOutcomeUnknown) and says how to find
	// out what happened.
	unknown string
	// text is what Error says of Err: causeText, redacted and bounded as
	// the client made it.
	text string
}

// Error implements error.
func (e *TransportError) Error() string {
	text := e.text
	if text == "" {
		text = truncate((*redactor)(nil).redact(causeText(e.Err)), maxMessage)
	}
	return fmt.Sprintf("acctadmin: %s %s: %s (after %d attempt(s))", e.Method, e.Path, text, e.Attempts) + outcomeText(e.unknown)
}

// Is makes errors.Is(err, ErrOutcomeUnknown) true for a failure of an
// at-most-once call after its request may have arrived.
func (e *TransportError) Is(target error) bool {
	return target == ErrOutcomeUnknown && e.unknown != ""
}

// causeText says what err says, less the hosts and addresses its texts
// name (the API's host and port, the local port, a resolver's address, the
// names on a certificate, a URL with its query): the method and path
// already say where the call went. Err itself keeps them for errors.As.
func causeText(err error) string {
	if err == nil {
		return "request failed"
	}
	err = stripURL(err)
	var (
		op  *net.OpError
		dns *net.DNSError
		hn  x509.HostnameError
		ua  x509.UnknownAuthorityError
		ci  x509.CertificateInvalidError
		cv  *tls.CertificateVerificationError
	)
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
	case errors.As(err, &hn):
		return "tls: the server's certificate is not valid for the API's host name"
	case errors.As(err, &ua):
		return "tls: the server's certificate is signed by an unknown authority"
	case errors.As(err, &ci):
		return "tls: the server's certificate is not valid"
	case errors.As(err, &cv):
		return "tls: the server's certificate could not be verified"
	}
	return err.Error()
}

// Unwrap returns the cause, so that errors.Is(err, context.Canceled) and
// net.Error checks work.
func (e *TransportError) Unwrap() error { return e.Err }

// PullError reports a Documents.Pull that stopped before the end of its
// listing: fn or PullParams.Before returned an error, a download or a
// listing request failed, or the context ended. Get it with errors.As; it unwraps to its cause, so
// errors.Is(err, context.Canceled) and the sentinels above work through it.
type PullError struct {
	// Err is the first error, the one that stopped the pull.
	Err error
	// Document is the document whose Before, download or fn failed
	// first, or the nil UUID when the listing or the context stopped the
	// pull. When its Before failed it was never downloaded: it is not in
	// Unfinished, and the message says "before downloading" it.
	Document uuid.UUID
	// Unfinished lists, in listing order, every document whose download
	// was asked for but whose fn did not return nil. The API may have
	// marked them read already, so they may not come back in the unread
	// listing: fetch them again by id, with Documents.Download.
	Unfinished []uuid.UUID
	// Done is how many documents fn returned nil for.
	Done int

	early bool // Document was never downloaded: PullParams.Before failed
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
// company has unpaid invoices, which must be paid or cancelled first. It
// unwraps to its *APIError.
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

// unpaidInvoices reads the invoices of a refused cancellation. The shape
// is not documented: the list is looked for under "result", "invoices",
// "unpaid_invoices" and "data", or as the whole body.
func unpaidInvoices(body []byte) ([]Invoice, bool) {
	body = bytes.TrimSpace(body)
	var list []Invoice
	if len(body) > 0 && body[0] == '[' {
		if json.Unmarshal(body, &list) == nil {
			return list, true
		}
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return nil, false
	}
	for _, k := range []string{"result", "invoices", "unpaid_invoices", "data"} {
		raw := bytes.TrimSpace(m[k])
		if len(raw) > 0 && raw[0] == '[' && json.Unmarshal(raw, &list) == nil {
			return list, true
		}
	}
	return nil, false
}

// The errors of the calls that find what a write made, and of Client.Order.

// ErrNoMatch reports a search that found no record that fits: no filing
// product of that name, or no record made by a write in the listing after
// it (the write took effect; the listing does not show it).
var ErrNoMatch = errors.New("acctadmin: no record fits")

// ErrAmbiguous reports a search that found more than one record that
// fits: the SDK does not pick one.
var ErrAmbiguous = errors.New("acctadmin: more than one record fits")

// CheckoutOutcomeError is the error of Client.Order when its checkout
// failed: its Verdict says whether the card was charged. NotCharged when
// the answer proves the checkout was not applied (the API refused it, or
// the request never left); after a lost answer (its error Is
// ErrOutcomeUnknown) Order listed the company's invoices and cart again
// and compared them with what they were before the checkout: Charged
// when they show it took effect, else ChargeUnknown. It unwraps to the
// checkout's error and the listings' unless the Verdict is Charged, so
// only ChargeUnknown Is ErrOutcomeUnknown; Err always holds the
// checkout's error.
type CheckoutOutcomeError struct {
	Verdict ChargeVerdict
	// InvoiceIDs are the invoices of the company made since the
	// checkout was sent.
	InvoiceIDs []uuid.UUID
	// Err is the checkout's error; CheckErr the listings', when they
	// failed.
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

// Unwrap returns the checkout's error and the listings', unless the
// verdict is Charged: the lost answer is then found out.
func (e *CheckoutOutcomeError) Unwrap() []error {
	if e.Verdict == Charged {
		return nil
	}
	if e.CheckErr == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.CheckErr}
}

// ErrDuplicateOrder reports an order that Client.Order refused because
// the company is still waiting on an order item of the same product: see
// DuplicateOrderError.
var ErrDuplicateOrder = errors.New("acctadmin: duplicate order")

// DuplicateOrderError is the refusal of Client.Order to order a product
// the company has an order item of that is not finished (waiting for its
// form, or new). Nothing that moves money was sent.
// OrderRequest.AllowDuplicate orders anyway. errors.Is(err,
// ErrDuplicateOrder) is true.
type DuplicateOrderError struct {
	// Item is the order item that is not finished.
	Item OrderItem
	// Product is the product's name.
	Product string
}

// Error names the waiting order item.
func (e *DuplicateOrderError) Error() string {
	return fmt.Sprintf("acctadmin: duplicate order: order item %s of %q for company %s is %q; OrderRequest.AllowDuplicate orders anyway",
		e.Item.ID, e.Product, e.Item.CompanyID, e.Item.Status)
}

// Is makes errors.Is(err, ErrDuplicateOrder) true.
func (e *DuplicateOrderError) Is(target error) bool { return target == ErrDuplicateOrder }

// What a failed call runs to build its error.

// apiError reads a failed answer (capped) into an *APIError and closes it.
func (st *callState) apiError(resp *http.Response) *APIError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	drainAndClose(resp.Body)
	e := st.failure(resp, body)
	e.Header = st.secrets().cleanHeader(resp.Header)
	if d, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
		e.RetryAfter = d
	}
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

// failure builds the *APIError of an answer resp that reports a failure,
// whose body (or its start) is body, through the call's redaction.
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
		st.red = &redactor{
			secrets: append(make([]string, 0, len(k.secrets)+6), k.secrets...),
			marks:   append(make([]string, 0, len(k.marks)+6), k.marks...),
		}
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

// cleanDecode passes the path and the cause of a *DecodeError through the
// call's redaction: the path may hold a key the server chose, and the
// cause may quote the answer.
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

// endpoint names a call in decode errors: "GET /documents".
func (st *callState) endpoint() string { return st.method + " " + st.path }

// shown is an attempt's error as a hook sees it: redacted, nil for none.
func (st *callState) shown(err error) error {
	if err == nil {
		return nil
	}
	return st.readError(err)
}

// readError says why an answer could not be had, without the URL: an
// answer over the cap is a *DecodeError, anything else a *TransportError.
func (st *callState) readError(err error) error {
	if errors.Is(err, ErrResponseTooLarge) {
		return &DecodeError{Endpoint: st.endpoint(), Err: fmt.Errorf("%w: over %d bytes", ErrResponseTooLarge, maxJSONBody)}
	}
	return st.redact(err)
}

// redact makes err a *TransportError whose text has no URL nor secret,
// keeping the cause.
func (st *callState) redact(err error) error {
	var te *TransportError
	var de *DecodeError
	if errors.As(err, &te) || errors.As(err, &de) {
		return err
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

// connectFailure reports whether err says that no connection to the API
// could be made.
func connectFailure(err error) bool {
	var (
		op  *net.OpError
		dns *net.DNSError
		rh  tls.RecordHeaderError
		cv  *tls.CertificateVerificationError
		hn  x509.HostnameError
		ua  x509.UnknownAuthorityError
		ci  x509.CertificateInvalidError
	)
	return errors.As(err, &op) && op.Op == "dial" || errors.As(err, &dns) || errors.As(err, &rh) ||
		errors.As(err, &cv) || errors.As(err, &hn) || errors.As(err, &ua) || errors.As(err, &ci)
}

// stripURL drops the *url.Error wrappers of err, whose text repeats the
// URL with its query string.
func stripURL(err error) error {
	var ue *url.Error
	for errors.As(err, &ue) {
		err = ue.Err
	}
	return err
}
