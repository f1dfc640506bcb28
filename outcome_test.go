package acctadmin

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// resetConn ends the request's connection with a TCP reset, after the
// whole request was read: the request reached the server.
func resetConn(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	conn.Close()
}

// Every at-most-once route is sent exactly once when it may have reached
// the API (a 503, a connection reset after the body was sent, a
// timeout), and the error says the outcome is unknown beside the
// underlying *APIError or *TransportError, and says how to find out.
func TestAtMostOnceRoutesSentOnce(t *testing.T) {
	faults := []struct {
		name    string
		handler func(w http.ResponseWriter, r *http.Request)
		check   func(t *testing.T, err error)
	}{
		{"503", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusServiceUnavailable, `{"message":"try later"}`)
		}, func(t *testing.T, err error) {
			var ae *APIError
			if !errors.As(err, &ae) || ae.StatusCode != 503 || !errors.Is(err, ErrServer) {
				t.Errorf("err = %v, want a 503 *APIError", err)
			}
		}},
		{"reset", func(w http.ResponseWriter, r *http.Request) { resetConn(w) }, func(t *testing.T, err error) {
			var te *TransportError
			if !errors.As(err, &te) || te.Attempts != 1 {
				t.Errorf("err = %v, want a *TransportError after 1 attempt", err)
			}
		}},
		{"timeout", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, func(t *testing.T, err error) {
			var te *TransportError
			if !errors.As(err, &te) || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want a timed-out *TransportError", err)
			}
		}},
	}
	for _, f := range faults {
		for _, rc := range everyCall() {
			if rc.rt.class != atMostOnce {
				continue
			}
			t.Run(f.name+" "+rc.rt.operation, func(t *testing.T) {
				t.Parallel()
				srv := newAPIServer(t, f.handler)
				timeout := 30 * time.Second // no other fault may pass for a timeout on a loaded machine
				if f.name == "timeout" {
					timeout = 200 * time.Millisecond
				}
				c := newTestClient(t, srv, WithTimeout(timeout))
				err := rc.call(context.Background(), c)
				if n := srv.count(); n != 1 {
					t.Errorf("%d requests, want exactly 1", n)
				}
				if !errors.Is(err, ErrOutcomeUnknown) {
					t.Errorf("err = %v, want ErrOutcomeUnknown", err)
				}
				if err != nil && !strings.Contains(err.Error(), rc.rt.verify) {
					t.Errorf("err = %q, does not say %q", err, rc.rt.verify)
				}
				f.check(t, err)
			})
		}
	}
}

// A refusal (4xx) leaves the outcome known; so does a connection that
// could not be made, which is retried since nothing reached the server.
// Repeatable routes are never ErrOutcomeUnknown.
func TestOutcomeKnown(t *testing.T) {
	refused := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusUnprocessableEntity, `{"message":"no"}`)
	})
	failing := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusServiceUnavailable, `{"message":"no"}`)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + ln.Addr().String()
	ln.Close()
	closed, err := NewClient(testAccessKey, testSecretKey, WithBaseURL(closedURL), WithMaxRetries(2),
		WithRetryWait(time.Millisecond, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range everyCall() {
		err := rc.call(context.Background(), newTestClient(t, refused))
		if errors.Is(err, ErrOutcomeUnknown) {
			t.Errorf("%s: a 422 is a known outcome: %v", rc.rt.operation, err)
		}
		err = rc.call(context.Background(), closed)
		var te *TransportError
		if !errors.As(err, &te) || te.Attempts != 3 || errors.Is(err, ErrOutcomeUnknown) {
			t.Errorf("%s: refused connection: err = %v, want a known *TransportError after 3 attempts", rc.rt.operation, err)
		}
		if rc.rt.class == repeatable {
			if err := rc.call(context.Background(), newTestClient(t, failing, WithMaxRetries(0))); errors.Is(err, ErrOutcomeUnknown) {
				t.Errorf("%s: a read is never of unknown outcome: %v", rc.rt.operation, err)
			}
		}
	}
}
