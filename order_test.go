package acctadmin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"pgregory.net/rapid"
)

// demoLikeCatalog is what the fake's demo offers a Wyoming company, by
// name: the federal EIN ("tax id") and the website's filings.
func demoLikeCatalog() []FilingProduct {
	return []FilingProduct{
		{ID: wcProduct, Name: "Tax id filing service", FilingName: "tax id"},
		{ID: uuid.New(), Name: "Annual Report", FilingName: "annual report"},
		{ID: uuid.New(), Name: "Articles of Organization", FilingName: "formation"},
		{ID: uuid.New(), Name: "Certificate of Good Standing", FilingName: "good standing"},
		{ID: uuid.New(), Name: "Amendment", FilingName: "amendment"},
	}
}

// orderServer is a small stateful API for the order: one offered
// product and method, cards, carts, invoices and waiting order items.
// Its checkout and listings fail as a test tells it.
type orderServer struct {
	mu        sync.Mutex
	cards     []map[string]any
	cart      []map[string]any
	invoices  []string
	waiting   []map[string]any
	addAnswer string // "item", "cart" or "none"
	cardReply string // "card" or "status"
	// checkout acts out the checkout: it reports whether to apply it,
	// and answers after apply has run (or not).
	checkout  func(w http.ResponseWriter, r *http.Request, apply func())
	checkouts int
	applied   bool
	// after the checkout was received: fail these listings, add a
	// stranger's invoice, hold back the checkout's invoice.
	failInvoices, failCart, strangerInvoice, invoiceLag bool
	failInvoicesBefore                                  bool // before the checkout
	forms                                               int
	// schema is the filing method's form schema; "" answers 404.
	schema string
	// listAll lists every order item, not only those waiting.
	listAll bool
}

func newOrderServer() *orderServer {
	return &orderServer{addAnswer: "item", cardReply: "status",
		cards: []map[string]any{{"id": wcCard.String(), "last4": "4242", "exp_month": 12, "exp_year": 2030}},
		checkout: func(w http.ResponseWriter, r *http.Request, apply func()) {
			apply()
			writeJSON(w, 200, `{"success":true,"result":[],"invoice_ids":[]}`)
		}}
}

const orderProduct = `{"id":"22222222-2222-4222-8222-222222222222","name":"Tax id filing service","filing_name":"tax id","price":79}`

func (s *orderServer) handle(w http.ResponseWriter, r *http.Request) {
	result := func(v any) {
		b, _ := json.Marshal(v)
		writeJSON(w, 200, `{"success":true,"result":`+string(b)+`}`)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	checkedOut := s.checkouts > 0
	switch r.Method + " " + r.URL.Path {
	case "GET /filing-products/offerings":
		writeJSON(w, 200, `{"success":true,"result":[`+orderProduct+`]}`)
	case "GET /filing-methods":
		result([]map[string]any{{"id": wcMethod, "name": "Standard", "type": "online", "cost": 0}})
	case "GET /filing-methods/schemas":
		if s.schema == "" {
			writeJSON(w, 404, `{"message":"no such endpoint"}`)
			return
		}
		writeJSON(w, 200, `{"success":true,"result":[{"filing_method_id":"`+wcMethod.String()+`","name":"form_data","schema":`+s.schema+`}]}`)
	case "GET /payment-methods":
		result(s.cards)
	case "POST /payment-methods":
		var body map[string]string
		_ = json.Unmarshal(readBody(r), &body)
		m, _ := strconv.Atoi(body["exp_month"])
		y, _ := strconv.Atoi(body["exp_year"])
		card := map[string]any{"id": uuid.New(), "last4": body["number"][len(body["number"])-4:], "exp_month": m, "exp_year": y}
		s.cards = append(s.cards, card)
		if s.cardReply == "card" {
			result(card)
			return
		}
		result(map[string]any{"status_code": 200, "success": true})
	case "GET /shopping-cart":
		if checkedOut && s.failCart {
			writeJSON(w, 500, `{"message":"down"}`)
			return
		}
		result(s.cart)
	case "POST /shopping-cart":
		var body map[string]any
		_ = json.Unmarshal(readBody(r), &body)
		it := map[string]any{"id": uuid.New(), "company_id": body["company_id"], "product_id": body["product_id"],
			"product_option_id": body["product_option_id"], "title": "Tax id filing service - Standard", "total": 79}
		s.cart = append(s.cart, it)
		switch s.addAnswer {
		case "item":
			result(it)
		case "cart":
			result(s.cart)
		default:
			writeJSON(w, 200, `{"success":true,"result":null}`)
		}
	case "POST /shopping-cart/checkout":
		s.checkouts++
		var body struct {
			ItemIDs []string `json:"item_ids"`
		}
		_ = json.Unmarshal(readBody(r), &body)
		apply := func() {
			s.applied = true
			inv := uuid.NewString()
			if !s.invoiceLag {
				s.invoices = append(s.invoices, inv)
			}
			for _, id := range body.ItemIDs {
				s.cart = slices.DeleteFunc(s.cart, func(it map[string]any) bool { return fmt.Sprint(it["id"]) == id })
				s.waiting = append(s.waiting, map[string]any{"id": uuid.New(), "company_id": wcCompany, "status": "requiring-client-attention",
					"name": "Standard Federal EIN - Tax Id filing", "product": map[string]any{"id": wcProduct}})
			}
		}
		if s.strangerInvoice {
			s.invoices = append(s.invoices, uuid.NewString())
		}
		s.mu.Unlock()
		s.checkout(w, r, func() { s.mu.Lock(); apply(); s.mu.Unlock() })
		s.mu.Lock()
	case "GET /invoices":
		if checkedOut && s.failInvoices || !checkedOut && s.failInvoicesBefore {
			writeJSON(w, 500, `{"message":"down"}`)
			return
		}
		list := []map[string]any{}
		for _, id := range s.invoices {
			list = append(list, map[string]any{"id": id, "company_id": wcCompany, "status": "paid"})
		}
		off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		list = list[min(off, len(list)):]
		if n, err := strconv.Atoi(r.URL.Query().Get("limit")); err == nil && n < len(list) {
			list = list[:n]
		}
		result(list)
	case "GET /order-items/requiring-attention":
		result(slices.DeleteFunc(slices.Clone(s.waiting), func(it map[string]any) bool {
			return it["status"] != "requiring-client-attention" && !s.listAll
		}))
	case "POST /order-items/requiring-attention":
		s.forms++
		var body map[string]any
		_ = json.Unmarshal(readBody(r), &body)
		for _, it := range s.waiting {
			if fmt.Sprint(it["id"]) == body["order_item_id"] {
				it["status"] = "new"
				result(it)
				return
			}
		}
		writeJSON(w, 404, `{"message":"no such order item"}`)
	default:
		writeJSON(w, 404, `{"message":"no such endpoint"}`)
	}
}

func readBody(r *http.Request) []byte {
	b := new(strings.Builder)
	buf := make([]byte, 4096)
	for {
		n, err := r.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return []byte(b.String())
		}
	}
}

