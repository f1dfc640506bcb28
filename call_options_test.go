package acctadmin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"pgregory.net/rapid"
)

// coBusy is a server that answers every request 503.
func coBusy(t testing.TB) *apiServer {
	return newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusServiceUnavailable, `{"message":"busy"}`)
	})
}

// CallMaxRetries replaces the client's retries of a read for the calls
// of its context, down or up; an inner WithCallOptions changes what it
// names and keeps the rest; the client itself is left as it was.
func TestCallMaxRetries(t *testing.T) {
	for _, tc := range []struct {
		name    string
		client  int
		ctx     func(context.Context) context.Context
		wantReq int
	}{
		{"fewer", 3, func(ctx context.Context) context.Context { return WithCallOptions(ctx, CallMaxRetries(1)) }, 2},
		{"none", 3, func(ctx context.Context) context.Context { return WithCallOptions(ctx, CallMaxRetries(0)) }, 1},
		{"more", 0, func(ctx context.Context) context.Context { return WithCallOptions(ctx, CallMaxRetries(2)) }, 3},
		{"inner wins", 3, func(ctx context.Context) context.Context {
			return WithCallOptions(WithCallOptions(ctx, CallMaxRetries(0)), CallMaxRetries(2))
		}, 3},
		{"outer holds", 3, func(ctx context.Context) context.Context {
			return WithCallOptions(WithCallOptions(ctx, CallMaxRetries(1)), CallHeader("X-Job", "7"))
		}, 2},
		{"nil option", 3, func(ctx context.Context) context.Context { return WithCallOptions(ctx, nil, CallMaxRetries(0)) }, 1},
		{"no option", 1, func(ctx context.Context) context.Context { return WithCallOptions(ctx) }, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := coBusy(t)
			c := newTestClient(t, srv, WithMaxRetries(tc.client))
			_, err := c.Callbacks.List(tc.ctx(context.Background()))
			if !errors.Is(err, ErrServer) || srv.count() != tc.wantReq {
				t.Fatalf("err = %v after %d requests, want ErrServer after %d", err, srv.count(), tc.wantReq)
			}
			_, _ = c.Callbacks.List(context.Background())
			if n := srv.count() - tc.wantReq; n != tc.client+1 {
				t.Fatalf("then a call without options made %d requests, want %d", n, tc.client+1)
			}
		})
	}
}

// CallRetryWait replaces the bounds of the waits between a call's
// retries: a client that waits an hour retries at once for that call.
func TestCallRetryWait(t *testing.T) {
	srv := coBusy(t)
	c := newTestClient(t, srv, WithRetryWait(time.Hour, time.Hour), WithMaxRetries(2))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := c.Callbacks.List(WithCallOptions(ctx, CallRetryWait(time.Millisecond, 2*time.Millisecond)))
	if !errors.Is(err, ErrServer) || srv.count() != 3 || ctx.Err() != nil {
		t.Fatalf("err = %v after %d requests (context: %v), want ErrServer after 3, at once", err, srv.count(), ctx.Err())
	}
}

// CallTimeout replaces the bound of each attempt, for JSON answers and
// for a file's headers; zero turns it off for the call.
func TestCallTimeout(t *testing.T) {
	var slow atomic.Int64
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(time.Duration(slow.Load())):
		case <-r.Context().Done():
			return
		}
		if strings.HasSuffix(r.URL.Path, "/download") {
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = w.Write([]byte("%PDF-1.4"))
			return
		}
		writeJSON(w, http.StatusOK, `{"success":true,"result":[]}`)
	})
	c := newTestClient(t, srv, WithMaxRetries(0))
	slow.Store(int64(10 * time.Second))
	short := WithCallOptions(context.Background(), CallTimeout(200*time.Millisecond))
	_, err := c.Callbacks.List(short)
	var ne net.Error
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("JSON: err = %v, want the attempt timed out", err)
	}
	_, err = c.Documents.Download(short, rcID)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("file: err = %v, want the attempt timed out", err)
	}

	slow.Store(int64(time.Second))
	quick := newTestClient(t, srv, WithMaxRetries(0), WithTimeout(200*time.Millisecond))
	if _, err := quick.Callbacks.List(context.Background()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the client's 200ms: err = %v, want a timeout", err)
	}
	if _, err := quick.Callbacks.List(WithCallOptions(context.Background(), CallTimeout(0))); err != nil {
		t.Fatalf("CallTimeout(0): %v", err)
	}
	if srv.count() != 4 {
		t.Fatalf("%d requests, want 4", srv.count())
	}
}

