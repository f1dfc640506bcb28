package acctadmin

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"pgregory.net/rapid"
)

func TestAPIErrorSentinels(t *testing.T) {
	cases := []struct {
		status int
		want   error
	}{
		{http.StatusNotFound, ErrNotFound},
		{http.StatusUnauthorized, ErrUnauthorized},
		{http.StatusForbidden, ErrForbidden},
		{http.StatusTooManyRequests, ErrRateLimited},
		{http.StatusInternalServerError, ErrServer},
		{http.StatusBadGateway, ErrServer},
		{http.StatusServiceUnavailable, ErrServer},
	}
	sentinels := []error{ErrNotFound, ErrUnauthorized, ErrForbidden, ErrRateLimited, ErrServer, ErrInvalidParams}
	for _, tc := range cases {
		err := fmt.Errorf("wrapped: %w", newAPIError(tc.status, "GET", "/documents", nil, nil))
		for _, s := range sentinels {
			if got := errors.Is(err, s); got != (s == tc.want) {
				t.Errorf("status %d: errors.Is(err, %v) = %v", tc.status, s, got)
			}
		}
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != tc.status {
			t.Errorf("status %d: errors.As gave %v", tc.status, apiErr)
		}
	}
	overCap := newAPIError(http.StatusServiceUnavailable, "GET", "/x", nil, nil)
	overCap.RetryAfter = time.Hour
	if !errors.Is(overCap, ErrRateLimited) || !errors.Is(overCap, ErrServer) {
		t.Fatal("a 503 with a Retry-After over the cap is both ErrServer and ErrRateLimited")
	}
	overCap.RetryAfter = 30 * time.Second
	if errors.Is(overCap, ErrRateLimited) {
		t.Fatal("a 503 with a Retry-After under the cap is not ErrRateLimited")
	}
	if errors.Is(newAPIError(400, "GET", "/x", nil, nil), ErrNotFound) {
		t.Fatal("a 400 is not ErrNotFound")
	}
}

func TestAPIErrorMessageShapes(t *testing.T) {
	cases := map[string]string{
		`{"success":false,"message":"company not found"}`:           "company not found",
		`{"error":"bad limit"}`:                                     "bad limit",
		`{"error":{"code":"x","message":"nested message"}}`:         "nested message",
		`{"errors":["first","second"]}`:                             "first; second",
		`{"errors":[{"field":"limit","message":"too big"}]}`:        "too big",
		`{"success":false,"timestamp":"2024-05-01 10:00:00 -0600"}`: "bad request",
		`<html>Bad Gateway</html>`:                                  "bad request",
		``:                                                          "bad request",
		`{"message":"` + strings.Repeat("a", 600) + `"}`:            strings.Repeat("a", 500) + "…",
	}
	for body, want := range cases {
		e := newAPIError(http.StatusBadRequest, "POST", "/services", []byte(body), nil)
		if e.Message != want {
			t.Errorf("body %.40q: message %q, want %q", body, e.Message, want)
		}
		if e.Error() != "acctadmin: POST /services: 400 "+want {
			t.Errorf("Error() = %q", e.Error())
		}
	}
}

func TestAPIErrorBodyIsCapped(t *testing.T) {
	body := []byte(strings.Repeat("x", maxErrorBody*2))
	if e := newAPIError(500, "GET", "/x", body, nil); len(e.Body) != maxErrorBody {
		t.Fatalf("body kept %d bytes, want %d", len(e.Body), maxErrorBody)
	}
}

func TestValidationErrorIsInvalidParams(t *testing.T) {
	err := fmt.Errorf("call: %w", invalid("limit", "must be at most %d, got %d", 100, 101))
	var ve *ValidationError
	if !errors.Is(err, ErrInvalidParams) || !errors.As(err, &ve) || ve.Field != "limit" {
		t.Fatalf("got %v", err)
	}
	if ve.Error() != "acctadmin: invalid limit: must be at most 100, got 101" {
		t.Fatalf("message %q", ve.Error())
	}
	if errors.Is(err, ErrNotFound) {
		t.Fatal("a validation error is not ErrNotFound")
	}
}

