package acctadmin

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
)

// Each test below states how go-retryablehttp v0.7.8 at its defaults would
// make it fail: they pin down the ways the transport is configured rather
// than left alone.

// --- helpers ---------------------------------------------------------------

func (l *tpLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *tpLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// records returns the log records with the message msg ("" for all).
func (l *tpLog) records(t *testing.T, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.String()), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if msg == "" || rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// tpLogger returns a Debug-level JSON logger; whatever it writes is checked
// for secrets when the test ends.
func tpLogger(t *testing.T) (*slog.Logger, *tpLog) {
	t.Helper()
	l := &tpLog{}
	t.Cleanup(func() { tpNoSecrets(t, "log", l.String()) })
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug})), l
}

var (
	tpJWTLike = regexp.MustCompile(`eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+`)
	// An HS256 signature is 43 base64url characters.
	tpSignatureLike = regexp.MustCompile(`[A-Za-z0-9_-]{43}`)
)

// tpNoSecrets fails the test when text holds the secret key, a token, a
// token's signature, a Bearer header, or any of extra (query strings and
// the like).
func tpNoSecrets(t *testing.T, where, text string, extra ...string) {
	t.Helper()
	for _, s := range append([]string{testSecretKey, "Bearer ", "Bearer", "Authorization"}, extra...) {
		if s != "" && strings.Contains(text, s) {
			t.Errorf("%s holds %q: %s", where, s, text)
		}
	}
	if m := tpJWTLike.FindString(text); m != "" {
		t.Errorf("%s holds a token %q", where, m)
	}
	if m := tpSignatureLike.FindString(text); m != "" {
		t.Errorf("%s holds what looks like a signature %q", where, m)
	}
}

// tpStatuses answers the statuses in turn (the last one from then on);
// status 200 answers the envelope around result.
func tpStatuses(result string, statuses ...int) http.HandlerFunc {
	var n atomic.Int32
	return func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		if i >= len(statuses) {
			i = len(statuses) - 1
		}
		if statuses[i] == http.StatusOK {
			ok(result)(w, r)
			return
		}
		writeJSON(w, statuses[i], fmt.Sprintf(`{"success":false,"message":"failure %d"}`, i+1))
	}
}

var tpCallbackID = uuid.MustParse("0b7e6d5c-4a3b-4c2d-8e1f-0a9b8c7d6e5f")

// --- retries: which calls are sent again --------------------------------

// Default config fails: DefaultRetryPolicy retries a POST on 503 (5 sends).
func TestRetryPostNotRetriedOn503(t *testing.T) {
	srv := newAPIServer(t, tpStatuses("", http.StatusServiceUnavailable))
	c := newTestClient(t, srv)
	_, err := c.Callbacks.Create(context.Background(), "https://example.com/hook")
	apiErr := tpAPIError(t, tpErr(t, err))
	if apiErr.StatusCode != http.StatusServiceUnavailable || !errors.Is(err, ErrServer) {
		t.Errorf("err = %v, want a 503 that is ErrServer", err)
	}
	if apiErr.Method != http.MethodPost || apiErr.Path != "/callbacks" || apiErr.Message != "failure 1" {
		t.Errorf("APIError = %+v", apiErr)
	}
	if n := srv.count(); n != 1 {
		t.Errorf("POST sent %d times, want exactly once", n)
	}
}

// Default config fails: a connection dropped after the request was sent is
// retried for every method, so the POST would be sent 5 times.
func TestRetryPostNotRetriedAfterDroppedConnection(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	})
	c := newTestClient(t, srv)
	_, err := c.Callbacks.Create(context.Background(), "https://example.com/hook")
	te := tpTransportError(t, tpErr(t, err))
	if te.Method != http.MethodPost || te.Path != "/callbacks" || te.Attempts != 1 {
		t.Errorf("TransportError = %+v", te)
	}
	if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("cause = %v, want the broken connection", te.Err)
	}
	if n := srv.count(); n != 1 {
		t.Errorf("POST sent %d times, want exactly once", n)
	}
}

// tpDialFailOnce fails its first round trip as a connection that could
// not be made, then delegates.
type tpDialFailOnce struct {
	calls atomic.Int32
	base  *http.Transport
}

func (d *tpDialFailOnce) RoundTrip(r *http.Request) (*http.Response, error) {
	if d.calls.Add(1) == 1 {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
	return d.base.RoundTrip(r)
}

func (d *tpDialFailOnce) CloseIdleConnections() { d.base.CloseIdleConnections() }

// Default config passes this one (it retries every method after any
// connection error). It is here so that the POST rules above do not go too
// far: a request that never left is safe to send again.
func TestRetryPostRetriedWhenConnectFails(t *testing.T) {
	srv := newAPIServer(t, ok(authCallbackJSON))
	rt := &tpDialFailOnce{base: &http.Transport{}}
	c := newTestClient(t, srv, WithHTTPClient(&http.Client{Transport: rt}))
	cb, err := c.Callbacks.Create(context.Background(), "https://example.com/hook")
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if cb.URL != "https://example.com/hook" {
		t.Errorf("callback = %+v", cb)
	}
	if n := rt.calls.Load(); n != 2 {
		t.Errorf("%d attempts, want 2", n)
	}
	r := srv.last(t)
	if srv.count() != 1 || !r.AuthOK || r.Body != `{"url":"https://example.com/hook"}` {
		t.Errorf("server got %d requests, last %+v", srv.count(), r)
	}
}

// Default config fails the POST rows: DefaultRetryPolicy retries a POST on
// 429 and 5xx. (It agrees with the GET and DELETE rows, which pin down the
// exact counts and sentinels.)
func TestRetryGetAndDelete(t *testing.T) {
	ctx := context.Background()
	t.Run("503 503 200", func(t *testing.T) {
		srv := newAPIServer(t, tpStatuses("["+authCallbackJSON+"]", 503, 503, 200))
		c := newTestClient(t, srv)
		cbs, err := c.Callbacks.List(ctx)
		if err != nil || len(cbs) != 1 {
			t.Fatalf("List = %v, %v", cbs, err)
		}
		if n := srv.count(); n != 3 {
			t.Errorf("%d requests, want 3", n)
		}
	})
	for _, status := range []int{500, 502, 504, 429} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			srv := newAPIServer(t, tpStatuses("[]", status, 200))
			c := newTestClient(t, srv)
			if _, err := c.Callbacks.List(ctx); err != nil {
				t.Fatal(err)
			}
			if n := srv.count(); n != 2 {
				t.Errorf("%d requests, want 2", n)
			}
		})
	}
	for _, tc := range []struct {
		status   int
		sentinel error
	}{
		{400, nil},
		{401, ErrUnauthorized},
		{403, ErrForbidden},
		{404, ErrNotFound},
	} {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			srv := newAPIServer(t, tpStatuses("[]", tc.status, 200))
			c := newTestClient(t, srv)
			_, err := c.Callbacks.List(ctx)
			apiErr := tpAPIError(t, tpErr(t, err))
			if apiErr.StatusCode != tc.status || apiErr.Message != "failure 1" {
				t.Errorf("APIError = %+v", apiErr)
			}
			if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
				t.Errorf("errors.Is(err, %v) = false", tc.sentinel)
			}
			for _, other := range []error{ErrServer, ErrRateLimited} {
				if errors.Is(err, other) {
					t.Errorf("a %d is %v", tc.status, other)
				}
			}
			if n := srv.count(); n != 1 {
				t.Errorf("%d requests, want 1 (no retry of a %d)", n, tc.status)
			}
		})
	}
	for _, status := range []int{500, 502, 503, 504, 429} {
		t.Run("post "+strconv.Itoa(status), func(t *testing.T) {
			srv := newAPIServer(t, tpStatuses(authCallbackJSON, status, 200))
			c := newTestClient(t, srv)
			_, err := c.Callbacks.Create(ctx, "https://example.com/hook")
			if apiErr := tpAPIError(t, tpErr(t, err)); apiErr.StatusCode != status {
				t.Errorf("status = %d, want %d", apiErr.StatusCode, status)
			}
			if n := srv.count(); n != 1 {
				t.Errorf("POST sent %d times, want once", n)
			}
		})
	}
	t.Run("delete 503 503 200", func(t *testing.T) {
		srv := newAPIServer(t, tpStatuses("null", 503, 503, 200))
		c := newTestClient(t, srv)
		if err := c.Callbacks.Delete(ctx, tpCallbackID); err != nil {
			t.Fatal(err)
		}
		reqs := srv.requests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests, want 3", len(reqs))
		}
		for _, r := range reqs {
			if r.Method != http.MethodDelete || r.Path != "/callbacks/"+tpCallbackID.String() || !r.AuthOK {
				t.Errorf("request %+v", r)
			}
		}
	})
}

// Default config fails: it gives up with its own error ("giving up after 3
// attempt(s)", with the URL) rather than the API's last answer.
func TestRetryMaxRetries(t *testing.T) {
	ctx := context.Background()
	t.Run("zero", func(t *testing.T) {
		srv := newAPIServer(t, tpStatuses("[]", 503, 200))
		c := newTestClient(t, srv, WithMaxRetries(0))
		_, err := c.Callbacks.List(ctx)
		if apiErr := tpAPIError(t, tpErr(t, err)); apiErr.StatusCode != 503 {
			t.Errorf("status = %d", apiErr.StatusCode)
		}
		if n := srv.count(); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})
	t.Run("two", func(t *testing.T) {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusServiceUnavailable, `{"success":false,"message":"maintenance until noon"}`)
		})
		c := newTestClient(t, srv, WithMaxRetries(2))
		_, err := c.Callbacks.List(ctx)
		apiErr := tpAPIError(t, tpErr(t, err))
		if apiErr.StatusCode != 503 || apiErr.Message != "maintenance until noon" || !errors.Is(err, ErrServer) {
			t.Errorf("APIError = %+v, want the server's 503 and message", apiErr)
		}
		if !strings.Contains(string(apiErr.Body), "maintenance until noon") {
			t.Errorf("Body = %q", apiErr.Body)
		}
		if n := srv.count(); n != 3 {
			t.Errorf("%d requests, want 3", n)
		}
	})
	if _, err := NewClient(testAccessKey, testSecretKey, WithMaxRetries(-1)); err == nil {
		t.Error("WithMaxRetries(-1) accepted")
	}
}