// orderRequest is the EIN order of the tests, with a card to store.
func orderRequest() *OrderRequest {
	return &OrderRequest{CompanyID: wcCompany, Jurisdiction: "WY", Filing: "EIN", Method: "standard",
		Card: &Card{Number: "4111 1111 1111 1111", ExpMonth: 5, ExpYear: 2029, CVC: "123"}, FormData: map[string]any{"ssn": "secret-ssn"}}
}

// The whole order, on an API that answers a card write with
// {status_code, success} and an add with the item: one call finds the
// product (EIN is "tax id"), the method by name, the stored card by
// listing, the item, checks out once and answers the form of the one new
// order item; the older waiting item of the same product is left alone.
func TestOrderEndToEnd(t *testing.T) {
	for _, add := range []string{"item", "cart", "none"} {
		t.Run(add, func(t *testing.T) {
			os := newOrderServer()
			os.addAnswer = add
			old := uuid.New()
			os.waiting = []map[string]any{{"id": old, "company_id": wcCompany, "status": "requiring-client-attention", "product": map[string]any{"id": wcProduct}}}
			os.cart = []map[string]any{{"id": uuid.New(), "company_id": wcCompany, "product_id": wcProduct, "product_option_id": wcMethod}}
			srv := newAPIServer(t, os.handle)
			r := orderRequest()
			r.AllowDuplicate = true
			res, err := newTestClient(t, srv).Order(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			if res.Product.ID != wcProduct || res.Method.ID != wcMethod || res.Card.Last4 != "1111" || res.Card.ID == wcCard {
				t.Fatalf("product %v method %v card %+v", res.Product.ID, res.Method.ID, res.Card)
			}
			if res.Checkout == nil || len(res.Checkout.OrderItems) != 1 || res.OrderItem == nil || res.OrderItem.ID == old || res.OrderItem.Status != OrderItemNew {
				t.Fatalf("checkout %+v order item %+v", res.Checkout, res.OrderItem)
			}
			if os.checkouts != 1 || os.forms != 1 || len(os.cart) != 1 {
				t.Fatalf("%d checkouts, %d forms, %d left in the cart", os.checkouts, os.forms, len(os.cart))
			}
		})
	}
}

// A failed checkout is sent once, and Order tells whether it charged. An
// answer that proves it was not applied (a 4xx, success false) is
// NotCharged; after a lost answer, a new invoice with the item gone is
// Charged, and anything else is still unknown, even when nothing shows
// the checkout yet: a server may apply it after the client gave up. Only
// the unknown verdict Is ErrOutcomeUnknown.
func TestOrderVerdictAfterAFailedCheckout(t *testing.T) {
	drop := func(w http.ResponseWriter) { resetConn(w) }
	for _, tc := range []struct {
		name      string
		checkout  func(w http.ResponseWriter, r *http.Request, apply func())
		set       func(s *orderServer)
		want      ChargeVerdict
		isUnknown bool
		late      bool // the server applies the checkout once Order returned
	}{
		{"applied then dropped", func(w http.ResponseWriter, r *http.Request, apply func()) { apply(); drop(w) }, nil, Charged, false, false},
		{"dropped before applied", func(w http.ResponseWriter, r *http.Request, apply func()) { drop(w) }, nil, ChargeUnknown, true, false},
		{"dropped, applied after Order returned", func(w http.ResponseWriter, r *http.Request, apply func()) { drop(w) }, nil, ChargeUnknown, true, true},
		{"502 after applying", func(w http.ResponseWriter, r *http.Request, apply func()) { apply(); writeJSON(w, 502, `{}`) }, nil, Charged, false, false},
		{"invoices down", func(w http.ResponseWriter, r *http.Request, apply func()) { apply(); drop(w) },
			func(s *orderServer) { s.failInvoices = true }, ChargeUnknown, true, false},
		{"cart down", func(w http.ResponseWriter, r *http.Request, apply func()) { apply(); drop(w) },
			func(s *orderServer) { s.failCart = true }, ChargeUnknown, true, false},
		{"503 before applying", func(w http.ResponseWriter, r *http.Request, apply func()) { writeJSON(w, 503, `{}`) }, nil, ChargeUnknown, true, false},
		{"invoice not listed yet", func(w http.ResponseWriter, r *http.Request, apply func()) { apply(); drop(w) },
			func(s *orderServer) { s.invoiceLag = true }, ChargeUnknown, true, false},
		{"a stranger's invoice", func(w http.ResponseWriter, r *http.Request, apply func()) { drop(w) },
			func(s *orderServer) { s.strangerInvoice = true }, ChargeUnknown, true, false},
		{"declined", func(w http.ResponseWriter, r *http.Request, apply func()) {
			writeJSON(w, 402, `{"message":"card declined"}`)
		}, nil, NotCharged, false, false},
		{"success false", func(w http.ResponseWriter, r *http.Request, apply func()) {
			writeJSON(w, 200, `{"success":false,"message":"item not in cart"}`)
		}, nil, NotCharged, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os := newOrderServer()
			var later func()
			os.checkout = func(w http.ResponseWriter, r *http.Request, apply func()) {
				later = apply
				tc.checkout(w, r, apply)
			}
			if tc.set != nil {
				tc.set(os)
			}
			srv := newAPIServer(t, os.handle)
			res, err := newTestClient(t, srv, WithMaxRetries(1)).Order(context.Background(), orderRequest())
			if tc.late {
				later()
			}
			var oe *CheckoutOutcomeError
			if !errors.As(err, &oe) || oe.Verdict != tc.want || errors.Is(err, ErrOutcomeUnknown) != tc.isUnknown {
				t.Fatalf("err = %v, want verdict %q (unknown %v)", err, tc.want, tc.isUnknown)
			}
			var ae *APIError
			if tc.want == NotCharged && (!errors.As(err, &ae) || ae.StatusCode != oe.Err.(*APIError).StatusCode) {
				t.Fatalf("a refusal does not unwrap to the API's answer: %v", err)
			}
			if os.checkouts != 1 || os.forms != 0 || res.Checkout != nil {
				t.Fatalf("%d checkouts, %d forms, checkout %+v", os.checkouts, os.forms, res.Checkout)
			}
			if tc.late && !os.applied {
				t.Fatal("the checkout was not applied late")
			}
			if strings.Contains(err.Error(), "secret-ssn") || strings.Contains(err.Error(), "4111") {
				t.Fatalf("the error shows the form or the card: %v", err)
			}
		})
	}
}