func TestDecodeErrorUnwraps(t *testing.T) {
	cause := errors.New("boom")
	err := fmt.Errorf("x: %w", &DecodeError{Endpoint: "GET /documents", Path: "result[2].pages", Err: cause})
	var de *DecodeError
	if !errors.Is(err, cause) || !errors.As(err, &de) || de.Path != "result[2].pages" {
		t.Fatalf("got %v", err)
	}
	if de.Error() != "acctadmin: decode GET /documents: result[2].pages: boom" {
		t.Fatalf("message %q", de.Error())
	}
}

// groupSeparators are the characters a card number is written with
// between its groups, as cardSeparators names them.
var groupSeparators = []string{" ", "-", ".", " - ", "  ", "\u00a0", "\u2009", "\u2013", "\t"}

// A server that echoes the card number in groups, in its message, a header
// and its per-field errors: no text of the error shows it, and each still
// says what the server said.
func TestCardNumberEchoedInGroupsIsRedacted(t *testing.T) {
	for _, tc := range []struct{ number, echo string }{
		{"4111111111111111", "4111-1111-1111-1111"},
		{"4111 1111 1111 1111", "4111.1111.1111.1111"},
		{"4111111111111111", "4111 1111 1111 1111"},
		{"378282246310005", "3782 822463 10005"},
		{"378282246310005", "3782-822463-10005"},
	} {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Card", "card "+tc.echo)
			body, _ := json.Marshal(map[string]any{"success": false, "message": "card " + tc.echo + " was declined",
				"errors": []map[string]string{{"field": "number " + tc.echo, "message": "declined: " + tc.echo}}})
			writeJSON(w, http.StatusPaymentRequired, string(body))
		})
		card := wcCardParams()
		card.Number = Secret(tc.number)
		_, err := newTestClient(t, srv).PaymentMethods.Create(context.Background(), card)
		apiErr := tpAPIError(t, err)
		if want := "card [redacted] was declined"; apiErr.Message != want {
			t.Errorf("echo %d digits as %d bytes: Message = %q, want %q", len(strings.ReplaceAll(tc.number, " ", "")), len(tc.echo), apiErr.Message, want)
		}
		if got := apiErr.Header.Get("X-Card"); got != "card [redacted]" {
			t.Errorf("Header X-Card = %q, want %q", got, "card [redacted]")
		}
		if want := []FieldError{{Field: "number [redacted]", Message: "declined: [redacted]"}}; fmt.Sprint(apiErr.Fields) != fmt.Sprint(want) {
			t.Errorf("Fields = %v, want %v", apiErr.Fields, want)
		}
		digits := strings.ReplaceAll(tc.number, " ", "")
		for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), string(apiErr.Body), fmt.Sprint(apiErr.Header), fmt.Sprint(apiErr.Fields)} {
			if strings.Contains(text, tc.echo) || strings.Contains(text, digits) {
				t.Errorf("the card number shows: %.300s", text)
			}
		}
	}
}

// An error body whose 64 KiB cut falls inside a character, or inside the
// U+FFFD that redaction writes for an invalid byte (one byte become
// three): Body is cut before that character and stays valid UTF-8, as
// every other text of the error does.
func TestAPIErrorBodyIsCutOnARuneBoundary(t *testing.T) {
	for _, tail := range []string{"\xff\xfe\xfd\xfc", "ééé", "€€€", "😀😀"} {
		for k := 0; k <= 4; k++ {
			prefix := `{"message":"` + strings.Repeat("x", maxErrorBody-len(`{"message":"`)-k)
			body := prefix + tail + `","errors":[{"field":"f` + tail + `","message":"` + strings.Repeat(tail, 100) + `"}]}`
			e := newAPIError(http.StatusBadRequest, "POST", "/x", []byte(body), &redactor{})
			for what, text := range map[string]string{"Body": string(e.Body), "Message": e.Message, "Error": e.Error(), "Fields": fmt.Sprint(e.Fields)} {
				if !utf8.ValidString(text) {
					t.Errorf("tail %q at %d bytes from the cut: %s is not valid UTF-8: ...%q", tail, k, what, text[max(0, len(text)-12):])
				}
			}
			if len(e.Body) > maxErrorBody || len(e.Body) < maxErrorBody-3 || !strings.HasPrefix(string(e.Body), prefix) {
				t.Errorf("tail %q at %d bytes from the cut: Body kept %d bytes, want the %d bytes before the cut's character", tail, k, len(e.Body), maxErrorBody)
			}
		}
	}
}

