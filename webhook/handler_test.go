package webhook_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/webhook"
)

func TestHandlerAccepts(t *testing.T) {
	rec := &recorder{}
	h := newVerifier(t).Handler(rec.handle)
	w := serve(h, newRequest(`{"data":"`+sign(t, invoiceClaims())+`"}`))

	assert.Equal(t, http.StatusOK, w.Code)
	assert.Empty(t, w.Body.String())
	require.Len(t, rec.events, 1)
	ev := rec.events[0]
	assert.Equal(t, webhook.EventNewInvoice, ev.Name)
	assert.Equal(t, testInvoiceID, ev.InvoiceID)
	assert.Equal(t, testCompanyID, ev.CompanyID)
	require.Len(t, rec.fromCtx, 1)
	assert.Same(t, ev, rec.fromCtx[0])
}

// TestHandlerRefuses checks each refusal's exact status, that the body is
// the bare status text, and that the handler function is never called.
func TestHandlerRefuses(t *testing.T) {
	tok := sign(t, invoiceClaims())
	claims := mustJSON(invoiceClaims())
	cases := []struct {
		name string
		req  func(t *testing.T) *http.Request
		want int
	}{
		{"GET", func(t *testing.T) *http.Request { return httptest.NewRequest(http.MethodGet, "/callbacks", nil) }, http.StatusMethodNotAllowed},
		{"PUT with a valid token", func(t *testing.T) *http.Request {
			return httptest.NewRequest(http.MethodPut, "/callbacks", strings.NewReader(tok))
		}, http.StatusMethodNotAllowed},
		{"no token", func(t *testing.T) *http.Request { return newRequest("") }, http.StatusBadRequest},
		{"bad JSON", func(t *testing.T) *http.Request { return newRequest(`{"data":`) }, http.StatusBadRequest},
		{"object without a token", func(t *testing.T) *http.Request { return newRequest(`{"event":"new-invoice"}`) }, http.StatusBadRequest},
		{"not a JWT", func(t *testing.T) *http.Request { return newRequest(`{"data":"hello"}`) }, http.StatusBadRequest},
		{"duplicate claims", func(t *testing.T) *http.Request {
			return newRequest(rawToken(`{"alg":"HS256"}`, `{"event":"a","event":"b"}`, "HS256", testSecret))
		}, http.StatusBadRequest},
		{"body too large", func(t *testing.T) *http.Request { return newRequest(`{"data":"` + strings.Repeat("A", 2<<20) + `"}`) }, http.StatusRequestEntityTooLarge},
		{"bad signature", func(t *testing.T) *http.Request {
			return newRequest(rawToken(`{"alg":"HS256"}`, claims, "HS256", []byte("wrong")))
		}, http.StatusUnauthorized},
		{"alg none", func(t *testing.T) *http.Request { return newRequest(enc(`{"alg":"none"}`) + "." + enc(claims) + ".") }, http.StatusUnauthorized},
		{"expired", func(t *testing.T) *http.Request {
			return newRequest(sign(t, with(invoiceClaims(), "exp", testNow.Add(-time.Hour).Unix())))
		}, http.StatusUnauthorized},
		{"not yet valid", func(t *testing.T) *http.Request {
			return newRequest(sign(t, with(invoiceClaims(), "nbf", testNow.Add(time.Hour).Unix())))
		}, http.StatusUnauthorized},
		{"wrong access key", func(t *testing.T) *http.Request {
			return newRequest(sign(t, invoiceClaims(), webhook.WithSignAccessKey("AK-other")))
		}, http.StatusUnauthorized},

		// Bodies and tokens beyond every cap.
		{"announced length past the cap, not read at all", func(t *testing.T) *http.Request {
			r := newRequest("")
			r.Body = io.NopCloser(panicReader{t})
			r.ContentLength = 1 << 62
			return r
		}, http.StatusRequestEntityTooLarge},
		{"unannounced body one byte past the cap", func(t *testing.T) *http.Request {
			r := newRequest(strings.Repeat("a", 1<<20+1))
			r.ContentLength = -1
			return r
		}, http.StatusRequestEntityTooLarge},
		{"token past its own cap inside a body under the body cap", func(t *testing.T) *http.Request {
			big := sign(t, with(invoiceClaims(), "pad", strings.Repeat("x", 64<<10)))
			return newRequest(`{"data":"` + big + `"}`)
		}, http.StatusBadRequest},
		{"100,000-deep nesting in the body", func(t *testing.T) *http.Request {
			deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
			return newRequest(`{"data":"x","n":` + deep + `}`)
		}, http.StatusBadRequest},
		{"20,000-deep nesting in the payload", func(t *testing.T) *http.Request {
			return newRequest(rawToken(`{"alg":"HS256"}`, `{"n":`+strings.Repeat("[", 20000)+strings.Repeat("]", 20000)+`}`, "HS256", testSecret))
		}, http.StatusBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			h := newVerifier(t, webhook.WithAccessKey(testAccessKey)).Handler(rec.handle)
			w := serve(h, tc.req(t))

			assert.Equal(t, tc.want, w.Code)
			assert.Equal(t, http.StatusText(tc.want)+"\n", w.Body.String(), "the body must not say why")
			assert.Empty(t, rec.events, "fn must not be called")
			switch tc.want {
			case http.StatusMethodNotAllowed:
				assert.Equal(t, http.MethodPost, w.Header().Get("Allow"))
			case http.StatusUnauthorized:
				assert.Equal(t, "Bearer", w.Header().Get("WWW-Authenticate"))
			}
		})
	}
}

