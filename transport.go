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
	"sync"
	"time"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
)

// One call, from its first attempt to its final answer, reads top to
// bottom in this file:
//
//	request / do     build the call and check its final answer
//	send             hand it to go-retryablehttp with this call's hooks
//	checkRetry       may this attempt's outcome be retried, and after how long
//	retryWait        the wait the library sleeps, logged before it sleeps
//	giveUp           the final answer when retrying stops
//	authTransport    under the loop: signs and bounds every attempt
//	readJSON         the size-capped read of a JSON answer
//
// Every call gets its own retryablehttp.Client whose hooks are methods of
// the call, so the call's state reaches them directly and nothing travels
// in the request's context.

// Limits of the transport.
const (
	// maxJSONBody is the largest JSON answer the client reads.
	maxJSONBody = 32 << 20
	// maxRetryAfter is the longest Retry-After the client waits; a longer
	// one ends the call at once.
	maxRetryAfter = 60 * time.Second
	// maxDrain is how much of a discarded answer is read so that its
	// connection can be reused; a longer one costs its connection instead.
	maxDrain = 1 << 20
	// maxTrustedLength is how much of a Content-Length is allocated before
	// the bytes arrive.
	maxTrustedLength = 64 << 10
	// maxRedirects bounds same-host redirects.
	maxRedirects = 5
)

// call is the state of one API call across its attempts.
type call struct {
	c      *Client
	route  *route
	method string
	path   string // never with the query string
	query  string // the query string, only to keep it out of messages
	body   []byte // the exact bytes every attempt sends; nil for none
	stream bool   // a binary answer: the attempt timeout stops at its headers
	// attempt counts the attempts started so far.
	attempt int
	// sent is set once an attempt may have reached the server: any
	// attempt but one whose connection could not be made.
	sent bool
	// resent is set when an attempt is retried after the request may
	// have reached the server: the answers after it may see its effect.
	resent bool
	// wait and lastErr are the decision of checkRetry about the latest
	// attempt, for retryWait, which the library calls without the error.
	wait    time.Duration
	lastErr error
	// obs observes the call for WithHooks and WithResponseInto; nil when
	// nothing does.
	obs *observer
	// red is the call's redaction, made when a text from the server is
	// first shown (see secrets); nil until then.
	red *redactor
}

// request sends one JSON call and decodes the result of its envelope into
// a T. in, when not nil, is sent as the JSON body. A 2xx answer whose
// envelope says success false is an *APIError.
func request[T any](ctx context.Context, c *Client, ep endpoint, q *query, in any) (out T, err error) {
	resp, body, st, err := c.do(ctx, ep, q, in, false)
	if st != nil {
		defer func() { st.finish(err) }()
	}
	if err != nil {
		return out, err
	}
	defer releaseBuf(body)
	b := body.Bytes()
	if len(bytes.TrimSpace(b)) == 0 && (st.method == http.MethodDelete || resp.StatusCode == http.StatusNoContent) {
		return out, nil
	}
	ok, err := decodeEnvelope(st.endpoint(), b, &out)
	if err != nil {
		return out, st.outcome(st.cleanDecode(err))
	}
	if !ok {
		return out, st.failure(resp, b)
	}
	return out, nil
}

// requestRecord sends a call whose result is one record, written as W.
func requestRecord[W wire[R], R any](ctx context.Context, c *Client, ep endpoint, q *query, in any) (*R, error) {
	w, err := request[W](ctx, c, ep, q, in)
	if err != nil {
		return nil, err
	}
	r := w.record()
	return &r, nil
}

