package acctadmin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"runtime"
	"slices"
	"strconv"
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
// API documents it, with golang-jwt rather than the client's own signer:
// the content claim is the SHA-256 of the raw query as received followed
// by the body.
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
	sum := sha256.Sum256(append([]byte(r.URL.RawQuery), body...))
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

// Ids the wire cases send.
var (
	wcCompany  = uuid.MustParse("11111111-1111-4111-8111-111111111111")
	wcProduct  = uuid.MustParse("22222222-2222-4222-8222-222222222222")
	wcMethod   = uuid.MustParse("33333333-3333-4333-8333-333333333333")
	wcItem     = uuid.MustParse("44444444-4444-4444-8444-444444444444")
	wcCard     = uuid.MustParse("55555555-5555-4555-8555-555555555555")
	wcInvoice  = uuid.MustParse("66666666-6666-4666-8666-666666666666")
	wcOrder    = uuid.MustParse("77777777-7777-4777-8777-777777777777")
	wcService  = uuid.MustParse("88888888-8888-4888-8888-888888888888")
	wcDocument = uuid.MustParse("99999999-9999-4999-8999-999999999999")
	wcWebsite  = uuid.MustParse("aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa")
)

// Sensitive values the wire cases send: the leak tests look for them.
const (
	wcCardNumber = "4242424242424242"
	wcCVC        = "987"
	wcPassword   = "pw-Hunter2-secret"
	wcResetToken = "reset-token-5up3r-s3cret"
	wcSession    = "session-token-do-not-show"
)

// wcCardParams is the card the wire cases store.
func wcCardParams() *Card {
	return &Card{Number: wcCardNumber, ExpMonth: 5, ExpYear: 2029, CVC: wcCVC, FirstName: "Ada", LastName: "Lovelace",
		BillingAddress: BillingAddress{Address1: "1 Main St", City: "Queens", State: "NY", Zip: "11101", Country: "US"}}
}

// wcCardBody is that card as the provider's clients send it.
const wcCardBody = `{"number":"4242424242424242","exp_month":"05","exp_year":"2029","cvc":"987","first_name":"Ada","last_name":"Lovelace",
	"billing_address":{"address1":"1 Main St","address2":"","city":"Queens","state":"NY","zip":"11101","country":"US"}}`

// wireCase is one route beyond the first spec: the call, what the
// provider's clients send for it, an answer in the shape the fake gives,
// and what the method must make of it.
type wireCase struct {
	rt     *route
	call   func(ctx context.Context, c *Client) error
	run    func(ctx context.Context, c *Client) (any, error)
	query  string // the raw query string, exactly
	body   string // the JSON body, compared as JSON; "" for none
	answer string // the result of the envelope
	top    string // more top-level envelope fields, as `"k": v`
	check  func(got any) error
}

