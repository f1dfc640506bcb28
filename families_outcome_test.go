package acctadmin

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"pgregory.net/rapid"
)

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

// --- money-once, proven on generated servers --------------------------------
//
// TestOutcomeOnGeneratedServers drives every route of the API, and
// Client.Do with each method, against servers drawn from the family of
// answers a server (or a proxy in front of it) can give: any status from
// 1xx to 5xx (500 included, interim 1xx answers before the final one),
// redirects of every kind to the same URL, to another path of the same
// host and to another host, 2xx answers whose body the SDK cannot read
// (a proxy's HTML page, garbage, a cut-off JSON text, no envelope, a
// result of the wrong shape, nothing) under any content type, connections
// dropped before the answer, halfway through its headers or its body, or
// closed after it, answers slower than the attempt timeout, connections
// that could not be made (0 to 4 in a row) and a signer that fails.
//
// For a route the table says is sent at most once, exactly one request
// reaches the server (none when no connection could be made or signing
// failed), and the call fails with ErrOutcomeUnknown exactly when the
// server may have applied the write: after a 1xx taken for final, a 3xx,
// a 5xx, a 2xx it cannot read, or a connection that broke or timed out
// once the request was sent; a 4xx, a 2xx whose envelope says success
// false, and a request that never left are known not applied, and a 2xx
// it reads is success. The error's message ends with the route's hint.
// For a repeatable route, the call is retried after exactly the answers
// the retry rules name, and is never ErrOutcomeUnknown. No error names a
// host, and the other host of a redirect never gets a request.
//
// The table below is written by hand from the API's documentation and
// does not read the route declarations (only to check that it lists every
// declared route): a route declared in the wrong class, or with the wrong
// hint, fails here. Each route runs famGenChecks cases (a real loopback
// server each, a few milliseconds); `-rapid.checks=N` runs N a route.

// outcomeRoute is one route as the table states it.
type outcomeRoute struct {
	op     string // the SDK method
	method string // what the server must receive
	path   string
	once   bool   // sent at most once
	hint   string // how to find out, at the end of an unknown outcome's message
	file   bool   // its answer is a file (streamed, not read in the retry loop)
	// bad is a result the route cannot read, written into the envelope
	// after "result": ("" for a route that reads no result).
	bad  string
	call func(ctx context.Context, c *Client) error
}

