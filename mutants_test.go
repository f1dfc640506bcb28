package acctadmin

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Tests written against the mutants of .ci/mutation that once survived:
// each pins a boundary or a rule that no other test came near.

// A Retry-After of exactly the 60 s cap is waited out; one second more
// ends the call at once with ErrRateLimited. The wait is cut short by the
// context, so the first case shows the client waiting without taking a
// minute: the call ends by the context, after one request.
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
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			_, err := c.Callbacks.List(ctx)
			if n := srv.count(); n != 1 {
				t.Fatalf("%d requests, want 1", n)
			}
			if tc.wait {
				if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrRateLimited) {
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

// A JSON answer one byte over the 32 MiB cap is refused, and one of
// exactly the cap is read, however it arrives: with a Content-Length, in
// chunks, or gzipped (where the last bytes come with the end of the
// stream, in one read).
func TestJSONCapBoundary(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 4 answers of 32 MiB")
	}
	answer := func(size int) []byte {
		const head, tail = `{"success":true,"result":[]`, `}`
		return []byte(head + strings.Repeat(" ", size-len(head)-len(tail)) + tail)
	}
	for _, tc := range []struct {
		name string
		size int
		ok   bool
	}{
		{"at the cap", maxJSONBody, true},
		{"one byte over", maxJSONBody + 1, false},
	} {
		body := answer(tc.size)
		var zipped bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&zipped, gzip.BestSpeed)
		_, _ = zw.Write(body)
		_ = zw.Close()
		for _, how := range []string{"chunked", "gzip"} {
			t.Run(tc.name+"/"+how, func(t *testing.T) {
				srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					if how == "gzip" {
						w.Header().Set("Content-Encoding", "gzip")
						_, _ = w.Write(zipped.Bytes())
						return
					}
					// Two writes and a flush: no Content-Length.
					_, _ = w.Write(body[:len(body)/2])
					w.(http.Flusher).Flush()
					_, _ = w.Write(body[len(body)/2:])
				})
				_, err := newTestClient(t, srv, WithMaxRetries(0)).Callbacks.List(context.Background())
				if tc.ok && err != nil {
					t.Fatalf("an answer of exactly the cap: %v", err)
				}
				if !tc.ok && !errors.Is(err, ErrResponseTooLarge) {
					t.Fatalf("an answer one byte over the cap: %v, want ErrResponseTooLarge", err)
				}
			})
		}
	}
}

// retryAfter reads seconds and HTTP dates; a negative or unreadable value
// is no Retry-After at all (the client's own backoff applies), and a
// longer one than a day is a day.
func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"-1", 0, false},
		{"-3600", 0, false},
		{"soon", 0, false},
		{"0", 0, true},
		{" 5 ", 5 * time.Second, true},
		{"86400", 24 * time.Hour, true},
		{"86401", 24 * time.Hour, true},
		{"Tue, 02 Jan 2024 03:05:05 GMT", time.Minute, true},
		{"Tue, 02 Jan 2024 03:00:00 GMT", 0, true},
	} {
		if got, ok := retryAfter(tc.v, now); got != tc.want || ok != tc.ok {
			t.Errorf("retryAfter(%q) = %s, %v; want %s, %v", tc.v, got, ok, tc.want, tc.ok)
		}
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