// A TransportError of a failed connection (refused, a name that does not
// resolve, a certificate refused) names the host it tried, as
// scheme://host:port, without the userinfo, path or query of the base
// URL, nor the resolver's address or the certificate's names; one of a
// connection that failed later names no host; errors.As still reaches
// the typed cause.
func TestTransportErrorNamesTheHostOfAFailedConnection(t *testing.T) {
	check := func(t *testing.T, err error, want string, hidden ...string) {
		t.Helper()
		var te *TransportError
		if !errors.As(err, &te) {
			t.Fatalf("err = %v, want a *TransportError", err)
		}
		if want != "" && !strings.Contains(err.Error(), ": connect to "+want+": ") {
			t.Errorf("err = %v, want it to name %s", err, want)
		}
		if want == "" && strings.Contains(err.Error(), "connect to") {
			t.Errorf("err = %v names a host", err)
		}
		for _, h := range hidden {
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
	port := strconv.Itoa(tlsSrv.Listener.Addr().(*net.TCPAddr).Port)

	t.Run("certificate for another name", func(t *testing.T) {
		c, err := NewClient(testAccessKey, testSecretKey, WithMaxRetries(0),
			WithBaseURL("https://localhost:"+port), WithHTTPClient(tlsSrv.Client()))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Callbacks.List(context.Background())
		check(t, err, "https://localhost:"+port, "example.com")
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
		check(t, err, "https://127.0.0.1:"+port)
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
			WithBaseURL("https://api.hidden-host.example/v1"), WithHTTPClient(&http.Client{Transport: tr}))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Services.Create(context.Background(), &ServiceCreateParams{Company: "A", Jurisdictions: []string{"Utah"}})
		check(t, err, "https://api.hidden-host.example", "10.9.8.7", "example/v1")
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
	t.Run("refused, with a query", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closed := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		ln.Close()
		c, err := NewClient(testAccessKey, testSecretKey, WithMaxRetries(1), WithRetryWait(time.Millisecond, time.Millisecond),
			WithBaseURL("http://127.0.0.1:"+closed+"/api"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Services.List(context.Background(), &ServiceListParams{Company: "Top Secret LLC"})
		check(t, err, "http://127.0.0.1:"+closed, "Top", "company=")
		var op *net.OpError
		if !errors.As(err, &op) || op.Op != "dial" {
			t.Errorf("err = %v, want the *net.OpError kept", err)
		}
	})
	t.Run("reset after the request", func(t *testing.T) {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { resetConn(w) })
		_, err := newTestClient(t, srv, WithMaxRetries(0)).Services.List(context.Background(), nil)
		check(t, err, "", "127.0.0.1")
	})
	t.Run("userinfo", func(t *testing.T) {
		err := &url.Error{Op: "Get", URL: "https://someone:hunter22@api.example.com:8443/x?company=Top#f",
			Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}}
		if got, want := connectOrigin(err), "https://api.example.com:8443"; got != want {
			t.Errorf("connectOrigin = %q, want %q", got, want)
		}
	})
	t.Run("url error text", func(t *testing.T) {
		err := &TransportError{Method: "GET", Path: "/x", Attempts: 1,
			Err: &url.Error{Op: "Get", URL: "https://secret-host.example/x?company=Top", Err: errors.New("boom")}}
		check(t, err, "", "secret-host", "company=")
	})
}

// At most five messages of an error body's list are joined.
func TestErrorMessageJoinsAtMostFive(t *testing.T) {
	got := errorMessage([]byte(`{"errors":["a","b","c","d","e","f","g"]}`))
	if got != "a; b; c; d; e" {
		t.Fatalf("message = %q, want the first five", got)
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

// The message of an error body is looked for four levels down and no
// further; deeper nesting is not walked, however deep it goes.
func TestErrorMessageSearchIsBoundedInDepth(t *testing.T) {
	nest := func(levels int) string {
		s := `{"message":"deep"}`
		for i := 0; i < levels; i++ {
			s = `{"error":` + s + `}`
		}
		return s
	}
	for levels, want := range map[int]string{1: "deep", 3: "deep", 4: "", 50: ""} {
		if got := errorMessage([]byte(nest(levels))); got != want {
			t.Errorf("message under %d levels: %q, want %q", levels, got, want)
		}
	}
	if got := errorMessage([]byte(`{"errors":[[[[{"message":"deep"}]]]]}`)); got != "" {
		t.Errorf("message under nested arrays: %q, want none", got)
	}
	if got := errorMessage([]byte(`{"errors":[[{"message":"a"}],"b"]}`)); got != "a; b" {
		t.Errorf("messages in an array: %q", got)
	}
	// 1,000 levels: Go's decoder takes them, the search stops at four.
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusBadRequest, nest(1000))
	})
	_, err := newTestClient(t, srv).Services.List(context.Background(), nil)
	if got := tpAPIError(t, err).Message; got != "bad request" {
		t.Fatalf("Message = %q, want the status text", got)
	}
}

// A refused form says which field: the API's per-field errors reach the
// caller as APIError.Fields, named as the request spelled them, and
// nothing is sent again.
func TestFieldErrorsOfARefusedForm(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusUnprocessableEntity, `{"success":false,"message":"form_data is invalid",
			"errors":[{"field":"form_data.ssn","message":"must look like NNN-NN-NNNN"},{"field":"form_data.start_date","message":"is required"}]}`)
	})
	c := newTestClient(t, srv)
	_, err := c.OrderItems.SubmitFormData(context.Background(), &OrderItemFormDataParams{CompanyID: wcCompany, OrderItemID: wcOrder,
		FormData: map[string]any{"ssn": "12"}})
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != 422 || errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("err = %v, want a 422 *APIError of known outcome", err)
	}
	want := []FieldError{{"form_data.ssn", "must look like NNN-NN-NNNN"}, {"form_data.start_date", "is required"}}
	if !reflect.DeepEqual(ae.Fields, want) || ae.Message != "form_data is invalid" {
		t.Errorf("Fields = %+v, Message = %q; want %+v", ae.Fields, ae.Message, want)
	}
	if srv.count() != 1 {
		t.Errorf("%d requests, want 1", srv.count())
	}
	// The SDK's own check names a field the same way.
	_, err = c.ShoppingCart.Add(context.Background(), &CartAddParams{CompanyID: wcCompany, ProductID: wcProduct, FormData: "x"})
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Field != "form_data" {
		t.Errorf("err = %v, want a *ValidationError for form_data", err)
	}
}

