package acctadmin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

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

// A filing is found by what it files, its synonyms, whatever the case
// and punctuation; no fit and two fits are errors, never a guess.
func TestFindFilingByWhatItFiles(t *testing.T) {
	catalog := demoLikeCatalog()
	for _, tc := range []struct {
		what, want string
		err        error
	}{
		{"EIN", "Tax id filing service", nil},
		{"ein", "Tax id filing service", nil},
		{"Tax-ID", "Tax id filing service", nil},
		{"employer identification number", "Tax id filing service", nil},
		{"annual report", "Annual Report", nil},
		{"Articles of Organization", "Articles of Organization", nil},
		{"formation", "Articles of Organization", nil},
		{"certificate of existence", "Certificate of Good Standing", nil},
		{"amendment", "Amendment", nil},
		{"dissolution", "", ErrNoMatch},
		{"franchise tax", "", ErrNoMatch},
		{"", "", ErrInvalidParams},
	} {
		p, err := matchFiling(catalog, tc.what)
		switch {
		case tc.err != nil && !errors.Is(err, tc.err):
			t.Errorf("%q: err = %v, want %v", tc.what, err, tc.err)
		case tc.err == nil && (err != nil || p.Name != tc.want):
			t.Errorf("%q: got %+v, %v; want %q", tc.what, p, err, tc.want)
		}
	}
	two := append(catalog, FilingProduct{ID: uuid.New(), Name: "EIN Express", FilingName: "tax id"})
	if _, err := matchFiling(two, "EIN"); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("two EIN products: err = %v, want ErrAmbiguous", err)
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
		result(slices.DeleteFunc(slices.Clone(s.waiting), func(it map[string]any) bool { return it["status"] != "requiring-client-attention" }))
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
			res, err := newTestClient(t, srv).Order(context.Background(), orderRequest())
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

// AddItem returns the item added whatever the answer holds, and refuses
// to guess between two new items of the product; Store finds the card the
// status answer does not hold, beside an older card of the same digits.
func TestAddItemAndStoreFindWhatTheyMade(t *testing.T) {
	ctx := context.Background()
	os := newOrderServer()
	srv := newAPIServer(t, os.handle)
	c := newTestClient(t, srv)
	p := &CartAddParams{CompanyID: wcCompany, ProductID: wcProduct, ProductOptionID: wcMethod}
	for _, add := range []string{"item", "cart", "none"} {
		os.addAnswer = add
		n := srv.count()
		it, err := c.ShoppingCart.AddItem(ctx, p)
		if err != nil || it == nil || it.ID.String() != fmt.Sprint(os.cart[len(os.cart)-1]["id"]) {
			t.Fatalf("%s: got %+v, %v; want the last item", add, it, err)
		}
		if want := map[string]int{"item": 2, "cart": 2, "none": 3}[add]; srv.count()-n != want {
			t.Errorf("%s: %d requests, want %d", add, srv.count()-n, want)
		}
	}
	twice := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			os.mu.Lock()
			os.cart = append(os.cart, map[string]any{"id": uuid.New(), "company_id": wcCompany, "product_id": wcProduct, "product_option_id": wcMethod})
			os.mu.Unlock()
		}
		os.handle(w, r)
	})
	os.addAnswer = "none"
	if it, err := newTestClient(t, twice).ShoppingCart.AddItem(ctx, p); !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("two new items: got %+v, %v; want ErrAmbiguous", it, err)
	}

	card := &Card{Number: "4111111111111111", ExpMonth: 5, ExpYear: 2029, CVC: "123"}
	os.cards = append(os.cards, map[string]any{"id": uuid.New(), "last4": "1111", "exp_month": 5, "exp_year": 2029})
	for _, reply := range []string{"status", "card"} {
		os.cardReply = reply
		pm, err := c.PaymentMethods.Store(ctx, card)
		if err != nil || pm == nil || pm.ID.String() != fmt.Sprint(os.cards[len(os.cards)-1]["id"]) {
			t.Fatalf("%s: got %+v, %v; want the new card", reply, pm, err)
		}
	}
}