// CallHeader sends its header with every attempt of the call; an inner
// one replaces an outer one of the same name and keeps the others.
func TestCallHeader(t *testing.T) {
	var n atomic.Int32
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			writeJSON(w, http.StatusBadGateway, `{"message":"again"}`)
			return
		}
		writeJSON(w, http.StatusOK, `{"success":true,"result":[]}`)
	})
	c := newTestClient(t, srv)
	ctx := WithCallOptions(context.Background(), CallHeader("x-request-id", "job-1"), CallHeader("X-Tenant", "north"))
	ctx = WithCallOptions(ctx, CallHeader("X-Request-Id", "job-2"))
	if _, err := c.Callbacks.List(ctx); err != nil {
		t.Fatal(err)
	}
	reqs := srv.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for i, r := range reqs {
		if got := r.Header.Values("X-Request-Id"); len(got) != 1 || got[0] != "job-2" {
			t.Errorf("attempt %d: X-Request-Id %q, want [job-2]", i+1, got)
		}
		if got := r.Header.Get("X-Tenant"); got != "north" {
			t.Errorf("attempt %d: X-Tenant %q, want north", i+1, got)
		}
		if !r.AuthOK || !strings.HasPrefix(r.Header.Get("User-Agent"), "acctadmin-go/") {
			t.Errorf("attempt %d: signature %v (%s), User-Agent %q: the client's own headers changed", i+1, r.AuthOK, r.AuthErr, r.Header.Get("User-Agent"))
		}
	}
}

// An inner WithCallOptions adds its headers to the calls of its own
// context only: the outer context's calls, before and after, send the
// outer headers alone, as given.
func TestCallHeaderOfAnInnerContextStaysInIt(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv)
	outer := WithCallOptions(context.Background(), CallHeader("X-Request-Id", "job-1"), CallHeader("X-Tenant", "north"))
	inner := WithCallOptions(outer, CallHeader("X-Request-Id", "step-2"), CallHeader("X-Step", "two"))
	for _, ctx := range []context.Context{outer, inner, outer} {
		if _, err := c.Callbacks.List(ctx); err != nil {
			t.Fatal(err)
		}
	}
	want := []struct{ id, step string }{{"job-1", ""}, {"step-2", "two"}, {"job-1", ""}}
	reqs := srv.requests()
	if len(reqs) != len(want) {
		t.Fatalf("%d requests, want %d", len(reqs), len(want))
	}
	for i, r := range reqs {
		if got := r.Header.Values("X-Request-Id"); len(got) != 1 || got[0] != want[i].id {
			t.Errorf("call %d: X-Request-Id %q, want [%s]", i+1, got, want[i].id)
		}
		if got := r.Header.Get("X-Step"); got != want[i].step {
			t.Errorf("call %d: X-Step %q, want %q", i+1, got, want[i].step)
		}
		if got := r.Header.Get("X-Tenant"); got != "north" {
			t.Errorf("call %d: X-Tenant %q, want north", i+1, got)
		}
	}
}