// requestOne sends a call whose result is one record R, which decodes
// itself.
func requestOne[R any](ctx context.Context, c *Client, ep endpoint, q *query, in any) (*R, error) {
	r, err := request[R](ctx, c, ep, q, in)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// requestRecords sends a call whose result is a list of records, each
// written as W. A null result is a nil slice.
func requestRecords[W wire[R], R any](ctx context.Context, c *Client, ep endpoint, q *query, in any) ([]R, error) {
	list, err := request[wireList[W, R]](ctx, c, ep, q, in)
	return list.records, err
}

// listQuery is the params struct of a listing: it checks itself and
// writes its query string.
type listQuery[P any] interface {
	*P
	validate() error
	query() *query
}

// listRecords reads one page of a listing route: p (nil is the zero
// params) is checked, and nothing is sent when it breaks a rule.
func listRecords[W wire[R], R any, P any, PP listQuery[P]](ctx context.Context, c *Client, rt *route, p PP) ([]R, error) {
	if p == nil {
		p = new(P)
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	return requestRecords[W](ctx, c, rt.at(), p.query(), nil)
}

// do sends one call and checks its final answer: a non-2xx answer is read
// into an *APIError (and its body closed). For a JSON call (stream false)
// a 2xx answer comes back already read, as body, and its Body is closed;
// for a file it comes back open.
func (c *Client) do(ctx context.Context, ep endpoint, q *query, in any, stream bool) (*http.Response, *bytes.Buffer, *call, error) {
	if ctx == nil {
		return nil, nil, nil, nilContext()
	}
	rt := ep.route
	st := &call{c: c, route: rt, method: rt.method, path: c.baseURL.Path + ep.path, stream: stream, query: q.encode()}
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("acctadmin: %s %s: encode body: %w", rt.method, rt.pattern, err)
		}
		st.body = b
		if sb, ok := in.(secretBody); ok {
			// Values no message may show (a card number, a password): the
			// call's redaction takes them out of anything an answer echoes.
			for _, v := range sb.secretValues() {
				st.secrets().addSensitive(v)
				// As the body carried it, for a server that echoes JSON.
				if enc, _ := json.Marshal(v); len(enc) > 2 && string(enc[1:len(enc)-1]) != v {
					st.secrets().addSensitive(string(enc[1 : len(enc)-1]))
				}
			}
		}
	}
	ctx = st.begin(ctx)
	resp, body, err := c.send(ctx, st, c.url(ep.path, st.query))
	if err != nil {
		return nil, nil, st, st.outcome(err)
	}
	if st.obs != nil {
		st.obs.final = resp
	}
	if resp.StatusCode == http.StatusNotFound && st.route.goneIsDone && st.resent {
		// An earlier attempt may have deleted it: that delete is the
		// call's answer.
		drainAndClose(resp.Body)
		return resp, new(bytes.Buffer), st, nil
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, nil, st, st.outcome(st.apiError(resp))
	}
	return resp, body, st, nil
}

// secretBody is a request body that carries secrets.
type secretBody interface{ secretValues() []string }