// outcomeRoutes is every route of the API and the calls of Client.Do.
func outcomeRoutes() []outcomeRoute {
	id, id2 := rcID, wcItem
	do := func(method string, atMostOnce bool) func(ctx context.Context, c *Client) error {
		return func(ctx context.Context, c *Client) error {
			out := map[string]any{}
			return c.Do(ctx, &RawRequest{Method: method, Path: "/widgets/" + id.String(), Body: map[string]any{"n": 1}, AtMostOnce: atMostOnce}, &out)
		}
	}
	get := func(op, path string, file bool, call func(ctx context.Context, c *Client) error) outcomeRoute {
		return outcomeRoute{op: op, method: http.MethodGet, path: path, file: file, call: call}
	}
	const doHint = "read what it would have changed before trying again"
	return []outcomeRoute{
		// At most once.
		{op: "ShoppingCart.Add", method: http.MethodPost, path: "/shopping-cart", once: true, bad: `[12]`,
			hint: "ShoppingCart.List shows whether the item was added",
			call: func(ctx context.Context, c *Client) error {
				_, err := c.ShoppingCart.Add(ctx, &CartAddParams{CompanyID: id, ProductID: id2, Quantity: 1})
				return err
			}},
		{op: "ShoppingCart.Remove", method: http.MethodDelete, path: "/shopping-cart", once: true,
			hint: "ShoppingCart.List shows whether the items are still there",
			call: func(ctx context.Context, c *Client) error {
				return c.ShoppingCart.Remove(ctx, &CartRemoveParams{CompanyIDs: []uuid.UUID{id}, ItemIDs: []uuid.UUID{id2}})
			}},
		{op: "ShoppingCart.Checkout", method: http.MethodPost, path: "/shopping-cart/checkout", once: true, bad: `"charged","invoice_ids":12`,
			hint: "Invoices.List shows whether invoices were made, and ShoppingCart.List whether the items left the cart",
			call: func(ctx context.Context, c *Client) error {
				_, err := c.ShoppingCart.Checkout(ctx, &CheckoutParams{ItemIDs: []uuid.UUID{id2}, PaymentMethodID: wcCard})
				return err
			}},
		{op: "Invoices.Pay", method: http.MethodPost, path: "/invoices/pay", once: true, bad: `[12]`,
			hint: "Invoices.Get shows whether each invoice is paid",
			call: func(ctx context.Context, c *Client) error {
				_, err := c.Invoices.Pay(ctx, &InvoicePayParams{InvoiceIDs: []uuid.UUID{wcInvoice}, PaymentMethodID: wcCard})
				return err
			}},
		{op: "Documents.Unlock", method: http.MethodPost, path: "/documents/unlock/" + id.String(), once: true, bad: `{"action":12}`,
			hint: "Documents.Get shows whether the document is still payment-locked, and Invoices.List whether an invoice was made for it",
			call: func(ctx context.Context, c *Client) error {
				_, err := c.Documents.Unlock(ctx, id, wcCard)
				return err
			}},
		{op: "PaymentMethods.Create", method: http.MethodPost, path: "/payment-methods", once: true, bad: `[12]`,
			hint: "PaymentMethods.List shows whether the card was stored (match its last four digits and expiry)",
			call: func(ctx context.Context, c *Client) error {
				_, err := c.PaymentMethods.Create(ctx, wcCardParams())
				return err
			}},
		{op: "PaymentMethods.Update", method: http.MethodPatch, path: "/payment-methods/" + wcCard.String(), once: true, bad: `[12]`,
			hint: "PaymentMethods.List shows the card's details",
			call: func(ctx context.Context, c *Client) error {
				_, err := c.PaymentMethods.Update(ctx, wcCard, wcCardParams())
				return err
			}},
		{op: "PaymentMethods.Delete", method: http.MethodDelete, path: "/payment-methods/" + wcCard.String(), once: true,
			hint: "PaymentMethods.List shows whether the card is still there",
			call: func(ctx context.Context, c *Client) error { return c.PaymentMethods.Delete(ctx, wcCard) }},
		{op: "OrderItems.SubmitFormData", method: http.MethodPost, path: "/order-items/requiring-attention", once: true, bad: `[12]`,
			hint: "OrderItems.ListRequiringAttention shows whether the item still waits for its form",
			call: func(ctx context.Context, c *Client) error {
				_, err := c.OrderItems.SubmitFormData(ctx, &OrderItemFormDataParams{CompanyID: id, OrderItemID: wcOrder, FormData: map[string]any{"a": 1}})
				return err
			}},
		{op: "Services.Create", method: http.MethodPost, path: "/services", once: true, bad: `[12]`,
			hint: "Services.List shows whether the services were ordered",
			call: func(ctx context.Context, c *Client) error {
				_, err := c.Services.Create(ctx, &ServiceCreateParams{CompanyID: id, JurisdictionIDs: []uuid.UUID{id2}})
				return err
			}},
		{op: "Services.AddInfo", method: http.MethodPost, path: "/services/" + id.String() + "/info", once: true, bad: `[12]`,
			hint: "Services.Info shows what the service holds",
			call: func(ctx context.Context, c *Client) error {
				_, err := c.Services.AddInfo(ctx, id, &ServiceInfo{ContactPerson: &ServiceContact{FirstName: "Ada"}})
				return err
			}},
		{op: "Services.RequestCancellation", method: http.MethodPost, path: "/services/" + id.String() + "/cancel-request", once: true, bad: `[12]`,
			hint: "Services.List shows whether the service is cancel-requested",
			call: func(ctx context.Context, c *Client) error {
				_, err := c.Services.RequestCancellation(ctx, id)
				return err
			}},
		{op: "Companies.Create", method: http.MethodPost, path: "/companies", once: true, bad: `[12]`,
			hint: "Companies.List shows whether the companies were added",
			call: func(ctx context.Context, c *Client) error {
				_, err := c.Companies.Create(ctx, CompanyCreateParams{Name: "Acme"})
				return err
			}},
		{op: "Companies.Update", method: http.MethodPatch, path: "/companies", once: true, bad: `[12]`,
			hint: "Companies.List shows whether the companies were changed",
			call: func(ctx context.Context, c *Client) error {
				_, err := c.Companies.Update(ctx, CompanyUpdateParams{CompanyID: id, Name: "Acme 2"})
				return err
			}},
		{op: "Callbacks.Create", method: http.MethodPost, path: "/callbacks", once: true, bad: `[12]`,
			hint: "Callbacks.List shows whether the URL was registered",
			call: func(ctx context.Context, c *Client) error {
				_, err := c.Callbacks.Create(ctx, "https://example.com/hook")
				return err
			}},
		{op: "Auth.Login", method: http.MethodPost, path: "/auth/login", once: true, bad: `[12]`,
			hint: "logging in again is harmless",
			call: func(ctx context.Context, c *Client) error {
				_, err := c.Auth.Login(ctx, &LoginParams{Email: "u@example.com", Password: wcPassword, WebsiteID: wcWebsite})
				return err
			}},
		{op: "Auth.ForgotPassword", method: http.MethodPost, path: "/auth/forgot-password", once: true,
			hint: "a second request sends a second e-mail",
			call: func(ctx context.Context, c *Client) error {
				return c.Auth.ForgotPassword(ctx, &ForgotPasswordParams{EmailAddress: "u@example.com", WebsiteID: wcWebsite})
			}},
		{op: "Auth.ResetPassword", method: http.MethodPost, path: "/auth/reset-password", once: true,
			hint: "logging in with the new password shows whether it was set",
			call: func(ctx context.Context, c *Client) error {
				return c.Auth.ResetPassword(ctx, &ResetPasswordParams{Token: wcResetToken, Password: wcPassword})
			}},
		{op: "Client.Do POST", method: http.MethodPost, path: "/widgets/" + id.String(), once: true, bad: `[12]`, hint: doHint, call: do(http.MethodPost, false)},
		{op: "Client.Do PUT", method: http.MethodPut, path: "/widgets/" + id.String(), once: true, bad: `[12]`, hint: doHint, call: do(http.MethodPut, false)},
		{op: "Client.Do PATCH", method: http.MethodPatch, path: "/widgets/" + id.String(), once: true, bad: `[12]`, hint: doHint, call: do(http.MethodPatch, false)},
		{op: "Client.Do DELETE at most once", method: http.MethodDelete, path: "/widgets/" + id.String(), once: true, bad: `[12]`, hint: doHint, call: do(http.MethodDelete, true)},
		{op: "Client.Do GET at most once", method: http.MethodGet, path: "/widgets/" + id.String(), once: true, bad: `[12]`, hint: doHint, call: do(http.MethodGet, true)},

		// Repeatable.
		{op: "Client.Do DELETE", method: http.MethodDelete, path: "/widgets/" + id.String(), call: do(http.MethodDelete, false)},
		{op: "Callbacks.Delete", method: http.MethodDelete, path: "/callbacks/" + id.String(),
			call: func(ctx context.Context, c *Client) error { return c.Callbacks.Delete(ctx, id) }},
		get("Callbacks.List", "/callbacks", false, func(ctx context.Context, c *Client) error { _, err := c.Callbacks.List(ctx); return err }),
		get("Services.List", "/services", false, func(ctx context.Context, c *Client) error { _, err := c.Services.List(ctx, nil); return err }),
		get("Services.Info", "/services/"+id.String()+"/info", false, func(ctx context.Context, c *Client) error { _, err := c.Services.Info(ctx, id); return err }),
		get("Documents.List", "/documents", false, func(ctx context.Context, c *Client) error { _, err := c.Documents.List(ctx, nil); return err }),
		get("Documents.Get", "/documents/"+id.String(), false, func(ctx context.Context, c *Client) error { _, err := c.Documents.Get(ctx, id); return err }),
		get("Documents.Page", "/documents/"+id.String()+"/page/3", true, func(ctx context.Context, c *Client) error { return fileErr(c.Documents.Page(ctx, id, 3, nil)) }),
		get("Documents.Download", "/documents/"+id.String()+"/download", true, func(ctx context.Context, c *Client) error { return fileErr(c.Documents.Download(ctx, id)) }),
		get("Documents.PageURL", "/documents/"+id.String()+"/page/2/url", false, func(ctx context.Context, c *Client) error { _, err := c.Documents.PageURL(ctx, id, 2); return err }),
		get("Documents.BulkDownload", "/documents/bulk-download", false, func(ctx context.Context, c *Client) error {
			_, err := c.Documents.BulkDownload(ctx, id, id2)
			return err
		}),
		get("Resources.List", "/resources", false, func(ctx context.Context, c *Client) error { _, err := c.Resources.List(ctx, nil); return err }),
		get("Resources.Get", "/resources/"+id.String(), false, func(ctx context.Context, c *Client) error { _, err := c.Resources.Get(ctx, id); return err }),
		get("Resources.Page", "/resources/"+id.String()+"/page/0", true, func(ctx context.Context, c *Client) error { return fileErr(c.Resources.Page(ctx, id, 0, nil)) }),
		get("Resources.Download", "/resources/"+id.String()+"/download", true, func(ctx context.Context, c *Client) error { return fileErr(c.Resources.Download(ctx, id)) }),
		get("FilingProducts.List", "/filing-products", false, func(ctx context.Context, c *Client) error {
			_, err := c.FilingProducts.List(ctx, &FilingProductListParams{URL: "https://example.com"})
			return err
		}),
		get("FilingProducts.Offerings", "/filing-products/offerings", false, func(ctx context.Context, c *Client) error {
			_, err := c.FilingProducts.Offerings(ctx, &OfferingParams{CompanyID: id, Jurisdiction: "UT"})
			return err
		}),
		get("FilingMethods.List", "/filing-methods", false, func(ctx context.Context, c *Client) error {
			_, err := c.FilingMethods.List(ctx, &FilingMethodListParams{CompanyID: id, Jurisdiction: "UT", FilingProductID: id2})
			return err
		}),
		get("FilingMethods.Schemas", "/filing-methods/schemas", false, func(ctx context.Context, c *Client) error {
			_, err := c.FilingMethods.Schemas(ctx, &FormSchemaParams{CompanyID: id, FilingMethodID: id2})
			return err
		}),
		get("ComplianceEvents.List", "/compliance-events", false, func(ctx context.Context, c *Client) error {
			_, err := c.ComplianceEvents.List(ctx, &ComplianceEventListParams{StartDate: rcDate, EndDate: rcDate})
			return err
		}),
		get("Websites.Get", "/websites", false, func(ctx context.Context, c *Client) error {
			_, err := c.Websites.Get(ctx, "https://example.com")
			return err
		}),
		get("Companies.List", "/companies", false, func(ctx context.Context, c *Client) error { _, err := c.Companies.List(ctx); return err }),
		get("Companies.Get", "/companies/"+id.String(), false, func(ctx context.Context, c *Client) error { _, err := c.Companies.Get(ctx, id); return err }),
		get("Invoices.List", "/invoices", false, func(ctx context.Context, c *Client) error { _, err := c.Invoices.List(ctx, nil); return err }),
		get("Invoices.Get", "/invoices/"+id.String(), false, func(ctx context.Context, c *Client) error { _, err := c.Invoices.Get(ctx, id); return err }),
		get("RegisteredAgentProducts.List", "/registered-agent-products", false, func(ctx context.Context, c *Client) error {
			_, err := c.RegisteredAgentProducts.List(ctx, &RegisteredAgentProductListParams{URL: "https://example.com"})
			return err
		}),
		get("Account.Get", "/account", false, func(ctx context.Context, c *Client) error { _, err := c.Account.Get(ctx); return err }),
		get("Account.DashPanel", "/account/dashpanel", false, func(ctx context.Context, c *Client) error { _, err := c.Account.DashPanel(ctx); return err }),
		get("Auth.Refresh", "/auth/refresh", false, func(ctx context.Context, c *Client) error { _, err := c.Auth.Refresh(ctx); return err }),
		get("SimpleProducts.List", "/simple-products", false, func(ctx context.Context, c *Client) error {
			_, err := c.SimpleProducts.List(ctx, &SimpleProductListParams{URL: "https://example.com/shop"})
			return err
		}),
		get("SignedForms.List", "/signed-forms", false, func(ctx context.Context, c *Client) error {
			_, err := c.SignedForms.List(ctx, &SignedFormListParams{FilingMethodID: id, WebsiteID: wcWebsite})
			return err
		}),
		get("ShoppingCart.List", "/shopping-cart", false, func(ctx context.Context, c *Client) error { _, err := c.ShoppingCart.List(ctx, nil); return err }),
		get("PaymentMethods.List", "/payment-methods", false, func(ctx context.Context, c *Client) error { _, err := c.PaymentMethods.List(ctx); return err }),
		get("OrderItems.ListRequiringAttention", "/order-items/requiring-attention", false, func(ctx context.Context, c *Client) error {
			_, err := c.OrderItems.ListRequiringAttention(ctx, nil)
			return err
		}),
	}
}