// A checkout whose outcome is unknown is sent once, and Order tells
// whether it charged: a new invoice with the item gone is charged, no
// invoice with the item in the cart is not, anything else (and a failed
// listing) is still unknown, and only that Is ErrOutcomeUnknown.
func TestOrderVerdictAfterALostCheckout(t *testing.T) {
	drop := func(w http.ResponseWriter) { resetConn(w) }
	for _, tc := range []struct {
		name      string
		checkout  func(w http.ResponseWriter, r *http.Request, apply func())
		set       func(s *orderServer)
		want      ChargeVerdict
		isUnknown bool
	}{
		{"applied then dropped", func(w http.ResponseWriter, r *http.Request, apply func()) { apply(); drop(w) }, nil, Charged, false},
		{"dropped before applied", func(w http.ResponseWriter, r *http.Request, apply func()) { drop(w) }, nil, NotCharged, false},
		{"502 after applying", func(w http.ResponseWriter, r *http.Request, apply func()) { apply(); writeJSON(w, 502, `{}`) }, nil, Charged, false},
		{"invoices down", func(w http.ResponseWriter, r *http.Request, apply func()) { apply(); drop(w) },
			func(s *orderServer) { s.failInvoices = true }, ChargeUnknown, true},
		{"cart down", func(w http.ResponseWriter, r *http.Request, apply func()) { apply(); drop(w) },
			func(s *orderServer) { s.failCart = true }, ChargeUnknown, true},
		{"503 before applying", func(w http.ResponseWriter, r *http.Request, apply func()) { writeJSON(w, 503, `{}`) }, nil, NotCharged, false},
		{"invoice not listed yet", func(w http.ResponseWriter, r *http.Request, apply func()) { apply(); drop(w) },
			func(s *orderServer) { s.invoiceLag = true }, ChargeUnknown, true},
		{"a stranger's invoice", func(w http.ResponseWriter, r *http.Request, apply func()) { drop(w) },
			func(s *orderServer) { s.strangerInvoice = true }, ChargeUnknown, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os := newOrderServer()
			os.checkout = tc.checkout
			if tc.set != nil {
				tc.set(os)
			}
			srv := newAPIServer(t, os.handle)
			res, err := newTestClient(t, srv, WithMaxRetries(1)).Order(context.Background(), orderRequest())
			var oe *CheckoutOutcomeError
			if !errors.As(err, &oe) || oe.Verdict != tc.want || errors.Is(err, ErrOutcomeUnknown) != tc.isUnknown {
				t.Fatalf("err = %v, want verdict %q (unknown %v)", err, tc.want, tc.isUnknown)
			}
			if os.checkouts != 1 || os.forms != 0 || res.Checkout != nil {
				t.Fatalf("%d checkouts, %d forms, checkout %+v", os.checkouts, os.forms, res.Checkout)
			}
			if strings.Contains(err.Error(), "secret-ssn") || strings.Contains(err.Error(), "4111") {
				t.Fatalf("the error shows the form or the card: %v", err)
			}
		})
	}
}

