package acctadmin

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Hostile answers: servers that send what no API should. Each call must
// end in a typed error (or, where the answer is merely odd, a correct
// result) in bounded time and bounded memory. A generous deadline turns a
// hang into a failure instead of a stuck test; memory is measured, not
// time.

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

func hsWantDecodeError(t *testing.T, err error) *DecodeError {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v (%T), want a *DecodeError", err, err)
	}
	return de
}

func hsWantTransportError(t *testing.T, err error) *TransportError {
	t.Helper()
	var te *TransportError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v (%T), want a *TransportError", err, err)
	}
	return te
}

// A JSON answer of 1 GiB, generated as it is sent: the client stops at
// its 32 MiB cap, hangs up, and holds no more than the cap.
func TestHostileHugeJSONBody(t *testing.T) {
	for _, tc := range []struct {
		name          string
		contentLength bool
	}{{"chunked", false}, {"with content length", true}} {
		t.Run(tc.name, func(t *testing.T) {
			const size = 1 << 30
			prefix := []byte(`{"success":true,"result":[`)
			srv := newHostileServer(t, func(s *hsServer, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if tc.contentLength {
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

// A body that never ends, fast: the cap ends it.
func TestHostileEndlessBody(t *testing.T) {
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
func TestHostileTricklingBody(t *testing.T) {
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
func TestHostileNoHeaders(t *testing.T) {
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

// Deep nesting: the decoder refuses it at once instead of recursing.
func TestHostileDeepNesting(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"arrays", `{"success":true,"result":` + strings.Repeat("[", 100_000)},
		{"arrays closed", `{"success":true,"result":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}`},
		{"objects", `{"success":true,"result":` + strings.Repeat(`{"a":`, 100_000) + "1" + strings.Repeat("}", 100_000) + `}`},
		{"error body", `{"success":false,"message":` + strings.Repeat(`{"message":`, 100_000) + `"x"` + strings.Repeat("}", 100_000) + `}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, http.StatusOK, tc.body)
			})
			c := newTestClient(t, srv)
			res := hsMeasure(t, func(ctx context.Context) error {
				_, err := c.Callbacks.List(ctx)
				return err
			})
			de := hsWantDecodeError(t, res.err)
			if de.Endpoint != "GET /callbacks" {
				t.Errorf("DecodeError = %v", de)
			}
			if res.alloc > hsMemBound {
				t.Errorf("the call allocated %d MiB", res.alloc>>20)
			}
		})
	}
}

// A turnaround nested in arrays thousands deep, around a large object:
// each level was once decoded by reading all of the levels inside it
// again, so a body of a few MiB kept a CPU busy for minutes.
func TestHostileNestedTurnaround(t *testing.T) {
	const depth = 9_000
	pad := strings.Repeat("p", 1<<20)
	body := `{"success":true,"result":[{"id":"7d4a1f3e-8b2c-4e5f-9a6b-1c2d3e4f5a6b","price":1,"filing_methods":[{"filed_in":` +
		strings.Repeat("[", depth) + `{"days":1,"pad":"` + pad + `"}` + strings.Repeat("]", depth) + `}]}]}`
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, body)
	})
	c := newTestClient(t, srv)
	res := hsMeasure(t, func(ctx context.Context) error {
		_, err := c.FilingProducts.List(ctx, &FilingProductListParams{URL: "https://example.com", Jurisdiction: "Utah"})
		return err
	})
	de := hsWantDecodeError(t, res.err)
	if de.Path != "result[0].filing_methods[0].filed_in" {
		t.Errorf("DecodeError path = %q, want the turnaround", de.Path)
	}
	if res.alloc > hsMemBound {
		t.Errorf("the call allocated %d MiB", res.alloc>>20)
	}
}

// Invalid UTF-8 in strings is read as the replacement character, not
// passed on: callers always get valid strings. In an id it is an error.
func TestHostileInvalidUTF8(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, "{\"success\":true,\"result\":[{\"id\":\"7d4a1f3e-8b2c-4e5f-9a6b-1c2d3e4f5a6b\",\"url\":\"https://ex\xff\xfeample.com/\xc0\xaf\\ud800\"}]}")
	})
	c := newTestClient(t, srv)
	cbs, err := c.Callbacks.List(context.Background())
	if err != nil || len(cbs) != 1 {
		t.Fatalf("List = %v, %v", cbs, err)
	}
	if got := cbs[0].URL; !utf8.ValidString(got) || strings.Count(got, "\uFFFD") != 5 || !strings.HasPrefix(got, "https://ex") {
		t.Errorf("URL = %q, want valid UTF-8 with 5 replacement characters", got)
	}

	bad := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, "{\"success\":true,\"result\":[{\"id\":\"7d4a1f3e-8b2c-4e5f-9a6b-1c2d3e4f5a6\xff\"}]}")
	})
	_, err = newTestClient(t, bad).Callbacks.List(context.Background())
	if de := hsWantDecodeError(t, err); de.Path != "result[0].id" {
		t.Errorf("DecodeError path = %q, want result[0].id", de.Path)
	}
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

// A gzip bomb: Go's transport asks for gzip and inflates it without the
// caller seeing; the cap holds on the inflated size.
func TestHostileGzipBomb(t *testing.T) {
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

// A Content-Length that lies.
func TestHostileContentLength(t *testing.T) {
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

// Binary endpoints that answer something else: JSON (success or not,
// small or endless), HTML, the other binary type. Each is a typed error;
// the endless ones are cut at the caps.
func TestHostileBinaryEndpoints(t *testing.T) {
	id := uuid.MustParse("7d4a1f3e-8b2c-4e5f-9a6b-1c2d3e4f5a6b")
	for _, tc := range []struct {
		name    string
		handler func(s *hsServer, w http.ResponseWriter, r *http.Request)
		call    func(ctx context.Context, c *Client) (*File, error)
		check   func(t *testing.T, err error)
	}{
		{
			name: "json success for a pdf",
			handler: func(s *hsServer, w http.ResponseWriter, r *http.Request) {
				writeJSON(w, http.StatusOK, `{"success":true,"result":{"id":"x"}}`)
			},
			call: func(ctx context.Context, c *Client) (*File, error) { return c.Documents.Download(ctx, id) },
			check: func(t *testing.T, err error) {
				if de := hsWantDecodeError(t, err); !strings.Contains(de.Error(), `"application/json"`) {
					t.Errorf("DecodeError = %v, want it to name the content type", de)
				}
			},
		},
		{
			name: "json failure for a png",
			handler: func(s *hsServer, w http.ResponseWriter, r *http.Request) {
				writeJSON(w, http.StatusOK, `{"success":false,"message":"page not rendered"}`)
			},
			call: func(ctx context.Context, c *Client) (*File, error) { return c.Resources.Page(ctx, id, 0, nil) },
			check: func(t *testing.T, err error) {
				if apiErr := tpAPIError(t, err); apiErr.Message != "page not rendered" || apiErr.StatusCode != 200 {
					t.Errorf("APIError = %+v", apiErr)
				}
			},
		},
		{
			name: "endless json for a pdf",
			handler: func(s *hsServer, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{"success":false,"message":"`)
				s.stream(w, r, bytes.Repeat([]byte("x"), 64<<10), -1)
			},
			call: func(ctx context.Context, c *Client) (*File, error) { return c.Resources.Download(ctx, id) },
			check: func(t *testing.T, err error) {
				hsWantDecodeError(t, err)
			},
		},
		{
			name: "endless html for a png",
			handler: func(s *hsServer, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				s.stream(w, r, bytes.Repeat([]byte("<p>login</p>"), 4<<10), -1)
			},
			call: func(ctx context.Context, c *Client) (*File, error) {
				return c.Documents.Page(ctx, id, 2, &PageParams{DPI: 72})
			},
			check: func(t *testing.T, err error) {
				if de := hsWantDecodeError(t, err); !strings.Contains(de.Error(), "text/html") {
					t.Errorf("DecodeError = %v", de)
				}
			},
		},
		{
			name: "pdf for a png",
			handler: func(s *hsServer, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/pdf")
				_, _ = io.WriteString(w, "%PDF-1.4\n")
			},
			call: func(ctx context.Context, c *Client) (*File, error) { return c.Documents.Page(ctx, id, 0, nil) },
			check: func(t *testing.T, err error) {
				if de := hsWantDecodeError(t, err); !strings.Contains(de.Error(), "application/pdf") {
					t.Errorf("DecodeError = %v", de)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newHostileServer(t, tc.handler)
			c := newTestClient(t, srv.apiServer)
			res := hsMeasure(t, func(ctx context.Context) error {
				f, err := tc.call(ctx, c)
				if f != nil {
					f.Close()
					t.Errorf("got a file of type %q", f.ContentType)
				}
				return err
			})
			tc.check(t, res.err)
			if res.alloc > hsMemBound {
				t.Errorf("the call allocated %d MiB", res.alloc>>20)
			}
			srv.settled(t)
		})
	}
}

// The redirect to another host, whose request must not carry the
// credentials, is TestRedirectToOtherHostRefused (transport_test.go);
// TestSecretsNeverLeak runs every method against one.
