package acctadmin

// Guarantees kept against servers and callers that misbehave: a lying
// Content-Length, long messages that echo the query, invalid UTF-8, errors
// that would name hosts, a nil context, out-of-range options, attempt
// timeouts, and retry waits.

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

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

// A message longer than the cap that echoes the query: the query is
// replaced before the message is cut, so no part of it survives.
func TestAPIErrorMessageRedactsBeforeCutting(t *testing.T) {
	for pad := 440; pad <= 520; pad += 3 {
		for _, form := range []string{"raw", "decoded"} {
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				echo := r.URL.RawQuery
				if form == "decoded" {
					echo, _ = url.QueryUnescape(echo)
				}
				msg := strings.Repeat("x", pad) + " bad query: " + echo
				writeJSON(w, http.StatusBadRequest, `{"message":`+strconv.Quote(msg)+`}`)
			})
			c := newTestClient(t, srv)
			_, err := c.Services.List(context.Background(), &ServiceListParams{Company: "Top Secret Holdings"})
			var ae *APIError
			if !errors.As(err, &ae) {
				t.Fatalf("pad %d: err = %v, want an *APIError", pad, err)
			}
			for _, leak := range []string{"Top", "Secret", "company=", "compan"} {
				if strings.Contains(ae.Message, leak) || strings.Contains(err.Error(), leak) {
					t.Fatalf("pad %d, %s: message keeps %q: %s", pad, form, leak, ae.Message)
				}
			}
			if len(ae.Message) > 500+len("…") {
				t.Fatalf("pad %d: message of %d bytes, over the cap", pad, len(ae.Message))
			}
		}
	}
}

// Strings that reach callers are valid UTF-8, as encoding/json makes them.
func TestStringsReachCallersAsValidUTF8(t *testing.T) {
	t.Run("jurisdictions", func(t *testing.T) {
		var j jurisdictionNames
		if err := j.UnmarshalJSON([]byte("[\"Ut\xffah\", {\"jurisdiction\": \"Ida\xfeho\"}]")); err != nil {
			t.Fatal(err)
		}
		want := []string{"Ut\uFFFDah", "Ida\uFFFDho"}
		if !reflect.DeepEqual([]string(j), want) {
			t.Errorf("jurisdictions = %q, want %q", j, want)
		}
	})
	t.Run("unquote", func(t *testing.T) {
		s, ok := unquote([]byte("\"a\xc3\""))
		if !ok || s != "a\uFFFD" {
			t.Errorf("unquote = %q, %v; want %q", s, ok, "a\uFFFD")
		}
	})
	t.Run("message cut inside a rune", func(t *testing.T) {
		for pad := 495; pad <= 500; pad++ {
			msg := strings.Repeat("a", pad) + strings.Repeat("é", 10)
			e := newAPIError(400, "GET", "/x", []byte(`{"message":`+strconv.Quote(msg)+`}`), nil)
			if !utf8.ValidString(e.Message) || !utf8.ValidString(e.Error()) {
				t.Errorf("pad %d: message %q is not valid UTF-8", pad, e.Message[len(e.Message)-8:])
			}
		}
	})
}