// famAnswer is one answer of a generated server.
type famAnswer struct {
	interim  []int  // 1xx answers written before the final one
	status   int    // the final answer's status
	ctype    string // its Content-Type, "" for none
	location string // "" for none, "same", "path" (same host) or "other"
	body     string // "good", "false", "bad", "html", "garbage", "cut", "plain", "empty"
	fault    string // "", "drop-before", "drop-headers", "drop-body", "slow-headers", "slow-body"
	close    bool   // the connection is closed after a whole answer
}

// famBodyless reports whether an answer with status s has no body.
func famBodyless(s int) bool {
	return s < 200 || s == http.StatusNoContent || s == http.StatusNotModified
}

// drawAnswer draws one answer of the family.
func drawAnswer(t *rapid.T) famAnswer {
	var a famAnswer
	if rapid.IntRange(0, 5).Draw(t, "interims") == 0 {
		a.interim = rapid.SliceOfN(rapid.SampledFrom([]int{100, 102, 103}), 1, 3).Draw(t, "interim")
	}
	if rapid.Bool().Draw(t, "special") {
		a.status = rapid.SampledFrom([]int{500, 500, 503, 502, 504, 501, 301, 302, 303, 307, 308, 300, 304,
			400, 404, 408, 409, 422, 429, 200, 200, 201, 202, 204, 205, 101}).Draw(t, "status")
	} else {
		a.status = rapid.IntRange(200, 599).Draw(t, "status")
	}
	a.ctype = rapid.SampledFrom([]string{"application/json", "application/json", "text/html; charset=utf-8", "text/plain", "", "application/pdf"}).Draw(t, "ctype")
	if a.status >= 300 && a.status < 400 {
		a.location = rapid.SampledFrom([]string{"same", "same", "path", "other", ""}).Draw(t, "location")
	}
	a.body = rapid.SampledFrom([]string{"good", "good", "false", "bad", "html", "garbage", "cut", "plain", "empty"}).Draw(t, "body")
	faults := []string{"", "", "", "", "", "", "", "drop-before", "drop-headers", "slow-headers"}
	if !famBodyless(a.status) && (a.status < 300 || a.status >= 400) && a.body != "empty" {
		faults = append(faults, "drop-body", "slow-body")
	}
	a.fault = rapid.SampledFrom(faults).Draw(t, "fault")
	if a.fault == "slow-headers" || a.fault == "slow-body" {
		// Slow cases cost an attempt timeout each: keep them to a few.
		if rapid.IntRange(0, 2).Draw(t, "slow") != 0 {
			a.fault = ""
		}
	}
	a.close = rapid.Bool().Draw(t, "close")
	return a
}