// simTimeout is an attempt timeout on the clock of simOrderAPI.
const simTimeout = 10

// simOrderAPI is the order API of orderServer in process, with a clock of
// its own: every request moves it on by a drawn step. Its checkout is
// answered as drawn; a lost one is applied at a drawn delay after the
// client gave up (a timeout gives up simTimeout after the request), or
// never; its invoice, its leaving the cart and its order item each show
// in the listings a drawn lag after it is applied. Nothing sleeps.
type simOrderAPI struct {
	os *orderServer
	mu sync.Mutex
	// drawn
	steps                        []int
	now                          int
	answer                       string // ok, 4xx, refused, never sent, drop, 5xx, timeout
	delay                        int    // after the client gave up; below 0, never applied
	invoiceLag, cartLag, itemLag int
	// what happened
	applyAt                           int // the checkout's time of effect; -1 for none
	items                             []string
	invoiced, leftCart, madeItem      bool // the parts the listings show so far
	arrived                           int  // checkouts that reached the server
	sawInvoice, sawGone, listingsFail bool // what the listings after the checkout showed
}

// simTimeoutError is the error of an attempt that timed out.
type simTimeoutError struct{}

func (simTimeoutError) Error() string   { return "attempt timed out" }
func (simTimeoutError) Timeout() bool   { return true }
func (simTimeoutError) Temporary() bool { return true }

func (s *simOrderAPI) RoundTrip(req *http.Request) (*http.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.steps) > 0 {
		s.now, s.steps = s.now+s.steps[0], s.steps[1:]
	}
	s.catchUp()
	if req.Method == http.MethodPost && req.URL.Path == "/shopping-cart/checkout" {
		return s.checkout(req)
	}
	rec := httptest.NewRecorder()
	s.os.handle(rec, req)
	if s.arrived > 0 && req.Method == http.MethodGet {
		switch req.URL.Path {
		case "/invoices":
			s.sawInvoice = s.sawInvoice || rec.Code == 200 && s.invoiced
			s.listingsFail = s.listingsFail || rec.Code != 200
		case "/shopping-cart":
			s.sawGone = s.sawGone || rec.Code == 200 && s.leftCart
			s.listingsFail = s.listingsFail || rec.Code != 200
		}
	}
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