// The shapes of "errors" the API may use, and the bounds.
func TestFieldErrorShapes(t *testing.T) {
	long := strings.Repeat("é", 300)
	many := make([]map[string]string, 80)
	for i := range many {
		many[i] = map[string]string{"field": fmt.Sprintf("f%d", i), "message": "bad"}
	}
	manyJSON, _ := json.Marshal(map[string]any{"errors": many})
	for _, tc := range []struct {
		body string
		want []FieldError
	}{
		{`{"errors":[{"field":"number","message":"is not a card number"}]}`, []FieldError{{"number", "is not a card number"}}},
		{`{"errors":[{"attribute":"cvc","error":"too short"},{"message":"no field"}]}`, []FieldError{{"cvc", "too short"}}},
		{`{"errors":{"exp_year":["is in the past"],"cvc":"too short"}}`, []FieldError{{"cvc", "too short"}, {"exp_year", "is in the past"}}},
		{`{"errors":["just a message"]}`, nil},
		{`{"message":"no fields"}`, nil},
		{`not json`, nil},
		{`{"errors":[{"field":"` + long + `","message":"` + long + `"}]}`, []FieldError{{truncate(long, maxFieldText), truncate(long, maxFieldText)}}},
	} {
		if got := newAPIError(422, "POST", "/x", []byte(tc.body), nil).Fields; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%.60s: Fields = %+v, want %+v", tc.body, got, tc.want)
		}
	}
	if got := newAPIError(422, "POST", "/x", manyJSON, nil).Fields; len(got) != maxFieldErrors || got[49].Field != "f49" {
		t.Errorf("%d fields kept (last %+v), want the first %d", len(got), got[len(got)-1], maxFieldErrors)
	}
}