func TestHandlerReplay(t *testing.T) {
	rec := &recorder{}
	v := newVerifier(t, webhook.WithReplayCache(webhook.NewMemoryReplayCache(10, time.Hour)))
	h := v.Handler(rec.handle)
	body := `{"data":"` + sign(t, invoiceClaims()) + `"}`

	assert.Equal(t, http.StatusOK, serve(h, newRequest(body)).Code)
	w := serve(h, newRequest(body))
	assert.Equal(t, http.StatusOK, w.Code, "a redelivery is acknowledged")
	assert.Empty(t, w.Body.String())
	assert.Len(t, rec.events, 1, "and not processed again")
}

// TestHandlerFunctionFails checks that a failing fn gets a 500, and that
// the sender's retry of the same event is then accepted despite the
// replay cache.
func TestHandlerFunctionFails(t *testing.T) {
	rec := &recorder{err: errors.New("database unavailable")}
	v := newVerifier(t, webhook.WithReplayCache(webhook.NewMemoryReplayCache(10, time.Hour)))
	h := v.Handler(rec.handle)
	body := `{"data":"` + sign(t, invoiceClaims()) + `"}`

	w := serve(h, newRequest(body))
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.Equal(t, "Internal Server Error\n", w.Body.String())
	assert.NotContains(t, w.Body.String(), "database")

	rec.err = nil
	w = serve(h, newRequest(body))
	assert.Equal(t, http.StatusOK, w.Code)
	require.Len(t, rec.events, 2)
	assert.Equal(t, rec.events[0].InvoiceID, rec.events[1].InvoiceID)

	w = serve(h, newRequest(body))
	assert.Equal(t, http.StatusOK, w.Code, "once handled, the event is a replay")
	assert.Len(t, rec.events, 2, "acknowledged, not processed again")
}

// TestHandlerFunctionPanics checks that a panicking fn's event is
// forgotten before the panic reaches net/http.
func TestHandlerFunctionPanics(t *testing.T) {
	calls := 0
	v := newVerifier(t, webhook.WithReplayCache(webhook.NewMemoryReplayCache(10, time.Hour)))
	h := v.Handler(func(context.Context, *webhook.Event) error {
		calls++
		if calls == 1 {
			panic("boom")
		}
		return nil
	})
	body := `{"data":"` + sign(t, invoiceClaims()) + `"}`

	assert.PanicsWithValue(t, "boom", func() { serve(h, newRequest(body)) })
	w := serve(h, newRequest(body))
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, 2, calls)
}