// Default config fails: retry waits go to the library's own logger, not
// to a slog record with method, path, status, attempt and wait.
func TestRetryAfterSecondsOn429(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, http.StatusTooManyRequests, `{"success":false,"message":"slow down"}`)
			return
		}
		ok("[]")(w, r)
	})
	logger, logs := tpLogger(t)
	c := newTestClient(t, srv, WithLogger(logger))
	start := time.Now()
	if _, err := c.Callbacks.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed < time.Second {
		t.Errorf("returned after %s, want at least the 1s Retry-After", elapsed)
	}
	warns := logs.records(t, "acctadmin: retrying")
	if len(warns) != 1 {
		t.Fatalf("%d retry records, want 1: %s", len(warns), logs)
	}
	w := warns[0]
	want := map[string]any{"level": "WARN", "wait": float64(time.Second), "status": float64(429), "attempt": float64(1), "method": "GET", "path": "/callbacks"}
	for k, v := range want {
		if w[k] != v {
			t.Errorf("retry record %s = %v, want %v", k, w[k], v)
		}
	}
	if n := srv.count(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// Default config fails: Retry-After is only read on 429 and 503.
func TestRetryAfterOn500(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, http.StatusInternalServerError, `{"success":false}`)
			return
		}
		ok("[]")(w, r)
	})
	logger, logs := tpLogger(t)
	c := newTestClient(t, srv, WithLogger(logger))
	start := time.Now()
	if _, err := c.Callbacks.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed < time.Second {
		t.Errorf("returned after %s, want at least the 1s Retry-After", elapsed)
	}
	warns := logs.records(t, "acctadmin: retrying")
	if len(warns) != 1 || warns[0]["wait"] != float64(time.Second) || warns[0]["status"] != float64(500) {
		t.Errorf("retry records = %v, want one with wait 1s and status 500", warns)
	}
}

// Default config fails: an HTTP date is read, but only on 429 and 503; on
// 502 the default backoff applies.
func TestRetryAfterHTTPDate(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", time.Now().Add(2*time.Second).UTC().Format(http.TimeFormat))
			writeJSON(w, http.StatusBadGateway, `{"success":false}`)
			return
		}
		ok("[]")(w, r)
	})
	logger, logs := tpLogger(t)
	c := newTestClient(t, srv, WithLogger(logger))
	start := time.Now()
	if _, err := c.Callbacks.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	warns := logs.records(t, "acctadmin: retrying")
	if len(warns) != 1 {
		t.Fatalf("retry records = %v", warns)
	}
	// The date has whole seconds, so the wait is between 1s and 2s.
	wait, _ := warns[0]["wait"].(float64)
	if time.Duration(wait) < 900*time.Millisecond || time.Duration(wait) > 2*time.Second {
		t.Errorf("wait = %s, want the 1-2s until the date", time.Duration(wait))
	}
	if elapsed := time.Since(start); elapsed < time.Duration(wait) {
		t.Errorf("returned after %s, before the wait of %s", elapsed, time.Duration(wait))
	}
}

// retryAfter reads seconds and HTTP dates (the three formats of RFC 9110)
// against the given now; a negative or unreadable value is no Retry-After
// at all (the client's own backoff applies), and one longer than a day is
// a day.
func TestRetryAfterParse(t *testing.T) {
	now := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"1", time.Second, true},
		{" 120 ", 2 * time.Minute, true},
		{"0", 0, true},
		{"3600", time.Hour, true},
		{"99999999999", 24 * time.Hour, true},
		{"Wed, 01 May 2024 10:00:02 GMT", 2 * time.Second, true},
		{"Wed, 01 May 2024 10:05:00 GMT", 5 * time.Minute, true},
		{"Wednesday, 01-May-24 10:00:30 GMT", 30 * time.Second, true},
		{"Wed, 01 May 2024 09:59:00 GMT", 0, true},
		{"-1", 0, false},
		{"-3600", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{"Wed, 01 May 2024 25:00:00 GMT", 0, false},
		{"", 0, false},
		{"   ", 0, false},
		{" 5 ", 5 * time.Second, true},
		{"86400", 24 * time.Hour, true},
		{"86401", 24 * time.Hour, true},
	} {
		got, gotOK := retryAfter(tc.in, now)
		if got != tc.want || gotOK != tc.wantOK {
			t.Errorf("retryAfter(%q) = %s, %v; want %s, %v", tc.in, got, gotOK, tc.want, tc.wantOK)
		}
	}
}

// Default config fails: it sleeps for the whole hour (Retry-After is not
// capped by RetryWaitMax).
func TestRetryAfterOverCap(t *testing.T) {
	for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "3600")
				writeJSON(w, status, `{"success":false,"message":"quota exhausted"}`)
			})
			c := newTestClient(t, srv)
			start := time.Now()
			_, err := c.Callbacks.List(context.Background())
			apiErr := tpAPIError(t, tpErr(t, err))
			if !errors.Is(err, ErrRateLimited) || apiErr.StatusCode != status || apiErr.RetryAfter != time.Hour || apiErr.Message != "quota exhausted" {
				t.Errorf("err = %v (RetryAfter %s), want ErrRateLimited with RetryAfter 1h", err, apiErr.RetryAfter)
			}
			if n := srv.count(); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
			if elapsed := time.Since(start); elapsed > 10*time.Second {
				t.Errorf("took %s: it waited", elapsed)
			}
		})
	}
}

// Default config fails the 500 row: it reads Retry-After only on 429 and
// 503, so it would retry the 500 at once instead of waiting.
func TestRetryCancelEndsWait(t *testing.T) {
	for _, status := range []int{http.StatusServiceUnavailable, http.StatusInternalServerError} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "30")
				writeJSON(w, status, `{"success":false}`)
			})
			c := newTestClient(t, srv)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var cancelled atomic.Int64
			timer := time.AfterFunc(100*time.Millisecond, func() {
				cancelled.Store(time.Now().UnixNano())
				cancel()
			})
			defer timer.Stop()
			_, err := c.Callbacks.List(ctx)
			returned := time.Now()
			if !errors.Is(tpErr(t, err), context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			at := cancelled.Load()
			if at == 0 {
				t.Fatal("the call returned before the cancel")
			}
			if d := returned.Sub(time.Unix(0, at)); d > 50*time.Millisecond {
				t.Errorf("returned %s after the cancel, want within 50ms", d)
			}
			if n := srv.count(); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
			if te := tpTransportError(t, err); te.Attempts != 1 || te.Path != "/callbacks" {
				t.Errorf("TransportError = %+v", te)
			}
		})
	}
}

// Default config fails: DefaultBackoff has no jitter (every draw equal).
func TestRetryBackoffJitter(t *testing.T) {
	c, err := NewClient(testAccessKey, testSecretKey, WithRetryWait(100*time.Millisecond, 2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	// Retry n waits between min·2ⁿ⁻¹ and twice that, capped at max; the
	// fifth retry and later reach the cap: 1.6s to 2s.
	for n := 1; n <= 8; n++ {
		lo := 100 * time.Millisecond << (n - 1)
		hi := 2 * lo
		if n >= 5 {
			lo, hi = 1600*time.Millisecond, 2*time.Second
		}
		seen := map[time.Duration]bool{}
		for range 200 {
			got := c.backoff(n)
			if got < lo || got > hi {
				t.Fatalf("backoff(%d) = %s, want within [%s, %s]", n, got, lo, hi)
			}
			seen[got] = true
		}
		if len(seen) < 2 {
			t.Errorf("backoff(%d): 200 draws all %v, want jitter", n, seen)
		}
	}
	// Degenerate bounds stay in range and do not loop.
	c0, _ := NewClient(testAccessKey, testSecretKey, WithRetryWait(0, 0))
	if got := c0.backoff(5); got != 0 {
		t.Errorf("backoff with zero bounds = %s", got)
	}
	c1, _ := NewClient(testAccessKey, testSecretKey, WithRetryWait(time.Second, time.Second))
	if got := c1.backoff(64); got != time.Second {
		t.Errorf("backoff(64) = %s, want 1s", got)
	}
}

// Default config fails: it writes no slog retry record and its give-up
// error hides the attempts. The test also holds the SDK's own hook to the
// backoff after a connection error, when there is no response to carry
// the chosen wait: the retries must not be instant.
func TestRetryConnectErrorWaits(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	base := dead.URL
	dead.Close()
	logger, logs := tpLogger(t)
	c, err := NewClient(testAccessKey, testSecretKey, WithBaseURL(base), WithLogger(logger),
		WithRetryWait(40*time.Millisecond, 40*time.Millisecond), WithMaxRetries(2))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.Callbacks.List(context.Background())
	te := tpTransportError(t, tpErr(t, err))
	if te.Attempts != 3 {
		t.Errorf("Attempts = %d, want 3", te.Attempts)
	}
	// Two waits of at least 20ms each (40ms with jitter in its upper half).
	if elapsed := time.Since(start); elapsed < 40*time.Millisecond {
		t.Errorf("3 attempts took %s, want at least 40ms of backoff", elapsed)
	}
	warns := logs.records(t, "acctadmin: retrying")
	if len(warns) != 2 {
		t.Fatalf("%d retry records, want 2", len(warns))
	}
	for _, w := range warns {
		if wait, _ := w["wait"].(float64); time.Duration(wait) < 20*time.Millisecond {
			t.Errorf("retry record wait = %s, want the backoff", time.Duration(wait))
		}
		if e, _ := w["error"].(string); e == "" {
			t.Errorf("retry record has no error: %v", w)
		}
	}
}

// --- connections ----------------------------------------------------------

// Default config fails: it drains only 4 KiB of a discarded answer, so
// each 200 KiB error body costs a new connection (3 in all).
func TestTransportDrainsDiscardedBodies(t *testing.T) {
	var conns atomic.Int32
	var n atomic.Int32
	big := `{"success":false,"message":"busy","padding":"` + strings.Repeat("x", 200<<10) + `"}`
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 2 {
			writeJSON(w, http.StatusServiceUnavailable, big)
			return
		}
		ok("[]")(w, r)
	}))
	hs.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	hs.Start()
	t.Cleanup(hs.Close)
	c := newTestClient(t, &apiServer{Server: hs})
	if _, err := c.Callbacks.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := n.Load(); got != 3 {
		t.Errorf("%d requests, want 3", got)
	}
	if got := conns.Load(); got != 1 {
		t.Errorf("%d connections, want 1 (discarded bodies drained)", got)
	}
}