func wireCases() []wireCase {
	id := func(u uuid.UUID) string { return u.String() }
	cases := []wireCase{
		{rt: routeAccountGet, run: func(ctx context.Context, c *Client) (any, error) { return c.Account.Get(ctx) },
			answer: `{"id":"` + id(wcCompany) + `","name":"Acme Holdings","email":"ops@example.com","created_at":"2024-01-02 03:04:05 +0000","plan":"gold"}`,
			check: func(got any) error {
				a := got.(*Account)
				return expect(a.Name == "Acme Holdings" && a.Email == "ops@example.com" && a.CreatedAt.Year() == 2024 && len(a.Raw) > 0, a)
			}},
		{rt: routeAccountDashPanel, run: func(ctx context.Context, c *Client) (any, error) { return c.Account.DashPanel(ctx) },
			answer: `{"companies":2,"active_services":3,"unread_documents":4,"unpaid_invoices":1,"unpaid_total":"12.50","items_requiring_attention":1,
				"upcoming_due_dates":[{"company_id":"` + id(wcCompany) + `","company":"Acme","filing":"Annual Report","due_date":"2025-03-01"}]}`,
			check: func(got any) error {
				d := got.(*DashPanel)
				return expect(d.UnpaidTotal.String() == "12.50" && d.UnreadDocuments == 4 && len(d.UpcomingDueDates) == 1 &&
					d.UpcomingDueDates[0].DueDate == (Date{2025, 3, 1}), d)
			}},
		{rt: routeAuthRefresh, run: func(ctx context.Context, c *Client) (any, error) { return c.Auth.Refresh(ctx) },
			answer: `{"token":"` + wcSession + `","expires_at":"2030-01-01T00:00:00.000Z","user":{"id":"` + id(wcCompany) + `","email":"u@example.com"}}`,
			check: func(got any) error {
				s := got.(*Session)
				return expect(s.Token.Reveal() == wcSession && s.ExpiresAt.Year() == 2030 && s.UserEmail == "u@example.com", s)
			}},
		{rt: routeAuthLogin, run: func(ctx context.Context, c *Client) (any, error) {
			return c.Auth.Login(ctx, &LoginParams{Email: "u@example.com", Password: wcPassword, WebsiteID: wcWebsite})
		},
			body:   `{"email":"u@example.com","password":"` + wcPassword + `","website_id":"` + id(wcWebsite) + `"}`,
			answer: `{"access_token":"` + wcSession + `"}`,
			check:  func(got any) error { return expect(got.(*Session).Token.Reveal() == wcSession, got) }},
		{rt: routeAuthForgotPassword, run: func(ctx context.Context, c *Client) (any, error) {
			return nil, c.Auth.ForgotPassword(ctx, &ForgotPasswordParams{EmailAddress: "u@example.com", WebsiteID: wcWebsite})
		},
			body: `{"email_address":"u@example.com","website_id":"` + id(wcWebsite) + `"}`, answer: `{}`},
		{rt: routeAuthResetPassword, run: func(ctx context.Context, c *Client) (any, error) {
			return nil, c.Auth.ResetPassword(ctx, &ResetPasswordParams{Token: wcResetToken, Password: wcPassword})
		},
			body:   `{"token":"` + wcResetToken + `","password":"` + wcPassword + `","password_confirmation":"` + wcPassword + `"}`,
			answer: `{}`},
		{rt: routeCompaniesGet, run: func(ctx context.Context, c *Client) (any, error) { return c.Companies.Get(ctx, wcCompany) },
			answer: `{"id":"` + id(wcCompany) + `","name":"Acme","home_state":"UT","entity_type":"Limited Liability Company"}`,
			check: func(got any) error {
				co := got.(*Company)
				return expect(co.ID == wcCompany && co.HomeState == "UT" && len(co.Raw) > 0, co)
			}},
		{rt: routeDocumentsPageURL, run: func(ctx context.Context, c *Client) (any, error) { return c.Documents.PageURL(ctx, wcDocument, 2) },
			answer: `{"url":"https://files.example.com/p/2?sig=abc","expires_at":"2030-01-01 00:00:00 +0000"}`,
			check: func(got any) error {
				l := got.(*FileLink)
				return expect(l.URL == "https://files.example.com/p/2?sig=abc" && l.ExpiresAt.Year() == 2030, l)
			}},
		{rt: routeDocumentsBulk, run: func(ctx context.Context, c *Client) (any, error) {
			return c.Documents.BulkDownload(ctx, wcDocument, wcItem)
		},
			query:  "ids[]=" + id(wcDocument) + "&ids[]=" + id(wcItem),
			answer: `"https://files.example.com/bulk.zip"`,
			check:  func(got any) error { return expect(got.(*FileLink).URL == "https://files.example.com/bulk.zip", got) }},
		{rt: routeServicesInfo, run: func(ctx context.Context, c *Client) (any, error) { return c.Services.Info(ctx, wcService) },
			answer: `{"service_id":"` + id(wcService) + `","status":"active","info":{"contact_person":{"first_name":"Ada","address":{"city":"Provo"}},
				"official.director":[{"role":"Director","first_name":"Grace"}]}}`,
			check: func(got any) error {
				si := got.(*ServiceInfo)
				return expect(si.Status == ServiceActive && si.ContactPerson != nil && si.ContactPerson.Address.City == "Provo" &&
					len(si.Directors) == 1 && si.Directors[0].FirstName == "Grace", si)
			}},
		{rt: routeServicesAddInfo, run: func(ctx context.Context, c *Client) (any, error) {
			return c.Services.AddInfo(ctx, wcService, &ServiceInfo{
				ContactPerson: &ServiceContact{FirstName: "Ada", Email: "ada@example.com", Address: ServiceAddress{Line1: "1 Main", ZipPostalCode: "84601"}},
				Directors:     []ServiceOfficer{{Role: "Director", FirstName: "Grace", LastName: "Hopper"}},
			})
		},
			body: `{"contact_person":{"first_name":"Ada","email":"ada@example.com","address":{"line_1":"1 Main","zip_postal_code":"84601"}},
				"official.director":[{"role":"Director","first_name":"Grace","last_name":"Hopper","address":{}}]}`,
			answer: `{"service_id":"` + id(wcService) + `","status":"active","info":{}}`,
			check:  func(got any) error { return expect(got.(*ServiceInfo).Status == ServiceActive, got) }},
		{rt: routeFilingProductsOfferings, run: func(ctx context.Context, c *Client) (any, error) {
			return c.FilingProducts.Offerings(ctx, &OfferingParams{CompanyID: wcCompany, Jurisdiction: "UT"})
		},
			query:  "company_id=" + id(wcCompany) + "&jurisdiction=UT",
			answer: `[{"id":"` + id(wcProduct) + `","name":"EIN","filing_name":"tax id","price":79}]`,
			check: func(got any) error {
				ps := got.([]FilingProduct)
				return expect(len(ps) == 1 && ps[0].FilingName == "tax id" && ps[0].Price.String() == "79", ps)
			}},
		{rt: routeFilingMethodsList, run: func(ctx context.Context, c *Client) (any, error) {
			return c.FilingMethods.List(ctx, &FilingMethodListParams{CompanyID: wcCompany, Jurisdiction: "UT", FilingProductID: wcProduct})
		},
			query: "company_id=" + id(wcCompany) + "&jurisdiction=UT&filing_product_id=" + id(wcProduct),
			answer: `[{"id":"` + id(wcMethod) + `","name":"Standard","type":"online","cost":"0.00","ageny_name":"IRS",
				"docs_in":[{"days":3}],"jurisdiction":"Federal"}]`,
			check: func(got any) error {
				ms := got.([]FilingMethod)
				return expect(len(ms) == 1 && ms[0].AgencyName == "IRS" && ms[0].Type == FilingMethodOnline && ms[0].DocsIn.Days == 3, ms)
			}},
		{rt: routeFilingMethodsSchemas, run: func(ctx context.Context, c *Client) (any, error) {
			return c.FilingMethods.Schemas(ctx, &FormSchemaParams{CompanyID: wcCompany, FilingMethodID: wcMethod})
		},
			query:  "company_id=" + id(wcCompany) + "&filing_method_id=" + id(wcMethod),
			answer: `[{"filing_method_id":"` + id(wcMethod) + `","name":"form_data","schema":{"type":"object","required":["ssn"]}}]`,
			check: func(got any) error {
				ss := got.([]FormSchema)
				return expect(len(ss) == 1 && ss[0].Name == "form_data" && string(ss[0].Schema) == `{"type":"object","required":["ssn"]}`, ss)
			}},
		{rt: routeSimpleProductsList, run: func(ctx context.Context, c *Client) (any, error) {
			return c.SimpleProducts.List(ctx, &SimpleProductListParams{URL: "https://example.com/shop"})
		},
			query:  "url=https%3A%2F%2Fexample.com%2Fshop",
			answer: `[{"id":"` + id(wcProduct) + `","name":"Kit","price":"25.00"}]`,
			check: func(got any) error {
				ps := got.([]SimpleProduct)
				return expect(len(ps) == 1 && ps[0].Price.String() == "25.00", ps)
			}},
		{rt: routeSignedFormsList, run: func(ctx context.Context, c *Client) (any, error) {
			return c.SignedForms.List(ctx, &SignedFormListParams{FilingMethodID: wcMethod, WebsiteID: wcWebsite})
		},
			query:  "filing_method_id=" + id(wcMethod) + "&website_id=" + id(wcWebsite),
			answer: `[{"id":"` + id(wcItem) + `","name":"SS-4","filing_method_id":"` + id(wcMethod) + `","pages":"2"}]`,
			check: func(got any) error {
				fs := got.([]SignedForm)
				return expect(len(fs) == 1 && fs[0].Pages == 2 && fs[0].Name == "SS-4", fs)
			}},
		{rt: routeCartList, run: func(ctx context.Context, c *Client) (any, error) {
			return c.ShoppingCart.List(ctx, &CartListParams{CompanyIDs: []uuid.UUID{wcCompany}})
		},
			query: "company_ids[]=" + id(wcCompany),
			answer: `[{"id":"` + id(wcItem) + `","company_id":"` + id(wcCompany) + `","product_id":"` + id(wcProduct) + `","product_option_id":"` + id(wcMethod) + `",
				"title":"Tax id filing service - Standard","total":79,"quantity":1,"status":"active","created_at":"2024-01-02 03:04:05 +0000"}]`,
			check: func(got any) error {
				is := got.([]CartItem)
				return expect(len(is) == 1 && is[0].ProductOptionID == wcMethod && is[0].Title == "Tax id filing service - Standard" && is[0].Total.String() == "79", is)
			}},
		{rt: routeCartAdd, run: func(ctx context.Context, c *Client) (any, error) {
			return c.ShoppingCart.Add(ctx, &CartAddParams{CompanyID: wcCompany, ProductID: wcProduct, ProductOptionID: wcMethod, Quantity: 1})
		},
			body:   `{"company_id":"` + id(wcCompany) + `","product_id":"` + id(wcProduct) + `","product_option_id":"` + id(wcMethod) + `","quantity":1}`,
			answer: `[{"id":"` + id(wcItem) + `","product_option_id":null}]`,
			check: func(got any) error {
				is := got.([]CartItem)
				return expect(len(is) == 1 && is[0].ID == wcItem && is[0].ProductOptionID == uuid.Nil, is)
			}},
		{rt: routeCartRemove, run: func(ctx context.Context, c *Client) (any, error) {
			return nil, c.ShoppingCart.Remove(ctx, &CartRemoveParams{CompanyIDs: []uuid.UUID{wcCompany}, ItemIDs: []uuid.UUID{wcItem}})
		},
			body: `{"company_ids":["` + id(wcCompany) + `"],"item_ids":["` + id(wcItem) + `"]}`, answer: `[]`},
		{rt: routeCartCheckout, run: func(ctx context.Context, c *Client) (any, error) {
			return c.ShoppingCart.Checkout(ctx, &CheckoutParams{ItemIDs: []uuid.UUID{wcItem}, PaymentMethodID: wcCard})
		},
			body:   `{"item_ids":["` + id(wcItem) + `"],"payment_token":"` + id(wcCard) + `"}`,
			answer: `null`, top: `"invoice_ids":["` + id(wcInvoice) + `"]`,
			check: func(got any) error {
				co := got.(*Checkout)
				return expect(len(co.InvoiceIDs) == 1 && co.InvoiceIDs[0] == wcInvoice && co.Invoices == nil, co)
			}},
		{rt: routePaymentMethodsList, run: func(ctx context.Context, c *Client) (any, error) { return c.PaymentMethods.List(ctx) },
			answer: `[{"id":"` + id(wcCard) + `","last4":"4242","exp_month":5,"exp_year":2029,"brand":"visa","is_prepaid":false,
				"billing_address":{"address1":"1 Main St","address2":null,"city":"Queens"}}]`,
			check: func(got any) error {
				ms := got.([]PaymentMethod)
				return expect(len(ms) == 1 && ms[0].Last4 == "4242" && ms[0].ExpMonth == 5 && ms[0].ExpYear == 2029 && ms[0].BillingAddress.City == "Queens", ms)
			}},
		{rt: routePaymentMethodsCreate, run: func(ctx context.Context, c *Client) (any, error) {
			return c.PaymentMethods.Create(ctx, wcCardParams())
		},
			body: wcCardBody, answer: `[{"id":"` + id(wcCard) + `","last4":"4242","exp_month":"05","exp_year":"2029"}]`, top: `"status_code":"201"`,
			check: func(got any) error {
				m := got.(*PaymentMethod)
				return expect(m.ID == wcCard && m.ExpMonth == 5, m)
			}},
		{rt: routePaymentMethodsUpdate, run: func(ctx context.Context, c *Client) (any, error) {
			return c.PaymentMethods.Update(ctx, wcCard, wcCardParams())
		},
			body: wcCardBody, answer: `{"id":"` + id(wcCard) + `","last4":"4242"}`,
			check: func(got any) error { return expect(got.(*PaymentMethod).ID == wcCard, got) }},
		{rt: routePaymentMethodsDelete, run: func(ctx context.Context, c *Client) (any, error) {
			return nil, c.PaymentMethods.Delete(ctx, wcCard)
		}, answer: `{"id":"` + id(wcCard) + `"}`},
		{rt: routeInvoicesGet, run: func(ctx context.Context, c *Client) (any, error) { return c.Invoices.Get(ctx, wcInvoice) },
			answer: `{"id":"` + id(wcInvoice) + `","status":"paid","due_date":"2024-02-01","items":[{"price":"79.00","description":"EIN","quantity":1}]}`,
			check: func(got any) error {
				inv := got.(*Invoice)
				return expect(inv.Status == InvoicePaid && inv.Total().String() == "79.00", inv)
			}},
		{rt: routeDocumentsUnlock, run: func(ctx context.Context, c *Client) (any, error) {
			return c.Documents.Unlock(ctx, wcDocument, wcCard)
		},
			body:   `{"payment_token":"` + id(wcCard) + `"}`,
			answer: `"Payment captured"`, top: `"action":"capture","amount":25,"invoice_ids":["` + id(wcInvoice) + `"]`,
			check: func(got any) error {
				u := got.(*DocumentUnlock)
				return expect(u.Action == "capture" && u.Amount.String() == "25" && u.Result == "Payment captured" &&
					len(u.InvoiceIDs) == 1 && u.InvoiceIDs[0] == wcInvoice, u)
			}},
		{rt: routeInvoicesPay, run: func(ctx context.Context, c *Client) (any, error) {
			return c.Invoices.Pay(ctx, &InvoicePayParams{InvoiceIDs: []uuid.UUID{wcInvoice}, PaymentMethodID: wcCard})
		},
			body:   `{"payment_token":"` + id(wcCard) + `","invoice_ids":["` + id(wcInvoice) + `"]}`,
			answer: `[{"id":"` + id(wcInvoice) + `","status":"paid"}]`,
			check: func(got any) error {
				is := got.([]Invoice)
				return expect(len(is) == 1 && is[0].Status == InvoicePaid, is)
			}},
		{rt: routeOrderItemsRequiringAttention, run: func(ctx context.Context, c *Client) (any, error) {
			return c.OrderItems.ListRequiringAttention(ctx, &OrderItemListParams{CompanyIDs: []uuid.UUID{wcCompany}})
		},
			query: "company_ids[]=" + id(wcCompany),
			answer: `[{"id":"` + id(wcOrder) + `","name":"Standard Federal EIN - Tax Id filing","company_id":"` + id(wcCompany) + `",
				"status":"requiring-client-attention","quantity":1,"product":{"id":"` + id(wcProduct) + `","price":79,"name":"EIN",
				"filing_method":{"id":"` + id(wcMethod) + `","name":"Standard","type":"online"}}}]`,
			check: func(got any) error {
				is := got.([]OrderItem)
				return expect(len(is) == 1 && is[0].Status == OrderItemRequiringAttention && is[0].Product.FilingMethod != nil &&
					is[0].Product.FilingMethod.ID == wcMethod, is)
			}},
		{rt: routeOrderItemsSubmitFormData, run: func(ctx context.Context, c *Client) (any, error) {
			return c.OrderItems.SubmitFormData(ctx, &OrderItemFormDataParams{CompanyID: wcCompany, OrderItemID: wcOrder,
				FormData: map[string]any{"ssn": "123-45-6789", "ein_trucking": false}})
		},
			body:   `{"company_id":"` + id(wcCompany) + `","order_item_id":"` + id(wcOrder) + `","form_data":{"ssn":"123-45-6789","ein_trucking":false}}`,
			answer: `{"id":"` + id(wcOrder) + `","status":"new"}`,
			check:  func(got any) error { return expect(got.(*OrderItem).Status == OrderItemNew, got) }},
	}
	for i := range cases {
		run := cases[i].run
		cases[i].call = func(ctx context.Context, c *Client) error { _, err := run(ctx, c); return err }
	}
	return cases
}

