package acctadmin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	retryablehttp "github.com/hashicorp/go-retryablehttp"
)

// One call reads top to bottom in this file: Client.json, Client.send,
// go-retryablehttp running the attempts, checkRetry after each,
// authTransport under each, the envelope, the checks and the query.
// What only a failure runs is in errors.go.

const (
	maxJSONBody      = 32 << 20         // the largest JSON answer read
	maxRetryAfter    = 60 * time.Second // the default WithMaxRetryAfter
	maxDrain         = 1 << 20          // read of a discarded answer, to reuse its connection
	maxTrustedLength = 64 << 10         // of a Content-Length, allocated before the bytes arrive
	maxRedirects     = 5
)

// callState is the state of one API call across its attempts.
type callState struct {
	c       *Client
	route   *route
	method  string
	path    string // never with the query string
	query   string
	in      any    // the body's value, for its secrets
	body    []byte // the bytes every attempt sends; nil for none
	stream  bool   // a file: the attempt timeout stops at its headers
	attempt int    // attempts made so far
	// sent: an attempt may have reached the server. resent: one was
	// retried after that, so later answers may see its effect.
	sent, resent bool
	overWait     bool      // gave up on a Retry-After past the deadline
	lastErr      error     // of the attempt about to be retried
	obs          *observer // WithHooks and WithResponseInto; nil when none
	red          *redactor // made on first use (secrets)
	redactValues []string  // of CallRedact
}

// json makes one JSON call and decodes the result of its envelope into
// out, a pointer (nil: the result is not kept); in, when not nil, is the
// JSON body. A 2xx answer saying success false is an *APIError, a result
// that does not fit out a *DecodeError, and an absentResult that says it
// is no record an ErrNotFound.
func (c *Client) json(ctx context.Context, ep endpoint, q *query, in, out any) error {
	if out == nil {
		out = &ignored{}
	}
	st, resp, body, err := c.send(ctx, ep, q, in, false)
	// An empty answer to a delete, or a 204, has no envelope.
	if body != nil && (len(bytes.TrimSpace(body)) > 0 || st.method != http.MethodDelete && resp.StatusCode != http.StatusNoContent) {
		ok, null, derr := decodeEnvelopeInto(st.method+" "+st.path, body, out)
		switch a, _ := out.(absentResult); {
		case derr != nil:
			err = st.cleanDecode(derr)
		case !ok:
			err = st.failure(resp, body)
		case a != nil:
			if why := a.absent(null, body); why != "" {
				e := st.failure(resp, body)
				e.StatusCode, e.Message = http.StatusNotFound, why
				err = e
			}
		}
	}
	if err != nil || st != nil && st.obs != nil {
		err = st.end(err)
	}
	return err
}

// absentResult is a result a 2xx answer may give as no record
// ({"website": null}): absent says why, or "" for a record.
type absentResult interface {
	absent(null bool, body []byte) string
}

