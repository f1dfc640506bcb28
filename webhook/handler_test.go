package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/webhook"
)

// recorder is a handler function that records the events it receives and
// answers with err.
type recorder struct {
	events  []*webhook.Event
	fromCtx []*webhook.Event
	err     error
}

func (r *recorder) handle(ctx context.Context, ev *webhook.Event) error {
	r.events = append(r.events, ev)
	if got, ok := webhook.FromContext(ctx); ok {
		r.fromCtx = append(r.fromCtx, got)
	}
	return r.err
}

// serve sends req to h and returns the recorded answer.
func serve(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

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
		req  func() *http.Request
		want int
	}{
		{"GET", func() *http.Request { return httptest.NewRequest(http.MethodGet, "/callbacks", nil) }, http.StatusMethodNotAllowed},
		{"PUT with a valid token", func() *http.Request {
			return httptest.NewRequest(http.MethodPut, "/callbacks", strings.NewReader(tok))
		}, http.StatusMethodNotAllowed},
		{"no token", func() *http.Request { return newRequest("") }, http.StatusBadRequest},
		{"bad JSON", func() *http.Request { return newRequest(`{"data":`) }, http.StatusBadRequest},
		{"object without a token", func() *http.Request { return newRequest(`{"event":"new-invoice"}`) }, http.StatusBadRequest},
		{"not a JWT", func() *http.Request { return newRequest(`{"data":"hello"}`) }, http.StatusBadRequest},
		{"duplicate claims", func() *http.Request {
			return newRequest(rawToken(`{"alg":"HS256"}`, `{"event":"a","event":"b"}`, "HS256", testSecret))
		}, http.StatusBadRequest},
		{"body too large", func() *http.Request { return newRequest(`{"data":"` + strings.Repeat("A", 2<<20) + `"}`) }, http.StatusRequestEntityTooLarge},
		{"bad signature", func() *http.Request {
			return newRequest(rawToken(`{"alg":"HS256"}`, claims, "HS256", []byte("wrong")))
		}, http.StatusUnauthorized},
		{"alg none", func() *http.Request { return newRequest(enc(`{"alg":"none"}`) + "." + enc(claims) + ".") }, http.StatusUnauthorized},
		{"expired", func() *http.Request {
			return newRequest(sign(t, with(invoiceClaims(), "exp", testNow.Add(-time.Hour).Unix())))
		}, http.StatusUnauthorized},
		{"not yet valid", func() *http.Request {
			return newRequest(sign(t, with(invoiceClaims(), "nbf", testNow.Add(time.Hour).Unix())))
		}, http.StatusUnauthorized},
		{"wrong access key", func() *http.Request {
			return newRequest(sign(t, invoiceClaims(), webhook.WithSignAccessKey("AK-other")))
		}, http.StatusUnauthorized},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			h := newVerifier(t, webhook.WithAccessKey(testAccessKey)).Handler(rec.handle)
			w := serve(h, tc.req())

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