func (s *simOrderAPI) checkout(req *http.Request) (*http.Response, error) {
	answer := func(status int, body string) (*http.Response, error) {
		rec := httptest.NewRecorder()
		writeJSON(rec, status, body)
		resp := rec.Result()
		resp.Request = req
		return resp, nil
	}
	if s.answer == "never sent" {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	}
	s.arrived++
	var body struct {
		ItemIDs []string `json:"item_ids"`
	}
	_ = json.Unmarshal(readBody(req), &body)
	s.items = body.ItemIDs
	s.os.mu.Lock()
	s.os.checkouts++
	if s.os.strangerInvoice {
		s.os.invoices = append(s.os.invoices, uuid.NewString())
	}
	s.os.mu.Unlock()
	switch s.answer {
	case "ok":
		s.applyAt = s.now
		s.catchUp()
		return answer(200, `{"success":true,"result":[],"invoice_ids":[]}`)
	case "4xx":
		return answer(422, `{"message":"card declined"}`)
	case "refused":
		return answer(200, `{"success":false,"message":"the item is not in the cart"}`)
	case "timeout":
		s.now += simTimeout
	}
	if s.delay >= 0 {
		s.applyAt = s.now + s.delay
	}
	s.catchUp()
	switch s.answer {
	case "drop":
		return nil, io.ErrUnexpectedEOF
	case "5xx":
		return answer(503, `{"message":"down"}`)
	}
	return nil, simTimeoutError{}
}

// catchUp makes the listings show what the checkout did by now.
func (s *simOrderAPI) catchUp() {
	if s.applyAt < 0 || s.now < s.applyAt {
		return
	}
	s.os.mu.Lock()
	defer s.os.mu.Unlock()
	s.os.applied = true
	if !s.invoiced && s.now >= s.applyAt+s.invoiceLag {
		s.invoiced = true
		s.os.invoices = append(s.os.invoices, uuid.NewString())
	}
	if !s.leftCart && s.now >= s.applyAt+s.cartLag {
		s.leftCart = true
		s.os.cart = slices.DeleteFunc(s.os.cart, func(it map[string]any) bool { return slices.Contains(s.items, fmt.Sprint(it["id"])) })
	}
	if !s.madeItem && s.now >= s.applyAt+s.itemLag {
		s.madeItem = true
		s.os.waiting = append(s.os.waiting, map[string]any{"id": uuid.New(), "company_id": wcCompany, "status": "requiring-client-attention",
			"name": "Standard Federal EIN - Tax Id filing", "product": map[string]any{"id": wcProduct}})
	}
}

// The family of the verdict: checkouts answered, refused, never sent,
// dropped, answered 5xx or timed out, a lost one applied at any delay
// after the client gave up (0 to 4 attempt timeouts) or never, with
// listings that lag, fail, or show a stranger's invoice, on an API in
// process with a clock of its own. Order never sends the checkout twice,
// and its verdict never contradicts what the server did by the end of the
// case: NotCharged only when the checkout is never applied, Charged only
// when it is; and the verdict is known whenever the answer or the
// listings could tell.
func TestOrderVerdictNeverContradictsTheServer(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		os := newOrderServer()
		s := &simOrderAPI{os: os, applyAt: -1,
			steps:  rapid.SliceOfN(rapid.IntRange(0, simTimeout), 40, 40).Draw(rt, "steps"),
			answer: rapid.SampledFrom([]string{"ok", "4xx", "refused", "never sent", "drop", "5xx", "timeout"}).Draw(rt, "answer"),
			delay:  rapid.IntRange(-1, 4*simTimeout).Draw(rt, "delay"),
		}
		s.invoiceLag = rapid.IntRange(0, 3*simTimeout).Draw(rt, "invoiceLag")
		s.cartLag = rapid.IntRange(0, 3*simTimeout).Draw(rt, "cartLag")
		s.itemLag = rapid.IntRange(0, 3*simTimeout).Draw(rt, "itemLag")
		os.failInvoices = rapid.IntRange(0, 4).Draw(rt, "failInvoices") == 0
		os.failCart = rapid.IntRange(0, 4).Draw(rt, "failCart") == 0
		os.strangerInvoice = rapid.IntRange(0, 4).Draw(rt, "strangerInvoice") == 0
		os.failInvoicesBefore = rapid.IntRange(0, 9).Draw(rt, "failInvoicesBefore") == 0
		os.addAnswer = rapid.SampledFrom([]string{"item", "cart", "none"}).Draw(rt, "addAnswer")
		r := orderRequest()
		if rapid.Bool().Draw(rt, "noForm") {
			r.FormData = nil
		}
		c, err := NewClient(testAccessKey, testSecretKey, WithBaseURL("http://order.test"), WithHTTPClient(&http.Client{Transport: s}),
			WithMaxRetries(1), WithRetryWait(0, 0))
		if err != nil {
			rt.Fatal(err)
		}
		res, err := c.Order(context.Background(), r)

		s.mu.Lock()
		defer s.mu.Unlock()
		willApply := s.applyAt >= 0 // by the end of the case
		if s.arrived > 1 {
			rt.Fatalf("%d checkouts reached the server", s.arrived)
		}
		if os.failInvoicesBefore {
			if s.arrived != 0 || errors.Is(err, ErrOutcomeUnknown) || errors.As(err, new(*CheckoutOutcomeError)) || res.Checkout != nil {
				rt.Fatalf("could not look before the checkout: %d checkouts, err %v", s.arrived, err)
			}
			return
		}
		if res.Checkout != nil || err == nil {
			if s.answer != "ok" || !willApply || res.Checkout == nil {
				rt.Fatalf("said charged (checkout %+v, err %v), the server answered %q and applied %v", res.Checkout, err, s.answer, willApply)
			}
			return
		}
		var oe *CheckoutOutcomeError
		if !errors.As(err, &oe) {
			rt.Fatalf("err = %v, want a *CheckoutOutcomeError", err)
		}
		if os.forms != 0 {
			rt.Fatalf("went on to the form after a failed checkout")
		}
		switch oe.Verdict {
		case NotCharged:
			if willApply {
				rt.Fatalf("verdict not charged, but the server applied the checkout (answer %q): %v", s.answer, err)
			}
		case Charged:
			if !willApply {
				rt.Fatalf("verdict charged, but the server never applied the checkout: %v", err)
			}
		case ChargeUnknown:
			if !errors.Is(err, ErrOutcomeUnknown) {
				rt.Fatalf("still unknown, but not ErrOutcomeUnknown: %v", err)
			}
		default:
			rt.Fatalf("verdict %q", oe.Verdict)
		}
		if oe.Verdict != ChargeUnknown && errors.Is(err, ErrOutcomeUnknown) {
			rt.Fatalf("a known verdict Is ErrOutcomeUnknown: %v", err)
		}
		proof := s.answer == "4xx" || s.answer == "refused" || s.answer == "never sent"
		if proof != (oe.Verdict == NotCharged) {
			rt.Fatalf("the answer %q, the verdict %q", s.answer, oe.Verdict)
		}
		if !proof && s.sawInvoice && s.sawGone && !s.listingsFail && oe.Verdict != Charged {
			rt.Fatalf("the listings showed the charge, the verdict is %q", oe.Verdict)
		}
	})
}

