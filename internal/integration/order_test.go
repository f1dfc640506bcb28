package acctadmin_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/google/uuid"
)

// FilingProducts.Find on the demo catalogue: a filing is found by what
// it files, in the jurisdictions where it is offered.
func TestFindOnTheDemoCatalogue(t *testing.T) {
	_, c := fakeClient(t)
	ctx := context.Background()
	for _, tc := range []struct {
		company      int
		jurisdiction string
		what, want   string
		err          error
	}{
		{3, "WY", "EIN", "Tax id filing service", nil},
		{3, "Wyoming", "tax id", "Tax id filing service", nil},
		{1, "UT", "Employer Identification Number", "Tax id filing service", nil},
		{3, "WY", "annual report", "Annual Report", nil},
		{3, "WY", "Articles of Organization", "Articles of Organization", nil},
		{4, "TX", "formation", "Articles of Organization", nil},
		{1, "UT", "certificate of existence", "Certificate of Good Standing", nil},
		{3, "WY", "good standing", "", acctadmin.ErrNoMatch}, // not offered in Wyoming
		{1, "UT", "amendment", "Amendment", nil},
		{1, "UT", "dissolution", "", acctadmin.ErrNoMatch},
	} {
		p, err := c.FilingProducts.Find(ctx, &acctadmin.OfferingParams{CompanyID: acctadmintest.DemoID("company", tc.company), Jurisdiction: tc.jurisdiction}, tc.what)
		switch {
		case tc.err != nil && !errors.Is(err, tc.err):
			t.Errorf("%s in %s: err = %v, want %v", tc.what, tc.jurisdiction, err, tc.err)
		case tc.err == nil && (err != nil || p.Name != tc.want):
			t.Errorf("%s in %s: got %+v, %v; want %q", tc.what, tc.jurisdiction, p, err, tc.want)
		}
	}
}

