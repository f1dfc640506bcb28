package webhook_test

import (
	"context"
	"errors"
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