// The family: checkouts applied or not and then answered, dropped, 4xx,
// 5xx or timed out, with the listings after it failing, the invoice
// lagging, a stranger's invoice appearing, and the invoice listing before
// it failing (then no checkout is sent). Order never sends the checkout
// twice, and its verdict is never wrong: Charged only when the server
// applied it, NotCharged only when it did not, and a known verdict
// whenever the listings could tell.
func TestOrderNeverChargesTwiceAndTellsTheTruth(t *testing.T) {
	if !flagGiven("rapid.checks") {
		t.Cleanup(setFlag(t, "rapid.checks", "60"))
	}
	rapid.Check(t, func(rt *rapid.T) {
		os := newOrderServer()
		apply := rapid.Bool().Draw(rt, "apply")
		// A timeout costs an attempt timeout: keep them to a few.
		answer := rapid.SampledFrom([]string{"ok", "drop", "drop", "4xx", "5xx", "5xx", "timeout"}).Draw(rt, "answer")
		if answer == "4xx" || answer == "ok" {
			apply = answer == "ok"
		}
		status := rapid.SampledFrom([]int{500, 502, 503, 504}).Draw(rt, "status")
		os.failInvoices = rapid.IntRange(0, 4).Draw(rt, "failInvoices") == 0
		os.failCart = rapid.IntRange(0, 4).Draw(rt, "failCart") == 0
		os.invoiceLag = rapid.IntRange(0, 4).Draw(rt, "invoiceLag") == 0
		os.strangerInvoice = rapid.IntRange(0, 4).Draw(rt, "strangerInvoice") == 0
		os.addAnswer = rapid.SampledFrom([]string{"item", "cart", "none"}).Draw(rt, "addAnswer")
		os.failInvoicesBefore = rapid.IntRange(0, 9).Draw(rt, "failInvoicesBefore") == 0
		os.checkout = func(w http.ResponseWriter, r *http.Request, doApply func()) {
			if apply {
				doApply()
			}
			switch answer {
			case "ok":
				writeJSON(w, 200, `{"success":true,"result":[]}`)
			case "drop":
				resetConn(w)
			case "4xx":
				writeJSON(w, 422, `{"message":"card declined"}`)
			case "5xx":
				writeJSON(w, status, `{"message":"down"}`)
			case "timeout":
				<-r.Context().Done()
			}
		}
		srv := newAPIServer(t, os.handle)
		defer srv.Close()
		timeout := 30 * time.Second // no listing may time out on a loaded machine
		if answer == "timeout" {
			timeout = 500 * time.Millisecond
		}
		c := newTestClient(t, srv, WithMaxRetries(1), WithTimeout(timeout))
		defer c.CloseIdleConnections()
		res, err := c.Order(context.Background(), orderRequest())
		os.mu.Lock()
		defer os.mu.Unlock()
		if os.failInvoicesBefore {
			if os.checkouts != 0 || errors.Is(err, ErrOutcomeUnknown) || res.Checkout != nil {
				rt.Fatalf("could not look before the checkout: %d checkouts, err %v", os.checkouts, err)
			}
			return
		}
		if os.checkouts != 1 {
			rt.Fatalf("%d checkouts sent, want 1", os.checkouts)
		}
		var oe *CheckoutOutcomeError
		isOE := errors.As(err, &oe)
		switch answer {
		case "ok":
			if err != nil || res.Checkout == nil || os.forms != 1 {
				rt.Fatalf("a good checkout: err %v, checkout %+v, %d forms", err, res.Checkout, os.forms)
			}
			return
		case "4xx":
			if isOE || errors.Is(err, ErrOutcomeUnknown) || res.Checkout != nil || os.forms != 0 {
				rt.Fatalf("a refused checkout: err %v", err)
			}
			return
		}
		if !isOE {
			rt.Fatalf("err = %v, want a *CheckoutOutcomeError", err)
		}
		if os.forms != 0 || res.Checkout != nil {
			rt.Fatalf("went on after a lost checkout: %d forms", os.forms)
		}
		switch oe.Verdict {
		case Charged:
			if !os.applied {
				rt.Fatalf("verdict charged, but the server did not apply the checkout: %v", err)
			}
		case NotCharged:
			if os.applied {
				rt.Fatalf("verdict not charged, but the server applied the checkout: %v", err)
			}
		case ChargeUnknown:
			if !errors.Is(err, ErrOutcomeUnknown) {
				rt.Fatalf("still unknown, but not ErrOutcomeUnknown: %v", err)
			}
			if !os.failInvoices && !os.failCart && !os.invoiceLag && !os.strangerInvoice {
				rt.Fatalf("the listings could tell, the verdict did not: %v", err)
			}
		default:
			rt.Fatalf("verdict %q", oe.Verdict)
		}
		if oe.Verdict != ChargeUnknown && errors.Is(err, ErrOutcomeUnknown) {
			rt.Fatalf("a known verdict Is ErrOutcomeUnknown: %v", err)
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
