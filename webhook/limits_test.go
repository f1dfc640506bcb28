package webhook_test

import (
	"bufio"
	"context"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/webhook"
)

// TestMaxBodySizeEdges tries the edges of WithMaxBodySize: values that are
// not positive are refused when the verifier is built, and every positive
// value, up to math.MaxInt64, caps the body exactly there.
func TestMaxBodySizeEdges(t *testing.T) {
	for _, n := range []int64{0, -1, math.MinInt64} {
		_, err := webhook.NewVerifier(testSecret, webhook.WithMaxBodySize(n))
		require.Error(t, err, "WithMaxBodySize(%d)", n)
		assert.Contains(t, err.Error(), "maximum body size must be positive")
	}

	tok := sign(t, invoiceClaims())
	for _, n := range []int64{math.MaxInt64, math.MaxInt64 - 1, math.MaxInt32, int64(len(tok))} {
		v := newVerifier(t, webhook.WithMaxBodySize(n))
		for _, length := range []int64{-1, int64(len(tok))} {
			r := newRequest(tok)
			r.ContentLength = length
			ev, err := v.VerifyRequest(r)
			require.NoError(t, err, "WithMaxBodySize(%d), Content-Length %d", n, length)
			assert.Equal(t, testInvoiceID, ev.InvoiceID)
		}
	}

	// One byte: a body of one byte is read (and is no token), a body of
	// two is too large whether or not its length is announced.
	v := newVerifier(t, webhook.WithMaxBodySize(1))
	_, err := v.VerifyRequest(newRequest("x"))
	require.ErrorIs(t, err, webhook.ErrMalformed)
	for _, length := range []int64{-1, 2} {
		r := newRequest("xy")
		r.ContentLength = length
		_, err = v.VerifyRequest(r)
		require.ErrorIs(t, err, webhook.ErrBodyTooLarge, "Content-Length %d", length)
	}

	// A token one byte over the cap is refused, not cut.
	v = newVerifier(t, webhook.WithMaxBodySize(int64(len(tok))-1))
	r := newRequest(tok)
	r.ContentLength = -1
	_, err = v.VerifyRequest(r)
	require.ErrorIs(t, err, webhook.ErrBodyTooLarge)
}

// TestOptionsAtTheirLimits builds verifiers with the largest values every
// duration option takes: nothing overflows into a refusal of good tokens.
func TestOptionsAtTheirLimits(t *testing.T) {
	expired := with(invoiceClaims(), "exp", testNow.Add(-365*24*time.Hour).Unix())
	v := newVerifier(t, webhook.WithLeeway(math.MaxInt64), webhook.WithReadTimeout(math.MaxInt64))
	ev, err := v.Verify(sign(t, expired))
	require.NoError(t, err, "a leeway of MaxInt64 accepts a token that expired a year ago")
	assert.Equal(t, testInvoiceID, ev.InvoiceID)

	rec := &recorder{}
	w := serve(v.Handler(rec.handle), newRequest(sign(t, invoiceClaims())))
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Len(t, rec.events, 1)

	// The memory cache at its largest size and longest TTL still records
	// and refuses.
	// and refuses, with the longest lease too.
	c := webhook.NewMemoryReplayCache(math.MaxInt, math.MaxInt64)
	v = newVerifier(t, webhook.WithReplayCache(c), webhook.WithLease(math.MaxInt64))
	tok := sign(t, invoiceClaims())
	ev, err = v.Verify(tok)
	require.NoError(t, err)
	_, err = v.Verify(tok)
	require.ErrorIs(t, err, webhook.ErrInProgress)
	require.NoError(t, v.Commit(context.Background(), ev))
	_, err = v.Verify(tok)
	require.ErrorIs(t, err, webhook.ErrReplayed)
	w = serve(v.Handler(rec.handle), newRequest(sign(t, documentClaims())))
	assert.Equal(t, http.StatusOK, w.Code, "a lease of MaxInt64 gives fn a context that works")
	assert.Len(t, rec.events, 2)

	for _, d := range []time.Duration{0, -1, math.MinInt64} {
		_, err := webhook.NewVerifier(testSecret, webhook.WithReadTimeout(d))
		require.Error(t, err, "WithReadTimeout(%v)", d)
		assert.Contains(t, err.Error(), "read timeout must be positive")
		_, err = webhook.NewVerifier(testSecret, webhook.WithLease(d))
		require.Error(t, err, "WithLease(%v)", d)
		assert.Contains(t, err.Error(), "lease must be positive")
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

// timeoutReader fails as a connection whose read deadline passed.
type timeoutReader struct{}

func (timeoutReader) Read([]byte) (int, error) {
	return 0, &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
}

// TestVerifyRequestReadTimeout checks that VerifyRequest reports a read
// deadline set by the server or the caller as ErrReadTimeout, and no other
// sentinel.
func TestVerifyRequestReadTimeout(t *testing.T) {
	r := newRequest("")
	r.Body = io.NopCloser(timeoutReader{})
	r.ContentLength = -1
	ev, err := newVerifier(t).VerifyRequest(r)
	assert.Nil(t, ev)
	requireOnly(t, err, webhook.ErrReadTimeout, "")
}