// An option that cannot be used fails each call of its context with a
// *ValidationError naming it, the first one given, before anything is
// sent, hooked or filled in; the value of a refused header is not shown.
func TestCallOptionsRefused(t *testing.T) {
	const secret = "Bearer eyJ-do-not-show"
	for _, tc := range []struct {
		opts  []CallOption
		field string
	}{
		{[]CallOption{CallMaxRetries(-1)}, "CallMaxRetries"},
		{[]CallOption{CallMaxRetries(101)}, "CallMaxRetries"},
		{[]CallOption{CallRetryWait(2*time.Second, time.Second)}, "CallRetryWait"},
		{[]CallOption{CallRetryWait(-time.Second, time.Second)}, "CallRetryWait"},
		{[]CallOption{CallTimeout(-time.Second)}, "CallTimeout"},
		{[]CallOption{CallMaxRetryAfter(-time.Second)}, "CallMaxRetryAfter"},
		{[]CallOption{CallHeader("Authorization", secret)}, "CallHeader"},
		{[]CallOption{CallHeader("authorization", secret)}, "CallHeader"},
		{[]CallOption{CallHeader("Content-Type", "text/plain")}, "CallHeader"},
		{[]CallOption{CallHeader("User-Agent", "other")}, "CallHeader"},
		{[]CallOption{CallHeader("Host", "example.com")}, "CallHeader"},
		{[]CallOption{CallHeader("Accept-Encoding", "br")}, "CallHeader"},
		{[]CallOption{CallHeader("Transfer-Encoding", "chunked")}, "CallHeader"},
		{[]CallOption{CallHeader("X Bad", "1")}, "CallHeader"},
		{[]CallOption{CallHeader("X-Bad:", "1")}, "CallHeader"},
		{[]CallOption{CallHeader("X-Ünicode", "1")}, "CallHeader"},
		{[]CallOption{CallHeader("", "1")}, "CallHeader"},
		{[]CallOption{CallHeader("X-Ok", "a\r\nX-Injected: 1")}, "CallHeader"},
		{[]CallOption{CallHeader("X-Ok", "a\x00b")}, "CallHeader"},
		{[]CallOption{CallTimeout(time.Second), CallMaxRetries(-1), CallTimeout(-1)}, "CallMaxRetries"},
	} {
		srv := newAPIServer(t, ok(`[]`))
		var hooked atomic.Int32
		c := newTestClient(t, srv, WithHooks(Hooks{CallStart: func(ctx context.Context, _ CallInfo) context.Context {
			hooked.Add(1)
			return ctx
		}}))
		meta := Response{StatusCode: -1}
		ctx := WithCallOptions(WithResponseInto(context.Background(), &meta), tc.opts...)
		_, err := c.Callbacks.List(ctx)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != tc.field || !errors.Is(err, ErrInvalidParams) {
			t.Errorf("%s: err = %v, want a *ValidationError of %s", tc.field, err, tc.field)
			continue
		}
		if strings.Contains(err.Error(), "eyJ") {
			t.Errorf("the error shows the refused header's value: %v", err)
		}
		if srv.count() != 0 || hooked.Load() != 0 || meta.StatusCode != -1 {
			t.Errorf("%v: %d requests, %d hooks, response filled %+v; want none", err, srv.count(), hooked.Load(), meta)
		}
		// An inner WithCallOptions does not mend an outer refusal.
		if _, err := c.Callbacks.List(WithCallOptions(ctx, CallMaxRetries(1))); !errors.As(err, &ve) {
			t.Errorf("inner options over a refused one: err = %v", err)
		}
	}
}

// coMoneyCalls are the calls that move money, as a program makes them.
func coMoneyCalls() []routeCall {
	return []routeCall{
		{routeCartCheckout, func(ctx context.Context, c *Client) error {
			_, err := c.ShoppingCart.Checkout(ctx, &CheckoutParams{ItemIDs: []uuid.UUID{wcItem}, PaymentMethodID: wcCard})
			return err
		}},
		{routeInvoicesPay, func(ctx context.Context, c *Client) error {
			_, err := c.Invoices.Pay(ctx, &InvoicePayParams{InvoiceIDs: []uuid.UUID{wcInvoice}, PaymentMethodID: wcCard})
			return err
		}},
	}
}