// famBody is the body of answer a to a route whose unreadable result is
// bad.
func famBody(a famAnswer, bad string) string {
	switch a.body {
	case "good":
		return `{"success":true,"timestamp":"2024-05-01 10:00:00 -0600","result":null}`
	case "false":
		return `{"success":false,"message":"refused"}`
	case "bad":
		if bad == "" {
			return `{"success":true,"result":null}`
		}
		return `{"success":true,"result":` + bad + `}`
	case "html":
		return "<!doctype html><html><body><h1>502 Bad Gateway</h1><p>a proxy's page</p></body></html>"
	case "garbage":
		return "\x00\xff garbage }{"
	case "cut":
		return `{"success":true,"result":{"id":`
	case "plain":
		return `[{"success":true}]`
	}
	return ""
}

// famServer is a server that answers each request with a famAnswer, on
// raw connections, and records every request that reached it whole.
type famServer struct {
	ln     net.Listener
	other  string // the URL of another host
	bad    string
	answer func(n int) famAnswer // n counts requests from 1
	wg     sync.WaitGroup
	mu     sync.Mutex
	reqs   []recorded
}

func newFamServer(t *rapid.T, other, bad string, answer func(n int) famAnswer) *famServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &famServer{ln: ln, other: other, bad: bad, answer: answer}
	acceptEach(ln, &s.wg, s.serve)
	return s
}