// send sends one call's request and returns its final answer: a 2xx JSON
// answer read whole into body, a file's answer with its body open, or a
// 404 to a repeated delete. Any other answer is an *APIError; none, a
// *TransportError. st is nil for a call refused before it started; else
// the caller ends it (end).
func (c *Client) send(ctx context.Context, ep endpoint, q *query, in any, file bool) (st *callState, resp *http.Response, body []byte, err error) {
	if ctx == nil {
		return nil, nil, nil, nilContext()
	}
	co, _ := ctx.Value(callOptionsKey{}).(*callOptions)
	var header http.Header
	var redact []string
	if co != nil {
		if co.err != nil {
			return nil, nil, nil, co.err
		}
		c, header, redact = co.client(c), co.header, co.redact
	}
	st = &callState{c: c, route: ep.route, method: ep.route.method, path: c.baseURL.Path + ep.path, in: in, stream: file, redactValues: redact}
	if q != nil {
		st.query = string(q.b)
	}
	var raw any // go-retryablehttp's body: none is nil, not an empty []byte
	if in != nil {
		if st.body, err = json.Marshal(in); err != nil {
			return nil, nil, nil, fmt.Errorf("acctadmin: %s %s: encode body: %w", st.method, st.route.pattern, err)
		}
		raw = st.body
	}
	if into, _ := ctx.Value(responseKey{}).(*Response); into != nil || c.hooks != nil {
		ctx = st.observe(ctx, into)
	}
	u := *c.baseURL
	u.Path, u.RawQuery = st.path, st.query
	req, err := retryablehttp.NewRequestWithContext(ctx, st.method, u.String(), raw)
	if err != nil {
		return st, nil, nil, st.redact(err)
	}
	req.Header["Content-Type"] = jsonContentType
	req.Header["User-Agent"] = c.userAgent
	for k, v := range header {
		req.Header[k] = v
	}
	hc := c.httpClient
	if file {
		hc = c.fileClient
	}
	if st.route.class == atMostOnce {
		// A write follows no redirect: a 307 or 308 would send it again.
		once := *hc
		once.CheckRedirect = refuseRedirect
		hc = &once
	}
	rc := &retryablehttp.Client{HTTPClient: hc, RetryMax: c.maxRetries, RetryWaitMin: c.retryWaitMin, RetryWaitMax: c.retryWaitMax,
		CheckRetry: st.checkRetry, Backoff: st.backoff, ErrorHandler: lastAnswer}
	if st.obs != nil || c.logger != nil {
		rc.RequestLogHook = st.attemptStarts
	}
	if c.logger != nil {
		rc.ResponseLogHook = st.logAnswer
	}
	if c.limiter != nil {
		rc.PrepareRetry = st.waitBeforeRetry
		if err := c.waitTurn(ctx); err != nil {
			return st, nil, nil, st.redact(err)
		}
	}
	resp, err = rc.Do(req)
	if err != nil {
		return st, nil, nil, st.redact(err)
	}
	if st.obs != nil {
		st.obs.final = resp
	}
	if b, ok := resp.Body.(*bufferBody); ok {
		return st, resp, b.b, nil // a 2xx JSON answer, read by its attempt
	}
	return st.finalAnswer(resp)
}

// checkRetry is the call's CheckRetry, asked after every attempt: it
// notes the attempt, says whether it may be sent again (mayRetry), and
// drains the answer a retry discards.
func (st *callState) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	st.attempt++
	if err == nil || !neverSent(err) {
		st.sent = true
	}
	if st.obs != nil {
		st.obs.attemptOutcome(resp, st.redact(err))
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err == nil && resp.StatusCode >= 200 && resp.StatusCode <= 299 || !st.mayRetry(ctx, resp, err) {
		return false, nil
	}
	if st.attempt <= st.c.maxRetries { // a retry follows
		st.resent, st.lastErr = st.sent, err
		st.noteTokens(resp)
		if resp != nil {
			drainAndClose(resp.Body) // a longer answer costs its connection
		}
	}
	return true, nil
}

// mayRetry is the one place that knows whether an attempt that came to
// resp, or err, may be sent again, by the rules of the package doc.
func (st *callState) mayRetry(ctx context.Context, resp *http.Response, err error) bool {
	switch {
	case err != nil && connectFailed(err):
		return true
	case st.route.class == atMostOnce:
		return false // money once
	case err != nil:
		return transient(err)
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
	default:
		return false
	}
	wait, given := retryAfter(resp.Header.Get("Retry-After"), time.Now())
	switch {
	case !given:
		return true
	case wait > st.c.retryAfterMax:
		return false
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait && st.attempt <= st.c.maxRetries {
		st.overWait = true // sleeping until the deadline would fail anyway
		return false
	}
	return true
}

// transient reports whether a retry may mend the transport error err.
func transient(err error) bool {
	var ae *authError
	if errors.As(err, &ae) || errors.Is(err, ErrResponseTooLarge) || errors.As(err, new(*limiterError)) {
		return false
	}
	retry, _ := retryablehttp.DefaultRetryPolicy(context.Background(), nil, err)
	return retry
}

// backoff is the call's Backoff: the answer's Retry-After (mayRetry kept
// it within the cap), else the client's backoff.
func (st *callState) backoff(_, _ time.Duration, attempt int, resp *http.Response) time.Duration {
	wait := st.c.backoff(attempt + 1)
	if resp != nil {
		if d, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			wait = d
		}
	}
	if st.c.logger != nil {
		st.logRetry(resp, st.lastErr, wait)
	}
	return wait
}

