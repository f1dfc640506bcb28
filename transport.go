package acctadmin

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
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

// One call, from the resource method to the wire and back, reads top to
// bottom in this file:
//
//	call          a JSON call: its result decoded into a T (download, in
//	              files.go, is the same for a file)
//	Client.do     build, send, retry by the route's class, read the
//	              answer, hand it to the caller's decode, end the hooks
//	retryPolicy   may an attempt's answer or error be retried, and after
//	              how long
//	authTransport under each attempt: signs it and bounds it in time
//	readJSON      the size-capped read of a JSON answer
//
// The SDK runs the attempts itself, in Client.do, and uses
// go-retryablehttp for what it does well: the request whose body every
// attempt, and every redirect, reads anew (retryablehttp.Request), and
// its knowledge of the transport errors no retry mends (a certificate
// that is not trusted, an unknown scheme, an invalid header), which
// retryPolicy asks through retryablehttp.DefaultRetryPolicy. Its
// Client.Do loop is not used, because of what the SDK would have to do
// around it: its backoff never sees the attempt's error, it honours
// Retry-After only on 429 and 503 and without a cap, it drains only 4 KiB
// of a discarded answer (a longer one costs its connection), it closes
// every idle connection of the client when it gives up, and it reports
// each attempt to CheckRetry twice when the answer is read in its loop.