// Client.Order on the fake, for the demo company that already has an
// EIN order item waiting, ordered anyway (AllowDuplicate): the form is
// checked against the fake's schema first, the new item gets the form, the older one is
// left waiting, the card is found by listing the cards before and after
// storing it (the fake's answer does not hold it, as the real server's
// does not), and the checkout is sent once.
func TestOrderOnTheFake(t *testing.T) {
	srv, c := fakeClient(t)
	ctx := context.Background()
	acme := acctadmintest.DemoID("company", 1)
	res, err := c.Order(ctx, &acctadmin.OrderRequest{CompanyID: acme, Jurisdiction: "UT", Filing: "EIN", Method: "Standard",
		Card: &acctadmin.Card{Number: "4242424242424242", ExpMonth: 5, ExpYear: 2029, CVC: "123"}, FormData: einForm(), AllowDuplicate: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Product.ID != acctadmintest.DemoEINProductID || res.Method.ID != acctadmintest.DemoEINMethodID || res.Card.Last4 != "4242" || res.Card.ExpYear != 2029 {
		t.Fatalf("product %s, method %s, card %+v", res.Product.Name, res.Method.Name, res.Card)
	}
	old := acctadmintest.DemoID("order-item", 1)
	// The fake writes order items' times as epoch seconds, as the real API.
	if !res.SchemaChecked {
		t.Fatalf("the form was not checked: %s", res.SchemaNote)
	}
	if res.OrderItem == nil || res.OrderItem.ID == old || res.OrderItem.Status != acctadmin.OrderItemNew || len(res.Checkout.InvoiceIDs) != 1 ||
		res.OrderItem.CreatedAt.IsZero() || res.OrderItem.CreatedAt.Location() != time.UTC {
		t.Fatalf("order item %+v, checkout %+v", res.OrderItem, res.Checkout)
	}
	waiting, err := c.OrderItems.ListRequiringAttention(ctx, &acctadmin.OrderItemListParams{CompanyID: acme})
	if err != nil || len(waiting) != 1 || waiting[0].ID != old {
		t.Fatalf("waiting %+v, %v; want the older item alone", waiting, err)
	}
	if n := srv.RequestCount("POST", "/shopping-cart/checkout"); n != 1 {
		t.Fatalf("%d checkouts", n)
	}
	if lists, posts := srv.RequestCount("GET", "/payment-methods"), srv.RequestCount("POST", "/payment-methods"); lists != 2 || posts != 1 {
		t.Fatalf("%d listings of the cards and %d cards stored; want 2 and 1", lists, posts)
	}
}

// Faults on the fake's checkout: applied and then dropped or answered
// 503, or dropped or answered 503 before applying. The checkout is sent
// once; Order says charged when the invoices and the cart show it, and
// still unknown otherwise (a lost checkout may yet take effect), as the
// fake's own records confirm.
func TestOrderVerdictOnTheFake(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault acctadmintest.Fault
		want  acctadmin.ChargeVerdict
	}{
		{"applied, dropped", acctadmintest.Fault{DropConnection: true, AfterApply: true}, acctadmin.Charged},
		{"applied, 503", acctadmintest.Fault{Status: 503, AfterApply: true}, acctadmin.Charged},
		{"dropped", acctadmintest.Fault{DropConnection: true}, acctadmin.ChargeUnknown},
		{"503", acctadmintest.Fault{Status: 503}, acctadmin.ChargeUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, c := fakeClient(t)
			co := acctadmintest.DemoID("company", 3)
			ft := tc.fault
			ft.Method, ft.Path, ft.Count = "POST", "/shopping-cart/checkout", 1
			srv.InjectFault(ft)
			res, err := c.Order(context.Background(), &acctadmin.OrderRequest{CompanyID: co, Jurisdiction: "WY", Filing: "EIN", Method: "Standard",
				PaymentMethodID: acctadmintest.DemoID("payment-method", 1), FormData: einForm()})
			var lost *acctadmin.CheckoutOutcomeError
			if !errors.As(err, &lost) || lost.Verdict != tc.want || errors.Is(err, acctadmin.ErrOutcomeUnknown) != (tc.want == acctadmin.ChargeUnknown) {
				t.Fatalf("err = %v, want the verdict %q", err, tc.want)
			}
			if n := srv.RequestCount("POST", "/shopping-cart/checkout"); n != 1 {
				t.Fatalf("%d checkouts", n)
			}
			if strings.Contains(err.Error(), "123-45-6789") {
				t.Fatalf("the error shows the form: %v", err)
			}
			cart, err := c.ShoppingCart.List(context.Background(), &acctadmin.CartListParams{CompanyIDs: []uuid.UUID{co}})
			if err != nil {
				t.Fatal(err)
			}
			inCart := false
			for _, it := range cart {
				inCart = inCart || it.ID == res.CartItem.ID
			}
			if inCart != (tc.want == acctadmin.ChargeUnknown) || (len(lost.InvoiceIDs) == 1) != (tc.want == acctadmin.Charged) {
				t.Fatalf("in the cart %v, invoices %v, verdict %s", inCart, lost.InvoiceIDs, lost.Verdict)
			}
		})
	}
}

// A listing that fails before the checkout stops the order there: the
// checkout is never sent, and the error is no unknown outcome.
func TestOrderStopsBeforeCheckoutWhenItCannotLook(t *testing.T) {
	srv, c := fakeClient(t)
	srv.InjectFault(acctadmintest.Fault{Method: "GET", Path: "/invoices", Status: 500})
	res, err := c.Order(context.Background(), &acctadmin.OrderRequest{CompanyID: acctadmintest.DemoID("company", 3), Jurisdiction: "WY",
		ProductID: acctadmintest.DemoEINProductID, FilingMethodID: acctadmintest.DemoEINMethodID, PaymentMethodID: acctadmintest.DemoID("payment-method", 1)})
	var ae *acctadmin.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 500 || errors.Is(err, acctadmin.ErrOutcomeUnknown) || res.Checkout != nil {
		t.Fatalf("err = %v, checkout %+v", err, res.Checkout)
	}
	if n := srv.RequestCount("POST", "/shopping-cart/checkout"); n != 0 || res.CartItem == nil || res.CartItem.ID == uuid.Nil {
		t.Fatalf("%d checkouts, cart item %+v", n, res.CartItem)
	}
}