// --- what errors and logs may say ----------------------------------------

// Default config fails: its give-up error is "GET http://127.0.0.1:PORT/
// services?company=... giving up after 4 attempt(s)". The error names
// the host (connect to http://127.0.0.1:PORT), not the path's query.
func TestSecretNotInTransportError(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	base := dead.URL
	dead.Close()
	u, _ := url.Parse(base)
	logger, logs := tpLogger(t)
	c, err := NewClient(testAccessKey, testSecretKey, WithBaseURL(base), WithLogger(logger),
		WithRetryWait(time.Millisecond, 2*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Services.List(context.Background(), &ServiceListParams{Company: "Acme Secretive Co"})
	te := tpTransportError(t, err)
	msg := err.Error()
	// The error names the host it could not connect to, and nothing more
	// of the URL; the log lines not even that.
	if !strings.Contains(msg, ": connect to "+base+": ") {
		t.Errorf("error %q does not name %s", msg, base)
	}
	for _, bad := range []string{"?", "company=", "Acme", u.Port(), testSecretKey, testAccessKey, "Bearer"} {
		if strings.Contains(strings.Replace(msg, base, "", 1), bad) {
			t.Errorf("error %q holds %q", msg, bad)
		}
		if strings.Contains(logs.String(), bad) {
			t.Errorf("log holds %q: %s", bad, logs)
		}
	}
	tpNoSecrets(t, "error", msg)
	if te.Method != http.MethodGet || te.Path != "/services" || te.Attempts != 4 {
		t.Errorf("TransportError = %+v", te)
	}
	var op *net.OpError
	if !errors.Is(err, syscall.ECONNREFUSED) && !errors.As(err, &op) {
		t.Errorf("cause %v: neither ECONNREFUSED nor a *net.OpError is reachable", te.Err)
	}
	if !strings.Contains(msg, "GET /services") || !strings.Contains(msg, "refused") {
		t.Errorf("error %q does not say what failed", msg)
	}
}

// Default config fails: its default logger prints every request and retry
// to stderr. That logger holds the os.Stderr of package start-up, so a
// second process (this test binary again) runs the call with its stderr
// captured; the swap of os.Stderr in this process catches anything that
// looks os.Stderr up when it writes.
func TestLogSilentByDefault(t *testing.T) {
	if os.Getenv("ACCTADMIN_SILENT_CHILD") == "1" {
		tpFailingCalls(t)
		return
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	log.SetOutput(w)
	tpFailingCalls(t)
	os.Stderr = stderr
	log.SetOutput(stderr)
	w.Close()
	printed, _ := io.ReadAll(r)
	r.Close()
	if len(printed) != 0 {
		t.Errorf("the client wrote to stderr: %q", printed)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestLogSilentByDefault$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "ACCTADMIN_SILENT_CHILD=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s%s", err, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "--- PASS: TestLogSilentByDefault") {
		t.Fatalf("child did not run the calls:\n%s", out.String())
	}
	if errOut.Len() != 0 {
		t.Errorf("the client wrote to stderr: %q", errOut.String())
	}
}

// tpFailingCalls makes calls that retry and fail, with no logger.
func tpFailingCalls(t *testing.T) {
	srv := newAPIServer(t, tpStatuses("", 503))
	c := newTestClient(t, srv, WithMaxRetries(2))
	if _, err := c.Callbacks.List(context.Background()); !errors.Is(err, ErrServer) {
		t.Errorf("err = %v, want ErrServer", err)
	}
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	c2 := newTestClient(t, &apiServer{Server: dead}, WithMaxRetries(1))
	_, err := c2.Services.List(context.Background(), &ServiceListParams{Company: "Acme"})
	tpTransportError(t, err)
	if n := srv.count(); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

// Default config fails: its logger is not slog and prints the URL.
func TestLogRecords(t *testing.T) {
	srv := newAPIServer(t, tpStatuses("[]", 503, 503, 200))
	logger, logs := tpLogger(t)
	c := newTestClient(t, srv, WithLogger(logger))
	if _, err := c.Services.List(context.Background(), &ServiceListParams{Company: "Acme Secretive Co", Limit: 7}); err != nil {
		t.Fatal(err)
	}

	reqs := logs.records(t, "acctadmin: request")
	resps := logs.records(t, "acctadmin: response")
	warns := logs.records(t, "acctadmin: retrying")
	if len(reqs) != 3 || len(resps) != 3 || len(warns) != 2 {
		t.Fatalf("%d request, %d response, %d retry records; want 3, 3, 2:\n%s", len(reqs), len(resps), len(warns), logs)
	}
	for i := range 3 {
		for _, rec := range []map[string]any{reqs[i], resps[i]} {
			if rec["level"] != "DEBUG" || rec["method"] != "GET" || rec["path"] != "/services" || rec["attempt"] != float64(i+1) {
				t.Errorf("attempt %d: record %v", i+1, rec)
			}
		}
		wantStatus := float64(503)
		if i == 2 {
			wantStatus = 200
		}
		if resps[i]["status"] != wantStatus {
			t.Errorf("response %d status = %v, want %v", i+1, resps[i]["status"], wantStatus)
		}
	}
	for i, w := range warns {
		if w["level"] != "WARN" || w["attempt"] != float64(i+1) || w["status"] != float64(503) || w["wait"] == nil {
			t.Errorf("retry record %d: %v", i+1, w)
		}
	}

	// Nothing of the credentials or the query string is in any record.
	var sigs []string
	for _, r := range srv.requests() {
		if r.RawQuery == "" {
			t.Fatal("the request carried no query string")
		}
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		sigs = append(sigs, tok, tok[strings.LastIndexByte(tok, '.')+1:])
	}
	tpNoSecrets(t, "log", logs.String(), append(sigs, "?", "company=", "Acme", "limit=", srv.requests()[0].RawQuery)...)
}

// --- reading answers ------------------------------------------------------

// JSON answers are read through a 32 MiB cap, however they arrive. One of
// exactly the cap is read; a larger one is a *DecodeError that is
// ErrResponseTooLarge, after one request (an oversized answer is not
// retried), with no more than the cap held: with a Content-Length, in
// chunks, gzipped (where the last bytes come with the end of the stream,
// in one read), announced on its headers with a body that never comes
// (refused on the headers, not in a timeout), and 1 GiB generated as it is
// sent. The retry library hands the body over unread: reading it with
// io.ReadAll, as its users commonly do, holds all of it.
func TestJSONSizeCap(t *testing.T) {
	answer := func(size int) []byte {
		const head, tail = `{"success":true,"result":[]`, `}`
		return []byte(head + strings.Repeat(" ", size-len(head)-len(tail)) + tail)
	}
	chunked := func(body []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			// Two writes and a flush: no Content-Length.
			_, _ = w.Write(body[:len(body)/2])
			w.(http.Flusher).Flush()
			_, _ = w.Write(body[len(body)/2:])
		}
	}
	gzipped := func(body []byte) http.HandlerFunc {
		var zipped bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&zipped, gzip.BestSpeed)
		_, _ = zw.Write(body)
		_ = zw.Close()
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(zipped.Bytes())
		}
	}
	atCap, overCap := answer(maxJSONBody), answer(maxJSONBody+1)
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		ok      bool
	}{
		{"at the cap, chunked", chunked(atCap), true},
		{"at the cap, gzip", gzipped(atCap), true},
		{"one byte over, chunked", chunked(overCap), false},
		{"one byte over, gzip", gzipped(overCap), false},
		{"33 MiB in writes of 33 KiB", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"success":true,"result":[`)
			chunk := []byte(strings.Repeat(`"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",`, 1<<10))
			for i := 0; i < 33<<20/len(chunk)+1; i++ {
				if _, err := w.Write(chunk); err != nil {
					return // the client stopped reading
				}
			}
			_, _ = io.WriteString(w, `"x"]}`)
		}, false},
		{"announced over the cap, never sent", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(maxJSONBody+1))
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"success":true,`))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, tc.handler)
			c := newTestClient(t, srv, WithMaxRetries(1), WithTimeout(time.Second))
			_, err := c.Callbacks.List(context.Background())
			if tc.ok {
				if err != nil {
					t.Fatalf("an answer of exactly the cap: %v", err)
				}
				return
			}
			hsWantTooLarge(t, tpErr(t, err), "GET /callbacks")
			if n := srv.count(); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
	for _, contentLength := range []bool{false, true} {
		t.Run(fmt.Sprintf("1 GiB as it is sent, Content-Length %v", contentLength), func(t *testing.T) {
			const size = 1 << 30
			prefix := []byte(`{"success":true,"result":[`)
			srv := newHostileServer(t, func(s *hsServer, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if contentLength {
					w.Header().Set("Content-Length", strconv.Itoa(size))
				}
				n, _ := w.Write(prefix)
				s.sent.Add(int64(n))
				s.stream(w, r, hsItem, size-int64(len(prefix)))
			})
			c := newTestClient(t, srv.apiServer)
			res := hsMeasure(t, func(ctx context.Context) error {
				_, err := c.Callbacks.List(ctx)
				return err
			})
			hsWantTooLarge(t, res.err, "GET /callbacks")
			if res.alloc > hsMemBound {
				t.Errorf("the call allocated %d MiB, want under %d MiB", res.alloc>>20, hsMemBound>>20)
			}
			if sent := srv.settled(t); sent > 128<<20 {
				t.Errorf("the server sent %d MiB before the client hung up, want about the 32 MiB cap", sent>>20)
			}
			if n := srv.count(); n != 1 {
				t.Errorf("%d requests, want 1 (an oversized answer is not retried)", n)
			}
		})
	}
}