// The real API keeps an error's detail inside result
// (spec/recorded-behaviour.md, E1): the message is read from message,
// then from result as text or as an object with request, message or
// error; a list under result (a refused cancellation's invoices) is no
// message.
func TestAPIErrorDetailInResult(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusBadRequest, `{"success":false,"result":{"request":"Company name already exists"}}`)
	})
	c := newTestClient(t, srv)
	_, err := c.Companies.Create(context.Background(), CompanyCreateParams{Name: "Acme LLC", HomeState: "Florida"})
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusBadRequest || ae.Message != "Company name already exists" || srv.count() != 1 {
		t.Fatalf("err = %v, want a 400 *APIError saying Company name already exists", err)
	}
	for body, want := range map[string]string{
		`{"success":false,"result":"Company name already exists"}`:                                                 "Company name already exists",
		`{"success":false,"result":{"message":"SERVICE_EXISTS: already exists"}}`:                                  "SERVICE_EXISTS: already exists",
		`{"success":false,"result":{"error":"DUPLICATE_COMPANY"}}`:                                                 "DUPLICATE_COMPANY",
		`{"success":false,"message":"first","result":{"request":"second"}}`:                                        "first",
		`{"success":false,"result":{"request":"the request","message":"the message"}}`:                             "the request",
		`{"success":false,"result":[{"id":"1f2e3d4c-3333-4000-8000-0000000000cc","message":"Annual report due"}]}`: "bad request",
		`{"success":false,"result":{"id":"1f2e3d4c-3333-4000-8000-0000000000cc"}}`:                                 "bad request",
		`{"success":false,"result":{"request":"` + strings.Repeat("b", 700) + `"}}`:                                strings.Repeat("b", 500) + "…",
		`{"success":false,"result":{"request":"bad key ` + testSecretKey + `"}}`:                                   "bad key [redacted]",
		`{"success":false,"result":{"error":{"request":"nested ` + testAccessKey + `"}}}`:                          "nested [redacted]",
	} {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusBadRequest, body) })
		_, err := newTestClient(t, srv).Companies.Create(context.Background(), CompanyCreateParams{Name: "Acme LLC"})
		if !errors.As(err, &ae) || ae.Message != want || strings.Contains(err.Error(), testSecretKey) {
			t.Errorf("%.70s: err %v, want the message %q", body, err, want)
		}
	}
}