func (s *famServer) url() string { return "http://" + s.ln.Addr().String() }

// close stops the server and waits for its connections to end.
func (s *famServer) close() {
	s.ln.Close()
	s.wg.Wait()
}

func (s *famServer) requests() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.reqs...)
}

func (s *famServer) serve(conn net.Conn) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return
		}
		rec := recorded{Method: req.Method, Path: req.URL.Path, RawQuery: req.URL.RawQuery, Body: string(body), Header: req.Header.Clone()}
		if err := verifyRequestJWT(req, body); err != nil {
			rec.AuthErr = err.Error()
		} else {
			rec.AuthOK = true
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, rec)
		n := len(s.reqs)
		s.mu.Unlock()
		if !s.write(conn, s.answer(n), req.URL.Path) {
			return
		}
	}
}

// write sends answer a on conn and reports whether the connection stays
// open.
func (s *famServer) write(conn net.Conn, a famAnswer, path string) bool {
	for _, code := range a.interim {
		if _, err := fmt.Fprintf(conn, "HTTP/1.1 %d Wait\r\n\r\n", code); err != nil {
			return false
		}
	}
	switch a.fault {
	case "drop-before":
		famReset(conn)
		return false
	case "slow-headers":
		famWaitGone(conn)
		return false
	}
	body := famBody(a, s.bad)
	if famBodyless(a.status) {
		body = ""
	}
	var head strings.Builder
	fmt.Fprintf(&head, "HTTP/1.1 %d Status\r\n", a.status)
	if a.ctype != "" {
		fmt.Fprintf(&head, "Content-Type: %s\r\n", a.ctype)
	}
	switch a.location {
	case "same":
		fmt.Fprintf(&head, "Location: %s\r\n", path)
	case "path":
		fmt.Fprintf(&head, "Location: %s\r\n", s.url()+"/moved"+path)
	case "other":
		fmt.Fprintf(&head, "Location: %s\r\n", s.other+path+"?from=redirect")
	}
	if !famBodyless(a.status) {
		fmt.Fprintf(&head, "Content-Length: %d\r\n", len(body))
	}
	if a.close {
		head.WriteString("Connection: close\r\n")
	}
	head.WriteString("\r\n")
	h := head.String()
	if a.fault == "drop-headers" {
		_, _ = io.WriteString(conn, h[:len(h)/2])
		famReset(conn)
		return false
	}
	if _, err := io.WriteString(conn, h); err != nil {
		return false
	}
	switch a.fault {
	case "drop-body":
		_, _ = io.WriteString(conn, body[:len(body)/2])
		famReset(conn)
		return false
	case "slow-body":
		_, _ = io.WriteString(conn, body[:len(body)/2])
		famWaitGone(conn)
		return false
	}
	if _, err := io.WriteString(conn, body); err != nil {
		return false
	}
	return !a.close
}