func expect(ok bool, got any) error {
	if ok {
		return nil
	}
	return fmt.Errorf("decoded %+v", got)
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// collectSeq reads a whole iterator: its items and its errors.
func collectSeq[T any](seq iter.Seq2[T, error]) (items []T, errs []error) {
	for item, err := range seq {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		items = append(items, item)
	}
	return items, errs
}

// indexID returns a UUID that spells i, so that a test can check order.
func indexID(i int) uuid.UUID {
	return uuid.MustParse(fmt.Sprintf("00000000-0000-4000-8000-%012d", i))
}

// offsetPager answers a listing of total items, item(i) being the JSON of
// the i-th, honouring limit (50 when absent) and offset like the API.
func offsetPager(total int, item func(i int) string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		if limit == 0 {
			limit = 50
		}
		items := []string{}
		for i := offset; i < total && i < offset+limit; i++ {
			items = append(items, item(i))
		}
		ok("["+strings.Join(items, ",")+"]")(w, r)
	}
}

// okText answers 200 with an envelope whose success is the string "true",
// as some answers of the API carry it.
func okText(result string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, `{"success":"true","timestamp":"2024-05-01T10:00:00.123-06:00","result":`+result+`}`)
	}
}

// requireDecodeError checks that err is a *DecodeError for endpoint at the
// JSON path path.
func requireDecodeError(t *testing.T, err error, endpoint, path string) *DecodeError {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("error %v, want a *DecodeError", err)
	}
	if de.Endpoint != endpoint || de.Path != path {
		t.Fatalf("decode error at %q %q (%v), want %q %q", de.Endpoint, de.Path, err, endpoint, path)
	}
	return de
}

