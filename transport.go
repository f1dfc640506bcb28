package acctadmin

import (
	"bytes"
	"context"
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
	// maxRedirects bounds same-host redirects.
	maxRedirects = 5
)

// call is the state of one API call across its attempts. It travels in the
// request's context so that the retry policy (which does not see the
// request) and the signing transport (which runs for every attempt) can
// reach it.
type call struct {
	c       *Client
	method  string
	path    string // never with the query string
	query   string // the query string, only to keep it out of messages
	body    []byte // the exact bytes every attempt sends; nil for none
	stream  bool   // a binary answer: the timeout stops at the headers
	attempt int    // attempts made so far
	wait    time.Duration
	// buf is a successful JSON answer, read inside the retry loop so that
	// an answer cut off halfway is retried like any broken connection.
	buf *bytes.Buffer
	// readDone marks that readAnswer ran for the current attempt: the
	// library then asks the retry policy a second time about that attempt.
	readDone bool
}

type callKey struct{}

func callFrom(ctx context.Context) *call {
	st, _ := ctx.Value(callKey{}).(*call)
	return st
}

// idempotent reports whether the call may be sent again after it may have
// reached the server.
func (st *call) idempotent() bool {
	return st.method == http.MethodGet || st.method == http.MethodDelete || st.method == http.MethodHead
}

// send performs the call: it signs every attempt, retries what may be
// retried, and returns the final answer (whatever its status) or a
// transport error that names neither the query string nor any secret.
func (c *Client) send(ctx context.Context, st *call, u *url.URL) (*http.Response, error) {
	hreq := &http.Request{
		Method:     st.method,
		URL:        u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     make(http.Header, 3),
		Host:       u.Host,
	}
	hreq.Header["Content-Type"] = jsonContentType
	hreq.Header["User-Agent"] = c.userAgent
	hreq = hreq.WithContext(context.WithValue(ctx, callKey{}, st))
	req, err := retryablehttp.FromRequest(hreq)
	if err != nil {
		return nil, err
	}
	if st.body != nil {
		if err := req.SetBody(st.body); err != nil {
			return nil, err
		}
	}
	if !st.stream {
		req.SetResponseHandler(st.readAnswer)
	}
	rc := &retryablehttp.Client{
		HTTPClient:   c.httpClient,
		RetryWaitMin: c.retryWaitMin,
		RetryWaitMax: c.retryWaitMax,
		// The policy below counts attempts itself and stops first; this
		// bound only keeps the library from stopping earlier.
		RetryMax:     c.maxRetries + 1,
		CheckRetry:   checkRetry,
		Backoff:      st.retryWait,
		ErrorHandler: st.giveUp,
	}
	if c.logger != nil {
		rc.RequestLogHook = logAttempt
		rc.ResponseLogHook = logResponse
	}
	resp, err := rc.Do(req)
	if err != nil {
		return nil, st.redact(err)
	}
	return resp, nil
}

var jsonContentType = []string{"application/json"}