// Bad parameters are refused before anything is sent, the listings the
// finding calls make first included.
func TestOrderCallsRefuseBeforeListing(t *testing.T) {
	srv := newAPIServer(t, newOrderServer().handle)
	c := newTestClient(t, srv)
	ctx := context.Background()
	var nilCtx context.Context
	for _, tc := range []struct {
		field string
		call  func() error
	}{
		{"quantity", func() error {
			_, err := c.ShoppingCart.AddItem(ctx, &CartAddParams{CompanyID: wcCompany, ProductID: wcProduct, Quantity: -1})
			return err
		}},
		{"product_id", func() error { _, err := c.ShoppingCart.AddItem(ctx, &CartAddParams{CompanyID: wcCompany}); return err }},
		{"ctx", func() error {
			_, err := c.ShoppingCart.AddItem(nilCtx, &CartAddParams{CompanyID: wcCompany, ProductID: wcProduct})
			return err
		}},
		{"cvc", func() error {
			_, err := c.PaymentMethods.Store(ctx, &Card{Number: "4111111111111111", ExpMonth: 5, ExpYear: 2029, CVC: "1"})
			return err
		}},
		{"payment_token", func() error {
			_, err := c.ShoppingCart.CheckoutOrder(ctx, &CheckoutParams{ItemIDs: []uuid.UUID{wcItem}})
			return err
		}},
		{"item_ids", func() error {
			_, err := c.ShoppingCart.CheckoutOrder(ctx, &CheckoutParams{PaymentMethodID: wcCard})
			return err
		}},
		{"company_id", func() error {
			_, err := c.Order(ctx, &OrderRequest{Jurisdiction: "WY", Filing: "EIN", PaymentMethodID: wcCard})
			return err
		}},
		{"filing", func() error {
			_, err := c.Order(ctx, &OrderRequest{CompanyID: wcCompany, Jurisdiction: "WY", PaymentMethodID: wcCard})
			return err
		}},
		{"payment_token", func() error {
			_, err := c.Order(ctx, &OrderRequest{CompanyID: wcCompany, Jurisdiction: "WY", Filing: "EIN", PaymentMethodID: wcCard, Card: wcCardParams()})
			return err
		}},
		{"number", func() error {
			_, err := c.Order(ctx, &OrderRequest{CompanyID: wcCompany, Jurisdiction: "WY", Filing: "EIN", Card: &Card{CVC: "123"}})
			return err
		}},
		{"form_data", func() error {
			_, err := c.Order(ctx, &OrderRequest{CompanyID: wcCompany, Jurisdiction: "WY", Filing: "EIN", PaymentMethodID: wcCard, FormData: []int{1}})
			return err
		}},
		{"ctx", func() error { _, err := c.Order(nilCtx, orderRequest()); return err }},
	} {
		var ve *ValidationError
		if err := tc.call(); !errors.As(err, &ve) || ve.Field != tc.field {
			t.Errorf("%s: err = %v, want a *ValidationError for it", tc.field, err)
		}
	}
	if n := srv.count(); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// routesSent lists the "METHOD /path" of every request srv received.
func routesSent(srv *apiServer) []string {
	var out []string
	for _, r := range srv.requests() {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}

// A repeated order is refused before anything moves money while the
// company has an order item of the product that is not finished (waiting
// for its form, or new): ErrDuplicateOrder, naming the item, and nothing
// sent past the listing of order items. A finished item, another
// product's or another company's does not stop it; AllowDuplicate orders
// anyway.
func TestOrderRefusesADuplicate(t *testing.T) {
	item := func(id uuid.UUID, company uuid.UUID, product uuid.UUID, status string) map[string]any {
		return map[string]any{"id": id, "company_id": company, "status": status, "product": map[string]any{"id": product}}
	}
	wantSent := []string{"GET /filing-products/offerings", "GET /filing-methods", "GET /filing-methods/schemas", "GET /order-items/requiring-attention"}
	for _, status := range []string{"requiring-client-attention", "new"} {
		os := newOrderServer()
		waiting := uuid.New()
		os.waiting = []map[string]any{item(uuid.New(), wcCompany, uuid.New(), status), item(waiting, wcCompany, wcProduct, status)}
		os.listAll = true
		srv := newAPIServer(t, os.handle)
		res, err := newTestClient(t, srv).Order(context.Background(), orderRequest())
		var de *DuplicateOrderError
		if !errors.Is(err, ErrDuplicateOrder) || !errors.As(err, &de) || de.Item.ID != waiting || !strings.Contains(err.Error(), waiting.String()) {
			t.Fatalf("%s: err = %v, want a *DuplicateOrderError naming %s", status, err, waiting)
		}
		if got := routesSent(srv); !slices.Equal(got, wantSent) || res.CartItem != nil || res.Card != nil {
			t.Fatalf("%s: sent %q, want %q", status, got, wantSent)
		}
	}
	for name, waiting := range map[string]map[string]any{
		"finished":        item(uuid.New(), wcCompany, wcProduct, "completed"),
		"another product": item(uuid.New(), wcCompany, uuid.New(), "requiring-client-attention"),
		"another company": item(uuid.New(), uuid.New(), wcProduct, "requiring-client-attention"),
		"allowed":         item(uuid.New(), wcCompany, wcProduct, "requiring-client-attention"),
	} {
		os := newOrderServer()
		os.waiting = []map[string]any{waiting}
		os.listAll = true
		srv := newAPIServer(t, os.handle)
		r := orderRequest()
		r.AllowDuplicate = name == "allowed"
		res, err := newTestClient(t, srv).Order(context.Background(), r)
		if err != nil || res.Checkout == nil || os.checkouts != 1 || res.OrderItem == nil || res.OrderItem.ID == waiting["id"] {
			t.Fatalf("%s: err %v, %d checkouts, order item %+v", name, err, os.checkouts, res.OrderItem)
		}
	}
}

// einLikeSchema is a part of the fake's EIN schema: required fields, a
// pattern, an enumeration, a nested object and a $ref.
const einLikeSchema = `{"type":"object","required":["ssn","entity_type","responsible_party"],
	"properties":{"ssn":{"type":"string","pattern":"^[0-9]{3}-[0-9]{2}-[0-9]{4}$"},
		"entity_type":{"type":"string","enum":["llc","corporation"]},
		"responsible_party":{"$ref":"#/$defs/person"}},
	"$defs":{"person":{"type":"object","required":["first_name"],"properties":{"first_name":{"type":"string","minLength":1}}}}}`

// einLikeForm is a form einLikeSchema takes.
func einLikeForm() map[string]any {
	return map[string]any{"ssn": "123-45-6789", "entity_type": "llc", "responsible_party": map[string]any{"first_name": "Ada"}}
}

// The form is checked against the filing method's schema before the
// cart: a form it refuses is a *ValidationError naming the field and not
// its value, and nothing is sent past the schema read. A form it takes is
// ordered, SchemaChecked; when no schema can be read, the order goes on
// and the result says the form was not checked.
func TestOrderChecksTheFormBeforeTheCart(t *testing.T) {
	for _, tc := range []struct {
		field, secret string
		change        func(f map[string]any)
	}{
		{"form_data.ssn", "123456789", func(f map[string]any) { f["ssn"] = "123456789" }},
		{"form_data.entity_type", "partnership", func(f map[string]any) { f["entity_type"] = "partnership" }},
		{"form_data.entity_type", "", func(f map[string]any) { delete(f, "entity_type") }},
		{"form_data.responsible_party.first_name", "", func(f map[string]any) { f["responsible_party"] = map[string]any{"last_name": "Lovelace"} }},
		{"form_data.responsible_party", "", func(f map[string]any) { f["responsible_party"] = "Ada Lovelace" }},
	} {
		os := newOrderServer()
		os.schema = einLikeSchema
		srv := newAPIServer(t, os.handle)
		r := orderRequest()
		form := einLikeForm()
		tc.change(form)
		r.FormData = form
		res, err := newTestClient(t, srv).Order(context.Background(), r)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != tc.field || !errors.Is(err, ErrInvalidParams) || res.SchemaChecked {
			t.Fatalf("%s: err = %v, want a *ValidationError for it", tc.field, err)
		}
		if tc.secret != "" && strings.Contains(err.Error(), tc.secret) {
			t.Fatalf("%s: the error shows the value: %v", tc.field, err)
		}
		want := []string{"GET /filing-products/offerings", "GET /filing-methods", "GET /filing-methods/schemas"}
		if got := routesSent(srv); !slices.Equal(got, want) {
			t.Fatalf("%s: sent %q, want %q", tc.field, got, want)
		}
	}
	for _, schema := range []string{einLikeSchema, "", "[]"} {
		os := newOrderServer()
		os.schema = schema
		srv := newAPIServer(t, os.handle)
		if schema == "[]" {
			srv = newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/filing-methods/schemas" {
					writeJSON(w, 200, `{"success":true,"result":[]}`)
					return
				}
				os.handle(w, r)
			})
		}
		r := orderRequest()
		r.FormData = einLikeForm()
		res, err := newTestClient(t, srv).Order(context.Background(), r)
		checked := schema == einLikeSchema
		if err != nil || os.checkouts != 1 || os.forms != 1 || res.SchemaChecked != checked || (res.SchemaNote == "") == !checked {
			t.Fatalf("schema %.20q: err %v, %d checkouts, %d forms, checked %v (%s)", schema, err, os.checkouts, os.forms, res.SchemaChecked, res.SchemaNote)
		}
	}
}