// outcome marks the failure err of an at-most-once call ErrOutcomeUnknown
// when the API may have applied the call, by the rule of the package doc.
// A 2xx whose envelope says success false never comes here: the API
// refused the call.
func (st *call) outcome(err error) error {
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

// send performs the call: every attempt is signed (by authTransport), what
// may be retried is retried, and the final answer comes back whatever its
// status, or a transport error that names neither the query string nor
// any secret. A 2xx JSON answer is read inside the retry loop, so an
// answer cut off halfway is retried like any broken connection; it is
// handed back as body.
func (c *Client) send(ctx context.Context, st *call, u *url.URL) (*http.Response, *bytes.Buffer, error) {
	hreq, err := http.NewRequestWithContext(ctx, st.method, u.String(), nil)
	if err != nil {
		return nil, nil, st.redact(err)
	}
	hreq.Header["Content-Type"] = jsonContentType
	hreq.Header["User-Agent"] = c.userAgent
	req, err := retryablehttp.FromRequest(hreq)
	if err != nil {
		return nil, nil, st.redact(err)
	}
	if st.body != nil {
		if err := req.SetBody(st.body); err != nil {
			return nil, nil, st.redact(err)
		}
	}
	var body *bytes.Buffer
	hc := c.httpClient
	if st.stream {
		hc = c.fileClient
	}
	if st.route.class == atMostOnce {
		// A write follows no redirect: following it sends the write again
		// (a 307 or 308 with its body, signed anew), and the first
		// request may have been applied already, by a proxy or by the API.
		once := *hc
		once.CheckRedirect = refuseRedirect
		hc = &once
	}
	if !st.stream {
		req.SetResponseHandler(func(resp *http.Response) error {
			if resp.StatusCode < 200 || resp.StatusCode > 299 {
				return nil // read by the caller, into an *APIError
			}
			buf, err := readJSON(resp)
			drainAndClose(resp.Body)
			body = buf
			return err
		})
	}
	rc := &retryablehttp.Client{
		HTTPClient:     hc,
		RetryMax:       c.maxRetries,
		CheckRetry:     st.checkRetry,
		Backoff:        st.retryWait,
		ErrorHandler:   st.giveUp,
		RequestLogHook: st.attemptStarts,
	}
	if c.logger != nil {
		rc.ResponseLogHook = st.logResponse
	}
	resp, err := rc.Do(req)
	if err != nil {
		// giveUp has made most errors safe already; a wait ended by the
		// context comes back from the library as it is.
		return nil, nil, st.redact(err)
	}
	return resp, body, nil
}

var jsonContentType = []string{"application/json"}

// idempotent reports whether the call may be sent again after it may have
// reached the server: its route's declaration says.
func (st *call) idempotent() bool { return st.route.class == repeatable }

// attemptStarts counts and logs each attempt as the library starts it
// (n counts from 0).
func (st *call) attemptStarts(_ retryablehttp.Logger, req *http.Request, n int) {
	st.attempt = n + 1
	if st.obs != nil {
		st.obs.attemptStarted(req, st.attempt)
	}
	if l := st.c.logger; l != nil {
		l.LogAttrs(req.Context(), slog.LevelDebug, "acctadmin: request",
			slog.String("method", st.method), slog.String("path", st.path), slog.Int("attempt", st.attempt))
	}
}

// checkRetry decides, after each attempt, whether to try again. It is the
// only place that knows the rules: GET and DELETE are retried on connection
// errors and on 429, 500, 502, 503 and 504; POST and PATCH only when the
// connection could not be made, so no write is ever sent twice; a
// Retry-After longer than the client allows ends the call at once. The
// number of retries is the library's RetryMax.
//
// The library asks again about an attempt whose answer the response
// handler then read (with the handler's error, if any); the decision is a
// function of the outcome alone, so asking twice is harmless.
func (st *call) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if st.obs != nil {
		var shown error
		if err != nil {
			shown = st.readError(err)
		}
		st.obs.attemptOutcome(resp, shown)
	}
	if err == nil || !neverSent(err) {
		st.sent = true
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	retry, wait := st.policy(resp, err)
	if !retry {
		return false, nil
	}
	st.resent = st.sent
	st.wait, st.lastErr = wait, err
	st.noteTokens(resp)
	if resp != nil && err == nil {
		// The library drains only 4 KiB of an answer it discards, which
		// costs the connection of a longer one; and it hands the answer
		// back when retries run out. So it is drained here, its start kept.
		keepAndDrain(resp)
	}
	return true, nil
}

// policy says whether the outcome of an attempt may be retried, and after
// how long.
func (st *call) policy(resp *http.Response, err error) (bool, time.Duration) {
	if err != nil {
		var ae *authError
		if errors.As(err, &ae) {
			return false, 0 // nothing was sent, and signing again fails again
		}
		if errors.Is(err, ErrResponseTooLarge) {
			return false, 0 // the same answer would come again
		}
		if st.idempotent() || connectFailed(err) {
			return true, st.c.backoff(st.attempt)
		}
		return false, 0
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
	default:
		return false, 0
	}
	if !st.idempotent() {
		return false, 0
	}
	if d, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
		if d > maxRetryAfter {
			return false, 0
		}
		return true, d
	}
	return true, st.c.backoff(st.attempt)
}

// retryWait is the library's Backoff: the wait checkRetry chose, logged
// just before the library sleeps it (so after the attempt's answer).
func (st *call) retryWait(_, _ time.Duration, _ int, resp *http.Response) time.Duration {
	if l := st.c.logger; l != nil {
		attrs := []slog.Attr{
			slog.String("method", st.method), slog.String("path", st.path),
			slog.Int("attempt", st.attempt), slog.Duration("wait", st.wait),
		}
		if resp != nil {
			attrs = append(attrs, slog.Int("status", resp.StatusCode))
		}
		if st.lastErr != nil {
			attrs = append(attrs, slog.String("error", st.secrets().clean(causeText(st.lastErr), maxMessage)))
		}
		l.LogAttrs(context.Background(), slog.LevelWarn, "acctadmin: retrying", attrs...)
	}
	return st.wait
}