// checkRetry decides, after each attempt, whether to try again. It is the
// only place that knows the rules: GET and DELETE are retried on connection
// errors and on 429, 500, 502, 503 and 504; POST and PATCH only when the
// connection could not be made, so no write is ever sent twice; a
// Retry-After longer than the client allows ends the call at once.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	st := callFrom(ctx)
	if st != nil {
		if st.readDone {
			st.readDone = false // the same attempt, asked about again once its body was read
		} else {
			st.attempt++
		}
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if st == nil {
		return false, nil
	}
	retry, wait := st.policy(resp, err)
	if !retry || st.attempt > st.c.maxRetries {
		return false, nil
	}
	st.wait = wait
	if resp != nil {
		keepAndDrain(resp)
	}
	if l := st.c.logger; l != nil {
		attrs := []slog.Attr{
			slog.String("method", st.method), slog.String("path", st.path),
			slog.Int("attempt", st.attempt), slog.Duration("wait", wait),
		}
		if resp != nil {
			attrs = append(attrs, slog.Int("status", resp.StatusCode))
		}
		if err != nil {
			attrs = append(attrs, slog.String("error", causeText(stripURL(err))))
		}
		l.LogAttrs(ctx, slog.LevelWarn, "acctadmin: retrying", attrs...)
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

// backoff returns the wait before retry number n (from 1): exponential
// from the minimum, capped at the maximum, with "equal jitter" (a random
// point in the upper half) so that many clients do not retry in step.
func (c *Client) backoff(n int) time.Duration {
	d := c.retryWaitMin
	for i := 1; i < n && d < c.retryWaitMax; i++ {
		d *= 2
	}
	if d > c.retryWaitMax {
		d = c.retryWaitMax
	}
	if d <= 1 {
		return d
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// retryWait hands the library the wait that checkRetry chose. It reads it
// from the call rather than from the response, which is nil after a
// connection error.
func (st *call) retryWait(_, _ time.Duration, _ int, _ *http.Response) time.Duration {
	return st.wait
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

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
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
// answer after all (the library hands the last one back to the caller).
func keepAndDrain(resp *http.Response) {
	if resp.Body == nil || resp.Body == http.NoBody {
		return
	}
	kept, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(kept))
}

// readAnswer reads a successful JSON answer while the retry loop still
// holds the attempt: a body that breaks off halfway is then an error of
// the attempt, which the policy retries for GET and DELETE. Failed answers
// are left for the caller, who reads their start into an *APIError.
func (st *call) readAnswer(resp *http.Response) error {
	st.readDone = true
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil
	}
	buf, err := readJSON(resp)
	drainAndClose(resp.Body)
	if err != nil {
		return err
	}
	st.buf = buf
	return nil
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
	if errors.Is(err, ErrResponseTooLarge) {
		return nil, st.readError(err)
	}
	return nil, st.redact(err)
}

// redact strips the URL (with its query string) out of err, keeping the
// cause.
func (st *call) redact(err error) error {
	var te *TransportError
	var de *DecodeError
	if errors.As(err, &te) || errors.As(err, &de) {
		return err
	}
	return &TransportError{Method: st.method, Path: st.path, Attempts: max(st.attempt, 1), Err: stripURL(err)}
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

func logAttempt(_ retryablehttp.Logger, req *http.Request, n int) {
	st := callFrom(req.Context())
	if st == nil || st.c.logger == nil {
		return
	}
	st.c.logger.LogAttrs(req.Context(), slog.LevelDebug, "acctadmin: request",
		slog.String("method", st.method), slog.String("path", st.path), slog.Int("attempt", n+1))
}

func logResponse(_ retryablehttp.Logger, resp *http.Response) {
	if resp.Request == nil {
		return
	}
	st := callFrom(resp.Request.Context())
	if st == nil || st.c.logger == nil {
		return
	}
	// The library calls this hook after CheckRetry, which has counted
	// this attempt already.
	st.c.logger.LogAttrs(resp.Request.Context(), slog.LevelDebug, "acctadmin: response",
		slog.String("method", st.method), slog.String("path", st.path),
		slog.Int("status", resp.StatusCode), slog.Int("attempt", st.attempt))
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
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	st := callFrom(req.Context())
	if st == nil || req.URL.Host != t.host || req.URL.Scheme != t.scheme {
		return t.base.RoundTrip(req)
	}
	r := new(http.Request)
	*r = *req
	r.Header = make(http.Header, len(req.Header)+1)
	for k, v := range req.Header {
		r.Header[k] = v
	}
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		body = st.body
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
	if st.stream {
		// A file may take longer than any timeout to arrive: the timeout
		// covers the wait for its headers only.
		timer.Stop()
		resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
		return resp, nil
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel, timer: timer}
	return resp, nil
}

var errAttemptTimeout = errors.New("attempt timed out")

func (t *authTransport) timeoutError() error {
	return fmt.Errorf("%w: no answer within %s", errAttemptTimeout, t.timeout)
}

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
// redirect is handed back as the answer (and becomes an *APIError).
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
	if n := resp.ContentLength; n >= 0 && int64(cap(b)) <= n {
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