func TestHandlerReplayCacheFails(t *testing.T) {
	rec := &recorder{}
	h := newVerifier(t, webhook.WithReplayCache(&failingCache{})).Handler(rec.handle)
	w := serve(h, newRequest(sign(t, invoiceClaims())))
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.Equal(t, "Service Unavailable\n", w.Body.String())
	assert.Empty(t, rec.events)
}

func TestHandlerNilFunctionPanics(t *testing.T) {
	v := newVerifier(t)
	assert.PanicsWithValue(t, "webhook: nil handler function", func() { v.Handler(nil) })
}

// TestHandlerRedeliveryWhileInProgress delivers an event again while the
// first delivery's function still runs: the redelivery is answered 503
// with Retry-After and fn is not called; once the first fails, the next
// redelivery is processed; once that succeeds, the one after is
// acknowledged without calling fn. A redelivery acknowledged while fn
// still ran would lose the event when fn then failed.
func TestHandlerRedeliveryWhileInProgress(t *testing.T) {
	for _, tc := range []struct {
		lease      time.Duration
		retryAfter string
	}{
		{0, "5"},
		{time.Hour, "5"},
	} {
		opts := []webhook.Option{webhook.WithReplayCache(webhook.NewMemoryReplayCache(10, time.Hour))}
		if tc.lease > 0 {
			opts = append(opts, webhook.WithLease(tc.lease))
		}
		v := newVerifier(t, opts...)
		entered, release := make(chan struct{}), make(chan error)
		var calls int
		h := v.Handler(func(context.Context, *webhook.Event) error {
			calls++
			if calls == 1 {
				close(entered)
				return <-release
			}
			return nil
		})
		body := `{"data":"` + sign(t, invoiceClaims()) + `"}`
		first := make(chan int)
		go func() { first <- serve(h, newRequest(body)).Code }()
		<-entered

		w := serve(h, newRequest(body))
		assert.Equal(t, http.StatusServiceUnavailable, w.Code, "a redelivery during processing is not acknowledged")
		assert.Equal(t, tc.retryAfter, w.Header().Get("Retry-After"), "lease %v", tc.lease)
		assert.Equal(t, "Service Unavailable\n", w.Body.String())

		release <- errors.New("database unavailable")
		assert.Equal(t, http.StatusInternalServerError, <-first)
		assert.Equal(t, http.StatusOK, serve(h, newRequest(body)).Code, "the redelivery after a failure is processed")
		assert.Equal(t, 2, calls)
		w = serve(h, newRequest(body))
		assert.Equal(t, http.StatusOK, w.Code)
		assert.Empty(t, w.Header().Get("Retry-After"))
		assert.Equal(t, 2, calls, "a redelivery after success is acknowledged unprocessed")
	}
}

// TestHandlerFunctionOutlivesTheSender cancels the request while fn runs,
// as a sender whose timeout is shorter than fn does: fn's context is not
// cancelled with it, and ends a fifth of the lease, at most 5 seconds,
// before the lease instead.
func TestHandlerFunctionOutlivesTheSender(t *testing.T) {
	for _, tc := range []struct {
		lease, margin time.Duration
		withCache     bool
	}{
		{time.Hour, 5 * time.Second, false},
		{time.Hour, 5 * time.Second, true},
		{10 * time.Second, 2 * time.Second, true},
		{25 * time.Second, 5 * time.Second, true},
	} {
		opts := []webhook.Option{webhook.WithLease(tc.lease)}
		if tc.withCache {
			opts = append(opts, webhook.WithReplayCache(webhook.NewMemoryReplayCache(10, time.Hour)))
		}
		v := newVerifier(t, opts...)
		reqCtx, cancel := context.WithCancel(context.Background())
		var fnErr error
		var deadline time.Time
		var hasDeadline bool
		h := v.Handler(func(ctx context.Context, ev *webhook.Event) error {
			cancel()
			deadline, hasDeadline = ctx.Deadline()
			fnErr = ctx.Err()
			got, ok := webhook.FromContext(ctx)
			assert.True(t, ok)
			assert.Same(t, ev, got)
			return nil
		})
		before := time.Now()
		w := serve(h, newRequest(sign(t, invoiceClaims())).WithContext(reqCtx))
		assert.Equal(t, http.StatusOK, w.Code)
		assert.NoError(t, fnErr, "fn's context ended with the request's")
		require.True(t, hasDeadline, "fn's context ends before the lease")
		assert.False(t, deadline.Before(before.Add(tc.lease-tc.margin)), "lease %v: deadline %v", tc.lease, deadline)
		assert.False(t, deadline.After(time.Now().Add(tc.lease-tc.margin)), "lease %v: deadline %v", tc.lease, deadline)
	}
}

