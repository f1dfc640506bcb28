package acctadmin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// Secrets: whatever fails, and however a caller prints the error or logs
// the calls, neither the secret key nor a request's token (whole, or its
// signature) nor a query string shows.

// Values that the calls put in their query strings and bodies.
const (
	secCompany = "Acme Secretive Holdings"
	secSite    = "https://www.secret-site.example/shop?ref=hidden"
)

var secID = uuid.MustParse("5f0c2a9e-7d41-4b8e-9c3a-1e2d3c4b5a69")

type secMethod struct {
	name string
	call func(ctx context.Context, c *Client) error
}

// secFirstErr runs an All loop and returns its first error.
func secFirstErr[T any](seq func(func(T, error) bool)) error {
	for _, err := range seq {
		if err != nil {
			return err
		}
	}
	return nil
}

// secFile returns the error of a call that returns a file, closing any.
func secFile(f *File, err error) error {
	if f != nil {
		f.Close()
	}
	return err
}

// secMethods is every public method of every resource client, each called
// with parameters that fill its query string or body.
func secMethods() []secMethod {
	since := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	start := Date{2024, time.May, 1}
	events := &ComplianceEventListParams{Company: secCompany, StartDate: start, EndDate: start.AddDays(90), Jurisdictions: []string{"Utah", "Idaho"}, Limit: 9}
	return append([]secMethod{
		{"Services.List", func(ctx context.Context, c *Client) error {
			_, err := c.Services.List(ctx, &ServiceListParams{Company: secCompany, Limit: 7})
			return err
		}},
		{"Services.All", func(ctx context.Context, c *Client) error {
			return secFirstErr(c.Services.All(ctx, &ServiceListParams{Company: secCompany}))
		}},
		{"Services.Create", func(ctx context.Context, c *Client) error {
			_, err := c.Services.Create(ctx, &ServiceCreateParams{Company: secCompany, Jurisdictions: []string{"Utah"}})
			return err
		}},
		{"Services.RequestCancellation", func(ctx context.Context, c *Client) error {
			_, err := c.Services.RequestCancellation(ctx, secID)
			return err
		}},
		{"Documents.List", func(ctx context.Context, c *Client) error {
			_, err := c.Documents.List(ctx, &DocumentListParams{Status: DocumentRead, Start: since, Limit: 9})
			return err
		}},
		{"Documents.All", func(ctx context.Context, c *Client) error {
			return secFirstErr(c.Documents.All(ctx, &DocumentListParams{Start: since}))
		}},
		{"Documents.Get", func(ctx context.Context, c *Client) error {
			_, err := c.Documents.Get(ctx, secID)
			return err
		}},
		{"Documents.Page", func(ctx context.Context, c *Client) error {
			return secFile(c.Documents.Page(ctx, secID, 1, &PageParams{DPI: 150}))
		}},
		{"Documents.Download", func(ctx context.Context, c *Client) error {
			return secFile(c.Documents.Download(ctx, secID))
		}},
		{"Documents.Pull", func(ctx context.Context, c *Client) error {
			return c.Documents.Pull(ctx, &PullParams{DocumentListParams: DocumentListParams{Start: since, Limit: 9}},
				func(context.Context, Document, *File) error { return nil })
		}},
		{"Resources.List", func(ctx context.Context, c *Client) error {
			_, err := c.Resources.List(ctx, &ResourceListParams{Name: secCompany, Jurisdiction: "Utah", Limit: 9})
			return err
		}},
		{"Resources.All", func(ctx context.Context, c *Client) error {
			return secFirstErr(c.Resources.All(ctx, &ResourceListParams{Agency: secCompany}))
		}},
		{"Resources.Get", func(ctx context.Context, c *Client) error {
			_, err := c.Resources.Get(ctx, secID)
			return err
		}},
		{"Resources.Page", func(ctx context.Context, c *Client) error {
			return secFile(c.Resources.Page(ctx, secID, 0, &PageParams{DPI: 300}))
		}},
		{"Resources.Download", func(ctx context.Context, c *Client) error {
			return secFile(c.Resources.Download(ctx, secID))
		}},
		{"FilingProducts.List", func(ctx context.Context, c *Client) error {
			_, err := c.FilingProducts.List(ctx, &FilingProductListParams{URL: secSite, Jurisdiction: "Utah"})
			return err
		}},
		{"ComplianceEvents.List", func(ctx context.Context, c *Client) error {
			_, err := c.ComplianceEvents.List(ctx, events)
			return err
		}},
		{"ComplianceEvents.All", func(ctx context.Context, c *Client) error {
			return secFirstErr(c.ComplianceEvents.All(ctx, events))
		}},
		{"Websites.Get", func(ctx context.Context, c *Client) error {
			_, err := c.Websites.Get(ctx, secSite)
			return err
		}},
		{"Callbacks.List", func(ctx context.Context, c *Client) error {
			_, err := c.Callbacks.List(ctx)
			return err
		}},
		{"Callbacks.Create", func(ctx context.Context, c *Client) error {
			_, err := c.Callbacks.Create(ctx, secSite)
			return err
		}},
		{"Callbacks.Delete", func(ctx context.Context, c *Client) error {
			return c.Callbacks.Delete(ctx, secID)
		}},
		{"Callbacks.Ensure", func(ctx context.Context, c *Client) error {
			_, err := c.Callbacks.Ensure(ctx, secSite)
			return err
		}},
		{"Companies.List", func(ctx context.Context, c *Client) error {
			_, err := c.Companies.List(ctx)
			return err
		}},
		{"Companies.Create", func(ctx context.Context, c *Client) error {
			_, err := c.Companies.Create(ctx, CompanyCreateParams{Name: secCompany, HomeState: "Utah"})
			return err
		}},
		{"Companies.Update", func(ctx context.Context, c *Client) error {
			_, err := c.Companies.Update(ctx, CompanyUpdateParams{Company: secCompany, Name: secCompany + " II"})
			return err
		}},
		{"Invoices.List", func(ctx context.Context, c *Client) error {
			_, err := c.Invoices.List(ctx, &InvoiceListParams{Companies: []string{secCompany}, Limit: 9})
			return err
		}},
		{"Invoices.All", func(ctx context.Context, c *Client) error {
			return secFirstErr(c.Invoices.All(ctx, &InvoiceListParams{Companies: []string{secCompany}}))
		}},
		{"RegisteredAgentProducts.List", func(ctx context.Context, c *Client) error {
			_, err := c.RegisteredAgentProducts.List(ctx, &RegisteredAgentProductListParams{URL: secSite})
			return err
		}},
	}, secNewMethods()...)
}