// A TransportError says what failed, never which host: not for TLS
// certificate errors, DNS errors or URL errors either, while errors.As
// still reaches the typed cause.
func TestTransportErrorNamesNoHost(t *testing.T) {
	noHost := func(t *testing.T, err error, hosts ...string) {
		t.Helper()
		var te *TransportError
		if !errors.As(err, &te) {
			t.Fatalf("err = %v, want a *TransportError", err)
		}
		for _, h := range hosts {
			if strings.Contains(err.Error(), h) {
				t.Errorf("error names %q: %v", h, err)
			}
		}
	}
	tlsSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"success":true,"result":[]}`)
	}))
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	port := tlsSrv.Listener.Addr().(*net.TCPAddr).Port

	t.Run("certificate for another name", func(t *testing.T) {
		c, err := NewClient(testAccessKey, testSecretKey, WithMaxRetries(0),
			WithBaseURL("https://localhost:"+strconv.Itoa(port)), WithHTTPClient(tlsSrv.Client()))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Callbacks.List(context.Background())
		noHost(t, err, "example.com", "localhost", strconv.Itoa(port))
		var he x509.HostnameError
		if !errors.As(err, &he) {
			t.Errorf("errors.As(x509.HostnameError) failed on %v", err)
		}
	})
	t.Run("unknown authority", func(t *testing.T) {
		c, err := NewClient(testAccessKey, testSecretKey, WithMaxRetries(0), WithBaseURL(tlsSrv.URL))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Callbacks.List(context.Background())
		noHost(t, err, "127.0.0.1", strconv.Itoa(port))
		var ua x509.UnknownAuthorityError
		var cv *tls.CertificateVerificationError
		if !errors.As(err, &ua) || !errors.As(err, &cv) {
			t.Errorf("errors.As to the certificate errors failed on %v", err)
		}
	})
	t.Run("dns", func(t *testing.T) {
		dnsErr := &net.DNSError{Err: "no such host", Name: "api.hidden-host.example", Server: "10.9.8.7:53", IsNotFound: true}
		tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: network, Err: dnsErr}
		}}
		c, err := NewClient(testAccessKey, testSecretKey, WithMaxRetries(1), WithRetryWait(time.Millisecond, time.Millisecond),
			WithBaseURL("https://api.hidden-host.example"), WithHTTPClient(&http.Client{Transport: tr}))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Services.Create(context.Background(), &ServiceCreateParams{Company: "A", Jurisdictions: []string{"Utah"}})
		noHost(t, err, "hidden-host", "10.9.8.7")
		var de *net.DNSError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), "no such host") {
			t.Errorf("err = %v, want the DNS error kept and said", err)
		}
		// A name that does not resolve reached no server: even a POST is
		// tried again.
		if te := new(TransportError); errors.As(err, &te) && te.Attempts != 2 {
			t.Errorf("attempts = %d, want 2", te.Attempts)
		}
	})
	t.Run("url error text", func(t *testing.T) {
		err := &TransportError{Method: "GET", Path: "/x", Attempts: 1,
			Err: &url.Error{Op: "Get", URL: "https://secret-host.example/x?company=Top", Err: errors.New("boom")}}
		noHost(t, err, "secret-host", "company=")
	})
}

// WithMaxRetries refuses what it cannot honour, and keeps every value it
// takes: a huge count never overflows into "no retries".
func TestWithMaxRetriesEdges(t *testing.T) {
	for _, n := range []int{-1, maxRetriesLimit + 1, math.MaxInt, math.MinInt} {
		if _, err := NewClient(testAccessKey, testSecretKey, WithMaxRetries(n)); err == nil {
			t.Errorf("WithMaxRetries(%d) accepted", n)
		}
	}
	for _, n := range []int{0, 1, maxRetriesLimit} {
		c, err := NewClient(testAccessKey, testSecretKey, WithMaxRetries(n))
		if err != nil || c.maxRetries != n {
			t.Errorf("WithMaxRetries(%d) = %v, kept %v", n, err, c)
		}
	}
	// At the limit, every retry is made.
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) })
	c := newTestClient(t, srv, WithMaxRetries(maxRetriesLimit), WithRetryWait(0, 0))
	if _, err := c.Callbacks.List(context.Background()); !errors.Is(err, ErrServer) || srv.count() != maxRetriesLimit+1 {
		t.Errorf("err = %v after %d requests, want a 503 after %d", err, srv.count(), maxRetriesLimit+1)
	}
	for _, w := range [][2]time.Duration{{-1, time.Second}, {time.Second, time.Millisecond}, {0, math.MaxInt64}} {
		_, err := NewClient(testAccessKey, testSecretKey, WithRetryWait(w[0], w[1]))
		if w[1] == math.MaxInt64 {
			if err != nil {
				t.Errorf("WithRetryWait(%v) refused: %v", w, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("WithRetryWait(%v) accepted", w)
		}
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

// A nil context is refused the same way by every method: a
// *ValidationError, and nothing sent. Called with otherwise valid
// arguments, the error names "ctx"; with invalid ones too, it may name one
// of those instead. The methods are found by reflection, so a new one
// cannot be missed.
func TestNilContextRefusedByEveryMethod(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, `{"success":true,"result":[]}`) })
	c := newTestClient(t, srv)
	valid := map[reflect.Type]any{
		reflect.TypeOf(uuid.UUID{}):                                                 uuid.MustParse("0b7c5f0e-8d1c-4c55-9b3e-2f4a1d6e7a10"),
		reflect.TypeOf(""):                                                          "https://example.com/",
		reflect.TypeOf(&ServiceCreateParams{}):                                      &ServiceCreateParams{Company: "A", Jurisdictions: []string{"Utah"}},
		reflect.TypeOf(&ComplianceEventListParams{}):                                &ComplianceEventListParams{StartDate: Date{2024, 1, 1}, EndDate: Date{2024, 2, 1}},
		reflect.TypeOf(&FilingProductListParams{}):                                  &FilingProductListParams{URL: "https://example.com/"},
		reflect.TypeOf(&RegisteredAgentProductListParams{}):                         &RegisteredAgentProductListParams{URL: "https://example.com/"},
		reflect.TypeOf([]CompanyCreateParams{}):                                     []CompanyCreateParams{{Name: "A"}},
		reflect.TypeOf([]CompanyUpdateParams{}):                                     []CompanyUpdateParams{{Company: "A", Name: "B"}},
		reflect.TypeOf(func(context.Context, Document, *File) error { return nil }): func(context.Context, Document, *File) error { return nil },
		reflect.TypeOf([]uuid.UUID{}):                                               []uuid.UUID{wcDocument},
		reflect.TypeOf(&LoginParams{}):                                              &LoginParams{Email: "u@example.com", Password: wcPassword},
		reflect.TypeOf(&ForgotPasswordParams{}):                                     &ForgotPasswordParams{EmailAddress: "u@example.com"},
		reflect.TypeOf(&ResetPasswordParams{}):                                      &ResetPasswordParams{Token: wcResetToken, Password: wcPassword},
		reflect.TypeOf(&ServiceInfo{}):                                              &ServiceInfo{},
		reflect.TypeOf(&OfferingParams{}):                                           &OfferingParams{CompanyID: wcCompany, Jurisdiction: "UT"},
		reflect.TypeOf(&FilingMethodListParams{}):                                   &FilingMethodListParams{CompanyID: wcCompany, Jurisdiction: "UT", FilingProductID: wcProduct},
		reflect.TypeOf(&FormSchemaParams{}):                                         &FormSchemaParams{CompanyID: wcCompany, FilingMethodID: wcMethod},
		reflect.TypeOf(&SimpleProductListParams{}):                                  &SimpleProductListParams{URL: "https://example.com/"},
		reflect.TypeOf(&SignedFormListParams{}):                                     &SignedFormListParams{FilingMethodID: wcMethod},
		reflect.TypeOf(&CartAddParams{}):                                            &CartAddParams{CompanyID: wcCompany, ProductID: wcProduct},
		reflect.TypeOf(&CartRemoveParams{}):                                         &CartRemoveParams{ItemIDs: []uuid.UUID{wcItem}},
		reflect.TypeOf(&CheckoutParams{}):                                           &CheckoutParams{ItemIDs: []uuid.UUID{wcItem}, PaymentMethodID: wcCard},
		reflect.TypeOf(&Card{}):                                                     wcCardParams(),
		reflect.TypeOf(&InvoicePayParams{}):                                         &InvoicePayParams{InvoiceIDs: []uuid.UUID{wcInvoice}, PaymentMethodID: wcCard},
		reflect.TypeOf(&OrderItemFormDataParams{}):                                  &OrderItemFormDataParams{CompanyID: wcCompany, OrderItemID: wcOrder, FormData: map[string]any{}},
	}
	cv := reflect.ValueOf(c).Elem()
	ctxType := reflect.TypeOf((*context.Context)(nil)).Elem()
	errType := reflect.TypeOf((*error)(nil)).Elem()
	call := func(meth reflect.Value, args []reflect.Value) (err error) {
		var out []reflect.Value
		if meth.Type().IsVariadic() {
			out = meth.CallSlice(args)
		} else {
			out = meth.Call(args)
		}
		last := out[len(out)-1]
		switch {
		case last.Type() == errType:
			err, _ = last.Interface().(error)
		case last.Kind() == reflect.Func: // an iter.Seq2[T, error]
			yield := reflect.MakeFunc(last.Type().In(0), func(in []reflect.Value) []reflect.Value {
				err, _ = in[1].Interface().(error)
				return []reflect.Value{reflect.ValueOf(false)}
			})
			last.Call([]reflect.Value{yield})
		default:
			t.Fatalf("unexpected result type %s", last.Type())
		}
		return err
	}
	tested := 0
	for i := range cv.NumField() {
		f := cv.Field(i)
		if !cv.Type().Field(i).IsExported() || f.Kind() != reflect.Pointer {
			continue
		}
		for m := range f.NumMethod() {
			meth := f.Method(m)
			mt := meth.Type()
			name := cv.Type().Field(i).Name + "." + f.Type().Method(m).Name
			if mt.NumIn() == 0 || mt.In(0) != ctxType {
				continue
			}
			zero := []reflect.Value{reflect.Zero(ctxType)}
			good := []reflect.Value{reflect.Zero(ctxType)}
			for a := 1; a < mt.NumIn(); a++ {
				zero = append(zero, reflect.Zero(mt.In(a)))
				if v, ok := valid[mt.In(a)]; ok {
					good = append(good, reflect.ValueOf(v))
				} else {
					good = append(good, reflect.Zero(mt.In(a)))
				}
			}
			var ve *ValidationError
			if err := call(meth, zero); !errors.As(err, &ve) || !errors.Is(err, ErrInvalidParams) {
				t.Errorf("%s(nil, zero values) = %v, want a *ValidationError", name, err)
			}
			if err := call(meth, good); !errors.As(err, &ve) || ve.Field != "ctx" {
				t.Errorf("%s(nil, valid arguments) = %v, want a *ValidationError for ctx", name, err)
			}
			tested++
		}
	}
	if tested < 25 {
		t.Errorf("tested %d methods; the client has more", tested)
	}
	if srv.count() != 0 {
		t.Errorf("%d requests sent for nil contexts", srv.count())
	}
}