// Redirects of a read. The retry library leaves them to the inner
// http.Client, which at its defaults follows one to another host (and, the
// same host on another port, keeps the Authorization header), sends the
// redirected request with the signature of the old path, and, since Go
// 1.24, drops Content-Type. The SDK follows a same-host, same-scheme
// redirect of a read or a repeatable delete, signed anew for its path, up
// to maxRedirects; every other redirect is the answer, as an *APIError
// whose message names neither a host nor the Location's credentials. Writes
// follow none (TestRedirectOnWriteNotFollowed).
func TestRedirects(t *testing.T) {
	other := newAPIServer(t, ok("[]"))
	to := func(status int, loc func(self string) string) func(self string) http.HandlerFunc {
		return func(self string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Location", loc(self))
				w.WriteHeader(status)
			}
		}
	}
	chain := func(hops int) func(string) http.HandlerFunc {
		return func(string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/hop"))
				if r.URL.Path == "/callbacks" || n < hops {
					http.Redirect(w, r, "/hop"+strconv.Itoa(n+1), http.StatusFound)
					return
				}
				ok("[]")(w, r)
			}
		}
	}
	for _, tc := range []struct {
		name    string
		handler func(self string) http.HandlerFunc
		status  int    // the redirect answered as an *APIError; 0 for success
		message string // its message, when one is wanted
		reqs    int    // the requests the server gets; -1 for at most 1+maxRedirects
	}{
		{"other host", to(302, func(string) string { return other.URL + "/callbacks?from=redirect" }), 302, "", 1},
		{"other host, 307", to(307, func(string) string { return "http://127.0.0.2:1/callbacks" }), 307, "", -1},
		{"scheme change", to(302, func(self string) string { return strings.Replace(self, "http://", "https://", 1) + "/callbacks" }), 302, "", 1},
		{"scheme change, 307", to(307, func(self string) string { return strings.Replace(self, "http://", "https://", 1) + "/callbacks" }), 307, "", -1},
		{"credentials in Location", to(307, func(self string) string {
			u, _ := url.Parse(self)
			u.User = url.UserPassword("intruder", "pw")
			return u.String() + "/callbacks"
		}), 307, "", -1},
		{"protocol-relative", to(307, func(string) string { return "//127.0.0.2:1/callbacks" }), 307, "", -1},
		{"loop on the same host", to(307, func(self string) string { return self + "/callbacks" }), 307, "", -1},
		{"a status Go does not follow", to(300, func(string) string { return "/elsewhere" }), 300, "redirect not followed", 1},
		{"a chain of four", chain(4), 0, "", 5},
		{"a chain of five", chain(5), 302, "redirect not followed: too many redirects", maxRedirects},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var srv *apiServer
			srv = newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { tc.handler(srv.URL)(w, r) })
			_, err := newTestClient(t, srv).Callbacks.List(context.Background())
			tpErr(t, err, "from=redirect", "intruder", "pw@", "127.0.0.2")
			if tc.status == 0 {
				if err != nil {
					t.Fatalf("err = %v, want the redirects followed", err)
				}
			} else if ae := tpAPIError(t, err); ae.StatusCode != tc.status || (tc.message != "" && ae.Message != tc.message) {
				t.Errorf("err = %v, want the %d as an *APIError (message %q)", err, tc.status, tc.message)
			}
			reqs := srv.requests()
			if (tc.reqs >= 0 && len(reqs) != tc.reqs) || len(reqs) > 1+maxRedirects {
				t.Errorf("%d requests, want %d", len(reqs), tc.reqs)
			}
			for _, r := range reqs {
				if !r.AuthOK {
					t.Errorf("%s %s reached the server unsigned: %s", r.Method, r.Path, r.AuthErr)
				}
			}
			if n := other.count(); n != 0 {
				t.Errorf("the other host got %d requests (headers %v)", n, other.last(t).Header)
			}
		})
	}

	t.Run("same host, signed anew", func(t *testing.T) {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.URL.Path == "/callbacks":
				http.Redirect(w, r, "/v2/callbacks", http.StatusFound)
			case strings.HasPrefix(r.URL.Path, "/callbacks/"):
				http.Redirect(w, r, "/v2"+r.URL.Path, http.StatusTemporaryRedirect)
			case r.URL.Path == "/v2/callbacks":
				ok("["+authCallbackJSON+"]")(w, r)
			case strings.HasPrefix(r.URL.Path, "/v2/callbacks/"):
				w.WriteHeader(http.StatusNoContent)
			default:
				http.NotFound(w, r)
			}
		})
		c := newTestClient(t, srv)
		if cbs, err := c.Callbacks.List(context.Background()); err != nil || len(cbs) != 1 {
			t.Fatalf("List = %v, %v", cbs, err)
		}
		if err := c.Callbacks.Delete(context.Background(), rcID); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		reqs := srv.requests()
		if len(reqs) != 4 {
			t.Fatalf("%d requests, want 4", len(reqs))
		}
		for i, want := range []string{"GET /callbacks", "GET /v2/callbacks", "DELETE /callbacks/" + rcID.String(), "DELETE /v2/callbacks/" + rcID.String()} {
			r := reqs[i]
			if r.Method+" "+r.Path != want || !r.AuthOK {
				t.Errorf("request %d = %s %s (auth ok %v: %s), want %s signed", i, r.Method, r.Path, r.AuthOK, r.AuthErr, want)
			}
		}
	})
}

// The authTransport signs only what goes to the API's scheme and host, so
// a redirect that slipped past the client's policy carries no token.
func TestAuthTransportSignsOnlyTheAPIHost(t *testing.T) {
	var seen []*http.Request
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		seen = append(seen, r)
		return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody, Request: r}, nil
	})
	signer, _ := NewSigner(testAccessKey, testSecretKey)
	tr := &authTransport{base: base, auth: signer, scheme: "http", host: "api.example"}
	for _, u := range []string{"https://api.example/x", "http://other.example/x", "http://api.example/x"} {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	for i, want := range []bool{false, false, true} {
		if got := seen[i].Header.Get("Authorization") != ""; got != want {
			t.Errorf("%s signed: %v, want %v", seen[i].URL, got, want)
		}
	}
}

// A write (every at-most-once route, and Client.Do with POST, PUT or
// PATCH) answered with a same-host redirect to its own URL follows none
// of them, whatever the status: one request reaches the server (a 307 or
// 308 followed would send the write again, signed anew), and the call
// fails with the redirect as an *APIError of unknown outcome, since a
// proxy may have applied it. A server that always redirects gets one
// request too.
func TestRedirectOnWriteNotFollowed(t *testing.T) {
	for _, r := range outcomeRoutes() {
		if !r.once {
			continue
		}
		for _, status := range []int{301, 302, 303, 307, 308} {
			var n atomic.Int32
			srv := newAPIServer(t, func(w http.ResponseWriter, req *http.Request) {
				if n.Add(1) == 1 || status == http.StatusTemporaryRedirect {
					http.Redirect(w, req, req.URL.Path, status)
					return
				}
				ok("null")(w, req)
			})
			err := r.call(context.Background(), newTestClient(t, srv))
			if got := srv.count(); got != 1 {
				t.Errorf("%s, %d: %d requests, want 1", r.op, status, got)
			}
			var ae *APIError
			if !errors.As(err, &ae) || ae.StatusCode != status || !errors.Is(err, ErrOutcomeUnknown) ||
				ae.Message != "redirect not followed: a write is sent at most once" {
				t.Errorf("%s, %d: err = %v, want the %d as an *APIError of unknown outcome", r.op, status, err, status)
			}
		}
	}
}

// --- per-attempt timeout ----------------------------------------------------

// tpSlowFirst sleeps up to 2s on its first request, then answers at once.
func tpSlowFirst(answer http.HandlerFunc) http.HandlerFunc {
	var n atomic.Int32
	return func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
				return
			}
		}
		answer(w, r)
	}
}