// secNewMethods calls the methods of the routes beyond the first spec as
// the wire cases do: with a card number, a CVC, passwords and a reset
// token in their bodies.
func secNewMethods() []secMethod {
	var out []secMethod
	for _, wc := range wireCases() {
		out = append(out, secMethod{wc.rt.operation, wc.call})
	}
	return out
}

// The table above must name every method, so that a new one cannot be
// left out of the secrets test.
func TestSecretsMethodTableIsComplete(t *testing.T) {
	c, err := NewClient(testAccessKey, testSecretKey)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, m := range secMethods() {
		listed[m.name] = true
	}
	var missing []string
	v := reflect.ValueOf(c).Elem()
	n := 0
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		typ := f.Type
		for j := 0; j < typ.NumMethod(); j++ {
			n++
			if name := f.Name + "." + typ.Method(j).Name; !listed[name] {
				missing = append(missing, name)
			}
		}
	}
	if len(missing) > 0 || n != len(listed) {
		t.Errorf("the resource clients have %d methods, the table %d; missing %v", n, len(listed), missing)
	}
}

// secSeen collects what the servers received: tokens and query strings.
type secSeen struct {
	mu      sync.Mutex
	tokens  map[string]bool
	queries map[string]bool
}

func (s *secSeen) record(r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		s.tokens[tok] = true
	}
	if r.URL.RawQuery != "" {
		s.queries[r.URL.RawQuery] = true
	}
}