// lastAnswer is the calls' ErrorHandler: the bare error (go-retryablehttp's
// own repeats the URL and its query), or else the last answer.
func lastAnswer(resp *http.Response, err error, _ int) (*http.Response, error) {
	if err != nil {
		if resp != nil {
			drainAndClose(resp.Body)
		}
		return nil, err
	}
	return resp, nil
}

// attemptStarts is the call's RequestLogHook.
func (st *callState) attemptStarts(_ retryablehttp.Logger, req *http.Request, i int) {
	if st.obs != nil {
		r := st.obs.attemptStarted(req.WithContext(st.obs.ctx), i+1)
		*req = *r
	}
	if st.c.logger != nil {
		st.log(req.Context(), slog.LevelDebug, "acctadmin: request", i+1)
	}
}

func (st *callState) logAnswer(_ retryablehttp.Logger, resp *http.Response) {
	st.log(context.Background(), slog.LevelDebug, "acctadmin: response", st.attempt, slog.Int("status", resp.StatusCode))
}

func (st *callState) waitBeforeRetry(req *http.Request) error {
	return st.c.waitTurn(req.Context())
}

// finalAnswer takes the final answer that no attempt read: a 404 to a
// repeated delete (an earlier attempt deleted it), a failure, or a file
// (authTransport reads every 2xx JSON answer of the API's host).
func (st *callState) finalAnswer(resp *http.Response) (*callState, *http.Response, []byte, error) {
	switch {
	case resp.StatusCode == http.StatusNotFound && st.route.goneIsDone && st.resent:
		drainAndClose(resp.Body)
		return st, resp, nil, nil
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return st, nil, nil, st.apiError(resp)
	}
	return st, resp, nil, nil
}

// end ends a call that came to err (nil for success) for the hooks.
func (st *callState) end(err error) error {
	if st == nil {
		return err
	}
	err = st.outcome(err)
	if st.obs != nil {
		st.finish(err)
	}
	return err
}

// secretBody and personalBody are request bodies that carry secrets or
// the values of a form.
type secretBody interface{ secretValues() []string }

type personalBody interface{ personalValues() []string }

// outcome marks the failure err (nil for none) of an at-most-once call
// ErrOutcomeUnknown when the API may have applied it.
func (st *callState) outcome(err error) error {
	if st.route.class != atMostOnce {
		return err
	}
	switch e := err.(type) {
	case *APIError:
		if e.StatusCode >= 500 || e.StatusCode < 200 || e.StatusCode >= 300 && e.StatusCode < 400 {
			e.unknown = st.route.verify
		}
	case *DecodeError:
		e.unknown = st.route.verify // an answer came, so the request arrived
	case *TransportError:
		if st.sent {
			e.unknown = st.route.verify
		}
	}
	return err
}

var jsonContentType = []string{"application/json"}

func (st *callState) log(ctx context.Context, level slog.Level, msg string, n int, attrs ...slog.Attr) {
	attrs = append([]slog.Attr{slog.String("method", st.method), slog.String("path", st.path), slog.Int("attempt", n)}, attrs...)
	st.c.logger.LogAttrs(ctx, level, msg, attrs...)
}

func (st *callState) logRetry(resp *http.Response, err error, wait time.Duration) {
	attrs := []slog.Attr{slog.Duration("wait", wait)}
	if resp != nil {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", st.secrets().clean(causeText(err), maxMessage)))
	}
	st.log(context.Background(), slog.LevelWarn, "acctadmin: retrying", st.attempt, attrs...)
}

// backoff returns the wait before retry number n (from 1): a random point
// between min·2ⁿ⁻¹ and twice that, both capped at max.
func (c *Client) backoff(n int) time.Duration {
	lo, hi := c.retryWaitMin, c.retryWaitMax
	for i := 1; i < n && lo <= hi/2; i++ {
		lo *= 2
	}
	up := hi // the options keep 0 <= min <= max, so lo <= up
	if lo <= hi/2 {
		up = 2 * lo
	}
	return lo + rand.N(up-lo+1)
}