// requireJSONBody checks that got and want are the same JSON value.
func requireJSONBody(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("body %q is not JSON: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want %q is not JSON: %v", want, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("body %s, want %s", got, want)
	}
}

// requireRefused checks that err is a *ValidationError on field and that
// srv received nothing.
func requireRefused(t *testing.T, srv *apiServer, err error, field string) {
	t.Helper()
	var ve *ValidationError
	if !errors.Is(err, ErrInvalidParams) || !errors.As(err, &ve) {
		t.Fatalf("error %v, want a *ValidationError", err)
	}
	if ve.Field != field {
		t.Fatalf("error on field %q (%v), want %q", ve.Field, err, field)
	}
	if n := srv.count(); n != 0 {
		t.Fatalf("the server received %d requests, want none", n)
	}
}

// requireSent checks the only request srv received: its method, path and
// raw query, a verified JWT, and no body.
func requireSent(t *testing.T, srv *apiServer, method, path, rawQuery string) {
	t.Helper()
	if n := srv.count(); n != 1 {
		t.Fatalf("the server received %d requests, want 1", n)
	}
	r := srv.last(t)
	if r.Method != method || r.Path != path || r.RawQuery != rawQuery {
		t.Fatalf("request %s %s?%s, want %s %s?%s", r.Method, r.Path, r.RawQuery, method, path, rawQuery)
	}
	if !r.AuthOK {
		t.Fatalf("request JWT did not verify: %s", r.AuthErr)
	}
	if method == http.MethodGet && r.Body != "" {
		t.Fatalf("GET request carries a body: %q", r.Body)
	}
}