// TestHandlerFunctionContextEndsWithTheLease runs fn until its context
// ends: it ends (with the lease), the event is released, and a redelivery
// is processed.
func TestHandlerFunctionContextEndsWithTheLease(t *testing.T) {
	v := newVerifier(t,
		webhook.WithReplayCache(webhook.NewMemoryReplayCache(10, time.Hour)),
		webhook.WithLease(200*time.Millisecond))
	var calls int
	h := v.Handler(func(ctx context.Context, _ *webhook.Event) error {
		calls++
		if calls == 1 {
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	})
	body := sign(t, invoiceClaims())
	assert.Equal(t, http.StatusInternalServerError, serve(h, newRequest(body)).Code)
	assert.Equal(t, http.StatusOK, serve(h, newRequest(body)).Code)
	assert.Equal(t, 2, calls)
}

// TestHandlerPermanentError checks that fn's permanent error, bare or
// wrapped, is acknowledged with 200 and recorded as done: the sender stops,
// and a redelivery does not call fn.
func TestHandlerPermanentError(t *testing.T) {
	gone := errors.New("document 0b4d8b7e no longer exists")
	for name, fnErr := range map[string]error{
		"bare":    webhook.Permanent(gone),
		"wrapped": fmt.Errorf("saving the document: %w", webhook.Permanent(gone)),
		"twice":   webhook.Permanent(webhook.Permanent(gone)),
	} {
		t.Run(name, func(t *testing.T) {
			rec := &recorder{err: fnErr}
			h := newVerifier(t, webhook.WithReplayCache(webhook.NewMemoryReplayCache(10, time.Hour))).Handler(rec.handle)
			body := sign(t, documentClaims())
			w := serve(h, newRequest(body))
			assert.Equal(t, http.StatusOK, w.Code)
			assert.Empty(t, w.Body.String())
			w = serve(h, newRequest(body))
			assert.Equal(t, http.StatusOK, w.Code)
			assert.Len(t, rec.events, 1, "a permanent failure is done: not processed again")

			var pe *webhook.PermanentError
			require.ErrorAs(t, fnErr, &pe)
			assert.Same(t, gone, pe.Err)
			assert.ErrorIs(t, fnErr, gone)
			assert.Contains(t, fnErr.Error(), gone.Error())
		})
	}
	assert.NoError(t, webhook.Permanent(nil))
	p := webhook.Permanent(gone)
	assert.Same(t, p, webhook.Permanent(p), "an error already permanent is returned as it is")
	assert.Equal(t, "webhook: permanent error", (&webhook.PermanentError{}).Error())

	// An ordinary error is still retried.
	rec := &recorder{err: gone}
	h := newVerifier(t, webhook.WithReplayCache(webhook.NewMemoryReplayCache(10, time.Hour))).Handler(rec.handle)
	body := sign(t, documentClaims())
	assert.Equal(t, http.StatusInternalServerError, serve(h, newRequest(body)).Code)
	assert.Equal(t, http.StatusInternalServerError, serve(h, newRequest(body)).Code)
	assert.Len(t, rec.events, 2)
}

// slowClaims is a memory cache whose Claim answers only after delay.
type slowClaims struct {
	webhook.MemoryReplayCache
	delay    time.Duration
	released int
}

func (c *slowClaims) Claim(ctx context.Context, key, owner string, lease time.Duration) (webhook.ClaimState, error) {
	time.Sleep(c.delay)
	return c.MemoryReplayCache.Claim(ctx, key, owner, lease)
}

func (c *slowClaims) Release(ctx context.Context, key, owner string) error {
	c.released++
	return c.MemoryReplayCache.Release(ctx, key, owner)
}

// TestHandlerLeaseEndedDuringTheClaim checks that fn does not start when
// the claim took the whole lease to answer (another delivery could take
// the event over at any moment): the answer is 503, and the mark is
// released.
func TestHandlerLeaseEndedDuringTheClaim(t *testing.T) {
	c := &slowClaims{delay: 30 * time.Millisecond}
	rec := &recorder{}
	h := newVerifier(t, webhook.WithReplayCache(c), webhook.WithLease(10*time.Millisecond)).Handler(rec.handle)
	w := serve(h, newRequest(sign(t, invoiceClaims())))
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.Empty(t, rec.events)
	assert.Equal(t, 1, c.released)
}

// TestSettleReportsCacheErrors checks that Forget and Commit wrap the
// cache's error, and that Handler keeps trying to settle the event while
// the cache fails, with a context that outlives the request's but has a
// deadline: after a failure, so that the redelivery is processed; after
// a success, so that it is acknowledged.
func TestSettleReportsCacheErrors(t *testing.T) {
	c := &ctxCache{settleErr: errCacheDown, settleFails: 2}
	v := newVerifier(t, webhook.WithReplayCache(c))
	ev, err := v.Verify(sign(t, invoiceClaims()))
	require.NoError(t, err)
	err = v.Forget(context.Background(), ev)
	require.ErrorIs(t, err, errCacheDown)
	assert.EqualError(t, err, "webhook: replay cache: cache is down")
	err = v.Commit(context.Background(), ev)
	require.ErrorIs(t, err, errCacheDown)
	assert.EqualError(t, err, "webhook: replay cache: cache is down")

	for _, fnFails := range []bool{true, false} {
		c.mu.Lock()
		c.settleFails, c.settleCtx, c.settleErrs, c.commits, c.releases = 3, nil, nil, 0, 0
		c.mu.Unlock()
		reqCtx, cancel := context.WithCancel(context.Background())
		var calls int
		h := v.Handler(func(context.Context, *webhook.Event) error {
			calls++
			cancel() // the sender hangs up while the function runs
			if fnFails && calls == 1 {
				return errors.New("processing failed")
			}
			return nil
		})
		tok := sign(t, with(documentClaims(), "jti", fmt.Sprint(fnFails)))
		w := serve(h, newRequest(tok).WithContext(reqCtx))
		require.Len(t, c.settleCtx, 4, "three failed attempts, then one that worked")
		for i, err := range c.settleErrs {
			assert.NoError(t, err, "the outcome was recorded with the request's cancellation")
			_, hasDeadline := c.settleCtx[i].Deadline()
			assert.True(t, hasDeadline, "settling is bounded")
		}
		if fnFails {
			assert.Equal(t, http.StatusInternalServerError, w.Code)
			assert.Equal(t, 1, c.releases)
			assert.Equal(t, http.StatusOK, serve(h, newRequest(tok)).Code)
			assert.Equal(t, 2, calls, "the redelivery was processed")
		} else {
			assert.Equal(t, http.StatusOK, w.Code)
			assert.Equal(t, 1, c.commits)
			assert.Equal(t, http.StatusOK, serve(h, newRequest(tok)).Code)
			assert.Equal(t, 1, calls, "the redelivery was acknowledged, not processed")
		}
	}
}

// trickle opens a raw TCP connection to addr, sends the headers of a POST
// whose body is announced as 1000 bytes (or chunked), and then sends one
// byte of it every interval until stop is closed or the server hangs up.
// It returns the connection, whose answer the caller reads.
func trickle(t *testing.T, addr string, chunked bool, interval time.Duration, stop <-chan struct{}) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	head := "POST /callbacks HTTP/1.1\r\nHost: receiver\r\n"
	if chunked {
		head += "Transfer-Encoding: chunked\r\n\r\n"
	} else {
		head += "Content-Length: 1000\r\n\r\n"
	}
	_, err = io.WriteString(conn, head)
	require.NoError(t, err)
	go func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for i := 0; i < 1000; i++ {
			b := "e"
			if chunked {
				b = "1\r\ne\r\n"
			}
			if _, err := io.WriteString(conn, b); err != nil {
				return
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return conn
}

// noDeadlines hides the ResponseWriter's deadline support from
// http.ResponseController, as a middleware that wraps the writer without
// an Unwrap method does.
type noDeadlines struct{ http.ResponseWriter }

// TestHandlerBoundsSlowBodies sends a body one byte at a time to a real
// server: Handler stops reading once the read timeout passes, answers 408,
// and never calls the function, whether or not the ResponseWriter supports
// read deadlines. Bounds are a generous multiple of the timeout.
func TestHandlerBoundsSlowBodies(t *testing.T) {
	const timeout = 300 * time.Millisecond
	const bound = 20 * timeout
	for _, tc := range []struct {
		name              string
		wrap              bool
		chunked           bool
		expectConnClosure bool
		interval          time.Duration
	}{
		{"deadline, Content-Length", false, false, true, 50 * time.Millisecond},
		{"deadline, chunked", false, true, true, 50 * time.Millisecond},
		{"no deadline support, Content-Length", true, false, false, 50 * time.Millisecond},
		{"no deadline support, chunked", true, true, false, 50 * time.Millisecond},
		{"deadline, stalled after the headers", false, false, true, time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var called atomic.Int32
			v := newVerifier(t, webhook.WithReadTimeout(timeout))
			h := v.Handler(func(context.Context, *webhook.Event) error {
				called.Add(1)
				return nil
			})
			returned := make(chan time.Duration, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				start := time.Now()
				if tc.wrap {
					w = noDeadlines{w}
				}
				h.ServeHTTP(w, r)
				returned <- time.Since(start)
			}))
			// Cleanups run last first: the client hangs up, then the
			// trickle stops, then the server closes.
			t.Cleanup(srv.Close)
			stop := make(chan struct{})
			t.Cleanup(func() { close(stop) })

			start := time.Now()
			conn := trickle(t, srv.Listener.Addr().String(), tc.chunked, tc.interval, stop)
			require.NoError(t, conn.SetReadDeadline(time.Now().Add(bound)))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			require.NoError(t, err, "no answer within %v", bound)
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
			assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
			assert.Equal(t, http.StatusText(http.StatusRequestTimeout)+"\n", string(body))
			assert.True(t, resp.Close, "the answer closes the connection")

			select {
			case d := <-returned:
				assert.Less(t, d, bound, "the handler returned only after %v", d)
			case <-time.After(bound):
				t.Fatalf("the handler did not return within %v", bound)
			}
			if tc.expectConnClosure {
				// The server hangs up: a read ends (EOF or reset) well
				// before the trickle would have ended.
				var one [1]byte
				_, err := conn.Read(one[:])
				require.Error(t, err)
				assert.NotContains(t, err.Error(), "timeout", "the connection is still open after %v", bound)
			}
			assert.Less(t, time.Since(start), bound+time.Second)
			assert.Zero(t, called.Load(), "the function was called")
		})
	}
}