// backoff returns the wait before retry number n (from 1): a random point
// between min·2ⁿ⁻¹ and twice that, both capped at max, so that the waits
// grow exponentially, never leave [min, max], and many clients do not
// retry in step.
func (c *Client) backoff(n int) time.Duration {
	lo, hi := c.retryWaitMin, c.retryWaitMax
	for i := 1; i < n && lo <= hi/2; i++ {
		lo *= 2
	}
	up := hi
	if lo <= hi/2 {
		up = 2 * lo
	}
	if up <= lo {
		return lo
	}
	return lo + rand.N(up-lo+1)
}

// connectFailed reports whether err says the connection could not be made,
// so that no byte of the request reached the server.
func connectFailed(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// neverSent reports whether err says that no byte of the request reached
// the server: the connection could not be made, or signing failed.
func neverSent(err error) bool {
	var ae *authError
	return connectFailed(err) || errors.As(err, &ae)
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
//
// go-retryablehttp parses the header too, but only inside DefaultBackoff,
// which reads it on 429 and 503 alone and without a cap, and takes no
// jitter; the SDK honours it on every retried status and caps it, so this
// is the one parser of it.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(24*time.Hour/time.Second) {
			return 24 * time.Hour, true
		}
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	if d := t.Sub(now); d > 0 {
		return d, true
	}
	return 0, true
}

// keepAndDrain reads a discarded answer so that its connection can be
// reused, keeping its start in memory in case it turns out to be the final
// answer after all.
func keepAndDrain(resp *http.Response) {
	if resp.Body == nil || resp.Body == http.NoBody {
		return
	}
	kept, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(kept))
}

// logResponse logs each answer (not a connection error) that an attempt
// got, before any retry it causes.
func (st *call) logResponse(_ retryablehttp.Logger, resp *http.Response) {
	st.c.logger.LogAttrs(context.Background(), slog.LevelDebug, "acctadmin: response",
		slog.String("method", st.method), slog.String("path", st.path),
		slog.Int("status", resp.StatusCode), slog.Int("attempt", st.attempt))
}

// giveUp is called when the library stops retrying. It hands back the last
// answer so that the caller reads the API's own error, or else an error
// that says what failed without the URL's query string.
func (st *call) giveUp(resp *http.Response, err error, _ int) (*http.Response, error) {
	if resp != nil && err == nil {
		return resp, nil
	}
	if resp != nil {
		drainAndClose(resp.Body)
	}
	if err == nil {
		err = errors.New("request failed")
	}
	return nil, st.readError(err)
}

// apiError reads a failed answer (capped) into an *APIError and closes it.
func (st *call) apiError(resp *http.Response) *APIError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	drainAndClose(resp.Body)
	e := st.failure(resp, body)
	e.Header = st.secrets().cleanHeader(resp.Header)
	if d, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
		e.RetryAfter = d
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		e.Message = st.redirectText(resp)
	}
	return e
}