// tpErr checks an error's text for secrets and returns it.
func tpErr(t *testing.T, err error, extra ...string) error {
	t.Helper()
	if err != nil {
		tpNoSecrets(t, "error", err.Error(), extra...)
	}
	return err
}

func tpAPIError(t *testing.T, err error) *APIError {
	t.Helper()
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v (%T), want an *APIError", err, err)
	}
	return apiErr
}

func tpTransportError(t *testing.T, err error) *TransportError {
	t.Helper()
	var te *TransportError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v (%T), want a *TransportError", err, err)
	}
	return te
}

// tpLog is a JSON slog handler's output, kept for the test to read back.
type tpLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// checkPagesAsked checks that the queries srv received are want, in any
// order (pages read ahead are asked for at once), plus at most
// maxReadAhead-1 pages past the end of the listing, asked for while the
// loop was faster than the API: each of those must be a later page of the
// same listing.
func checkPagesAsked(t *testing.T, srv *apiServer, want ...string) {
	t.Helper()
	offsetOf := func(q string) (int, string) {
		v, err := url.ParseQuery(q)
		if err != nil {
			t.Fatalf("query %q: %v", q, err)
		}
		off, _ := strconv.Atoi(v.Get("offset"))
		v.Del("offset")
		return off, v.Encode()
	}
	pending := map[string]int{}
	last, rest := -1, ""
	for _, q := range want {
		pending[q]++
		off, r := offsetOf(q)
		last, rest = max(last, off), r
	}
	var extra []string
	for _, r := range srv.requests() {
		if pending[r.RawQuery] > 0 {
			pending[r.RawQuery]--
			continue
		}
		extra = append(extra, r.RawQuery)
	}
	for q, n := range pending {
		if n > 0 {
			t.Fatalf("query %q never sent; got %d requests", q, srv.count())
		}
	}
	if len(extra) > maxReadAhead-1 {
		t.Fatalf("%d requests past the end: %q", len(extra), extra)
	}
	for _, q := range extra {
		if off, r := offsetOf(q); off <= last || r != rest {
			t.Fatalf("extra query %q is not a page past the end (last %d, %q)", q, last, rest)
		}
	}
}