// TestHandlerReadTimeoutSparesTheFunction checks that the read timeout
// covers the body only: a function that runs longer than the timeout keeps
// its context, answers 200, and the connection serves the next request.
func TestHandlerReadTimeoutSparesTheFunction(t *testing.T) {
	const timeout = 200 * time.Millisecond
	v := newVerifier(t, webhook.WithReadTimeout(timeout))
	var calls atomic.Int32
	h := v.Handler(func(ctx context.Context, ev *webhook.Event) error {
		calls.Add(1)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(3 * timeout):
			return nil
		}
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	client := srv.Client()
	for i, claims := range []map[string]any{invoiceClaims(), documentClaims()} {
		resp, err := client.Post(srv.URL, "application/jwt", strings.NewReader(sign(t, claims)))
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, "request %d", i)
		assert.False(t, resp.Close, "request %d closed the connection", i)
	}
	assert.Equal(t, int32(2), calls.Load())
	client.CloseIdleConnections()
}

// TestHandlerProcessesEachEventOnce delivers one event in the ways an
// attacker or a confused sender would: re-signed, re-encoded, and many
// times at once. The function runs once; every redelivery is
// acknowledged.
func TestHandlerProcessesEachEventOnce(t *testing.T) {
	var calls atomic.Int32
	v := newVerifier(t, webhook.WithReplayCache(webhook.NewMemoryReplayCache(100, time.Hour)), webhook.WithSecrets(testOldSecret))
	h := v.Handler(func(context.Context, *webhook.Event) error {
		calls.Add(1)
		return nil
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	client := srv.Client()
	t.Cleanup(client.CloseIdleConnections)
	post := func(body string) int {
		resp, err := client.Post(srv.URL, "application/jwt", strings.NewReader(body))
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}

	first := sign(t, invoiceClaims())
	// 64 deliveries of one token at once.
	var wg sync.WaitGroup
	codes := make([]int, 64)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Post(srv.URL, "application/jwt", strings.NewReader(first))
			if err != nil {
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			codes[i] = resp.StatusCode
		}()
	}
	wg.Wait()
	for i, c := range codes {
		assert.Equal(t, http.StatusOK, c, "delivery %d", i)
	}
	assert.Equal(t, int32(1), calls.Load(), "64 concurrent deliveries processed once")

	for name, tok := range map[string]string{
		"re-signed with HS512":           sign(t, invoiceClaims(), webhook.WithAlgorithm("HS512")),
		"re-signed with the old secret":  signWith(t, invoiceClaims(), testOldSecret),
		"claims spelled another way":     sign(t, map[string]any{"eventName": webhook.EventNewInvoice, "data": map[string]any{"invoiceId": strings.ToUpper(testInvoiceID.String()), "companyId": testCompanyID.String(), "companyName": "Acme Widgets LLC"}}),
		"braced UUIDs":                   sign(t, with(invoiceClaims(), "invoice_id", "{"+testInvoiceID.String()+"}")),
		"in a JSON body":                 `{"data":"` + first + `"}`,
		"in a form body":                 "token=" + first,
		"with extra unsigned JSON field": `{"data":"` + first + `","replay":true}`,
	} {
		assert.Equal(t, http.StatusOK, post(tok), name)
	}
	assert.Equal(t, int32(1), calls.Load(), "re-signed and re-encoded copies are the same event")

	// A new jti is a new event: only the API, holding the secret, can
	// mint one, and keying on jti is what lets it send two events with
	// equal ids.
	assert.Equal(t, http.StatusOK, post(sign(t, with(invoiceClaims(), "jti", "a"))))
	assert.Equal(t, http.StatusOK, post(sign(t, with(invoiceClaims(), "jti", "b"))))
	assert.Equal(t, http.StatusOK, post(sign(t, with(invoiceClaims(), "jti", "a"))))
	assert.Equal(t, int32(3), calls.Load())
}

// panicReader fails the test if a body is read at all.
type panicReader struct{ t *testing.T }

// TestHandlerTrustsTheBodyOverHeaders checks that headers cannot override
// or smuggle in what the body says.
func TestHandlerTrustsTheBodyOverHeaders(t *testing.T) {
	var got []*webhook.Event
	h := newVerifier(t).Handler(func(_ context.Context, ev *webhook.Event) error {
		got = append(got, ev)
		return nil
	})
	good := sign(t, invoiceClaims())
	forged := signWith(t, documentClaims(), []byte("attacker-secret"))

	// A forged body is not rescued by a good header, nor a good body
	// spoiled by a forged one.
	assert.Equal(t, http.StatusUnauthorized, serve(h, newRequest(forged, "Authorization", "Bearer "+good)).Code)
	assert.Equal(t, http.StatusOK, serve(h, newRequest(good, "Authorization", "Bearer "+forged)).Code)
	require.Len(t, got, 1)
	assert.Equal(t, testInvoiceID, got[0].InvoiceID)

	for name, r := range map[string]*http.Request{
		"two bearer headers, good first": newRequest("", "Authorization", "Bearer "+good, "Authorization", "Bearer "+forged),
		"two tokens in one header":       newRequest("", "Authorization", "Bearer "+good+" "+forged),
		"token after a comma":            newRequest("", "Authorization", "Bearer "+good+", Bearer "+forged),
		"Basic carrying a token":         newRequest("", "Authorization", "Basic "+good),
	} {
		code := serve(h, r).Code
		assert.True(t, code == http.StatusBadRequest || code == http.StatusUnauthorized, "%s: answered %d", name, code)
	}
	// The Content-Type header does not change how the body is read.
	assert.Equal(t, http.StatusOK, serve(h, newRequest(`{"data":"`+sign(t, documentClaims())+`"}`, "Content-Type", "application/x-www-form-urlencoded")).Code)
	assert.Len(t, got, 2)
}

// TestHandlerRefusesSmuggledRequests sends a request whose Content-Length
// and Transfer-Encoding disagree to a real server: it is refused before
// the handler runs.
func TestHandlerRefusesSmuggledRequests(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(newVerifier(t).Handler(func(context.Context, *webhook.Event) error {
		calls.Add(1)
		return nil
	}))
	t.Cleanup(srv.Close)
	tok := sign(t, invoiceClaims())
	for _, head := range []string{
		"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
		"Content-Length: 5\r\nContent-Length: 6\r\n",
		"Transfer-Encoding: identity, chunked\r\n",
	} {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		require.NoError(t, err)
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		body := strings.Repeat("x", 5)
		_, err = io.WriteString(conn, "POST / HTTP/1.1\r\nHost: r\r\n"+head+"\r\n"+body+"\r\n\r\n"+tok)
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		require.NoError(t, err)
		resp.Body.Close()
		conn.Close()
		assert.Contains(t, []int{http.StatusBadRequest, http.StatusNotImplemented}, resp.StatusCode, "%q", head)
	}
	assert.Zero(t, calls.Load())
}

func (p panicReader) Read([]byte) (int, error) {
	p.t.Error("the body was read")
	return 0, io.EOF
}

// TestHandlerFunctionReportsWorkInProgress has fn report, with an error
// wrapping ErrInProgress, that another delivery is doing its work (a
// receiver's own lock, held for the same document by a delivery with
// another jti): the answer is 503 with the Retry-After of an event in
// progress, not 500, and the mark is released, so the next delivery is
// processed.
func TestHandlerFunctionReportsWorkInProgress(t *testing.T) {
	busy := fmt.Errorf("document locked by another delivery: %w", webhook.ErrInProgress)
	rec := &recorder{err: busy}
	v := newVerifier(t, webhook.WithReplayCache(webhook.NewMemoryReplayCache(10, time.Hour)), webhook.WithLease(2*time.Second))
	h := v.Handler(rec.handle)
	body := `{"data":"` + sign(t, documentClaims()) + `"}`

	w := serve(h, newRequest(body))
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.Equal(t, "2", w.Header().Get("Retry-After"))
	assert.Equal(t, "Service Unavailable\n", w.Body.String())

	rec.err = nil
	assert.Equal(t, http.StatusOK, serve(h, newRequest(body)).Code, "the mark was released")
	assert.Len(t, rec.events, 2)

	rec.err = errors.New("database unavailable")
	other := `{"data":"` + sign(t, invoiceClaims()) + `"}`
	w = serve(h, newRequest(other))
	assert.Equal(t, http.StatusInternalServerError, w.Code, "any other failure is a 500")
	assert.Empty(t, w.Header().Get("Retry-After"))
}