// The form is sent to the one new waiting item, and only when given:
// with FormData and no new waiting item, Order says so (ErrNoMatch, the
// checkout done); without FormData it returns the new item still waiting
// and sends no form.
func TestOrderFormAndTheWaitingItem(t *testing.T) {
	os := newOrderServer()
	os.checkout = func(w http.ResponseWriter, r *http.Request, apply func()) {
		writeJSON(w, 200, `{"success":true,"result":[],"invoice_ids":[]}`) // charged, no order item made
	}
	res, err := newTestClient(t, newAPIServer(t, os.handle)).Order(context.Background(), orderRequest())
	if !errors.Is(err, ErrNoMatch) || res.Checkout == nil || os.forms != 0 {
		t.Fatalf("no waiting item, a form: err %v, checkout %+v, %d forms", err, res.Checkout, os.forms)
	}

	os = newOrderServer()
	r := orderRequest()
	r.FormData = nil
	res, err = newTestClient(t, newAPIServer(t, os.handle)).Order(context.Background(), r)
	if err != nil || res.OrderItem == nil || res.OrderItem.Status != OrderItemRequiringAttention || os.forms != 0 || res.SchemaChecked {
		t.Fatalf("a waiting item, no form: err %v, order item %+v, %d forms", err, res.OrderItem, os.forms)
	}
}