func numberedID(i int) uuid.UUID {
	return uuid.NewSHA1(uuid.NameSpaceOID, []byte(strconv.Itoa(i)))
}

// recordIDs are the ids of the first n records item makes, as text.
func recordIDs(n int, item func(int) string) []string {
	out := make([]string, n)
	for i := range out {
		var rec struct{ ID string }
		if err := json.Unmarshal([]byte(item(i)), &rec); err != nil {
			panic(err)
		}
		out[i] = rec.ID
	}
	return out
}

// numbered is format filled with 0..n-1.
func numbered(n int, format string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(format, i)
	}
	return out
}

func sortedStrings(s []string) []string { slices.Sort(s); return s }

// nonNil is err as a list of errors: empty when err is nil.
func nonNil(err error) []error {
	if err == nil {
		return nil
	}
	return []error{err}
}

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

// requireMoney checks an amount's text and cents.
func requireMoney(t *testing.T, name string, m Money, text string, cents int64) {
	t.Helper()
	got, err := m.Cents()
	if m.String() != text || err != nil || got != cents {
		t.Fatalf("%s = %q (%d cents, %v), want %q (%d cents)", name, m.String(), got, err, text, cents)
	}
}

var errShredder = errors.New("shredder jammed")

// badParams is a call that the SDK must refuse before sending, with a
// *ValidationError naming field.
type badParams struct {
	name, field string
	call        func(ctx context.Context, c *Client) error
}

