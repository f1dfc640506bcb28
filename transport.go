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
//	Client.json     a JSON call: send, then its result decoded into out
//	                (Client.file, in files.go, is the same for a file)
//	Client.send     build the request, run its attempts through
//	                go-retryablehttp, hand back the final answer
//	checkRetry      after each attempt: may it be sent again (the
//	                money-once rule lives here), and the bookkeeping of
//	                hooks and redaction
//	authTransport   under each attempt: signs it, bounds it in time, and
//	                reads a 2xx JSON answer whole, so that an answer cut off
//	                halfway fails its attempt like a broken connection
//
// go-retryablehttp runs the attempts ((*retryablehttp.Client).Do), set up
// for each call, since a call's options may change its retries and
// waits; its defaults are all replaced: CheckRetry knows the route's
// class (the call's state is bound to it), Backoff honours Retry-After on
// every retried status within the cap and adds jitter, the discarded
// answers are drained here, in full (it drains 4 KiB), ErrorHandler hands
// back the last answer or the bare error (its own repeats the URL), its
// Logger is nil, and its hooks carry the SDK's: the rate limiter before
// every retry (PrepareRetry), WithHooks and WithLogger (RequestLogHook,
// ResponseLogHook).

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
	// attempt counts the attempts made so far.
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
	// lastErr is the error of the attempt about to be retried, for the
	// log.
	lastErr error
	// obs observes the call for WithHooks and WithResponseInto; nil when
	// nothing does.
	obs *observer
	// red is the call's redaction, made when a text from the server is
	// first shown (see secrets); nil until then.
	red *redactor
	// redactValues are the values of CallRedact, which the call's redaction
	// takes out too.
	redactValues []string
}