// orderSecrets are the values of secretOrder no text of the SDK may
// show, as an answer echoes them.
var orderSecrets = []string{"4111 1111 1111 1111", "cvc 9173", "123-45-6789", "1984-02-29", "Zelda Qwix"}

// secretOrder is an order whose card and form carry secrets.
func secretOrder() *OrderRequest {
	r := orderRequest()
	r.Card.CVC = "9173"
	r.FormData = map[string]any{"ssn": "123-45-6789", "dob": "1984-02-29", "name": "Zelda Qwix"}
	return r
}

// shownOf is every text an Order's failure shows: the error under each
// verb and as JSON, the *APIError's message and body, the result's note.
func shownOf(err error, res *OrderResult) string {
	j, _ := json.Marshal(err)
	texts := []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), string(j)}
	var ae *APIError
	if errors.As(err, &ae) {
		aj, _ := json.Marshal(ae)
		texts = append(texts, ae.Message, string(ae.Body), fmt.Sprintf("%+v", ae), string(aj))
	}
	if res != nil {
		texts = append(texts, res.SchemaNote)
	}
	return strings.Join(texts, "\n")
}

// A card number and CVC that the checkout's 500 echoes are redacted,
// though the checkout's request carried only the stored card's id: the
// card was sent in an earlier call of the order.
func TestOrderRedactsTheCardTheCheckoutEchoes(t *testing.T) {
	os := newOrderServer()
	os.checkout = func(w http.ResponseWriter, r *http.Request, apply func()) {
		writeJSON(w, 500, `{"message":"card 4111 1111 1111 1111 cvc 9173 failed"}`)
	}
	res, err := newTestClient(t, newAPIServer(t, os.handle), WithMaxRetries(0)).Order(context.Background(), secretOrder())
	var oe *CheckoutOutcomeError
	if !errors.As(err, &oe) || oe.Verdict != ChargeUnknown {
		t.Fatalf("err = %v, want a lost checkout", err)
	}
	s := shownOf(err, res)
	for _, v := range orderSecrets {
		if strings.Contains(s, v) {
			t.Fatalf("%q shown:\n%s", v, s)
		}
	}
	if !strings.Contains(err.Error(), "card [redacted] cvc [redacted] failed") {
		t.Fatalf("err = %v, want the message with the card redacted", err)
	}
}