// checkRefused runs each call against a server that counts: each must be a
// *ValidationError for its field that is ErrInvalidParams and shows no
// secret, and no request may reach the server.
func checkRefused(t *testing.T, cases []badParams) {
	t.Helper()
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, `{"success":true,"result":null}`) })
	c := newTestClient(t, srv)
	for _, tc := range cases {
		err := tc.call(context.Background(), c)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != tc.field || !errors.Is(err, ErrInvalidParams) {
			t.Errorf("%s: err = %v, want a *ValidationError for %q", tc.name, err, tc.field)
			continue
		}
		for _, secret := range []string{wcCardNumber, wcCVC, wcPassword, wcResetToken, "4242-4242"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%s: error shows a secret: %v", tc.name, err)
			}
		}
	}
	if n := srv.count(); n != 0 {
		t.Errorf("%d requests sent for invalid calls", n)
	}
}

// uuids is its arguments as a slice.
func uuids(us ...uuid.UUID) []uuid.UUID { return us }

// badCard is the card of the wire tests changed by mod.
func badCard(mod func(*Card)) *Card { card := wcCardParams(); mod(card); return card }

// acceptEach serves each connection ln accepts on a goroutine of its own,
// counted in wg with the accepting one, until ln is closed.
func acceptEach(ln net.Listener, wg *sync.WaitGroup, serve func(net.Conn)) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				serve(conn)
			}()
		}
	}()
}