// redirectText says why the redirect resp was not followed. It never
// says where it led: no host, path or query a server chose is shown.
func (st *call) redirectText(resp *http.Response) string {
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
// whose body (or its start) is body. A server that echoes the request may
// have put the token or the query string in it: Message and Body pass
// through the call's redaction.
func (st *call) failure(resp *http.Response, body []byte) *APIError {
	st.noteTokens(resp)
	return newAPIError(resp.StatusCode, st.method, st.path, body, st.secrets())
}

// secrets returns the call's redaction, made on first use (only a call
// that fails or is observed needs it): the client's keys, the query
// string, and the tokens noted so far.
func (st *call) secrets() *redactor {
	if st.red == nil {
		k := st.c.keys()
		st.red = &redactor{
			secrets: append(make([]string, 0, len(k.secrets)+6), k.secrets...),
			marks:   append(make([]string, 0, len(k.marks)+6), k.marks...),
		}
		st.red.addQuery(st.query)
	}
	return st.red
}

// noteTokens adds to the call's redaction the token sent for the request
// that got resp, and those of the redirects that led to it.
func (st *call) noteTokens(resp *http.Response) {
	for i := 0; resp != nil && resp.Request != nil && i <= maxRedirects; i++ {
		if a := resp.Request.Header.Get("Authorization"); a != "" {
			st.secrets().addToken(a)
		}
		resp = resp.Request.Response
	}
}

// learnToken adds to the call's redaction the token the client's own
// signer makes for the call: a transport error may quote what the server
// sent before any answer could hand the token back (see noteTokens). The
// signer is deterministic, so it is the token that was sent.
func (st *call) learnToken() {
	if s, ok := st.c.auth().(*signer); ok {
		st.secrets().addToken(s.token(st.path, st.body, ""))
	}
}

// cleanDecode passes the path and the cause of a *DecodeError through the
// call's redaction and bound: the path may hold a key the server chose,
// and a cause from encoding/json may quote the answer.
func (st *call) cleanDecode(err error) error {
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
func (st *call) endpoint() string { return st.method + " " + st.path }

// readError says why an answer could not be had, without the URL: an
// answer over the size cap is a *DecodeError, anything else a
// *TransportError.
func (st *call) readError(err error) error {
	if errors.Is(err, ErrResponseTooLarge) {
		return &DecodeError{Endpoint: st.endpoint(), Err: fmt.Errorf("%w: over %d bytes", ErrResponseTooLarge, maxJSONBody)}
	}
	return st.redact(err)
}

// redact strips the URL (with its query string) out of err, keeping the
// cause.
func (st *call) redact(err error) error {
	var te *TransportError
	var de *DecodeError
	if errors.As(err, &te) || errors.As(err, &de) {
		return err
	}
	err = stripURL(err)
	st.learnToken()
	r := st.secrets()
	text := r.clean(causeText(err), maxMessage)
	if raw := err.Error(); r.clean(raw, maxMessage) != raw {
		// The cause quotes the server (a malformed answer) with a secret
		// in it, or at length: it is kept for errors.Is, not shown.
		err = &redactedError{text: r.clean(raw, maxMessage), cause: err}
	}
	return &TransportError{Method: st.method, Path: st.path, Attempts: max(st.attempt, 1), Err: err, text: text}
}

// stripURL drops the *url.Error wrappers of err, whose text repeats the
// whole URL with its query string, keeping their causes.
func stripURL(err error) error {
	var ue *url.Error
	for errors.As(err, &ue) {
		err = ue.Err
	}
	return err
}

func drainAndClose(body io.ReadCloser) {
	if body == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(body, maxDrain))
	body.Close()
}

// authTransport signs every attempt that goes to the API's own host, and
// bounds each attempt with the client's timeout. It sits under the retry
// loop, so a retried request is signed again, and a request that is sent
// elsewhere (which the redirect policy also refuses) never carries the
// credentials.
//
// It deliberately has no CloseIdleConnections method: the retry library
// calls that whenever it gives up, which would throw away every pooled
// connection of the client.
type authTransport struct {
	base    http.RoundTripper
	auth    Authenticator
	scheme  string
	host    string
	timeout time.Duration
	// headersOnly ends the timeout at the answer's headers: the client for
	// files has it, since a file may take longer than any timeout to
	// arrive; the client for JSON answers bounds their whole body.
	headersOnly bool
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host != t.host || req.URL.Scheme != t.scheme {
		return t.base.RoundTrip(req)
	}
	r := new(http.Request)
	*r = *req
	r.Header = make(http.Header, len(req.Header)+1)
	for k, v := range req.Header {
		r.Header[k] = v
	}
	body, err := bodyBytes(r)
	if err != nil {
		return nil, err
	}
	if _, found := r.Header["Content-Type"]; !found {
		// A redirect that drops the body drops its Content-Type too; the
		// API wants it on every request.
		r.Header["Content-Type"] = jsonContentType
	}
	if err := t.auth.Authenticate(r, body); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, &authError{err}
	}
	if t.timeout <= 0 {
		return t.base.RoundTrip(r)
	}
	ctx, cancel := context.WithCancelCause(r.Context())
	timer := time.AfterFunc(t.timeout, func() { cancel(t.timeoutError()) })
	r = r.WithContext(ctx)
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		// Only a timer that already fired makes this a timeout: ctx is
		// cancelled below in every case, so ctx.Err() cannot tell.
		fired := !timer.Stop()
		cancel(nil)
		if fired && req.Context().Err() == nil {
			return nil, t.timeoutError()
		}
		return nil, err
	}
	if t.headersOnly {
		timer.Stop()
		resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
		return resp, nil
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel, timer: timer}
	return resp, nil
}