// famReset ends conn with a TCP reset.
func famReset(conn net.Conn) {
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	conn.Close()
}

// famWaitGone waits for the client to give up on conn, for 2 s at most:
// a file's body is not bounded by the attempt timeout, so a slow one
// ends, late, with the connection.
func famWaitGone(conn net.Conn) {
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	_, _ = io.Copy(io.Discard, conn)
}

// famCase is one generated case: the route, the first answer (a later
// request gets a 422), the connections that cannot be made before the
// first that can, and whether the signer fails.
type famCase struct {
	first     famAnswer
	dialFails int
	signFails bool
}

// famExpect is what a case must end in.
type famExpect struct {
	requests int    // exactly this many reach the server
	kind     string // "ok", "api", "decode", "transport"; "" for any
	status   int    // the *APIError's status
	unknown  bool
}

// famRetries is the clients' WithMaxRetries.
const famRetries = 3

// expect is the oracle: what the case must end in for route r.
func (fc famCase) expect(r outcomeRoute) famExpect {
	if fc.signFails || fc.dialFails > famRetries {
		return famExpect{requests: 0, kind: "transport"}
	}
	a := fc.first
	if !r.once {
		retry, follow := fc.again(r)
		// A retry needs one left after the connections that failed; a
		// redirect is followed within the attempt.
		return famExpect{requests: 1 + b2i(follow || retry && fc.dialFails < famRetries)}
	}
	switch {
	case a.fault == "drop-before" || a.fault == "drop-headers" || a.fault == "slow-headers":
		return famExpect{requests: 1, kind: "transport", unknown: true}
	case a.status < 200 || a.status >= 300 && a.status < 400 || a.status >= 500:
		return famExpect{requests: 1, kind: "api", status: a.status, unknown: true}
	case a.status >= 400:
		return famExpect{requests: 1, kind: "api", status: a.status}
	case a.status == http.StatusNoContent:
		return famExpect{requests: 1, kind: "ok"}
	case a.fault != "":
		return famExpect{requests: 1, kind: "transport", unknown: true}
	case a.body == "good" || a.body == "bad" && r.bad == "" || a.body == "empty" && r.method == http.MethodDelete:
		return famExpect{requests: 1, kind: "ok"}
	case a.body == "false":
		return famExpect{requests: 1, kind: "api", status: a.status}
	}
	return famExpect{requests: 1, kind: "decode", unknown: true}
}