// needles returns every string that must never show.
func (s *secSeen) needles(t *testing.T) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The secrets the wire cases put in bodies (their CVC is three digits,
	// too short to search for inside other text: cvcAlone looks for it
	// where it stands alone).
	out := []string{testSecretKey, testAccessKey, wcCardNumber, wcPassword, wcResetToken}
	for tok := range s.tokens {
		parts := strings.Split(tok, ".")
		if len(parts) != 3 || len(parts[2]) < 40 {
			t.Fatalf("the servers saw a token that is not a JWT: %q", tok)
		}
		out = append(out, tok, "Bearer "+tok, parts[2])
	}
	for q := range s.queries {
		out = append(out, q)
		if dec, err := url.QueryUnescape(q); err == nil {
			out = append(out, dec)
		}
	}
	return out
}

// secEcho writes the request's Authorization header and query string back
// into an error body, in the message and beside it.
func secEcho(w http.ResponseWriter, r *http.Request, status int, message string) {
	auth := r.Header.Get("Authorization")
	sent, _ := io.ReadAll(r.Body)
	if len(sent) > 0 {
		message += " " + string(sent)
	}
	body, _ := json.Marshal(map[string]any{
		"success":       false,
		"message":       message + ": " + auth + " for ?" + r.URL.RawQuery + " (" + r.URL.String() + ")",
		"sent":          string(sent),
		"authorization": auth,
		"query":         r.URL.RawQuery,
		"errors":        []map[string]string{{"field": "token", "message": "bad " + strings.TrimPrefix(auth, "Bearer ")}},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", token="`+strings.TrimPrefix(auth, "Bearer ")+`"`)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// TestSecretsNeverLeak runs every method against servers that fail every
// way (an error that echoes the token and the query string, a 401 that
// does the same, a 200 whose envelope says success false and echoes them,
// a closed port, a dropped connection, a redirect to another host), with
// a Debug logger, and scans each error (Error(), %v, %+v, %#v, and every
// error it wraps) and every log record for the secret key, the access
// key, the tokens the servers received (whole, with "Bearer", and their
// signature) and their query strings (raw and decoded).
func TestSecretsNeverLeak(t *testing.T) {
	seen := &secSeen{tokens: map[string]bool{}, queries: map[string]bool{}}
	serve := func(h http.HandlerFunc) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen.record(r)
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			h(w, r)
		}))
		t.Cleanup(s.Close)
		return s
	}
	other := serve(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			t.Errorf("the other host of a redirect got the Authorization header on %s %s", r.Method, r.URL.Path)
		}
		secEcho(w, r, http.StatusOK, "other host")
	})
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	servers := []struct {
		name  string
		url   string
		check func(t *testing.T, err error)
	}{
		{"500 echoing the request", serve(func(w http.ResponseWriter, r *http.Request) {
			secEcho(w, r, http.StatusInternalServerError, "internal error")
		}).URL, func(t *testing.T, err error) {
			if !errors.Is(err, ErrServer) {
				t.Errorf("err = %v, want ErrServer", err)
			}
		}},
		{"401 echoing the token", serve(func(w http.ResponseWriter, r *http.Request) {
			secEcho(w, r, http.StatusUnauthorized, "invalid token")
		}).URL, func(t *testing.T, err error) {
			if !errors.Is(err, ErrUnauthorized) {
				t.Errorf("err = %v, want ErrUnauthorized", err)
			}
		}},
		{"success false echoing the request", serve(func(w http.ResponseWriter, r *http.Request) {
			secEcho(w, r, http.StatusOK, "refused")
		}).URL, func(t *testing.T, err error) {
			if apiErr := tpAPIError(t, err); apiErr.StatusCode != http.StatusOK {
				t.Errorf("APIError = %v, want the 200 that says success false", apiErr)
			}
		}},
		{"closed port", closedURL, func(t *testing.T, err error) {
			tpTransportError(t, err)
		}},
		{"dropped connection", serve(func(w http.ResponseWriter, r *http.Request) {
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
		}).URL, func(t *testing.T, err error) {
			tpTransportError(t, err)
		}},
		{"redirect to another host", serve(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
		}).URL, func(t *testing.T, err error) {
			if apiErr := tpAPIError(t, err); apiErr.StatusCode != http.StatusTemporaryRedirect {
				t.Errorf("APIError = %v, want the 307 not followed", apiErr)
			}
		}},
	}

	var logs tpLog
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	type finding struct{ where, text string }
	var texts []finding
	calls := 0
	for _, srv := range servers {
		c, err := NewClient(testAccessKey, testSecretKey, WithBaseURL(srv.url), WithLogger(logger),
			WithMaxRetries(1), WithRetryWait(time.Millisecond, 2*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range secMethods() {
			t.Run(srv.name+"/"+m.name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				err := m.call(ctx, c)
				calls++
				if err == nil {
					t.Fatal("the call succeeded against a failing server")
				}
				if ctx.Err() != nil {
					t.Fatalf("the call hung: %v", err)
				}
				var apiErr *APIError
				var te *TransportError
				var de *DecodeError
				if !errors.As(err, &apiErr) && !errors.As(err, &te) && !errors.As(err, &de) {
					t.Fatalf("err = %v (%T), of no SDK type", err, err)
				}
				srv.check(t, err)
				where := srv.name + " " + m.name
				for _, format := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
					texts = append(texts, finding{where + " " + format, fmt.Sprintf(format, err)})
				}
				for e := err; e != nil; e = errors.Unwrap(e) {
					texts = append(texts, finding{where + " Error()", e.Error()})
				}
				if apiErr != nil {
					texts = append(texts, finding{where + " Message", apiErr.Message})
				}
			})
		}
		c.CloseIdleConnections()
	}
	other.CloseClientConnections()

	records := logs.records(t, "")
	for _, rec := range records {
		b, _ := json.Marshal(rec)
		texts = append(texts, finding{"log record", string(b)})
	}
	needles := seen.needles(t)
	if len(seen.tokens) < 20 || len(seen.queries) < 10 { // one token per path and body
		t.Fatalf("the servers saw %d tokens and %d query strings: too few to test anything", len(seen.tokens), len(seen.queries))
	}
	hits := map[string]int{}
	for _, f := range texts {
		for _, needle := range needles {
			if strings.Contains(f.text, needle) {
				hits[f.where]++
				if hits[f.where] == 1 {
					t.Errorf("%s shows a secret or a query string (%.20q…): %s", f.where, needle, f.text)
				}
			}
		}
		if m := tpJWTLike.FindString(f.text); m != "" {
			t.Errorf("%s shows a token: %s", f.where, f.text)
		}
		if cvcAlone.MatchString(f.text) {
			t.Errorf("%s shows the CVC: %s", f.where, f.text)
		}
	}
	wheres := make([]string, 0, len(hits))
	for w := range hits {
		wheres = append(wheres, w)
	}
	sort.Strings(wheres)
	t.Logf("%d calls, %d error texts and %d log records scanned for %d needles (%d tokens, %d query strings): %d hits %v",
		calls, len(texts)-len(records), len(records), len(needles), len(seen.tokens), len(seen.queries), len(hits), wheres)
}