// company_errors and jurisdiction_errors, which POST /companies answers
// may carry (spec/recorded-behaviour.md, E2), are kept in Fields, beside
// result or inside it, whatever their shape.
func TestFieldErrorsOfCompanyWrites(t *testing.T) {
	for _, tc := range []struct {
		body string
		want []FieldError
	}{
		{`{"success":false,"result":{"request":"refused","company_errors":["DUPLICATE_COMPANY: Acme LLC already exists"]}}`,
			[]FieldError{{"company_errors", "DUPLICATE_COMPANY: Acme LLC already exists"}}},
		{`{"success":false,"company_errors":[{"name":"Acme LLC","code":"DUPLICATE_COMPANY"}],"jurisdiction_errors":{"Oregon1":"unknown jurisdiction"}}`,
			[]FieldError{{"company_errors", `{"name":"Acme LLC","code":"DUPLICATE_COMPANY"}`}, {"jurisdiction_errors.Oregon1", "unknown jurisdiction"}}},
		{`{"success":false,"result":{"jurisdiction_errors":[{"field":"jurisdictions[0]","message":"SERVICE_EXISTS"}]}}`,
			[]FieldError{{"jurisdictions[0]", "SERVICE_EXISTS"}}},
		{`{"errors":[{"field":"name","message":"is required"}],"company_errors":"DUPLICATE_COMPANY"}`,
			[]FieldError{{"name", "is required"}, {"company_errors", "DUPLICATE_COMPANY"}}},
		{`{"success":false,"result":[{"company_errors":["x"]}]}`, nil},
	} {
		if got := newAPIError(400, "POST", "/companies", []byte(tc.body), nil).Fields; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%.70s: Fields = %+v, want %+v", tc.body, got, tc.want)
		}
	}
}

// Whatever the API sends under "errors", Fields stays bounded, holds only
// what was sent, and never shows a secret the request carried.
func TestFieldErrorsBoundedAndRedacted(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		red := &redactor{}
		red.add(wcPassword, "[redacted]")
		n := rapid.IntRange(0, 120).Draw(t, "n")
		items := make([]map[string]string, n)
		text := rapid.StringMatching(`[a-z_.\[\]0-9 é]{0,300}`)
		for i := range items {
			items[i] = map[string]string{"field": text.Draw(t, "field"), "message": text.Draw(t, "message") + " " + wcPassword}
		}
		body, _ := json.Marshal(map[string]any{"success": false, "errors": items})
		got := newAPIError(422, "POST", "/auth/login", body, red).Fields
		if len(got) > maxFieldErrors {
			t.Fatalf("%d fields kept", len(got))
		}
		j := 0
		for _, it := range items {
			if it["field"] == "" {
				continue
			}
			if j == len(got) {
				break
			}
			f := got[j]
			if len(f.Field) > maxFieldText+len("…") || len(f.Message) > maxFieldText+len("…") {
				t.Fatalf("field %d too long: %d, %d bytes", j, len(f.Field), len(f.Message))
			}
			if !strings.HasPrefix(it["field"], strings.TrimSuffix(f.Field, "…")) || strings.Contains(f.Message, wcPassword) {
				t.Fatalf("field %d = %+v from %+v", j, f, it)
			}
			j++
		}
		if nonEmpty := countNonEmpty(items); j != min(nonEmpty, maxFieldErrors) {
			t.Fatalf("kept %d of %d named fields", j, nonEmpty)
		}
	})
}

func countNonEmpty(items []map[string]string) int {
	n := 0
	for _, it := range items {
		if it["field"] != "" {
			n++
		}
	}
	return n
}