// Limits of the transport.
const (
	// maxJSONBody is the largest JSON answer the client reads.
	maxJSONBody = 32 << 20
	// maxRetryAfter is the longest Retry-After a client waits unless
	// WithMaxRetryAfter says otherwise; a longer one ends the call at
	// once.
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

// callState is the state of one API call across its attempts.
type callState struct {
	c      *Client
	route  *route
	method string
	path   string // never with the query string
	query  string // the query string, only to keep it out of messages
	body   []byte // the exact bytes every attempt sends; nil for none
	stream bool   // a file: the attempt timeout stops at its headers
	// attempt counts the attempts started so far.
	attempt int
	// sent is set once an attempt may have reached the server: any
	// attempt but one whose connection could not be made.
	sent bool
	// resent is set when an attempt is retried after the request may
	// have reached the server: the answers after it may see its effect.
	resent bool
	// overWait is set when the call gave up on its answer's Retry-After
	// because its context's deadline comes first.
	overWait bool
	// obs observes the call for WithHooks and WithResponseInto; nil when
	// nothing does.
	obs *observer
	// red is the call's redaction, made when a text from the server is
	// first shown (see secrets); nil until then.
	red *redactor
}

// call makes one JSON call and decodes the result of its envelope into a
// T; in, when not nil, is sent as the JSON body. A 2xx answer whose
// envelope says success false is an *APIError. Every typed method is a
// call (or a download), most of them through send, sendOne and getByID
// (params.go) or listRecords; one, fromWire and fromWires shape its
// result.
func call[T any](ctx context.Context, c *Client, ep endpoint, q *query, in any) (T, error) {
	var out T
	err := c.do(ctx, ep, q, in, false, func(st *callState, resp *http.Response, body []byte) error {
		if len(bytes.TrimSpace(body)) == 0 && (st.method == http.MethodDelete || resp.StatusCode == http.StatusNoContent) {
			return nil
		}
		ok, _, err := decodeEnvelopeInto(st.method+" "+st.path, body, &out)
		if err != nil {
			return st.cleanDecode(err)
		}
		if !ok {
			return st.failure(resp, body)
		}
		return nil
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}

// one returns the record a call read, as the typed methods hand it back.
func one[R any](r R, err error) (*R, error) {
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// fromWire returns the record a call read as its wire form W.
func fromWire[W wire[R], R any](w W, err error) (*R, error) {
	if err != nil {
		return nil, err
	}
	r := w.record()
	return &r, nil
}

// fromWires returns the records of a list a call read, each written as
// W. A null result is a nil slice.
func fromWires[W wire[R], R any](list wireList[W, R], err error) ([]R, error) {
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
	return fromWires(call[wireList[W, R]](ctx, c, rt.at(), p.query(), nil))
}

// listOptional is listRecords for a method whose params are optional
// (variadic, so that calls without them still compile): at most one.
func listOptional[W wire[R], R any, P any, PP listQuery[P]](ctx context.Context, c *Client, rt *route, ps []PP) ([]R, error) {
	if len(ps) > 1 {
		return nil, invalid("p", "give at most one params struct, got %d", len(ps))
	}
	return listRecords[W](ctx, c, rt, append(ps, nil)[0])
}

// do makes one call. It builds the request (in, when not nil, as its JSON
// body), sends it, with every attempt signed by authTransport, tries it
// again as retryPolicy says for the route's class, and reads a 2xx JSON
// answer inside the loop, so that an answer cut off halfway is retried
// like any broken connection. The final 2xx answer goes to decode (for a
// file, with its body open and no bytes read); any other final answer is
// an *APIError, any failure to get one a *TransportError. Every error
// passes through the call's redaction and, for a call sent at most once,
// outcome. The hooks end here, with the call's error; for a file that
// decode accepts, they end when the file is closed (see fileBody).
func (c *Client) do(ctx context.Context, ep endpoint, q *query, in any, file bool, decode func(*callState, *http.Response, []byte) error) (err error) {
	if ctx == nil {
		return nilContext()
	}
	co, _ := ctx.Value(callOptionsKey{}).(*callOptions)
	if co != nil {
		if co.err != nil {
			return co.err
		}
		c = co.client(c)
	}
	rt := ep.route
	st := &callState{c: c, route: rt, method: rt.method, path: c.baseURL.Path + ep.path, stream: file}
	if q != nil {
		st.query = q.encode()
	}
	var raw any // the body, for retryablehttp: none is nil, not an empty []byte
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("acctadmin: %s %s: encode body: %w", rt.method, rt.pattern, err)
		}
		st.body, raw = b, b
		if sb, ok := in.(secretBody); ok {
			// Values no message may show (a card number, a password): the
			// call's redaction takes them out of anything an answer echoes.
			st.secrets().addBodyValues(sb.secretValues(), (*redactor).addSensitive)
		}
		if pb, ok := in.(personalBody); ok {
			// The values of a form (an SSN, a date of birth), likewise.
			st.secrets().addBodyValues(pb.personalValues(), (*redactor).addPersonal)
		}
	}
	if into, _ := ctx.Value(responseKey{}).(*Response); into != nil || c.hooks != nil {
		ctx = st.observe(ctx, into)
	}
	defer func() {
		if st.obs != nil && (err != nil || !file) {
			st.finish(err)
		}
	}()

	u := *c.baseURL
	u.Path, u.RawQuery = st.path, st.query
	req, err := retryablehttp.NewRequestWithContext(ctx, rt.method, u.String(), raw)
	if err != nil {
		return st.redact(err)
	}
	req.Header["Content-Type"] = jsonContentType
	req.Header["User-Agent"] = c.userAgent
	if co != nil {
		for k, v := range co.header {
			req.Header[k] = v
		}
	}
	hc := c.httpClient
	if file {
		hc = c.fileClient
	}
	if rt.class == atMostOnce {
		// A write follows no redirect: following it sends the write again
		// (a 307 or 308 with its body, signed anew), and the first
		// request may have been applied already, by a proxy or by the API.
		once := *hc
		once.CheckRedirect = refuseRedirect
		hc = &once
	}

	var resp *http.Response
	var buf *bytes.Buffer // a 2xx JSON answer, read
	for {
		// One budget for every request the client sends (WithRateLimit).
		if c.limiter != nil {
			if err := c.waitTurn(ctx); err != nil {
				return st.outcome(st.readError(err))
			}
		}
		st.attempt++
		r := req.Request.WithContext(ctx) // each attempt its own request
		if raw != nil {
			r.Body, _ = r.GetBody()
		}
		if st.obs != nil {
			r = st.obs.attemptStarted(r, st.attempt)
		}
		if c.logger != nil {
			st.log(r.Context(), slog.LevelDebug, "acctadmin: request")
		}
		resp, err = hc.Do(r)
		if err == nil && !file && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
			if buf, err = readJSON(resp); err != nil {
				drainAndClose(resp.Body)
			} else {
				resp.Body.Close()
			}
		}
		if err == nil || !neverSent(err) {
			st.sent = true
		}
		if st.obs != nil {
			st.obs.attemptOutcome(resp, st.shown(err))
		}
		if c.logger != nil && err == nil {
			st.log(context.Background(), slog.LevelDebug, "acctadmin: response", slog.Int("status", resp.StatusCode))
		}
		if r.Context().Err() != nil {
			if err == nil {
				drainAndClose(resp.Body)
			}
			if buf != nil {
				releaseBuf(buf)
			}
			return st.outcome(st.readError(r.Context().Err()))
		}
		retry, wait := c.retryPolicy(rt.class, st.attempt, resp, err)
		if !retry || st.attempt > c.maxRetries {
			break
		}
		if err == nil && st.outlasts(ctx, resp, wait) {
			st.overWait = true // the answer is the call's: ErrRateLimited
			break
		}
		st.resent = st.sent
		st.noteTokens(resp)
		if err == nil {
			drainAndClose(resp.Body) // a longer answer costs its connection
		}
		if c.logger != nil {
			st.logRetry(resp, err, wait)
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return st.outcome(st.readError(ctx.Err()))
		case <-timer.C:
		}
	}

	if err != nil {
		return st.outcome(st.readError(err))
	}
	if st.obs != nil {
		st.obs.final = resp
	}
	switch {
	case resp.StatusCode == http.StatusNotFound && rt.goneIsDone && st.resent:
		// An earlier attempt may have deleted it: that delete is the
		// call's answer.
		drainAndClose(resp.Body)
		err = decode(st, resp, nil)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		err = st.apiError(resp)
	case file:
		err = decode(st, resp, nil)
		if err == nil && st.obs != nil {
			st.answered() // the hooks end as the file is closed
		}
	default:
		err = decode(st, resp, buf.Bytes())
		releaseBuf(buf)
	}
	if err != nil {
		return st.outcome(err)
	}
	return nil
}

// retryPolicy says whether an attempt's outcome (its answer resp, or the
// error err that it came to instead) may be tried again, on a route of
// the given class, and after how long; attempt counts from 1. It is the
// one place that knows the rules:
//   - a call that could not be signed, or whose answer is over the size
//     cap, is not tried again: the same would happen;
//   - a call whose connection could not be made is tried again, whatever
//     its class: no byte of it reached the server;
//   - a call sent at most once (a write) is never sent again once it may
//     have arrived, whatever the answer or the error;
//   - a repeatable call is tried again after any other transport error
//     but those go-retryablehttp knows no retry mends, and after 429,
//     500, 502, 503 and 504;
//   - the wait is the answer's Retry-After (a longer one than
//     WithMaxRetryAfter allows ends the call at once), or else backoff.
//
// The number of retries is the client's (WithMaxRetries), or the call's
// (CallMaxRetries); no option of a call changes its class.
func (c *Client) retryPolicy(class retryClass, attempt int, resp *http.Response, err error) (bool, time.Duration) {
	if err != nil {
		var ae *authError
		switch {
		case errors.As(err, &ae):
			return false, 0 // nothing was sent, and signing again fails again
		case errors.Is(err, ErrResponseTooLarge):
			return false, 0 // the same answer would come again
		case errors.As(err, new(*limiterError)):
			return false, 0 // the limiter refused a redirect: nothing more was sent
		case connectFailed(err):
			return true, c.backoff(attempt)
		case class != repeatable:
			return false, 0
		}
		if retry, _ := retryablehttp.DefaultRetryPolicy(context.Background(), nil, err); !retry {
			return false, 0
		}
		return true, c.backoff(attempt)
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
	default:
		return false, 0
	}
	if class != repeatable {
		return false, 0
	}
	if d, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
		if d > c.retryAfterMax {
			return false, 0
		}
		return true, d
	}
	return true, c.backoff(attempt)
}