// cvcAlone finds the wire cases' CVC where it stands alone, as a server
// that echoes it would show it.
var cvcAlone = regexp.MustCompile(`(^|[^0-9A-Za-z])` + wcCVC + `([^0-9A-Za-z]|$)`)

// TestShortSecretsAreRedactedWhereTheyStandAlone: a secret of a request
// body shorter than the redactor's minimum (a CVC) is taken out where it
// stands alone, and left inside longer words and numbers.
func TestShortSecretsAreRedactedWhereTheyStandAlone(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"987", "[redacted]"},
		{"cvc 987 does not match", "cvc [redacted] does not match"},
		{`{"cvc":"987"}`, `{"cvc":"[redacted]"}`},
		{"987-987/987", "[redacted]-[redacted]/[redacted]"},
		{"ref 9870, 1987, x987, 987a, 987987", "ref 9870, 1987, x987, 987a, 987987"},
		{"9870 987", "9870 [redacted]"},
	} {
		if got := replaceStandalone(tc.in, "987", redactedText); got != tc.want {
			t.Errorf("replaceStandalone(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	var r redactor
	r.addSensitive("12")              // shorter than any CVC: not looked for
	r.addSensitive("987")             // a CVC: where it stands alone
	r.addSensitive("secret-password") // long: anywhere
	if got, want := r.redact("12 987 x987 secret-passwords"), "12 [redacted] x987 [redacted]s"; got != want {
		t.Errorf("redact = %q, want %q", got, want)
	}

	// A server that echoes the CVC into its message.
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusPaymentRequired, `{"success":false,"message":"declined: cvc `+wcCVC+` does not match (ref `+wcCVC+`0)","cvc":"`+wcCVC+`"}`)
	})
	_, err := newTestClient(t, srv).PaymentMethods.Create(context.Background(), wcCardParams())
	apiErr := tpAPIError(t, err)
	if want := "declined: cvc [redacted] does not match (ref " + wcCVC + "0)"; apiErr.Message != want {
		t.Errorf("Message = %q, want %q", apiErr.Message, want)
	}
	for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), string(apiErr.Body)} {
		if cvcAlone.MatchString(text) {
			t.Errorf("the CVC shows: %s", text)
		}
	}
}