// No call option makes a checkout or a payment repeat: after a 5xx or a
// dropped connection it is sent once, of unknown outcome, however many
// retries the call asks for.
func TestCallOptionsNeverRepeatMoneyCalls(t *testing.T) {
	answers := map[string]http.HandlerFunc{
		"503": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "0")
			writeJSON(w, http.StatusServiceUnavailable, `{"message":"busy"}`)
		},
		"500":   func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusInternalServerError, `{}`) },
		"reset": func(w http.ResponseWriter, r *http.Request) { resetConn(w) },
	}
	for name, h := range answers {
		for _, mc := range coMoneyCalls() {
			srv := newAPIServer(t, h)
			c := newTestClient(t, srv, WithMaxRetries(0))
			ctx := WithCallOptions(context.Background(), CallMaxRetries(100), CallRetryWait(0, 0), CallMaxRetryAfter(time.Hour))
			err := mc.call(ctx, c)
			if srv.count() != 1 || !errors.Is(err, ErrOutcomeUnknown) {
				t.Errorf("%s, %s: err = %v after %d requests, want ErrOutcomeUnknown after 1", mc.rt.operation, name, err, srv.count())
			}
		}
	}
}

// The same on generated servers and options: every call sent at most
// once, with any call options, meets a 429 or a 5xx (with or without a
// Retry-After), a connection reset or closed after the request was read,
// or an attempt timeout, and is sent exactly once.
func TestCallOptionsOnMoneyRoutesOnGeneratedServers(t *testing.T) {
	var once []routeCall
	for _, rc := range everyCall() {
		if rc.rt.class == atMostOnce {
			once = append(once, rc)
		}
	}
	rapid.Check(t, func(rt *rapid.T) {
		rc := rapid.SampledFrom(once).Draw(rt, "route")
		fault := rapid.SampledFrom([]string{"429", "500", "502", "503", "504", "reset", "close", "timeout"}).Draw(rt, "fault")
		after := rapid.SampledFrom([]string{"", "0", "1"}).Draw(rt, "retryAfter")
		var opts []CallOption
		if rapid.Bool().Draw(rt, "retries") {
			opts = append(opts, CallMaxRetries(rapid.IntRange(0, 100).Draw(rt, "n")))
		}
		if rapid.Bool().Draw(rt, "wait") {
			opts = append(opts, CallRetryWait(0, time.Duration(rapid.IntRange(0, 2).Draw(rt, "waitMs"))*time.Millisecond))
		}
		if rapid.Bool().Draw(rt, "retryAfterMax") {
			opts = append(opts, CallMaxRetryAfter(time.Duration(rapid.IntRange(0, 3600).Draw(rt, "s"))*time.Second))
		}
		if rapid.Bool().Draw(rt, "header") {
			opts = append(opts, CallHeader("X-Request-Id", "r1"))
		}
		// An attempt timeout long enough for the request to reach the
		// server on a loaded machine: the fault "timeout" is the server's
		// silence, not a request cut before it arrived.
		switch {
		case fault == "timeout":
			opts = append(opts, CallTimeout(time.Duration(rapid.IntRange(200, 400).Draw(rt, "timeoutMs"))*time.Millisecond))
		case rapid.Bool().Draw(rt, "timeout"):
			opts = append(opts, CallTimeout(time.Duration(rapid.IntRange(0, 30).Draw(rt, "timeoutS"))*time.Second))
		}
		clientRetries := rapid.IntRange(0, 5).Draw(rt, "clientRetries")

		var n atomic.Int32
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			switch fault {
			case "reset":
				resetConn(w)
			case "close":
				if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
					conn.Close()
				}
			case "timeout":
				<-r.Context().Done()
			default:
				if after != "" {
					w.Header().Set("Retry-After", after)
				}
				status := map[string]int{"429": 429, "500": 500, "502": 502, "503": 503, "504": 504}[fault]
				writeJSON(w, status, `{"message":"no"}`)
			}
		})
		defer srv.Close()
		c, err := NewClient(testAccessKey, testSecretKey, WithBaseURL(srv.URL), WithMaxRetries(clientRetries),
			WithRetryWait(time.Millisecond, time.Millisecond))
		if err != nil {
			rt.Fatal(err)
		}
		defer c.CloseIdleConnections()
		err = rc.call(WithCallOptions(context.Background(), opts...), c)
		if got := n.Load(); got != 1 {
			rt.Fatalf("%s, %s: %d requests, want 1 (err %v)", rc.rt.operation, fault, got, err)
		}
		if err == nil || (fault != "429") != errors.Is(err, ErrOutcomeUnknown) {
			rt.Fatalf("%s, %s: err = %v, want ErrOutcomeUnknown exactly when the request may have been applied", rc.rt.operation, fault, err)
		}
	})
}

