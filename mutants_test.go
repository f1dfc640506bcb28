package acctadmin

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
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

// A redirect to the same host on another scheme is not followed; the
// authTransport signs nothing sent to another scheme either.
func TestRedirectToAnotherSchemeRefused(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		u := "https://" + r.Host + "/callbacks"
		http.Redirect(w, r, u, http.StatusFound)
	})
	_, err := newTestClient(t, srv).Callbacks.List(context.Background())
	if apiErr := tpAPIError(t, err); apiErr.StatusCode != http.StatusFound {
		t.Fatalf("err = %v, want the 302 not followed", err)
	}
	if n := srv.count(); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}

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

// Same-host redirects are followed up to the bound: a chain of four
// arrives, a chain of five ends in the fifth redirect as an *APIError.
func TestRedirectChainBound(t *testing.T) {
	for _, tc := range []struct {
		hops int
		ok   bool
	}{{4, true}, {5, false}} {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/hop"))
			if r.URL.Path == "/callbacks" || n < tc.hops {
				http.Redirect(w, r, "/hop"+strconv.Itoa(n+1), http.StatusFound)
				return
			}
			ok("[]")(w, r)
		})
		_, err := newTestClient(t, srv).Callbacks.List(context.Background())
		if tc.ok && err != nil {
			t.Errorf("%d redirects: %v", tc.hops, err)
		}
		if !tc.ok {
			if apiErr := tpAPIError(t, err); apiErr.StatusCode != http.StatusFound || srv.count() != maxRedirects ||
				apiErr.Message != "redirect not followed: too many redirects" {
				t.Errorf("%d redirects: %v after %d requests, want the 302 after %d", tc.hops, err, srv.count(), maxRedirects)
			}
		}
	}
}

// A token sent before a same-host redirect is redacted from the answer
// after it, and a server that quotes the token's signature in a status
// line it garbles does not get it into the error.
func TestTokensOfTheCallAreRedactedWhereverEchoed(t *testing.T) {
	var first string
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/callbacks" {
			first = strings.Split(rdToken(r), ".")[2]
			http.Redirect(w, r, "/moved", http.StatusFound)
			return
		}
		writeJSON(w, http.StatusBadRequest, `{"success":false,"message":"first signature was `+first+`"}`)
	})
	_, err := newTestClient(t, srv).Callbacks.List(context.Background())
	if first == "" || strings.Contains(err.Error(), first) || tpAPIError(t, err).Message != "first signature was [redacted]" {
		t.Fatalf("err = %v, want the earlier token's signature redacted", err)
	}

	raw := newRDServer(t)
	raw.reset(func(r *http.Request) []byte {
		return rawAnswer("HTTP/1.1 "+rdTokenPart(2)(r)+" Oops", nil, nil)
	})
	c, err := NewClient(testAccessKey, testSecretKey, WithBaseURL("http://"+raw.ln.Addr().String()), WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Callbacks.List(context.Background())
	var te *TransportError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "[redacted]") {
		t.Fatalf("err = %v, want a *TransportError with the signature redacted", err)
	}
	for _, n := range raw.needles() {
		if strings.Contains(err.Error(), n) || strings.Contains(te.Err.Error(), n) {
			t.Fatalf("err shows %q: %v", n, err)
		}
	}
}

// At most five messages of an error body's list are joined.
func TestErrorMessageJoinsAtMostFive(t *testing.T) {
	got := errorMessage([]byte(`{"errors":["a","b","c","d","e","f","g"]}`))
	if got != "a; b; c; d; e" {
		t.Fatalf("message = %q, want the first five", got)
	}
}

// A cause whose text is redacted keeps its sentinel for errors.Is.
func TestRedactedCauseKeepsItsSentinel(t *testing.T) {
	c, err := NewClient(testAccessKey, testSecretKey)
	if err != nil {
		t.Fatal(err)
	}
	st := &callState{c: c, method: http.MethodGet, path: "/x"}
	got := st.redact(fmt.Errorf("server said %s: %w", testAccessKey, io.ErrUnexpectedEOF))
	if !errors.Is(got, io.ErrUnexpectedEOF) || strings.Contains(got.Error(), testAccessKey) {
		t.Fatalf("redact = %v: want io.ErrUnexpectedEOF kept and the key out", got)
	}
	for e := got; e != nil; e = errors.Unwrap(e) {
		if strings.Contains(e.Error(), testAccessKey) {
			t.Fatalf("%T in the chain shows the key: %v", e, e)
		}
	}
}

// A path with characters JSON escapes is signed with them escaped: the
// content claim reads back as the path.
func TestSignedPathIsEscaped(t *testing.T) {
	for _, path := range []string{`/a\b`, `/a"b`, "/caf\u00e9", "/a\x01b", "/plain"} {
		claims := appendJSONString(nil, path)
		var back string
		if err := json.Unmarshal(claims, &back); err != nil || back != path {
			t.Errorf("appendJSONString(%q) = %s, reads back as %q, %v", path, claims, back, err)
		}
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

// An amount written with more than 64 digits is refused as written, even
// when its leading zeros would leave fewer: the bound is on the input.
func TestMoneyDigitBoundCountsTheDigitsWritten(t *testing.T) {
	for _, s := range []string{strings.Repeat("0", 64) + "1", strings.Repeat("0", 60) + "1." + strings.Repeat("0", 4)} {
		if m, err := ParseMoney(s); err == nil {
			t.Errorf("ParseMoney of %d digits = %s, want an error", len(strings.ReplaceAll(s, ".", "")), m)
		}
	}
	if m, err := ParseMoney(strings.Repeat("0", 63) + "1"); err != nil || m.String() != "1" {
		t.Errorf("ParseMoney of 64 digits = %v, %v; want 1", m, err)
	}
}

// truncate keeps a text of exactly its bound, and cuts one byte more.
func TestTruncateBoundary(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abcde", 5, "abcde"},
		{"abcdef", 5, "abcde…"},
		{"abcdefg", 5, "abcde…"},
		{"abcdé", 5, "abcd…"}, // never half a rune
	} {
		if got := truncate(tc.s, tc.n); got != tc.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// An answer that announces more than the cap is refused on its headers:
// its body, which here never comes, is not read as JSON, so the call ends
// in ErrResponseTooLarge rather than in a timeout. (The drain of the
// refused answer still waits out the attempt's timeout.)
func TestAnnouncedLengthOverTheCapIsRefused(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(maxJSONBody+1))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"success":true,`))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	c := newTestClient(t, srv, WithMaxRetries(0), WithTimeout(time.Second))
	_, err := c.Callbacks.List(context.Background())
	if !errors.Is(err, ErrResponseTooLarge) {
		t.Fatalf("err = %v, want ErrResponseTooLarge on the announced length", err)
	}
}

// An APIError keeps at most 64 header values, however small they are.
func TestAPIErrorHeaderCountIsBounded(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 200; i++ {
			w.Header().Add(fmt.Sprintf("X-N-%03d", i), "v")
		}
		writeJSON(w, http.StatusNotFound, `{"success":false}`)
	})
	_, err := newTestClient(t, srv).Callbacks.List(context.Background())
	n := 0
	for _, vs := range tpAPIError(t, err).Header {
		n += len(vs)
	}
	if n != maxHeaderFields {
		t.Fatalf("kept %d header values, want %d", n, maxHeaderFields)
	}
}