// json makes one JSON call and decodes the result of its envelope into
// out, a pointer (nil: the result is read but not kept); in, when not
// nil, is sent as the JSON body. A 2xx answer whose envelope says success
// false is an *APIError; a result that does not fit out, a *DecodeError
// naming the endpoint and the JSON path. A result that can say it is no
// record (absentResult) makes the answer an ErrNotFound. With file (in
// files.go) and the listing (pagination.go), it is one of the three
// calls every typed method makes.
func (c *Client) json(ctx context.Context, ep endpoint, q *query, in, out any) error {
	if out == nil {
		out = &ignored{}
	}
	st, resp, buf, err := c.send(ctx, ep, q, in, false)
	if buf != nil {
		body := buf.Bytes()
		// An empty answer to a delete, or a 204, has no envelope.
		if len(bytes.TrimSpace(body)) > 0 || st.method != http.MethodDelete && resp.StatusCode != http.StatusNoContent {
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
		releaseBuf(buf)
	}
	if err != nil || st != nil && st.obs != nil {
		err = st.end(err)
	}
	return err
}

// absentResult is a result that a 2xx answer may give as no record at
// all (GET /websites answers {"website": null} for a URL it does not
// know): absent says why, given the answer and whether its result was
// JSON null, or "" for a record.
type absentResult interface {
	absent(null bool, body []byte) string
}

// send sends one call's request (in, when not nil, as its JSON body),
// with its attempts run by go-retryablehttp as checkRetry allows, and
// returns the final answer: a 2xx JSON answer read whole into buf (the
// caller puts it back with releaseBuf), a file's answer with its body
// open, or a 404 to a repeated delete, drained. Any other answer is an
// *APIError; a failure to get one, a *TransportError (or a *DecodeError
// for an answer over the size cap). st is nil when the call was refused
// before anything started (a nil context, a call option or a body that
// cannot be used); else the caller ends it (end).
func (c *Client) send(ctx context.Context, ep endpoint, q *query, in any, file bool) (st *callState, resp *http.Response, buf *bytes.Buffer, err error) {
	if ctx == nil {
		return nil, nil, nil, nilContext()
	}
	co, _ := ctx.Value(callOptionsKey{}).(*callOptions)
	if co != nil {
		if co.err != nil {
			return nil, nil, nil, co.err
		}
		c = co.client(c)
	}
	st = &callState{c: c, route: ep.route, method: ep.route.method, path: c.baseURL.Path + ep.path, stream: file}
	if q != nil {
		st.query = q.encode()
	}
	if co != nil {
		st.redactValues = co.redact
	}
	var raw any // the body, for retryablehttp: none is nil, not an empty []byte
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("acctadmin: %s %s: encode body: %w", st.method, st.route.pattern, err)
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
	rc, req, err := st.request(ctx, raw, co, file)
	if err != nil {
		return st, nil, nil, err
	}
	resp, err = rc.Do(req)
	if err != nil {
		return st, nil, nil, st.readError(err)
	}
	if st.obs != nil {
		st.obs.final = resp
	}
	if b, ok := resp.Body.(bufferBody); ok {
		return st, resp, b.Buffer, nil // a 2xx JSON answer, read by its attempt
	}
	return st.finalAnswer(resp, file)
}

// request builds the call's request (raw, when not nil, is its body;
// co, when not nil, the call's options) and the go-retryablehttp client
// that runs its attempts: through the client for files or for JSON
// answers, with the client's retry count and bounds (or the call's,
// CallMaxRetries, CallRetryWait), and the call's own rules in place of
// every default. The first attempt then waits its turn here (see
// waitTurn): the retries wait in PrepareRetry, the redirects in the
// redirect policy.
func (st *callState) request(ctx context.Context, raw any, co *callOptions, file bool) (*retryablehttp.Client, *retryablehttp.Request, error) {
	c := st.c
	u := *c.baseURL
	u.Path, u.RawQuery = st.path, st.query
	req, err := retryablehttp.NewRequestWithContext(ctx, st.method, u.String(), raw)
	if err != nil {
		return nil, nil, st.redact(err)
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
	if st.route.class == atMostOnce {
		// A write follows no redirect: following it sends the write again
		// (a 307 or 308 with its body, signed anew), and the first
		// request may have been applied already, by a proxy or by the API.
		once := *hc
		once.CheckRedirect = refuseRedirect
		hc = &once
	}
	rc := &retryablehttp.Client{
		HTTPClient:   hc,
		RetryMax:     c.maxRetries,
		RetryWaitMin: c.retryWaitMin,
		RetryWaitMax: c.retryWaitMax,
		CheckRetry:   st.checkRetry,
		Backoff:      st.backoff,
		ErrorHandler: lastAnswer,
	}
	if st.obs != nil || c.logger != nil {
		rc.RequestLogHook = st.attemptStarts
	}
	if c.logger != nil {
		rc.ResponseLogHook = st.logAnswer
	}
	if c.limiter != nil {
		rc.PrepareRetry = st.waitBeforeRetry
		if err := c.waitTurn(ctx); err != nil {
			return nil, nil, st.readError(err)
		}
	}
	return rc, req, nil
}

// checkRetry is the call's CheckRetry, asked after every attempt with
// what it came to: an answer resp (a 2xx JSON answer already read), or
// the error err instead. It notes the attempt (for the hooks, and
// whether the request may have reached the server), then says whether
// it may be sent again (see mayRetry); a cancelled context ends the call.
// When a retry follows, the answer it discards is drained here, so that
// its connection is reused.
func (st *callState) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	st.attempt++
	if err == nil || !neverSent(err) {
		st.sent = true
	}
	if st.obs != nil {
		st.obs.attemptOutcome(resp, st.shown(err))
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err == nil && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		return false, nil
	}
	if !st.mayRetry(ctx, resp, err) {
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

// mayRetry says whether an attempt that came to the answer resp, or the
// error err, may be sent again. It is the one place that knows the
// rules:
//   - a call whose connection could not be made is tried again, whatever
//     its class: no byte of it reached the server;
//   - a call sent at most once (a write, or a payment) is never sent
//     again once it may have arrived, whatever the answer or the error;
//   - a repeatable call is tried again after a transport error that a
//     retry may mend (see transient), and after 429, 500, 502, 503 and
//     504, unless the answer's Retry-After asks for a wait longer than
//     WithMaxRetryAfter allows (ErrRateLimited at once) or than the
//     context's deadline leaves (the answer is the call's at once).
//
// The number of retries is the client's (WithMaxRetries), or the call's
// (CallMaxRetries); no option of a call changes its class.
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

// transient reports whether a transport error err of a repeatable call
// may pass if the call is tried again: not a failure to sign, an answer
// over the size cap, or a rate limiter's refusal (the same would
// happen), nor an error go-retryablehttp knows no retry mends (a
// certificate that is not trusted, an unknown scheme, an invalid header).
func transient(err error) bool {
	var ae *authError
	if errors.As(err, &ae) || errors.Is(err, ErrResponseTooLarge) || errors.As(err, new(*limiterError)) {
		return false
	}
	retry, _ := retryablehttp.DefaultRetryPolicy(context.Background(), nil, err)
	return retry
}

// backoff is the call's Backoff, asked before each retry: the answer's
// Retry-After when it has one (checkRetry kept it within the cap), or
// else the client's backoff for retry number attempt+1. The retry is
// logged here, with its wait.
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

// lastAnswer is the calls' ErrorHandler, called when the attempts end
// without a final answer: with an error, that error, bare (the caller
// redacts it; go-retryablehttp's own repeats the URL and its query);
// else the last answer, which the caller reads as the API's error.
func lastAnswer(resp *http.Response, err error, _ int) (*http.Response, error) {
	if err != nil {
		if resp != nil {
			drainAndClose(resp.Body)
		}
		return nil, err
	}
	return resp, nil
}

// attemptStarts is the call's RequestLogHook, set when the call is
// observed or logged: it starts attempt i+1 for the hooks (whose
// context the request carries from then on) and logs it.
func (st *callState) attemptStarts(_ retryablehttp.Logger, req *http.Request, i int) {
	if st.obs != nil {
		r := st.obs.attemptStarted(req.WithContext(st.obs.ctx), i+1)
		*req = *r
	}
	if st.c.logger != nil {
		st.log(req.Context(), slog.LevelDebug, "acctadmin: request", i+1)
	}
}

// logAnswer is the call's ResponseLogHook, set when it is logged.
func (st *callState) logAnswer(_ retryablehttp.Logger, resp *http.Response) {
	st.log(context.Background(), slog.LevelDebug, "acctadmin: response", st.attempt, slog.Int("status", resp.StatusCode))
}

// waitBeforeRetry is the call's PrepareRetry, set when the client has a
// rate limiter: a retry waits its turn too.
func (st *callState) waitBeforeRetry(req *http.Request) error {
	return st.c.waitTurn(req.Context())
}

// finalAnswer takes the final answer resp that no attempt read: a 404 to
// a repeated delete (an earlier attempt may have deleted it: that delete
// is the call's answer), a failure (an *APIError), a file, or a JSON
// answer under an http.Client of the caller's whose timeout wraps the
// body, read here.
func (st *callState) finalAnswer(resp *http.Response, file bool) (*callState, *http.Response, *bytes.Buffer, error) {
	switch {
	case resp.StatusCode == http.StatusNotFound && st.route.goneIsDone && st.resent:
		drainAndClose(resp.Body)
		return st, resp, nil, nil
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return st, nil, nil, st.apiError(resp)
	case file:
		return st, resp, nil, nil
	}
	buf, err := readJSON(resp)
	if err != nil {
		drainAndClose(resp.Body)
		return st, nil, nil, st.readError(err)
	}
	resp.Body.Close()
	return st, resp, buf, nil
}

// end ends a call that came to err (nil for success): an error passes
// through outcome, and the hooks end. A nil st (a call refused before it
// started) returns err as it is.
func (st *callState) end(err error) error {
	if st == nil {
		return err
	}
	if err != nil {
		err = st.outcome(err)
	}
	if st.obs != nil {
		st.finish(err)
	}
	return err
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

// log logs msg about attempt n, with attrs.
func (st *callState) log(ctx context.Context, level slog.Level, msg string, n int, attrs ...slog.Attr) {
	attrs = append([]slog.Attr{slog.String("method", st.method), slog.String("path", st.path), slog.Int("attempt", n)}, attrs...)
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
	st.log(context.Background(), slog.LevelWarn, "acctadmin: retrying", st.attempt, attrs...)
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
		st.red.addBodyValues(st.redactValues, (*redactor).addCallValue)
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

// RoundTrip signs req, when it goes to the API's host, and sends it.
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
	return t.attempt(r)
}

// attempt sends the signed request r within the client's timeout. A 2xx
// answer of the client for JSON answers is read whole here, within the
// timeout, and handed on as a bufferBody: an answer cut off halfway, or
// over the size cap, fails the attempt as a transport error would. Any
// other answer is handed on with its body open: for JSON, still bounded
// by the timeout; for a file (headersOnly), the timeout ends at its
// headers.
func (t *authTransport) attempt(r *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(r.Context())
	var timer *time.Timer
	if t.timeout > 0 {
		timer = time.AfterFunc(t.timeout, func() { cancel(t.timeoutError()) })
	}
	resp, err := t.base.RoundTrip(r.WithContext(ctx))
	read := err == nil && !t.headersOnly && resp.StatusCode >= 200 && resp.StatusCode <= 299
	if read {
		var buf *bytes.Buffer
		buf, err = readJSON(resp)
		resp.Body.Close() // read to its end, or past saving
		resp.Body = bufferBody{buf}
	}
	if err != nil || read {
		// Only a timer that already fired makes this a timeout: ctx is
		// cancelled below in every case, so ctx.Err() cannot tell.
		fired := timer != nil && !timer.Stop()
		cancel(nil)
		if err != nil && fired && r.Context().Err() == nil {
			return nil, t.timeoutError()
		}
		if err != nil {
			return nil, err
		}
		return resp, nil
	}
	if t.headersOnly && timer != nil {
		timer.Stop()
		timer = nil
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel, timer: timer}
	return resp, nil
}

// bufferBody is the body of a 2xx JSON answer that its attempt read
// whole (see authTransport.attempt).
type bufferBody struct{ *bytes.Buffer }

// Close does nothing: the buffer goes back to its pool once decoded.
func (bufferBody) Close() error { return nil }

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