// waitTurn waits for the client's rate limiter, if any.
func (c *Client) waitTurn(ctx context.Context) error {
	if c.limiter == nil {
		return nil
	}
	err := c.limiter.Wait(ctx)
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	_, deadline := ctx.Deadline()
	return &limiterError{err: err, deadline: deadline}
}

// limiterError is a rate limiter's refusal while the context is live.
type limiterError struct {
	err      error
	deadline bool
}

func (e *limiterError) Error() string { return "rate limiter: " + e.err.Error() }
func (e *limiterError) Unwrap() error { return e.err }
func (e *limiterError) Is(target error) bool {
	return e.deadline && target == context.DeadlineExceeded
}

// connectFailed reports whether the connection could not be made.
func connectFailed(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// neverSent reports whether no byte of the request reached the server.
func neverSent(err error) bool {
	return connectFailed(err) || errors.As(err, new(*authError))
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(min(secs, 24*60*60)) * time.Second, true // at most a day
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}

// drainAndClose reads a little of an answer's body, so that its
// connection may serve again, and closes it; http.Client's is never nil.
func drainAndClose(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, maxDrain))
	body.Close()
}

// authTransport sits under the retries: it signs every attempt to the
// API's own host and bounds it with the client's timeout, which for a
// file (headersOnly) ends at the headers.
type authTransport struct {
	base         http.RoundTripper
	auth         Authenticator
	scheme, host string
	timeout      time.Duration
	headersOnly  bool
}

// RoundTrip signs req, when it goes to the API's host, and sends it. A 2xx
// answer for JSON is read whole within the timeout (a bufferBody), so that
// an answer cut off halfway fails its attempt like a broken connection.
func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host != t.host || req.URL.Scheme != t.scheme {
		return t.base.RoundTrip(req)
	}
	r := new(http.Request)
	*r = *req
	r.Header = req.Header.Clone()
	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		var err error
		body, err = io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(body)) // the bytes signed are the bytes sent
	}
	if _, found := r.Header["Content-Type"]; !found {
		r.Header["Content-Type"] = jsonContentType // a redirect that drops the body drops it too
	}
	if err := t.auth.Authenticate(r, body); err != nil {
		return nil, &authError{err} // the body is closed: it was read
	}
	ctx, cancel := context.WithCancelCause(r.Context())
	var timer *time.Timer
	if t.timeout > 0 {
		timer = time.AfterFunc(t.timeout, func() { cancel(&attemptTimeout{t.timeout}) })
	}
	resp, err := t.base.RoundTrip(r.WithContext(ctx))
	if err == nil && (t.headersOnly || resp.StatusCode < 200 || resp.StatusCode > 299) {
		if t.headersOnly && timer != nil {
			timer.Stop() // a file's timeout ends at its headers
			timer = nil
		}
		resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel, timer: timer}
		return resp, nil
	}
	if err == nil {
		b := &bufferBody{}
		b.b, err = readJSON(resp)
		resp.Body.Close() // read to its end, or past saving
		b.Reset(b.b)
		resp.Body = b
	}
	// Only a timer that already fired makes this a timeout: ctx is
	// cancelled below in every case, so ctx.Err() cannot tell.
	fired := timer != nil && !timer.Stop()
	cancel(nil)
	if err != nil && fired && r.Context().Err() == nil {
		return nil, &attemptTimeout{t.timeout}
	}
	if err != nil {
		return nil, err
	}
	return resp, nil
}

type bufferBody struct {
	bytes.Reader
	b []byte
}

func (*bufferBody) Close() error { return nil }

var errAttemptTimeout = errors.New("attempt timed out")

// attemptTimeout ends an attempt that outlived WithTimeout: a net.Error,
// and context.DeadlineExceeded.
type attemptTimeout struct{ d time.Duration }

func (e *attemptTimeout) Error() string {
	return fmt.Sprintf("attempt timed out: no answer within %s", e.d)
}
func (e *attemptTimeout) Timeout() bool   { return true }
func (e *attemptTimeout) Temporary() bool { return true }
func (e *attemptTimeout) Is(target error) bool {
	return target == errAttemptTimeout || target == context.DeadlineExceeded
}