// again reports whether the retry rules send the repeatable route r
// again after the first answer, or the client follows its redirect.
func (fc famCase) again(r outcomeRoute) (retry, follow bool) {
	a := fc.first
	switch a.fault {
	case "drop-before", "drop-headers", "slow-headers":
		return true, false
	case "drop-body", "slow-body":
		if a.status >= 200 && a.status < 300 {
			return !r.file, false
		}
	}
	switch a.status {
	case 429, 500, 502, 503, 504:
		return true, false
	case 301, 302, 303, 307, 308:
		return false, a.location == "same" || a.location == "path"
	}
	return false, false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// famGenChecks is how many cases each route runs when -rapid.checks is
// not given.
const famGenChecks = 30

func TestOutcomeOnGeneratedServers(t *testing.T) {
	table := outcomeRoutes()
	// Every declared route is in the table (the table alone says what is
	// tested and how).
	inTable := map[string]bool{}
	for _, r := range table {
		inTable[r.op] = true
	}
	for _, rt := range routes {
		if !inTable[rt.operation] {
			t.Errorf("route %s (%s %s) is not in the table", rt.operation, rt.method, rt.pattern)
		}
	}
	if !flagGiven("rapid.checks") {
		t.Cleanup(setFlag(t, "rapid.checks", strconv.Itoa(famGenChecks)))
	}
	other := newAPIServer(t, ok("null"))
	for _, r := range table {
		t.Run(r.op, func(t *testing.T) {
			t.Parallel()
			rapid.Check(t, func(rt *rapid.T) {
				fc := famCase{first: drawAnswer(rt)}
				switch rapid.IntRange(0, 9).Draw(rt, "reach") {
				case 0:
					fc.dialFails = rapid.IntRange(1, famRetries+1).Draw(rt, "dialFails")
				case 1:
					fc.signFails = true
				}
				fc.run(rt, r, other)
			})
			if n := other.count(); n != 0 {
				t.Errorf("the other host of a redirect got %d requests", n)
			}
		})
	}
}

// run runs case fc against route r and checks its outcome.
func (fc famCase) run(t *rapid.T, r outcomeRoute, other *apiServer) {
	srv := newFamServer(t, other.URL, r.bad, func(n int) famAnswer {
		if n == 1 {
			return fc.first
		}
		return famAnswer{status: http.StatusUnprocessableEntity, ctype: "application/json", body: "false"}
	})
	defer srv.close()
	var dials atomic.Int32
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if int(dials.Add(1)) <= fc.dialFails {
			return nil, &net.OpError{Op: "dial", Net: network, Err: errString("connection refused")}
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	defer tr.CloseIdleConnections()
	signer, err := NewSigner(testAccessKey, testSecretKey)
	if err != nil {
		t.Fatal(err)
	}
	auth := signer
	if fc.signFails {
		auth = AuthenticatorFunc(func(*http.Request, []byte) error { return errString("no key today") })
	}
	timeout := 30 * time.Second // no other answer may pass for a slow one on a loaded machine
	if strings.HasPrefix(fc.first.fault, "slow") {
		timeout = 100 * time.Millisecond
	}
	c, err := NewClient(testAccessKey, testSecretKey, WithBaseURL(srv.url()), WithHTTPClient(&http.Client{Transport: tr}),
		WithAuthenticator(auth), WithMaxRetries(famRetries), WithRetryWait(time.Millisecond, time.Millisecond), WithTimeout(timeout))
	if err != nil {
		t.Fatal(err)
	}
	err = r.call(context.Background(), c)
	want := fc.expect(r)
	reqs := srv.requests()
	if len(reqs) != want.requests {
		t.Fatalf("%d requests reached the server, want %d (err %v)", len(reqs), want.requests, err)
	}
	if len(reqs) > 0 && (reqs[0].Method != r.method || reqs[0].Path != r.path || !reqs[0].AuthOK) {
		t.Fatalf("request %s %s (auth %v %s), want %s %s signed", reqs[0].Method, reqs[0].Path, reqs[0].AuthOK, reqs[0].AuthErr, r.method, r.path)
	}
	if got := errors.Is(err, ErrOutcomeUnknown); got != want.unknown {
		t.Fatalf("ErrOutcomeUnknown %v, want %v: err = %v", got, want.unknown, err)
	}
	if err != nil {
		msg := err.Error()
		if want.unknown && !strings.HasSuffix(msg, "; outcome unknown, the request may have taken effect: "+r.hint) {
			t.Fatalf("err = %q, does not end with the hint %q", msg, r.hint)
		}
		if !want.unknown && strings.Contains(msg, "outcome unknown") {
			t.Fatalf("err = %q speaks of an unknown outcome", msg)
		}
		if strings.Contains(strings.Replace(msg, ": connect to "+srv.url()+": ", "", 1), "127.0.0.1") || strings.Contains(msg, "redirect=") {
			t.Fatalf("err = %q names a host or the redirect's query", msg)
		}
	}
	var (
		ae *APIError
		de *DecodeError
		te *TransportError
	)
	switch want.kind {
	case "ok":
		if err != nil {
			t.Fatalf("err = %v, want success", err)
		}
	case "api":
		if !errors.As(err, &ae) || ae.StatusCode != want.status {
			t.Fatalf("err = %v (%T), want a %d *APIError", err, err, want.status)
		}
	case "decode":
		if !errors.As(err, &de) {
			t.Fatalf("err = %v (%T), want a *DecodeError", err, err)
		}
	case "transport":
		if !errors.As(err, &te) {
			t.Fatalf("err = %v (%T), want a *TransportError", err, err)
		}
	}
}