// A server that echoes the request into its message: Message (and so
// Error) shows neither the token nor the query string, and still says
// what the server said; Body is the answer with the same redaction, still
// JSON, the rest of it as sent.
func TestSecretsEchoedIntoMessageAreRedacted(t *testing.T) {
	var token, query string
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		token, query = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), r.URL.RawQuery
		secEcho(w, r, http.StatusUnauthorized, "invalid token")
	})
	c := newTestClient(t, srv)
	_, err := c.Services.List(context.Background(), &ServiceListParams{Company: secCompany, Limit: 7})
	apiErr := tpAPIError(t, err)
	if want := "invalid token: [redacted] for ?[query] (/services?[query])"; apiErr.Message != want {
		t.Errorf("Message = %q, want %q", apiErr.Message, want)
	}
	if want := "acctadmin: GET /services: 401 invalid token: [redacted] for ?[query] (/services?[query])"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	var echoed struct{ Authorization, Query, Message string }
	if json.Unmarshal(apiErr.Body, &echoed) != nil || echoed.Authorization != "[redacted]" || echoed.Query != "limit=7&company=[query]" ||
		echoed.Message != "invalid token: [redacted] for ?limit=7&company=[query] (/services?limit=7&company=[query])" {
		t.Errorf("Body = %s, want the server's answer with the token and the query's values redacted", apiErr.Body)
	}
	if token == "" || query == "" || strings.Contains(string(apiErr.Body), token) || strings.Contains(string(apiErr.Body), secCompany) {
		t.Errorf("Body = %s shows the token or a query value", apiErr.Body)
	}

	// A token cut short by the message cap is redacted too, and so is a
	// query string the server decoded before echoing it.
	for _, tc := range []struct{ msg, want string }{
		{"bad token eyJhbGciOiJIUzI1NiJ9.eyJwYXRoIjoiLyJ9.c2ln", "bad token [redacted]"},
		{"bad token BEARER  eyJhbGciOiJIUzI1NiJ9.eyJwYXRoIjoiLyJ9", "bad token [redacted]"},
		{"no limit=7&company=" + secCompany + " here", "no [query] here"},
	} {
		body, _ := json.Marshal(map[string]any{"success": false, "message": tc.msg})
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusBadRequest, string(body)) })
		_, err := newTestClient(t, srv).Services.List(context.Background(), &ServiceListParams{Company: secCompany, Limit: 7})
		if got := tpAPIError(t, err).Message; got != tc.want {
			t.Errorf("message %q read as %q, want %q", tc.msg, got, tc.want)
		}
	}
}
