package acctadmin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"go.uber.org/goleak"
)

// Keys used by the unit tests' servers.
const (
	testAccessKey = "AK-test-access-0123456789"
	testSecretKey = "SK-test-secret-do-not-leak-9876543210"
)

// recorded is one request as a test server saw it.
type recorded struct {
	Method   string
	Path     string
	RawQuery string
	Body     string
	Header   http.Header
	// AuthOK reports whether the request's JWT verified exactly as the API
	// checks it (HS256 with the secret key, access_key header, path and
	// content claims).
	AuthOK  bool
	AuthErr string
}

// apiServer is an httptest server that records every request and answers
// with a handler chosen by the test.
type apiServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []recorded
}

// newAPIServer starts a server whose answers come from h; it is closed
// when the test ends.
func newAPIServer(t testing.TB, h http.HandlerFunc) *apiServer {
	t.Helper()
	s := &apiServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec := recorded{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Body: string(body), Header: r.Header.Clone()}
		if err := verifyRequestJWT(r, body); err != nil {
			rec.AuthErr = err.Error()
		} else {
			rec.AuthOK = true
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, rec)
		s.mu.Unlock()
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// requests returns what the server received so far.
func (s *apiServer) requests() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.reqs...)
}

// count returns how many requests the server received.
func (s *apiServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

// last returns the last request received; the test fails if there is none.
func (s *apiServer) last(t testing.TB) recorded {
	t.Helper()
	reqs := s.requests()
	if len(reqs) == 0 {
		t.Fatal("the server received no request")
	}
	return reqs[len(reqs)-1]
}

// newTestClient returns a client for s with fast retries and the test keys.
func newTestClient(t testing.TB, s *apiServer, opts ...Option) *Client {
	t.Helper()
	opts = append([]Option{WithBaseURL(s.URL), WithRetryWait(time.Millisecond, 5*time.Millisecond)}, opts...)
	c, err := NewClient(testAccessKey, testSecretKey, opts...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// verifyRequestJWT checks a request's Authorization header the way the
// API does, with golang-jwt rather than the client's own signer.
func verifyRequestJWT(r *http.Request, body []byte) error {
	raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return errString("no bearer token")
	}
	claims := jwt.MapClaims{}
	tok, err := jwt.ParseWithClaims(raw, claims, func(tok *jwt.Token) (any, error) {
		if tok.Header["access_key"] != testAccessKey {
			return nil, errString("wrong access_key header")
		}
		return []byte(testSecretKey), nil
	}, jwt.WithValidMethods([]string{"HS256"}))
	if err != nil || !tok.Valid {
		return err
	}
	if len(claims) != 2 {
		return errString("want exactly the path and content claims")
	}
	if claims["path"] != r.URL.Path {
		return errString("path claim does not match")
	}
	sum := sha256.Sum256(body)
	if claims["content"] != hex.EncodeToString(sum[:]) {
		return errString("content claim does not match")
	}
	if r.Header.Get("Content-Type") != "application/json" {
		return errString("no JSON content type")
	}
	return nil
}

type errString string

func (e errString) Error() string { return string(e) }

// writeJSON answers with status and a raw JSON body.
func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// ok answers 200 with the API envelope around result (raw JSON).
func ok(result string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, `{"success":true,"timestamp":"2024-05-01 10:00:00 -0600","result":`+result+`}`)
	}
}

// noLeaks closes the server and the client's idle connections, then checks
// that no goroutine started since before is still running.
func noLeaks(t testing.TB, before goleak.Option, srv *apiServer, c *Client) {
	t.Helper()
	c.CloseIdleConnections()
	srv.Close()
	if err := goleak.Find(before); err != nil {
		t.Fatal(err)
	}
}

// lkConns follows the server side of every connection through its
// http.ConnState hook.
type lkConns struct {
	mu     sync.Mutex
	states map[net.Conn]http.ConnState
	opened int
}

func (c *lkConns) track(conn net.Conn, s http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s == http.StateNew {
		c.opened++
	}
	if s == http.StateClosed || s == http.StateHijacked {
		delete(c.states, conn)
		return
	}
	c.states[conn] = s
}

// hsGuard is the deadline after which a call counts as hung.
const hsGuard = 20 * time.Second

// hsMemBound is the most a call may allocate while reading a hostile
// answer of any size: the 32 MiB cap, plus the buffer's growth, plus slack.
const hsMemBound = 100 << 20

type hsResult struct {
	err     error
	elapsed time.Duration
	// alloc is what the process allocated during the call (the growth of
	// runtime.MemStats.TotalAlloc): an upper bound on what the call held.
	alloc uint64
}

// hsMeasure runs call under the guard deadline and measures it.
func hsMeasure(t *testing.T, call func(ctx context.Context) error) hsResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hsGuard)
	defer cancel()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	err := call(ctx)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if ctx.Err() != nil {
		t.Fatalf("the call was still running after %s: it hangs (err %v)", hsGuard, err)
	}
	r := hsResult{err: err, elapsed: elapsed, alloc: after.TotalAlloc - before.TotalAlloc}
	t.Logf("ended in %s after allocating %.1f MiB: %v", elapsed.Round(time.Millisecond), float64(r.alloc)/(1<<20), err)
	return r
}

// hsServer is a test server whose handler counts the body bytes it
// managed to send, and the handlers still running.
type hsServer struct {
	*apiServer
	sent    atomic.Int64
	running atomic.Int32
}

func newHostileServer(t *testing.T, h func(s *hsServer, w http.ResponseWriter, r *http.Request)) *hsServer {
	t.Helper()
	s := &hsServer{}
	s.apiServer = newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		s.running.Add(1)
		defer s.running.Add(-1)
		h(s, w, r)
	})
	return s
}

// stream writes chunk until limit bytes were sent (limit < 0: forever)
// or the client goes away.
func (s *hsServer) stream(w http.ResponseWriter, r *http.Request, chunk []byte, limit int64) {
	for sent := int64(0); limit < 0 || sent < limit; sent += int64(len(chunk)) {
		if r.Context().Err() != nil {
			return
		}
		n, err := w.Write(chunk)
		s.sent.Add(int64(n))
		if err != nil {
			return
		}
	}
}

// settled waits for the handlers to end (the client hung up) and returns
// how many body bytes they sent.
func (s *hsServer) settled(t *testing.T) int64 {
	t.Helper()
	deadline := time.Now().Add(hsGuard)
	for s.running.Load() > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the server is still sending: the client did not hang up")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return s.sent.Load()
}

func hsWantDecodeError(t *testing.T, err error) *DecodeError {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v (%T), want a *DecodeError", err, err)
	}
	return de
}

// Values that the calls put in their query strings and bodies.
const (
	secCompany = "Acme Secretive Holdings"
	secSite    = "https://www.secret-site.example/shop?ref=hidden"
)

var secID = uuid.MustParse("5f0c2a9e-7d41-4b8e-9c3a-1e2d3c4b5a69")