// Default config fails the POST row: it retries the POST after a timeout,
// sending it a second time. (The library has no per-attempt timeout of its
// own; the SDK's bounds an attempt without cutting a download short.)
func TestTimeoutPerAttempt(t *testing.T) {
	t.Run("get retried", func(t *testing.T) {
		srv := newAPIServer(t, tpSlowFirst(ok("[]")))
		c := newTestClient(t, srv, WithTimeout(100*time.Millisecond))
		start := time.Now()
		if _, err := c.Callbacks.List(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n := srv.count(); n != 2 {
			t.Errorf("%d requests, want 2", n)
		}
		if elapsed := time.Since(start); elapsed < 100*time.Millisecond {
			t.Errorf("took %s, less than the timeout", elapsed)
		}
	})
	t.Run("post not retried", func(t *testing.T) {
		// The timeout leaves a loaded machine ample time to connect, so
		// that the attempt surely times out after the request was sent.
		srv := newAPIServer(t, tpSlowFirst(ok(authCallbackJSON)))
		c := newTestClient(t, srv, WithTimeout(500*time.Millisecond))
		_, err := c.Callbacks.Create(context.Background(), "https://example.com/hook")
		te := tpTransportError(t, tpErr(t, err))
		if te.Attempts != 1 || errors.Is(err, context.Canceled) {
			t.Errorf("TransportError = %+v", te)
		}
		if !errors.Is(err, errAttemptTimeout) {
			t.Errorf("cause = %v, want the attempt timeout", te.Err)
		}
		if n := srv.count(); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})
	t.Run("slow json body", func(t *testing.T) {
		// A JSON answer is bounded as a whole: a body that trickles past
		// the timeout fails as a timeout, not as a cancelled call.
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"success":true,"result":[`)
			w.(http.Flusher).Flush()
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
				return
			}
			_, _ = io.WriteString(w, `]}`)
		})
		c := newTestClient(t, srv, WithTimeout(100*time.Millisecond), WithMaxRetries(0))
		_, err := c.Callbacks.List(context.Background())
		te := tpTransportError(t, tpErr(t, err))
		if errors.Is(err, context.Canceled) || !errors.Is(err, errAttemptTimeout) {
			t.Errorf("cause = %v, want the attempt timeout", te.Err)
		}
	})
	t.Run("download trickles", func(t *testing.T) {
		content := bytes.Repeat([]byte("%PDF-1.7 "), 600)
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/pdf")
			w.Header().Set("Content-Length", strconv.Itoa(len(content)))
			w.WriteHeader(http.StatusOK)
			for i := 0; i < len(content); i += 1000 {
				_, _ = w.Write(content[i:min(i+1000, len(content))])
				w.(http.Flusher).Flush()
				time.Sleep(60 * time.Millisecond)
			}
		})
		c := newTestClient(t, srv, WithTimeout(100*time.Millisecond))
		start := time.Now()
		f, err := c.file(context.Background(), routeDocumentsDownload.at("x"), nil, nil, "application/pdf")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		got, err := io.ReadAll(f)
		if err != nil || !bytes.Equal(got, content) {
			t.Fatalf("read %d bytes, %v; want %d", len(got), err, len(content))
		}
		if elapsed := time.Since(start); elapsed < 200*time.Millisecond {
			t.Errorf("took %s: the body did not trickle past the timeout", elapsed)
		}
		if n := srv.count(); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})
}

// --- binary answers -----------------------------------------------------------

// --- decoding ---------------------------------------------------------------

// Not a setting of the retry library: a bad answer is read into a
// *DecodeError that names the endpoint and the field, is never retried and
// never panics.
func TestDecodeErrors(t *testing.T) {
	good := `{"id":"7d4a1f3e-8b2c-4e5f-9a6b-1c2d3e4f5a6b","created_at":"2024-05-01 10:00:00 -0600","url":"https://example.com/a"}`
	for _, tc := range []struct {
		name, contentType, body string
		wantPath                string
	}{
		{"html", "text/html", "<html><body>Bad gateway</body></html>", ""},
		{"truncated", "application/json", `{"success":true,"result":[` + good, ""},
		{"empty", "application/json", "", ""},
		{"array", "application/json", `[` + good + `]`, ""},
		{"no success", "application/json", `{"result":[` + good + `]}`, ""},
		{"null", "application/json", `null`, ""},
		{"string", "application/json", `"ok"`, ""},
		{"bad time", "application/json", `{"success":true,"result":[` + good + `,{"id":"7d4a1f3e-8b2c-4e5f-9a6b-1c2d3e4f5a6c","created_at":"yesterday"}]}`, "result[1].created_at"},
		{"time as number", "application/json", `{"success":true,"result":[` + good + `,{"created_at":12}]}`, "result[1].created_at"},
		{"bad id", "application/json", `{"success":true,"result":[{"id":42}]}`, "result[0].id"},
		{"url as object", "application/json", `{"success":true,"result":[` + good + `,` + good + `,{"url":{"href":"x"}}]}`, "result[2].url"},
		{"result not a list", "application/json", `{"success":true,"result":{"id":"x"}}`, "result"},
		{"bad success", "application/json", `{"success":"maybe","result":[]}`, "success"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				_, _ = io.WriteString(w, tc.body)
			})
			c := newTestClient(t, srv)
			cbs, err := c.Callbacks.List(context.Background())
			var de *DecodeError
			if !errors.As(tpErr(t, err), &de) {
				t.Fatalf("List = %v, %v (%T); want a *DecodeError", cbs, err, err)
			}
			if de.Endpoint != "GET /callbacks" || de.Path != tc.wantPath {
				t.Errorf("DecodeError endpoint %q path %q, want GET /callbacks and %q (%v)", de.Endpoint, de.Path, tc.wantPath, de)
			}
			if !strings.Contains(de.Error(), "GET /callbacks") {
				t.Errorf("Error() = %q does not name the endpoint", de.Error())
			}
			if n := srv.count(); n != 1 {
				t.Errorf("%d requests, want 1 (a bad answer is not retried)", n)
			}
		})
	}
}

// An answer that breaks off after its headers is a broken connection like
// any other: a GET is tried again and succeeds, a POST is not (the write
// may have been applied).
func TestTruncatedAnswerRetriedForGETOnly(t *testing.T) {
	const full = `{"success":true,"result":[{"id":"0b8f3f4e-6c1a-4a51-9a53-3f2d1c0b9a01","url":"https://a.example.com/"}]}`
	var n atomic.Int32
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 || r.Method == http.MethodPost {
			conn, buf, err := http.NewResponseController(w).Hijack()
			if err != nil {
				return
			}
			defer conn.Close()
			buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(full)) + "\r\n\r\n" + full[:20])
			buf.Flush()
			return
		}
		writeJSON(w, http.StatusOK, full)
	})
	c := newTestClient(t, srv)
	cbs, err := c.Callbacks.List(context.Background())
	if err != nil || len(cbs) != 1 || cbs[0].URL != "https://a.example.com/" || srv.count() != 2 {
		t.Fatalf("GET: %+v, %v after %d requests", cbs, err, srv.count())
	}

	before := srv.count()
	_, err = c.Callbacks.Create(context.Background(), "https://b.example.com/")
	var te *TransportError
	if !errors.As(err, &te) || !errors.Is(err, io.ErrUnexpectedEOF) || srv.count()-before != 1 {
		t.Fatalf("POST: %v after %d requests", err, srv.count()-before)
	}
}

// A 2xx answer the SDK cannot read, to a write, says the write may well
// have happened: checkout, paying invoices and storing a card answered
// with a proxy's HTML page, or with a result of the wrong shape, fail
// with a *DecodeError that is also ErrOutcomeUnknown and names the
// listing to check, after exactly one request.
func TestUnreadableAnswerToWriteIsUnknown(t *testing.T) {
	html := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html><body>a proxy's page</body></html>")
	}
	for _, tc := range []struct {
		name   string
		answer http.HandlerFunc
		call   func(c *Client) error
		hint   string
	}{
		{"checkout html", html, tpCheckout, "Invoices.List shows whether invoices were made"},
		{"checkout shape", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, `{"success":true,"result":"charged","invoice_ids":12}`)
		}, tpCheckout, "Invoices.List shows whether invoices were made"},
		{"pay html", html, tpPay, "Invoices.Get shows whether each invoice is paid"},
		{"pay shape", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, `{"success":true,"result":[12]}`)
		}, tpPay, "Invoices.Get shows whether each invoice is paid"},
		{"card html", html, tpStoreCard, "PaymentMethods.List shows whether the card was stored"},
		{"card shape", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, `{"success":true,"result":[12]}`)
		}, tpStoreCard, "PaymentMethods.List shows whether the card was stored"},
	} {
		srv := newAPIServer(t, tc.answer)
		err := tc.call(newTestClient(t, srv))
		var de *DecodeError
		if !errors.As(err, &de) || !errors.Is(err, ErrOutcomeUnknown) || !strings.Contains(err.Error(), tc.hint) {
			t.Errorf("%s: err = %v (%T), want a *DecodeError of unknown outcome that says %q", tc.name, err, err, tc.hint)
		}
		if n := srv.count(); n != 1 {
			t.Errorf("%s: %d requests, want 1", tc.name, n)
		}
	}
	// A read whose answer cannot be read is only a *DecodeError.
	srv := newAPIServer(t, html)
	if _, err := newTestClient(t, srv).Invoices.List(context.Background(), nil); errors.Is(err, ErrOutcomeUnknown) {
		t.Errorf("a read: err = %v, want no unknown outcome", err)
	}
}

func tpCheckout(c *Client) error {
	_, err := c.ShoppingCart.Checkout(context.Background(), &CheckoutParams{ItemIDs: []uuid.UUID{wcItem}, PaymentMethodID: wcCard})
	return err
}

func tpPay(c *Client) error {
	_, err := c.Invoices.Pay(context.Background(), &InvoicePayParams{InvoiceIDs: []uuid.UUID{wcInvoice}, PaymentMethodID: wcCard})
	return err
}

func tpStoreCard(c *Client) error {
	_, err := c.PaymentMethods.Create(context.Background(), wcCardParams())
	return err
}

// A 500 (exactly) to a write is a server error like any other 5xx: sent
// once, of unknown outcome.
func TestServerError500ToWriteIsUnknown(t *testing.T) {
	for _, r := range outcomeRoutes() {
		if !r.once {
			continue
		}
		srv := newAPIServer(t, func(w http.ResponseWriter, req *http.Request) {
			writeJSON(w, http.StatusInternalServerError, `{"message":"oops"}`)
		})
		err := r.call(context.Background(), newTestClient(t, srv))
		var ae *APIError
		if !errors.As(err, &ae) || ae.StatusCode != 500 || !errors.Is(err, ErrOutcomeUnknown) || srv.count() != 1 {
			t.Errorf("%s: err = %v after %d requests, want a 500 of unknown outcome after 1", r.op, err, srv.count())
		}
	}
}

// A signer that fails sends nothing: the write's outcome is known (it was
// not applied), for every write.
func TestSigningFailureToWriteIsKnown(t *testing.T) {
	srv := newAPIServer(t, ok("null"))
	c := newTestClient(t, srv, WithAuthenticator(AuthenticatorFunc(func(*http.Request, []byte) error {
		return errors.New("token store locked")
	})))
	for _, r := range outcomeRoutes() {
		if !r.once {
			continue
		}
		err := r.call(context.Background(), c)
		var te *TransportError
		if !errors.As(err, &te) || errors.Is(err, ErrOutcomeUnknown) {
			t.Errorf("%s: err = %v, want a *TransportError of known outcome", r.op, err)
		}
	}
	if n := srv.count(); n != 0 {
		t.Errorf("%d requests, want none", n)
	}
}

// BenchmarkGetDocument is the cost of one read over loopback, from the
// resource method to the wire and back: Documents.Get answered with a
// document (the answer of TestDocumentsGetCallPath).
func BenchmarkGetDocument(b *testing.B) {
	body := []byte(`{"success":true,"timestamp":"2024-05-01 10:00:00 -0600","result":` + callPathDocument + `}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = []string{"application/json"}
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	c, err := NewClient(testAccessKey, testSecretKey, WithBaseURL(srv.URL))
	if err != nil {
		b.Fatal(err)
	}
	defer c.CloseIdleConnections()
	id := uuid.MustParse("6f1c1f3e-8a0b-4c8e-9d2a-3b4c5d6e7f80")
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d, err := c.Documents.Get(ctx, id); err != nil || d.ID != id {
			b.Fatalf("Get = %v, %v", d, err)
		}
	}
}

// A read whose server's certificate is not trusted is not tried again:
// no retry mends it (go-retryablehttp's DefaultRetryPolicy says which
// transport errors are such). The server sees one handshake, not one per
// attempt, and the error still reaches the certificate's.
func TestUntrustedCertificateIsNotRetried(t *testing.T) {
	var handshakes atomic.Int32
	srv := httptest.NewUnstartedServer(ok(`[]`))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			handshakes.Add(1)
		}
	}
	srv.StartTLS()
	defer srv.Close()
	c, err := NewClient(testAccessKey, testSecretKey, WithBaseURL(srv.URL), WithMaxRetries(3),
		WithRetryWait(time.Millisecond, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	_, err = c.Callbacks.List(context.Background())
	var te *TransportError
	if !errors.As(err, &te) || te.Attempts != 1 {
		t.Fatalf("err = %v, want a *TransportError after 1 attempt", err)
	}
	var cv *tls.CertificateVerificationError
	if !errors.As(err, &cv) {
		t.Errorf("errors.As(*tls.CertificateVerificationError) failed on %v", err)
	}
	if n := handshakes.Load(); n != 1 {
		t.Errorf("the server saw %d connections, want 1", n)
	}
}

// One client, 64 goroutines, each cancelling its calls at random points:
// every call ends with its answer or the context's error, never a mix,
// and the client keeps working.
func TestConcurrentCancellation(t *testing.T) {
	var served atomic.Int64
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		time.Sleep(time.Duration(served.Load()%5) * time.Millisecond)
		writeJSON(w, 200, `{"success":true,"result":[]}`)
	})
	c := newTestClient(t, srv)
	var wg sync.WaitGroup
	var bad atomic.Int64
	for g := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration((g+i)%7)*time.Millisecond)
				cbs, err := c.Callbacks.List(ctx)
				cancel()
				switch {
				case err == nil && cbs != nil:
				case err != nil && cbs == nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)):
				default:
					bad.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if bad.Load() != 0 {
		t.Errorf("%d calls ended with neither an answer nor the context's error", bad.Load())
	}
	if _, err := c.Callbacks.List(context.Background()); err != nil {
		t.Errorf("the client stopped working: %v", err)
	}
}