// PaymentMethods.Store on the fake, which answers the card's POST as the
// real server does ({status_code, success}, without the card): Store
// finds the card by listing, and sends exactly a listing, the POST and a
// listing. The card returned is the one the fake stored, beside the
// demo's card that has the same last four digits and another expiry.
func TestStoreFindsTheCardByListingOnTheFake(t *testing.T) {
	srv, c := fakeClient(t)
	ctx := context.Background()
	demo, err := c.PaymentMethods.List(ctx)
	if err != nil || len(demo) == 0 {
		t.Fatalf("the demo's cards: %+v, %v", demo, err)
	}
	srv.ResetRequests()
	pm, err := c.PaymentMethods.Store(ctx, &acctadmin.Card{Number: "4242 4242 4242 4242", ExpMonth: 7, ExpYear: 2031, CVC: "123",
		FirstName: "Ada", LastName: "Lovelace"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range srv.Requests() {
		got = append(got, fmt.Sprintf("%s %s %d", r.Method, r.Route, r.Status))
	}
	want := []string{"GET /payment-methods 200", "POST /payment-methods 200", "GET /payment-methods 200"}
	if !slices.Equal(got, want) {
		t.Fatalf("requests %q, want %q", got, want)
	}
	stored := srv.PaymentMethods()
	if len(stored) != len(demo)+1 {
		t.Fatalf("%d cards stored, want %d", len(stored), len(demo)+1)
	}
	var fake acctadmintest.PaymentMethod
	for _, m := range stored {
		if !slices.ContainsFunc(demo, func(d acctadmin.PaymentMethod) bool { return d.ID == m.ID }) {
			fake = m
		}
	}
	if pm.ID != fake.ID || pm.ID == uuid.Nil || pm.Last4 != "4242" || pm.ExpMonth != 7 || pm.ExpYear != 2031 || pm.Brand != "visa" || pm.FirstName != "Ada" {
		t.Fatalf("Store = %+v, want the card the fake stored, %+v", pm, fake)
	}

	// Create, Update and Delete return no card: the answers hold none.
	srv.ResetRequests()
	card := &acctadmin.Card{Number: "5555555555554444", ExpMonth: 3, ExpYear: 2032, CVC: "321"}
	if made, err := c.PaymentMethods.Create(ctx, card); made != nil || err != nil {
		t.Fatalf("Create = %+v, %v; want nil, nil", made, err)
	}
	card.ExpYear = 2033
	if changed, err := c.PaymentMethods.Update(ctx, pm.ID, card); changed != nil || err != nil {
		t.Fatalf("Update = %+v, %v; want nil, nil", changed, err)
	}
	if err := c.PaymentMethods.Delete(ctx, pm.ID); err != nil {
		t.Fatal(err)
	}
	for _, m := range srv.PaymentMethods() {
		if m.ID == pm.ID {
			t.Fatal("the deleted card is still stored")
		}
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("%d requests, want 3", n)
	}
}

// On the fake, for the demo company whose EIN order item still waits for
// its form: a second EIN order is refused before anything moves money,
// naming the waiting item; a form with an SSN of the wrong shape is
// refused by the schema before the cart. Neither sends a write.
func TestOrderRefusedBeforeMoneyOnTheFake(t *testing.T) {
	srv, c := fakeClient(t)
	acme := acctadmintest.DemoID("company", 1)
	card := &acctadmin.Card{Number: "4242424242424242", ExpMonth: 5, ExpYear: 2029, CVC: "123"}
	_, err := c.Order(context.Background(), &acctadmin.OrderRequest{CompanyID: acme, Jurisdiction: "UT", Filing: "EIN", Method: "Standard",
		Card: card, FormData: einForm()})
	var de *acctadmin.DuplicateOrderError
	if !errors.Is(err, acctadmin.ErrDuplicateOrder) || !errors.As(err, &de) || de.Item.ID != acctadmintest.DemoID("order-item", 1) {
		t.Fatalf("a repeated order: err = %v, want a *DuplicateOrderError naming the waiting item", err)
	}
	form := einForm()
	form["ssn"] = "123 45 6789"
	res, err := c.Order(context.Background(), &acctadmin.OrderRequest{CompanyID: acme, Jurisdiction: "UT", Filing: "EIN", Method: "Standard",
		Card: card, FormData: form, AllowDuplicate: true})
	var ve *acctadmin.ValidationError
	if !errors.As(err, &ve) || ve.Field != "form_data.ssn" || strings.Contains(err.Error(), "123 45 6789") || res.SchemaChecked {
		t.Fatalf("an SSN of the wrong shape: err = %v, want a *ValidationError for form_data.ssn", err)
	}
	for route, n := range srv.RequestCounts() {
		if !strings.HasPrefix(route, "GET ") {
			t.Errorf("%d requests %s", n, route)
		}
	}
}