type authError struct{ err error }

func (e *authError) Error() string { return "authenticate: " + e.err.Error() }
func (e *authError) Unwrap() error { return e.err }

// cancelBody ends its attempt's context, and timer, when it is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelCauseFunc
	timer  *time.Timer
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	if b.timer != nil {
		b.timer.Stop()
	}
	b.cancel(nil)
	return err
}

// redirectPolicy is the policy of reads: it follows a redirect to the
// same scheme and host only, after waiting its turn. A write follows none.
func redirectPolicy(next func(*http.Request, []*http.Request) error, turn func(context.Context) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return http.ErrUseLastResponse
		}
		if req.URL.Host != via[0].URL.Host || req.URL.Scheme != via[0].URL.Scheme {
			return http.ErrUseLastResponse
		}
		if next != nil {
			if err := next(req, via); err != nil {
				return err
			}
		}
		return turn(req.Context())
	}
}

func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// readJSON reads a JSON answer through the size cap. Its buffer doubles
// but never past one byte over the cap (io.ReadAll would allocate far
// more), and believes Content-Length only up to maxTrustedLength.
func readJSON(resp *http.Response) ([]byte, error) {
	if resp.ContentLength > maxJSONBody {
		return nil, ErrResponseTooLarge // said so up front: not worth reading
	}
	size := int64(bytes.MinRead)
	if n := min(resp.ContentLength, maxTrustedLength); n >= 0 {
		size = n + 1 // +1: the read that finds the end needs no room
	}
	b := make([]byte, 0, size)
	for {
		if len(b) == cap(b) {
			if len(b) > maxJSONBody {
				return nil, ErrResponseTooLarge
			}
			b = append(make([]byte, 0, min(max(2*cap(b), bytes.MinRead), maxJSONBody+1)), b...)
		}
		n, err := resp.Body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(b) > maxJSONBody {
		return nil, ErrResponseTooLarge
	}
	return b, nil
}

// envelopeDecoder is a result that reads fields beside "result" too.
type envelopeDecoder interface {
	decodeEnvelope(endpoint string, body []byte) (success bool, err error)
}

// decodeEnvelopeInto reads the envelope in body, its result into out, and
// reports its success flag (true/false or "true"/"false") and whether the
// result was null; endpoint names the request in errors.
func decodeEnvelopeInto(endpoint string, body []byte, out any) (success, null bool, err error) {
	if d, ok := out.(envelopeDecoder); ok {
		success, err = d.decodeEnvelope(endpoint, body)
		return success, false, err
	}
	env := struct { // the API's answer, less its unused timestamp
		Success json.RawMessage `json:"success"`
		Result  any             `json:"result"`
	}{Result: out}
	if err := json.Unmarshal(body, &env); err != nil {
		return false, false, resultFailure(endpoint, body, out, err)
	}
	switch string(env.Success) {
	case "true", `"true"`:
		return true, env.Result == nil, nil
	case "false", `"false"`:
		return false, env.Result == nil, nil
	}
	return false, false, envelopeFailure(endpoint, env.Success)
}

// readRecord reads data, a JSON object or null, into w.
func readRecord(data []byte, w any) error {
	if len(data) == 0 || data[0] != '{' {
		if string(data) == "null" {
			return nil
		}
		return fmt.Errorf("want a JSON object, got %s", describe(data))
	}
	return json.Unmarshal(data, w)
}

func keepRaw(data []byte) json.RawMessage {
	if string(data) == "null" {
		return nil
	}
	return append(json.RawMessage(nil), data...)
}

// listOrOne reads an answer whose shape is not documented into *list: a
// list as it is, one record as a list of it, anything else as none.
func listOrOne[R any](data []byte, list *[]R) error {
	*list = nil
	switch {
	case len(data) > 0 && data[0] == '[':
		return json.Unmarshal(data, list)
	case len(data) > 0 && data[0] == '{':
		*list = make([]R, 1)
		return json.Unmarshal(data, &(*list)[0])
	}
	return nil
}

// answerList is an answer of records whose shape is not documented: a
// list, one, or none (see listOrOne).
type answerList[R any] []R

func (l *answerList[R]) UnmarshalJSON(data []byte) error { return listOrOne(data, (*[]R)(l)) }

// records makes the records of a page of their JSON forms.
func records[J, R any](page []J, record func(*J) R) []R {
	if page == nil {
		return nil
	}
	out := make([]R, len(page))
	for i := range page {
		out[i] = record(&page[i])
	}
	return out
}

type endpoint struct {
	route *route
	path  string
}

// at fills the route's parameters ({id}, {n}) with args, or panics.
func (r *route) at(args ...string) endpoint {
	path, rest := "", r.pattern
	for _, a := range args {
		before, after, ok := strings.Cut(rest, "{")
		if !ok {
			panic(fmt.Sprintf("acctadmin: route %s %s: too many parameters", r.method, r.pattern))
		}
		_, rest, _ = strings.Cut(after, "}")
		path += before + a
	}
	if strings.Contains(rest, "{") {
		panic(fmt.Sprintf("acctadmin: route %s %s: too few parameters", r.method, r.pattern))
	}
	return endpoint{route: r, path: path + rest}
}

// query builds a query string in the order its parameters are added:
// zero values are left out, a list repeats its key with "[]", times and
// dates are in the API's formats. Each adder returns q, for one chain.
type query struct {
	b []byte
}

func (q *query) add(key, v string) *query { return q.addIf(true, key, v) }

// addIf adds key=v when ok: the adders of one type pass "v is not zero".
func (q *query) addIf(ok bool, key, v string) *query {
	if !ok {
		return q
	}
	if len(q.b) > 0 {
		q.b = append(q.b, '&')
	}
	base, list := strings.CutSuffix(key, "[]")
	q.b = append(q.b, url.QueryEscape(base)...)
	if list {
		q.b = append(q.b, "[]"...)
	}
	q.b = append(append(q.b, '='), url.QueryEscape(v)...)
	return q
}

func (q *query) str(key, v string) *query { return q.addIf(v != "", key, v) }

func (q *query) int(key string, v int) *query { return q.addIf(v != 0, key, strconv.Itoa(v)) }

func (q *query) id(key string, v uuid.UUID) *query { return q.addIf(v != uuid.Nil, key, v.String()) }

func (q *query) time(key string, v time.Time) *query {
	return q.addIf(!v.IsZero(), key, v.Format(apiTimeLayout))
}

func (q *query) date(key string, v Date) *query { return q.addIf(!v.IsZero(), key, v.String()) }

func (q *query) strs(key string, vs []string) *query {
	for _, v := range vs {
		q.add(key+"[]", v)
	}
	return q
}

func (q *query) ids(key string, vs []uuid.UUID) *query {
	for _, v := range vs {
		q.add(key+"[]", v.String())
	}
	return q
}

func (q *query) encode() string {
	if q == nil {
		return ""
	}
	return string(q.b)
}

// orZero reads nil params as the zero params.
func orZero[P any](p *P) *P {
	if p == nil {
		return new(P)
	}
	return p
}

// The checks on the paths of calls (the others are in params.go).

func checkID(field string, id uuid.UUID) error {
	if id == uuid.Nil {
		return invalid(field, "must not be the nil UUID")
	}
	return nil
}

func checkIDs(field string, ids []uuid.UUID) error { return checkIDList(field, ids, false) }

// checkIDList refuses a nil UUID among ids, and no ids when required.
func checkIDList(field string, ids []uuid.UUID, required bool) error {
	if required && len(ids) == 0 {
		return invalid(field, "give at least one")
	}
	for i, id := range ids {
		if id == uuid.Nil {
			return invalid(field, "item %d is the nil UUID", i)
		}
	}
	return nil
}

func checkNotEmpty(field string, n int) error {
	if n == 0 {
		return invalid(field, "give at least one")
	}
	return nil
}

func checkPage(limit, maxLimit, offset int) error {
	if limit < 0 {
		return invalid("limit", "must not be negative, got %d", limit)
	}
	if limit > maxLimit {
		return invalid("limit", "must be at most %d, got %d", maxLimit, limit)
	}
	if offset < 0 {
		return invalid("offset", "must not be negative, got %d", offset)
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