// A Content-Length that announces the whole cap while a few bytes come:
// what the client allocates follows what arrived, on every attempt.
func TestLyingContentLengthAllocatesWhatArrives(t *testing.T) {
	const sent = `{"success":true,"result":[`
	srv := newAPIServer(t, hsRaw(t, hsResponse(maxJSONBody, sent), 0))
	c := newTestClient(t, srv, WithMaxRetries(3))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := c.Callbacks.List(context.Background())
	runtime.ReadMemStats(&after)
	te := hsWantTransportError(t, err)
	if te.Attempts != 4 || srv.count() != 4 {
		t.Fatalf("%d attempts, %d requests; want 4", te.Attempts, srv.count())
	}
	// Four attempts of about 30 bytes each; the bound leaves room for the
	// rest of a call's allocations and nothing like the 32 MiB announced.
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("allocated %d MiB for %d bytes received", got>>20, 4*len(sent))
	}
}

// The attempt timeout of WithTimeout is recognisable both ways a Go
// program checks for a timeout.
func TestAttemptTimeoutIsRecognisable(t *testing.T) {
	check := func(t *testing.T, err error) {
		t.Helper()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("errors.Is(err, context.DeadlineExceeded) = false for %v", err)
		}
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			t.Errorf("err %v is no net.Error with Timeout()", err)
		}
		if !errors.Is(err, errAttemptTimeout) {
			t.Errorf("err %v is not the attempt timeout", err)
		}
	}
	t.Run("no headers", func(t *testing.T) {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		c := newTestClient(t, srv, WithTimeout(50*time.Millisecond), WithMaxRetries(0))
		_, err := c.Callbacks.List(context.Background())
		check(t, err)
	})
	t.Run("body stalls", func(t *testing.T) {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"success":true,`))
			http.NewResponseController(w).Flush()
			<-r.Context().Done()
		})
		c := newTestClient(t, srv, WithTimeout(50*time.Millisecond), WithMaxRetries(0))
		_, err := c.Callbacks.List(context.Background())
		check(t, err)
	})
	t.Run("file headers", func(t *testing.T) {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		c := newTestClient(t, srv, WithTimeout(50*time.Millisecond), WithMaxRetries(0))
		_, err := c.Documents.Download(context.Background(), uuid.New())
		check(t, err)
	})
}

// Every retry wait stays inside the bounds of WithRetryWait, jitter
// included.
func TestRetryWaitsStayInBounds(t *testing.T) {
	for _, b := range [][2]time.Duration{
		{defaultRetryWaitMin, defaultRetryWaitMax}, {10 * time.Millisecond, 10 * time.Millisecond},
		{time.Millisecond, 3 * time.Millisecond}, {0, 0}, {1, 2}, {time.Second, time.Hour},
	} {
		c, err := NewClient(testAccessKey, testSecretKey, WithRetryWait(b[0], b[1]))
		if err != nil {
			t.Fatal(err)
		}
		seenLow, seenHigh := false, false
		for n := 1; n <= 80; n++ {
			for range 50 {
				w := c.backoff(n)
				if w < b[0] || w > b[1] {
					t.Fatalf("bounds %v: wait %s before retry %d is out of bounds", b, w, n)
				}
				seenLow = seenLow || (n == 1 && w < b[0]+(b[1]-b[0])/4+1)
				seenHigh = seenHigh || w >= b[1]-(b[1]-b[0])/4
			}
		}
		if b[1] > b[0] && (!seenLow || !seenHigh) {
			t.Errorf("bounds %v: waits never near the minimum (%v) or at the maximum (%v)", b, seenLow, seenHigh)
		}
	}
}

// The log shows each attempt's answer before the retry it causes.
func TestLogShowsAnswerBeforeItsRetry(t *testing.T) {
	n := 0
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		n++
		if n < 3 {
			w.WriteHeader(503)
			return
		}
		writeJSON(w, 200, `{"success":true,"result":[]}`)
	})
	logger, buf := tpLogger(t)
	c := newTestClient(t, srv, WithLogger(logger))
	if _, err := c.Callbacks.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	var seq []string
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		for _, m := range []string{"acctadmin: request", "acctadmin: response", "acctadmin: retrying"} {
			if strings.Contains(line, `"msg":"`+m+`"`) {
				seq = append(seq, strings.TrimPrefix(m, "acctadmin: "))
			}
		}
	}
	want := []string{"request", "response", "retrying", "request", "response", "retrying", "request", "response"}
	if !reflect.DeepEqual(seq, want) {
		t.Errorf("log order = %v, want %v", seq, want)
	}
}

// A body that never ends, fast: the cap ends it.
func TestEndlessBodyIsCut(t *testing.T) {
	srv := newHostileServer(t, func(s *hsServer, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"success":true,"result":[`)
		s.stream(w, r, hsItem, -1)
	})
	c := newTestClient(t, srv.apiServer)
	res := hsMeasure(t, func(ctx context.Context) error {
		_, err := c.Services.List(ctx, nil)
		return err
	})
	hsWantTooLarge(t, res.err, "GET /services")
	if res.alloc > hsMemBound {
		t.Errorf("the call allocated %d MiB, want under %d MiB", res.alloc>>20, hsMemBound>>20)
	}
	srv.settled(t)
}