// CallRedact takes its values out of every error, hook and log line of
// the calls made with the context, however an answer groups a number;
// an inner WithCallOptions adds its values and leaves the outer
// context's as they were.
func TestCallRedact(t *testing.T) {
	echo := "name Ada Lovelace ssn 123 45 6789 card 4111-1111-1111-1111 cvc 987 other Byron-Lovelace zip 84101"
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := json.Marshal(map[string]any{"message": echo, "errors": map[string]string{"form_data.name": echo}})
		writeJSON(w, http.StatusBadRequest, string(b))
	})
	var seen []string
	var logs bytes.Buffer
	// Times and durations are left out of the log: their digits could
	// hold a hidden value by chance ("…610667897Z" holds 6789).
	noClock := func(_ []string, a slog.Attr) slog.Attr {
		if k := a.Value.Kind(); k == slog.KindTime || k == slog.KindDuration {
			return slog.Attr{}
		}
		return a
	}
	c := newTestClient(t, srv, WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: noClock}))),
		WithHooks(Hooks{
			CallEnd:    func(ctx context.Context, c CallInfo) { seen = append(seen, fmt.Sprint(c.Err)) },
			AttemptEnd: func(ctx context.Context, a AttemptInfo) { seen = append(seen, fmt.Sprint(a.Err)) },
		}))
	shown := func(ctx context.Context) string {
		seen, logs = nil, bytes.Buffer{}
		_, err := c.ShoppingCart.List(ctx, &CartListParams{CompanyIDs: []uuid.UUID{wcCompany}})
		var ae *APIError
		if !errors.As(err, &ae) || ae.StatusCode != http.StatusBadRequest {
			t.Fatalf("err = %v, want the 400", err)
		}
		j, _ := json.Marshal(err)
		return strings.Join(append(seen, err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", ae), string(j), ae.Message, string(ae.Body), logs.String()), "\n")
	}
	if s := shown(context.Background()); !strings.Contains(s, "Ada Lovelace") {
		t.Fatalf("without CallRedact the echo is not shown, the test shows nothing: %s", s)
	}
	outer := WithCallOptions(context.Background(), CallRedact("Ada Lovelace", "123-45-6789", "4111111111111111", "987", "84101"))
	inner := WithCallOptions(outer, CallRedact("Byron-Lovelace"))
	for name, tc := range map[string]struct {
		ctx        context.Context
		hid, shows []string
	}{
		"outer": {outer, []string{"Ada Lovelace", "6789", "1111", "987", "84101"}, []string{"Byron-Lovelace"}},
		"inner": {inner, []string{"Ada Lovelace", "6789", "1111", "987", "84101", "Byron-Lovelace"}, nil},
	} {
		s := shown(tc.ctx)
		for _, v := range tc.hid {
			if strings.Contains(s, v) {
				t.Errorf("%s: %q shown:\n%s", name, v, s)
			}
		}
		for _, v := range tc.shows {
			if !strings.Contains(s, v) {
				t.Errorf("%s: %q redacted, though only an inner context names it:\n%s", name, v, s)
			}
		}
	}
}