// bodyBytes returns the bytes the request carries, to sign them. The
// retry loop (and a redirect that keeps the body) sets GetBody, which
// hands out a fresh copy; a body without it is read and put back.
func bodyBytes(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	rc := r.Body
	if r.GetBody != nil {
		fresh, err := r.GetBody()
		if err != nil {
			return nil, err
		}
		rc = fresh
	}
	b, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		return nil, err
	}
	if r.GetBody == nil {
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	return b, nil
}

// errAttemptTimeout is what every attempt timeout is (errors.Is).
var errAttemptTimeout = errors.New("attempt timed out")

// attemptTimeout ends an attempt that outlived WithTimeout. It is a
// net.Error whose Timeout is true, and errors.Is finds
// context.DeadlineExceeded in it, as for any other deadline.
type attemptTimeout struct{ d time.Duration }

func (e *attemptTimeout) Error() string {
	return fmt.Sprintf("attempt timed out: no answer within %s", e.d)
}
func (e *attemptTimeout) Timeout() bool   { return true }
func (e *attemptTimeout) Temporary() bool { return true }
func (e *attemptTimeout) Is(target error) bool {
	return target == errAttemptTimeout || target == context.DeadlineExceeded
}

func (t *authTransport) timeoutError() error { return &attemptTimeout{t.timeout} }

// authError is the failure of the Authenticator: no request was sent.
type authError struct{ err error }

func (e *authError) Error() string { return "authenticate: " + e.err.Error() }
func (e *authError) Unwrap() error { return e.err }

// cancelBody releases an attempt's context when its body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelCauseFunc
	timer  *time.Timer
	once   sync.Once
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(func() {
		if b.timer != nil {
			b.timer.Stop()
		}
		b.cancel(nil)
	})
	return err
}

// redirectPolicy follows a redirect only to the same scheme and host, so
// the signed Authorization header never reaches another server; any other
// redirect is handed back as the answer (and becomes an *APIError). It is
// the policy of reads: a write follows none (refuseRedirect).
func redirectPolicy(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return http.ErrUseLastResponse
		}
		if req.URL.Host != via[0].URL.Host || req.URL.Scheme != via[0].URL.Scheme {
			return http.ErrUseLastResponse
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
}

// refuseRedirect hands every redirect back as the answer.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// bufPool recycles the buffers JSON answers are read into: the decoder
// copies what it keeps, so a buffer is free again once decoding is done.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// readJSON reads a JSON answer through the size cap into a pooled buffer.
// The caller must put the buffer back with releaseBuf.
//
// The buffer grows by doubling, as bytes.Buffer's own reads would, but
// never past one byte over the cap: bytes.Buffer doubles a full buffer
// before every read, so reading an oversized answer with it allocates
// four times the cap (a 64 MiB buffer to find the byte after 32 MiB).
func readJSON(resp *http.Response) (*bytes.Buffer, error) {
	if resp.ContentLength > maxJSONBody {
		return nil, ErrResponseTooLarge // said so up front: not worth reading
	}
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	b := buf.AvailableBuffer() // empty, with the buffer's whole capacity
	// Content-Length is believed only up to a small size: a server that
	// announces 32 MiB and sends 100 bytes must not cost 32 MiB. Past it,
	// the buffer grows with what arrives.
	if n := min(resp.ContentLength, maxTrustedLength); n >= 0 && int64(cap(b)) <= n {
		b = make([]byte, 0, n+1) // +1: the read that finds the end needs no room
	}
	for {
		if len(b) == cap(b) {
			if len(b) > maxJSONBody {
				releaseBuf(buf)
				return nil, ErrResponseTooLarge
			}
			size := max(2*cap(b), bytes.MinRead)
			if size >= maxJSONBody {
				size = maxJSONBody + 1 // room to tell the cap from more
			}
			nb := make([]byte, len(b), size)
			copy(nb, b)
			b = nb
		}
		n, err := resp.Body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			releaseBuf(buf)
			return nil, err
		}
	}
	if len(b) > maxJSONBody {
		releaseBuf(buf)
		return nil, ErrResponseTooLarge
	}
	*buf = *bytes.NewBuffer(b)
	return buf, nil
}

func releaseBuf(buf *bytes.Buffer) {
	if buf.Cap() > 1<<20 {
		return // let a rare large buffer go rather than pin it
	}
	bufPool.Put(buf)
}