// A body that trickles forever, one byte at a time: the per-attempt
// timeout ends each attempt, and a GET is tried again like any attempt
// whose connection broke, up to the retry limit.
func TestTricklingBodyTimesOut(t *testing.T) {
	srv := newHostileServer(t, func(s *hsServer, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"success":true,"result":[`)
		rc := http.NewResponseController(w)
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, " "); err != nil {
				return
			}
			_ = rc.Flush()
			time.Sleep(20 * time.Millisecond)
		}
	})
	c := newTestClient(t, srv.apiServer, WithTimeout(200*time.Millisecond))
	res := hsMeasure(t, func(ctx context.Context) error {
		_, err := c.Resources.List(ctx, nil)
		return err
	})
	te := hsWantTransportError(t, res.err)
	if !errors.Is(res.err, errAttemptTimeout) || !errors.Is(res.err, context.DeadlineExceeded) {
		t.Errorf("cause = %v, want the attempt timeout, a deadline", te.Err)
	}
	if res.elapsed < 200*time.Millisecond {
		t.Errorf("ended after %s, before the 200ms timeout", res.elapsed)
	}
	srv.settled(t)
	if n := srv.count(); n != 1+defaultMaxRetries || te.Attempts != n {
		t.Errorf("%d requests, %d attempts reported, want %d", n, te.Attempts, 1+defaultMaxRetries)
	}
}

// Headers that never come: every attempt times out, a GET is retried,
// then the call fails.
func TestHeadersThatNeverComeTimeOut(t *testing.T) {
	srv := newHostileServer(t, func(s *hsServer, w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	c := newTestClient(t, srv.apiServer, WithTimeout(200*time.Millisecond), WithMaxRetries(1))
	res := hsMeasure(t, func(ctx context.Context) error {
		_, err := c.Documents.Get(ctx, tpCallbackID)
		return err
	})
	te := hsWantTransportError(t, res.err)
	if te.Attempts != 2 || !errors.Is(res.err, errAttemptTimeout) {
		t.Errorf("TransportError = %+v, want 2 attempts ended by the attempt timeout", te)
	}
	srv.settled(t)
}

// A gzip bomb: Go's transport asks for gzip and inflates it without the
// caller seeing; the cap holds on the inflated size.
func TestGzipBombIsCut(t *testing.T) {
	bomb := hsGzipBomb(t, 1<<30)
	var askedGzip atomic.Bool
	srv := newHostileServer(t, func(s *hsServer, w http.ResponseWriter, r *http.Request) {
		askedGzip.Store(strings.Contains(r.Header.Get("Accept-Encoding"), "gzip"))
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", strconv.Itoa(len(bomb)))
		n, _ := w.Write(bomb)
		s.sent.Add(int64(n))
	})
	c := newTestClient(t, srv.apiServer)
	res := hsMeasure(t, func(ctx context.Context) error {
		_, err := c.Invoices.List(ctx, nil)
		return err
	})
	if !askedGzip.Load() {
		t.Fatal("the transport did not ask for gzip: this test no longer tests transparent decompression")
	}
	hsWantTooLarge(t, res.err, "GET /invoices")
	if res.alloc > hsMemBound {
		t.Errorf("the call allocated %d MiB for a bomb of %d KiB", res.alloc>>20, len(bomb)>>10)
	}
	srv.settled(t)
}

// A Content-Length that lies.
func TestContentLengthThatLies(t *testing.T) {
	const envelope = `{"success":true,"timestamp":"2024-05-01 10:00:00 -0600","result":[]}`

	t.Run("longer than sent, then closed", func(t *testing.T) {
		srv := newAPIServer(t, hsRaw(t, hsResponse(len(envelope)+500, envelope), 0))
		c := newTestClient(t, srv)
		res := hsMeasure(t, func(ctx context.Context) error {
			_, err := c.Callbacks.List(ctx)
			return err
		})
		te := hsWantTransportError(t, res.err)
		if !errors.Is(res.err, io.ErrUnexpectedEOF) {
			t.Errorf("cause = %v, want the unexpected end of the body", te.Err)
		}
		// A GET whose answer broke off is tried again, up to the limit.
		if n := srv.count(); n != 1+defaultMaxRetries || te.Attempts != n {
			t.Errorf("%d requests, %d attempts reported, want %d", n, te.Attempts, 1+defaultMaxRetries)
		}
	})

	t.Run("longer than sent, held open", func(t *testing.T) {
		srv := newAPIServer(t, hsRaw(t, hsResponse(len(envelope)+500, envelope), 5*time.Second))
		c := newTestClient(t, srv, WithTimeout(200*time.Millisecond))
		res := hsMeasure(t, func(ctx context.Context) error {
			_, err := c.Callbacks.List(ctx)
			return err
		})
		te := hsWantTransportError(t, res.err)
		if !errors.Is(res.err, errAttemptTimeout) {
			t.Errorf("cause = %v, want the attempt timeout", te.Err)
		}
	})

	t.Run("shorter than sent", func(t *testing.T) {
		// The rest of the body reaches the connection after the answer;
		// Go's transport says so on the standard logger and drops the
		// connection. Keep that line out of the test output.
		prev := log.Writer()
		log.SetOutput(io.Discard)
		defer log.SetOutput(prev)
		var n atomic.Int32
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 {
				hsRaw(t, hsResponse(20, envelope), 0)(w, r)
				return
			}
			writeJSON(w, http.StatusOK, envelope)
		})
		c := newTestClient(t, srv)
		res := hsMeasure(t, func(ctx context.Context) error {
			_, err := c.Callbacks.List(ctx)
			return err
		})
		de := hsWantDecodeError(t, res.err)
		if !strings.Contains(de.Error(), "not valid JSON") {
			t.Errorf("DecodeError = %v, want invalid JSON", de)
		}
		// The client is still usable: the next call gets a clean answer.
		cbs, err := c.Callbacks.List(context.Background())
		if err != nil || cbs == nil || len(cbs) != 0 {
			t.Errorf("next call = %v, %v; want an empty listing", cbs, err)
		}
	})
}

var hsItem = []byte(strings.Repeat(`"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",`, 1<<10)) // 64 KiB

func hsWantTooLarge(t *testing.T, err error, endpoint string) {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) || !errors.Is(err, ErrResponseTooLarge) {
		t.Fatalf("err = %v (%T), want a *DecodeError that is ErrResponseTooLarge", err, err)
	}
	if de.Endpoint != endpoint {
		t.Errorf("Endpoint = %q, want %q", de.Endpoint, endpoint)
	}
}

func hsWantTransportError(t *testing.T, err error) *TransportError {
	t.Helper()
	var te *TransportError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v (%T), want a *TransportError", err, err)
	}
	return te
}

// hsGzipBomb returns a gzip stream, made of many members, that inflates
// to size bytes of a JSON array that never closes. It is built from one
// compressed megabyte of spaces repeated, so it costs little to make.
func hsGzipBomb(t *testing.T, size int) []byte {
	t.Helper()
	member := func(p []byte) []byte {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		_, _ = zw.Write(p)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	out := member([]byte(`{"success":true,"result":[`))
	spaces := member(bytes.Repeat([]byte(" "), 1<<20))
	for n := 0; n < size>>20; n++ {
		out = append(out, spaces...)
	}
	return out
}

// hsRaw answers with raw bytes on the hijacked connection, so that the
// headers can lie, then keeps the connection open for hold or closes it.
func hsRaw(t *testing.T, raw string, hold time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		_, _ = buf.WriteString(raw)
		_ = buf.Flush()
		if hold > 0 {
			_ = conn.SetReadDeadline(time.Now().Add(hold))
			_, _ = io.Copy(io.Discard, conn) // until the client hangs up
		}
	}
}

func hsResponse(contentLength int, body string) string {
	return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(contentLength) + "\r\n\r\n" + body
}

// A Retry-After of exactly the 60 s cap is waited out; one second more
// ends the call at once with ErrRateLimited. The wait is cut short by
// cancelling the context (a deadline before the wait's end would end the
// call at once), so the first case shows the client waiting without
// taking a minute: the call ends by the context, after one request.
func TestRetryAfterAtTheCap(t *testing.T) {
	for _, tc := range []struct {
		after string
		wait  bool
	}{
		{"60", true},
		{"61", false},
		{"600", false},
	} {
		t.Run(tc.after, func(t *testing.T) {
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", tc.after)
				writeJSON(w, http.StatusTooManyRequests, `{"success":false,"message":"slow down"}`)
			})
			c := newTestClient(t, srv)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			time.AfterFunc(300*time.Millisecond, cancel)
			_, err := c.Callbacks.List(ctx)
			if n := srv.count(); n != 1 {
				t.Fatalf("%d requests, want 1", n)
			}
			if tc.wait {
				if !errors.Is(err, context.Canceled) || errors.Is(err, ErrRateLimited) {
					t.Fatalf("Retry-After %s: err = %v, want the wait cut short by the context", tc.after, err)
				}
				return
			}
			if !errors.Is(err, ErrRateLimited) || ctx.Err() != nil {
				t.Fatalf("Retry-After %s: err = %v (context: %v), want ErrRateLimited at once", tc.after, err, ctx.Err())
			}
			want, _ := strconv.Atoi(tc.after)
			if got := tpAPIError(t, err).RetryAfter; got != time.Duration(want)*time.Second {
				t.Fatalf("RetryAfter = %s, want %ss", got, tc.after)
			}
		})
	}
}

// A name that does not resolve is a connection that could not be made:
// even a write, sent at most once, is tried again, since nothing reached
// the API.
func TestUnresolvedNameIsRetriedForAWrite(t *testing.T) {
	var dials atomic.Int64
	hc := &http.Client{Transport: &http.Transport{
		DialContext: func(context.Context, string, string) (net.Conn, error) {
			dials.Add(1)
			return nil, &net.DNSError{Err: "no such host", Name: "api.invalid", IsNotFound: true}
		},
	}}
	c, err := NewClient(testAccessKey, testSecretKey, WithBaseURL("http://api.invalid"), WithHTTPClient(hc),
		WithMaxRetries(2), WithRetryWait(time.Millisecond, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Companies.Update(context.Background(), CompanyUpdateParams{Company: "Acme", Name: "Acme Two"})
	var te *TransportError
	if !errors.As(err, &te) || te.Attempts != 3 || dials.Load() != 3 {
		t.Fatalf("err = %v, %d dials; want a *TransportError after 3 attempts", err, dials.Load())
	}
	if errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("err = %v: nothing was sent, so the outcome is known", err)
	}
}

// A call whose context ends during an attempt stops there: the attempt
// ends by the cancel (not as a timeout), no retry is planned, so none is
// logged, and the error is the context's after one attempt.
func TestCancelDuringAnAttemptPlansNoRetry(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		cancel()
		<-r.Context().Done()
	})
	var logs tpLog
	var attemptErrs []error
	c := newTestClient(t, srv, WithMaxRetries(3), WithRetryWait(time.Millisecond, time.Millisecond),
		WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
		WithHooks(Hooks{AttemptEnd: func(_ context.Context, a AttemptInfo) { attemptErrs = append(attemptErrs, a.Err) }}))
	_, err := c.Callbacks.List(ctx)
	// The attempt ended by the caller's cancel, not by its own timeout.
	if len(attemptErrs) != 1 || !errors.Is(attemptErrs[0], context.Canceled) || errors.Is(attemptErrs[0], errAttemptTimeout) {
		t.Fatalf("attempt errors %v, want one context.Canceled", attemptErrs)
	}
	var te *TransportError
	if !errors.As(err, &te) || !errors.Is(err, context.Canceled) || te.Attempts != 1 {
		t.Fatalf("err = %v, want context.Canceled after 1 attempt", err)
	}
	if n := len(logs.records(t, "acctadmin: retrying")); n != 0 {
		t.Fatalf("%d retries logged for a cancelled call:\n%s", n, logs.String())
	}
}

// An error answer longer than what an APIError keeps is read to its end
// (up to the drain bound), so its connection serves the next call: three
// calls, one connection, for a 404 of 300 KB and a PDF answered where
// JSON was due.
func TestLongErrorAnswersKeepTheConnection(t *testing.T) {
	conns := &lkConns{states: map[net.Conn]http.ConnState{}}
	long := `{"success":false,"message":"no","pad":"` + strings.Repeat("x", 300<<10) + `"}`
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/download") {
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write(bytes.Repeat([]byte{0x89}, 200<<10))
			return
		}
		writeJSON(w, http.StatusNotFound, long)
	}))
	srv.Config.ConnState = conns.track
	srv.Start()
	t.Cleanup(srv.Close)
	c, err := NewClient(testAccessKey, testSecretKey, WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := c.Callbacks.List(context.Background()); !errors.Is(err, ErrNotFound) {
			t.Fatalf("call %d: %v, want ErrNotFound", i, err)
		}
	}
	if _, err := c.Documents.Download(context.Background(), secID); err == nil {
		t.Fatal("a PNG taken for a PDF")
	}
	if _, err := c.Callbacks.List(context.Background()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("last call: %v", err)
	}
	conns.mu.Lock()
	opened := conns.opened
	conns.mu.Unlock()
	if opened != 1 {
		t.Fatalf("%d connections opened for four calls, want 1", opened)
	}
}

// --- the rate budget and long Retry-After waits ----------------------------

// rlCounting is a hand-made RateLimiter: it counts its waits, notes how
// many requests the server had seen at each, and blocks while block is
// set, until the context ends.
type rlCounting struct {
	srv   *apiServer
	block atomic.Bool
	mu    sync.Mutex
	seen  []int // the server's count at each wait
}

func (l *rlCounting) Wait(ctx context.Context) error {
	l.mu.Lock()
	l.seen = append(l.seen, l.srv.count())
	l.mu.Unlock()
	if l.block.Load() {
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

// rlFunc is a RateLimiter made of a function.
type rlFunc func(ctx context.Context) error

func (f rlFunc) Wait(ctx context.Context) error { return f(ctx) }

func (l *rlCounting) waits() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]int(nil), l.seen...)
}

// The limiter is waited on before every request: each attempt of a
// retried read, each redirect followed, a file, a write; the wait before
// request n comes when the server has seen n-1 of them.
func TestRateLimitWaitedBeforeEveryRequest(t *testing.T) {
	var n atomic.Int32
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/moved":
			http.Redirect(w, r, "/callbacks", http.StatusFound)
		case "/callbacks":
			if n.Add(1) <= 2 {
				writeJSON(w, http.StatusServiceUnavailable, `{"message":"busy"}`)
				return
			}
			writeJSON(w, http.StatusOK, `{"success":true,"result":[]}`)
		case "/documents/" + rcID.String() + "/download":
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = w.Write([]byte("%PDF-1.4"))
		default:
			writeJSON(w, http.StatusOK, `{"success":true,"result":{}}`)
		}
	})
	lim := &rlCounting{srv: srv}
	c := newTestClient(t, srv, WithRateLimit(lim), WithMaxRetries(3))
	if _, err := c.Callbacks.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := lim.waits(); !reflect.DeepEqual(got, []int{0, 1, 2}) {
		t.Fatalf("a read answered 503, 503, 200: waits when the server had seen %v requests, want [0 1 2]", got)
	}
	if err := c.Do(context.Background(), &RawRequest{Method: http.MethodGet, Path: "/moved"}, nil); err != nil {
		t.Fatal(err)
	}
	f, err := c.Documents.Download(context.Background(), rcID)
	if err != nil {
		t.Fatal(err)
	}
	f.Body.Close()
	if err := c.Do(context.Background(), &RawRequest{Method: http.MethodPost, Path: "/write", Body: map[string]int{"n": 1}}, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := lim.waits(), []int{0, 1, 2, 3, 4, 5, 6}; !reflect.DeepEqual(got, want) {
		t.Fatalf("then a redirect, a file and a write: waits at %v, want %v", got, want)
	}
	if srv.count() != 7 {
		t.Fatalf("%d requests, want 7", srv.count())
	}
}

// A wait that the context ends sends nothing and returns the context's
// error: cancelled, or past its deadline, before the first attempt or
// before a retry; a write so refused is not of unknown outcome.
func TestRateLimitWaitEndedByContext(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusServiceUnavailable, `{"message":"busy"}`)
	})
	lim := &rlCounting{srv: srv}
	lim.block.Store(true)
	var attempts atomic.Int32
	c := newTestClient(t, srv, WithRateLimit(lim), WithHooks(Hooks{AttemptStart: func(ctx context.Context, a AttemptInfo) context.Context {
		attempts.Add(1)
		return ctx
	}}))

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := c.Callbacks.List(ctx)
	var te *TransportError
	if !errors.Is(err, context.Canceled) || !errors.As(err, &te) {
		t.Fatalf("cancelled wait: err = %v, want a *TransportError that is context.Canceled", err)
	}
	dctx, dcancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer dcancel()
	_, err = c.ShoppingCart.Checkout(dctx, &CheckoutParams{ItemIDs: []uuid.UUID{wcItem}, PaymentMethodID: wcCard})
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("wait past the deadline of a write: err = %v, want context.DeadlineExceeded, outcome known", err)
	}
	if n := srv.count(); n != 0 || attempts.Load() != 0 {
		t.Fatalf("%d requests sent, %d attempts started, want none", n, attempts.Load())
	}

	// Before a retry: the first attempt goes, the wait before the second
	// is cancelled.
	lim.block.Store(false)
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	c = newTestClient(t, srv, WithRateLimit(rlFunc(func(ctx context.Context) error {
		if srv.count() == 0 {
			return nil
		}
		cancel()
		<-ctx.Done()
		return ctx.Err()
	})))
	_, err = c.Callbacks.List(ctx)
	if !errors.Is(err, context.Canceled) || srv.count() != 1 {
		t.Fatalf("cancelled before a retry: err = %v after %d requests, want context.Canceled after 1", err, srv.count())
	}
}

// A limiter that refuses to wait while the context is live (as
// *rate.Limiter does when the deadline would pass first) ends the call
// with its error, context.DeadlineExceeded when the context has a
// deadline, and nothing is sent.
func TestRateLimitRefusal(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	refused := errors.New("would exceed context deadline")
	c := newTestClient(t, srv, WithRateLimit(rlFunc(func(context.Context) error { return refused })))
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	_, err := c.Callbacks.List(ctx)
	var te *TransportError
	if !errors.Is(err, refused) || !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &te) {
		t.Fatalf("with a deadline: err = %v, want a *TransportError with the limiter's error, context.DeadlineExceeded", err)
	}
	_, err = c.Callbacks.List(context.Background())
	if !errors.Is(err, refused) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("without a deadline: err = %v, want the limiter's error alone", err)
	}
	if n := srv.count(); n != 0 {
		t.Fatalf("%d requests sent, want none", n)
	}
	if _, err := NewClient(testAccessKey, testSecretKey, WithRateLimit(nil)); err == nil {
		t.Error("WithRateLimit(nil) accepted")
	}
	if _, err := NewClient(testAccessKey, testSecretKey, WithRateLimit((*rlCounting)(nil))); err == nil {
		t.Error("WithRateLimit of a nil *rlCounting accepted")
	}
}

// raServer answers 429 with Retry-After: 2 to its first request, and the
// empty list after.
func raServer(t *testing.T, status int) *apiServer {
	var n atomic.Int32
	return newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "2")
			writeJSON(w, status, `{"message":"slow down"}`)
			return
		}
		writeJSON(w, http.StatusOK, `{"success":true,"result":[]}`)
	})
}

// A Retry-After longer than the cap ends the call at once with
// ErrRateLimited; a program that opts in, client-wide or for one call,
// waits it out up to the maximum it set.
func TestMaxRetryAfter(t *testing.T) {
	t.Run("over the cap", func(t *testing.T) {
		t.Parallel()
		for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
			srv := raServer(t, status)
			c := newTestClient(t, srv, WithMaxRetryAfter(time.Second))
			_, err := c.Callbacks.List(context.Background())
			var ae *APIError
			if !errors.As(err, &ae) || ae.StatusCode != status || !errors.Is(err, ErrRateLimited) || ae.RetryAfter != 2*time.Second {
				t.Fatalf("%d, Retry-After 2 over a cap of 1s: err = %v, want ErrRateLimited", status, err)
			}
			if n := srv.count(); n != 1 {
				t.Fatalf("%d requests, want 1", n)
			}
		}
	})
	t.Run("client opts in", func(t *testing.T) {
		t.Parallel()
		srv := raServer(t, http.StatusTooManyRequests)
		c := newTestClient(t, srv, WithMaxRetryAfter(3*time.Second))
		start := time.Now()
		if _, err := c.Callbacks.List(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n, waited := srv.count(), time.Since(start); n != 2 || waited < 2*time.Second {
			t.Fatalf("%d requests in %s, want 2 after the 2s asked", n, waited)
		}
	})
	t.Run("call opts in", func(t *testing.T) {
		t.Parallel()
		srv := raServer(t, http.StatusServiceUnavailable)
		c := newTestClient(t, srv, WithMaxRetryAfter(time.Second))
		start := time.Now()
		if _, err := c.Callbacks.List(WithCallOptions(context.Background(), CallMaxRetryAfter(3*time.Second))); err != nil {
			t.Fatal(err)
		}
		if n, waited := srv.count(), time.Since(start); n != 2 || waited < 2*time.Second {
			t.Fatalf("%d requests in %s, want 2 after the 2s asked", n, waited)
		}
	})
	t.Run("call lowers the cap", func(t *testing.T) {
		t.Parallel()
		srv := raServer(t, http.StatusServiceUnavailable)
		c := newTestClient(t, srv, WithMaxRetryAfter(3*time.Second))
		_, err := c.Callbacks.List(WithCallOptions(context.Background(), CallMaxRetryAfter(time.Second)))
		if !errors.Is(err, ErrRateLimited) || !errors.Is(err, ErrServer) || srv.count() != 1 {
			t.Fatalf("err = %v after %d requests, want ErrRateLimited after 1", err, srv.count())
		}
	})
	t.Run("deadline first", func(t *testing.T) {
		t.Parallel()
		// The context's deadline comes before the Retry-After ends: the
		// call ends at once with the answer, before the deadline, and
		// sends nothing more.
		srv := raServer(t, http.StatusTooManyRequests)
		c := newTestClient(t, srv, WithMaxRetryAfter(3*time.Second))
		ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
		defer cancel()
		_, err := c.Callbacks.List(ctx)
		var ae *APIError
		if !errors.As(err, &ae) || !errors.Is(err, ErrRateLimited) || errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want the 429's *APIError", err)
		}
		if ctx.Err() != nil {
			t.Fatal("the call waited for the deadline")
		}
		if n := srv.count(); n != 1 {
			t.Fatalf("%d requests, want 1", n)
		}
	})
	t.Run("range", func(t *testing.T) {
		if _, err := NewClient(testAccessKey, testSecretKey, WithMaxRetryAfter(-time.Second)); err == nil {
			t.Error("WithMaxRetryAfter(-1s) accepted")
		}
		c, err := NewClient(testAccessKey, testSecretKey)
		if err != nil || c.retryAfterMax != 60*time.Second {
			t.Fatalf("default cap %s, %v; want 60s", c.retryAfterMax, err)
		}
		// An error made by hand is judged by the default cap.
		if !errors.Is(&APIError{StatusCode: 503, RetryAfter: 61 * time.Second}, ErrRateLimited) ||
			errors.Is(&APIError{StatusCode: 503, RetryAfter: 60 * time.Second}, ErrRateLimited) {
			t.Error("a hand-made APIError is not judged by the 60s cap")
		}
	})
}

// at fills a pattern's parameters in order, and refuses a count that
// does not match.
func TestRouteAt(t *testing.T) {
	r := &route{method: "GET", pattern: "/documents/{id}/page/{n}"}
	if got := r.at("abc", "7").path; got != "/documents/abc/page/7" {
		t.Errorf("at = %q", got)
	}
	if got := (&route{pattern: "/companies"}).at().path; got != "/companies" {
		t.Errorf("at = %q", got)
	}
	for _, args := range [][]string{nil, {"abc"}, {"a", "b", "c"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("at(%q) did not panic", args)
				}
			}()
			r.at(args...)
		}()
	}
}