// The generated family of the order's secrets: an answer of any step of
// an order (the first or second request of its route), a refusal, a 5xx
// or success false, echoes the card, the CVC and the form's values,
// grouped as a server may write them, in its message and its field
// errors. No error of Order, under any verb or as JSON, no note of its
// result, no hook and no log line shows any of them.
func TestOrderSecretsNeverShowGenerated(t *testing.T) {
	routes := []string{"GET /filing-products/offerings", "GET /filing-methods", "GET /filing-methods/schemas",
		"GET /order-items/requiring-attention", "GET /payment-methods", "POST /payment-methods", "GET /shopping-cart",
		"POST /shopping-cart", "GET /invoices", "POST /shopping-cart/checkout", "POST /order-items/requiring-attention"}
	rapid.Check(t, func(rt *rapid.T) {
		route := rapid.SampledFrom(routes).Draw(rt, "route")
		nth := rapid.IntRange(1, 2).Draw(rt, "nth")
		status := rapid.SampledFrom([]int{400, 402, 422, 500, 502, 200}).Draw(rt, "status")
		sep := rapid.SampledFrom([]string{"", " ", "-", "."}).Draw(rt, "sep")
		card := strings.Join([]string{"4111", "1111", "1111", "1111"}, sep)
		ssn := rapid.SampledFrom([]string{"123-45-6789", "123456789", "123 45 6789"}).Draw(rt, "ssn")
		echo := fmt.Sprintf("card %s cvc 9173 ssn %s born 1984-02-29 name Zelda Qwix", card, ssn)
		os := newOrderServer()
		os.schema = `{"type":"object"}`
		var mu sync.Mutex
		seen := 0
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			if r.Method+" "+r.URL.Path == route {
				seen++
			}
			hit := seen == nth && r.Method+" "+r.URL.Path == route
			mu.Unlock()
			if !hit {
				os.handle(w, r)
				return
			}
			b, _ := json.Marshal(map[string]any{"success": false, "message": echo, "errors": map[string]string{"form_data.ssn": echo}})
			writeJSON(w, status, string(b))
		})
		defer srv.Close()
		var logs bytes.Buffer
		var hooks []string
		c := newTestClient(t, srv, WithMaxRetries(0), WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug,
			ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			}}))),
			WithHooks(Hooks{
				CallEnd:    func(ctx context.Context, c CallInfo) { hooks = append(hooks, fmt.Sprint(c.Err)) },
				AttemptEnd: func(ctx context.Context, a AttemptInfo) { hooks = append(hooks, fmt.Sprint(a.Err)) },
			}))
		defer c.CloseIdleConnections()
		res, err := c.Order(context.Background(), secretOrder())
		if err == nil && res.SchemaNote == "" {
			rt.Skip("the drawn step was not reached") // a second request of a route made once
		}
		var s string
		if err != nil {
			s = shownOf(err, res)
		}
		s += "\n" + res.SchemaNote + "\n" + strings.Join(hooks, "\n") + "\n" + logs.String()
		for _, v := range []string{card, "cvc 9173", ssn, "1984-02-29", "Zelda Qwix"} {
			if strings.Contains(s, v) {
				rt.Fatalf("%q shown:\n%s", v, s)
			}
		}
	})
}

// The cost of an order on a well-behaved server that answers a card
// write with {status_code, success} and an add with the item: each
// request, in order, and no other.
func TestOrderCost(t *testing.T) {
	os := newOrderServer()
	os.schema = einLikeSchema
	srv := newAPIServer(t, os.handle)
	r := orderRequest()
	r.FormData = einLikeForm()
	res, err := newTestClient(t, srv).Order(context.Background(), r)
	if err != nil || !res.SchemaChecked || res.OrderItem == nil {
		t.Fatalf("err %v, result %+v", err, res)
	}
	want := []string{"GET /filing-products/offerings", "GET /filing-methods", "GET /filing-methods/schemas",
		"GET /order-items/requiring-attention", "GET /payment-methods", "POST /payment-methods", "GET /payment-methods",
		"GET /shopping-cart", "POST /shopping-cart", "GET /invoices", "GET /shopping-cart", "POST /shopping-cart/checkout",
		"GET /order-items/requiring-attention", "POST /order-items/requiring-attention"}
	if got := routesSent(srv); !slices.Equal(got, want) {
		t.Fatalf("sent %d requests:\n%q\nwant %d:\n%q", len(got), got, len(want), want)
	}
}

// An OrderRequest prints, marshals and logs its form's values and its
// card redacted, under every verb, in slices and maps and behind
// pointers, as the params that carry a form do.
func TestOrderRequestFormatsRedacted(t *testing.T) {
	r := &OrderRequest{CompanyID: wcCompany, Jurisdiction: "WY", Filing: "EIN", Method: "Standard",
		Card:     &Card{Number: "4111 1111 1111 1111", ExpMonth: 5, ExpYear: 2029, CVC: "123"},
		FormData: map[string]any{"ssn": "123-45-6789", "owner": map[string]any{"name": "Zelda Qwix", "dob": "1984-02-29"}, "ein_trucking": false}}
	needles := []string{"123-45-6789", "Zelda Qwix", "1984-02-29", "4111 1111"}
	for _, v := range []any{r, *r, []*OrderRequest{r}, map[string]OrderRequest{"o": *r}} {
		var texts []string
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
			texts = append(texts, fmt.Sprintf(verb, v))
		}
		var logs bytes.Buffer
		for _, h := range []slog.Handler{slog.NewTextHandler(&logs, nil), slog.NewJSONHandler(&logs, nil)} {
			slog.New(h).Info("order", "r", v)
		}
		b, err := json.Marshal(v)
		texts = append(texts, logs.String(), string(b))
		for _, text := range texts {
			for _, n := range needles {
				if strings.Contains(text, n) {
					t.Errorf("%T shows %q: %s", v, n, text)
				}
			}
		}
		if s := fmt.Sprintf("%+v", v); !strings.Contains(s, "ssn:[redacted]") || !strings.Contains(s, "Jurisdiction:WY") {
			t.Errorf("%%+v of %T = %s, want the form's keys with its values redacted", v, s)
		}
		if err != nil || !strings.Contains(string(b), `"ssn":"[redacted]"`) || !strings.Contains(string(b), `"Number":"[redacted]"`) {
			t.Errorf("json of %T = %s, %v: want the form's keys and the card with their values redacted", v, b, err)
		}
	}
	if s := fmt.Sprintf("%#v", *r); !strings.HasPrefix(s, "acctadmin.OrderRequest{") {
		t.Errorf("%%#v = %s", s)
	}
}