// A refusal is ErrPaymentRequired or ErrPaymentDeclined by its route and
// its meaning, not by its status alone: the fake declines a card with a
// 402, and which 4xx the real API gives a payment-locked document is not
// known.
func TestPaymentRefusalsByRouteAndMeaning(t *testing.T) {
	doc, card := wcCompany, wcCard
	calls := map[string]func(ctx context.Context, c *Client) error{
		"download": func(ctx context.Context, c *Client) error { _, err := c.Documents.Download(ctx, doc); return err },
		"page":     func(ctx context.Context, c *Client) error { _, err := c.Documents.Page(ctx, doc, 0, nil); return err },
		"page url": func(ctx context.Context, c *Client) error { _, err := c.Documents.PageURL(ctx, doc, 0); return err },
		"get":      func(ctx context.Context, c *Client) error { _, err := c.Documents.Get(ctx, doc); return err },
		"unlock":   func(ctx context.Context, c *Client) error { _, err := c.Documents.Unlock(ctx, doc, card); return err },
		"pay": func(ctx context.Context, c *Client) error {
			_, err := c.Invoices.Pay(ctx, &InvoicePayParams{InvoiceIDs: []uuid.UUID{wcInvoice}, PaymentMethodID: card})
			return err
		},
		"checkout": func(ctx context.Context, c *Client) error {
			_, err := c.ShoppingCart.Checkout(ctx, &CheckoutParams{ItemIDs: []uuid.UUID{wcItem}, PaymentMethodID: card})
			return err
		},
	}
	const none, required, declined = 0, 1, 2
	cases := []struct {
		call   string
		status int
		body   string
		want   int
	}{
		{"download", 402, `{"success":false,"message":"payment required: the document is locked until it is paid for"}`, required},
		{"download", 402, ``, required},
		{"download", 402, `{"message":"refused"}`, required},
		{"download", 403, `{"message":"Payment is required to view this document"}`, required},
		{"download", 400, `{"error":"Document locked"}`, required},
		{"download", 404, `{"message":"unpaid document"}`, required},
		{"download", 200, `{"success":false,"message":"This document must be paid for: it is unpaid"}`, required},
		{"download", 403, `{"message":"forbidden"}`, none},
		{"download", 404, `{"message":"document not found"}`, none},
		{"download", 401, `{"message":"payment required"}`, none},
		{"download", 429, `{"message":"payment required"}`, none},
		{"download", 402, `{"message":"the card was declined"}`, none},
		{"page", 402, `{"message":"payment required"}`, required},
		{"page", 403, `{"message":"locked"}`, required},
		{"page url", 402, `{"message":"payment required"}`, required},
		{"page url", 409, `{"message":"payment is needed to unlock it"}`, required},
		{"get", 402, `{"message":"payment required"}`, none},
		{"unlock", 402, `{"success":false,"message":"the card ending 0002 was declined"}`, declined},
		{"unlock", 402, ``, declined},
		{"unlock", 403, `{"message":"Insufficient funds"}`, declined},
		{"unlock", 400, `{"message":"document is not locked"}`, none},
		{"pay", 402, `{"message":"the card ending 0002 was declined"}`, declined},
		{"pay", 402, `{}`, declined},
		{"pay", 400, `{"message":"Your card was declined."}`, declined},
		{"pay", 200, `{"success":false,"message":"card declined"}`, declined},
		{"pay", 400, `{"message":"invoice 1 is paid, not unpaid"}`, none},
		{"pay", 404, `{"message":"invoice not found"}`, none},
		{"pay", 401, `{"message":"declined"}`, none},
		{"checkout", 402, `{"message":"the card ending 0002 was declined"}`, declined},
		{"checkout", 400, `{"message":"cart is empty"}`, none},
	}
	for _, tc := range cases {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, tc.status, tc.body) })
		c := newTestClient(t, srv, WithMaxRetries(0))
		err := calls[tc.call](context.Background(), c)
		gotReq, gotDec := errors.Is(err, ErrPaymentRequired), errors.Is(err, ErrPaymentDeclined)
		if gotReq != (tc.want == required) || gotDec != (tc.want == declined) {
			t.Errorf("%s answered %d %s: ErrPaymentRequired %v, ErrPaymentDeclined %v (err = %v)",
				tc.call, tc.status, tc.body, gotReq, gotDec, err)
		}
		var ae *APIError
		if !errors.As(err, &ae) || ae.StatusCode != tc.status {
			t.Errorf("%s answered %d: err = %v, want its *APIError", tc.call, tc.status, err)
		}
		if n := srv.count(); n != 1 {
			t.Errorf("%s answered %d: %d requests, want 1", tc.call, tc.status, n)
		}
	}
}