// secretBody is a request body that carries secrets.
type secretBody interface{ secretValues() []string }

// personalBody is a request body that carries personal data: the values
// of a form (see formValues).
type personalBody interface{ personalValues() []string }

// outcome marks the failure err of an at-most-once call ErrOutcomeUnknown
// when the API may have applied the call, by the rule of the package doc.
// A 2xx whose envelope says success false is no such failure: the API
// refused the call.
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

// shown is an attempt's error as a hook sees it: redacted, nil for none.
func (st *callState) shown(err error) error {
	if err == nil {
		return nil
	}
	return st.readError(err)
}

// log logs msg about the current attempt, with attrs.
func (st *callState) log(ctx context.Context, level slog.Level, msg string, attrs ...slog.Attr) {
	attrs = append([]slog.Attr{slog.String("method", st.method), slog.String("path", st.path), slog.Int("attempt", st.attempt)}, attrs...)
	st.c.logger.LogAttrs(ctx, level, msg, attrs...)
}

// logRetry logs a retry before its wait, with the status or the error
// that caused it.
func (st *callState) logRetry(resp *http.Response, err error, wait time.Duration) {
	attrs := []slog.Attr{slog.Duration("wait", wait)}
	if resp != nil {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", st.secrets().clean(causeText(err), maxMessage)))
	}
	st.log(context.Background(), slog.LevelWarn, "acctadmin: retrying", attrs...)
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

// outlasts reports whether the answer resp asks, in its Retry-After, for
// a wait (wait, as retryPolicy read it) that ends after the context's
// deadline: the call ends at once with the answer rather than sleep until
// the deadline and fail anyway. A backoff wait of the client's own is
// waited, the deadline ending it.
func (st *callState) outlasts(ctx context.Context, resp *http.Response, wait time.Duration) bool {
	dl, ok := ctx.Deadline()
	if !ok || time.Until(dl) >= wait {
		return false
	}
	_, given := retryAfter(resp.Header.Get("Retry-After"), time.Now())
	return given
}

// waitTurn waits for the client's rate limiter (WithRateLimit), if any,
// before a request is sent. A wait the context ended returns the
// context's error; a limiter's refusal, a *limiterError.
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

// limiterError is a rate limiter's refusal to wait while the context is
// still live: the context's deadline would pass before the request's
// turn (so it is context.DeadlineExceeded when the context has one), or
// the limiter cannot serve the request at all.
type limiterError struct {
	err      error
	deadline bool
}

func (e *limiterError) Error() string { return "rate limiter: " + e.err.Error() }
func (e *limiterError) Unwrap() error { return e.err }
func (e *limiterError) Is(target error) bool {
	return e.deadline && target == context.DeadlineExceeded
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

// redirectText says why the redirect resp was not followed. It never
// says where it led: no host, path or query a server chose is shown.
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
// whose body (or its start) is body. A server that echoes the request may
// have put the token or the query string in it: Message and Body pass
// through the call's redaction.
func (st *callState) failure(resp *http.Response, body []byte) *APIError {
	st.noteTokens(resp)
	e := newAPIError(resp.StatusCode, st.method, st.path, body, st.secrets())
	e.pay = st.route.pay
	return e
}

// secrets returns the call's redaction, made on first use (only a call
// that fails or is observed needs it): the client's keys, the query
// string, and the tokens noted so far.
func (st *callState) secrets() *redactor {
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
func (st *callState) noteTokens(resp *http.Response) {
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
// call's redaction and bound: the path may hold a key the server chose,
// and a cause from encoding/json may quote the answer.
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

// readError says why an answer could not be had, without the URL: an
// answer over the size cap is a *DecodeError, anything else a
// *TransportError.
func (st *callState) readError(err error) error {
	if errors.Is(err, ErrResponseTooLarge) {
		return &DecodeError{Endpoint: st.endpoint(), Err: fmt.Errorf("%w: over %d bytes", ErrResponseTooLarge, maxJSONBody)}
	}
	return st.redact(err)
}

// redact strips the URL (with its query string) out of err, keeping the
// cause.
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
		// The cause quotes the server (a malformed answer) with a secret
		// in it, or at length: it is kept for errors.Is, not shown.
		err = &redactedError{text: r.clean(raw, maxMessage), cause: err}
	}
	return &TransportError{Method: st.method, Path: st.path, Attempts: max(st.attempt, 1), Err: err, text: text}
}

// connectOrigin returns the scheme, host and port of the URL that err
// failed to connect to, "https://api.example.com:443" (no userinfo, path
// or query), when err is a failure to connect: a dial refused or timed
// out, a name that does not resolve, a TLS handshake refused. Else "".
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
// It has no CloseIdleConnections method: Client.CloseIdleConnections
// reaches the transport under it.
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
	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		var err error
		if body, err = bodyBytes(r); err != nil {
			return nil, err
		}
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
// the policy of reads: a write follows none (refuseRedirect). A redirect
// followed is a request like any other: it waits its turn (the client's
// waitTurn) first.
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
