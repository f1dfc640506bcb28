package acctadmintest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// TestEINCheckoutAsTheProviderExampleRunsIt follows section 5 of the
// provider's examples: offerings, methods, cart, card, checkout, invoice,
// schema, order item requiring attention, form data; with the demo
// account and the configuration the README gives.
func TestEINCheckoutAsTheProviderExampleRunsIt(t *testing.T) {
	srv := newDemo(t, acctadmintest.WithDeliveryRetry(1, 0))
	company := acctadmintest.DemoID("company", 1).String()
	hook := newReceiver(t)
	require.Equal(t, http.StatusOK, do(t, srv, http.MethodPost, "/callbacks", map[string]string{"url": hook.URL}).Status)

	r := do(t, srv, http.MethodGet, "/filing-products/offerings?company_id="+company+"&jurisdiction=UT", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	product := pick(t, r.Items(t), map[string]any{"filing_name": "tax id"})["id"].(string)
	require.Equal(t, acctadmintest.DemoEINProductID.String(), product)

	r = do(t, srv, http.MethodGet, "/filing-methods?company_id="+company+"&jurisdiction=UT&filing_product_id="+product, nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	method := pick(t, r.Items(t), map[string]any{"name": "Standard", "type": "online"})["id"].(string)

	r = do(t, srv, http.MethodPost, "/shopping-cart", map[string]any{"company_id": company, "product_id": product, "product_option_id": method, "quantity": 1})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, true, r.JSON(t)["success"])

	r = do(t, srv, http.MethodPost, "/payment-methods", card("5555555555554444", "05", "2029"))
	requireCardWritten(t, r) // success and status_code, as the examples read them
	require.NotContains(t, string(r.Body), "5555555555554444")

	r = do(t, srv, http.MethodGet, "/payment-methods", nil)
	pm := pick(t, r.Items(t), map[string]any{"last4": "4444", "exp_month": float64(5), "exp_year": float64(2029)})
	require.Equal(t, "mastercard", pm["brand"])

	r = do(t, srv, http.MethodGet, "/shopping-cart?company_ids[]="+company, nil)
	item := pick(t, r.Items(t), map[string]any{"product_id": product, "product_option_id": method, "company_id": company,
		"title": "Tax id filing service - Standard", "status": "active"})

	r = do(t, srv, http.MethodPost, "/shopping-cart/checkout", map[string]any{"item_ids": []any{item["id"]}, "payment_token": pm["id"]})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var env struct {
		InvoiceIDs []string `json:"invoice_ids"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &env))
	require.Len(t, env.InvoiceIDs, 1)

	r = do(t, srv, http.MethodGet, "/invoices/"+env.InvoiceIDs[0], nil)
	require.Equal(t, http.StatusOK, r.Status)
	var inv struct {
		Status string `json:"status"`
		Items  []struct {
			Price       float64 `json:"price"`
			Description string  `json:"description"`
		} `json:"items"`
	}
	r.Result(t, &inv)
	require.Equal(t, "paid", inv.Status)
	require.Equal(t, "Tax id filing service - Standard", inv.Items[0].Description)
	require.InDelta(t, 79.00, inv.Items[0].Price, 0.001)

	r = do(t, srv, http.MethodGet, "/filing-methods/schemas?company_id="+company+"&filing_method_id="+method, nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Len(t, r.Items(t), 1)

	r = do(t, srv, http.MethodGet, "/order-items/requiring-attention?company_ids[]="+company, nil)
	items := r.Items(t)
	require.Len(t, items, 2, "the demo's waiting item and the new one")
	order := items[len(items)-1]
	require.Equal(t, "Standard Federal EIN - Tax Id filing", order["name"])
	require.Equal(t, "requiring-client-attention", order["status"])

	r = do(t, srv, http.MethodPost, "/order-items/requiring-attention", `{"company_id":"`+company+`","order_item_id":"`+order["id"].(string)+`","form_data":`+einFormData+`}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var done map[string]any
	r.Result(t, &done)
	require.Equal(t, "new", done["status"])

	r = do(t, srv, http.MethodGet, "/order-items/requiring-attention?company_ids[]="+company, nil)
	require.Len(t, r.Items(t), 1, "only the demo's item is left waiting")
	for _, it := range do(t, srv, http.MethodGet, "/shopping-cart?company_ids[]="+company, nil).Items(t) {
		require.NotEqual(t, item["id"], it["id"], "checkout took the item out of the cart")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	all, err := srv.WaitDeliveries(ctx, 1)
	require.NoError(t, err)
	var ev []acctadmintest.Delivery
	for _, d := range all {
		if d.Event == "new-invoice" {
			ev = append(ev, d)
		}
	}
	require.Len(t, ev, 1)
	require.Equal(t, env.InvoiceIDs[0], ev[0].Claims["invoice_id"])
}

// TestCheckoutOfEmptyCart: a checkout that selects no cart item is a 400
// naming item_ids, and makes no invoice, order item or write; whether
// the company never had items or its cart was just checked out.
func TestCheckoutOfEmptyCart(t *testing.T) {
	srv := newDemo(t)
	pay := acctadmintest.DemoID("payment-method", 1).String()
	empty := acctadmintest.DemoID("company", 2).String()
	acme := acctadmintest.DemoID("company", 1).String()
	refused := func() {
		t.Helper()
		invoices, orders, writes := len(srv.Invoices()), len(srv.OrderItems()), len(srv.Writes())
		for _, co := range []string{empty, acme} {
			r := do(t, srv, http.MethodPost, "/shopping-cart/checkout", map[string]any{"company_ids": []string{co}, "payment_token": pay})
			requireError(t, r, http.StatusBadRequest, "selects no item")
			require.Equal(t, []string{"item_ids"}, errorFields(t, r))
		}
		require.Len(t, srv.Invoices(), invoices, "no invoice made")
		require.Len(t, srv.OrderItems(), orders, "no order item made")
		require.Len(t, srv.Writes(), writes, "nothing written")
	}
	r := do(t, srv, http.MethodPost, "/shopping-cart/checkout", map[string]any{"company_ids": []string{empty}, "payment_token": pay})
	requireError(t, r, http.StatusBadRequest, "selects no item")

	r = do(t, srv, http.MethodPost, "/shopping-cart/checkout", map[string]any{"company_ids": []string{acme}, "payment_token": pay})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Len(t, r.Items(t), 1)
	require.Empty(t, do(t, srv, http.MethodGet, "/shopping-cart", nil).Items(t))
	refused()
}

// TestDeclinedCard: the documented test card is stored, and declined when
// charged: 402, and nothing changes.
func TestDeclinedCard(t *testing.T) {
	srv := newDemo(t)
	token := storeCard(t, srv, card(acctadmintest.DeclinedCardNumber, "12", "2031"))["id"]
	cart := acctadmintest.DemoID("cart-item", 1).String()
	invoicesBefore := len(srv.Invoices())

	r := do(t, srv, http.MethodPost, "/shopping-cart/checkout", map[string]any{"item_ids": []string{cart}, "payment_token": token})
	requireError(t, r, http.StatusPaymentRequired, "declined")
	require.Len(t, srv.Invoices(), invoicesBefore)
	require.Len(t, do(t, srv, http.MethodGet, "/shopping-cart", nil).Items(t), 1, "the cart is untouched")

	unpaid := acctadmintest.DemoID("invoice", 4).String()
	r = do(t, srv, http.MethodPost, "/invoices/pay", map[string]any{"invoice_ids": []string{unpaid}, "payment_token": token})
	requireError(t, r, http.StatusPaymentRequired, "declined")
	inv, _ := srv.Invoice(acctadmintest.DemoID("invoice", 4))
	require.Equal(t, acctadmintest.InvoiceUnpaid, inv.Status)

	r = do(t, srv, http.MethodPost, "/invoices/pay", map[string]any{"invoice_ids": []string{unpaid}, "payment_token": acctadmintest.DemoID("payment-method", 1)})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	inv, _ = srv.Invoice(acctadmintest.DemoID("invoice", 4))
	require.Equal(t, acctadmintest.InvoicePaid, inv.Status)
	r = do(t, srv, http.MethodPost, "/invoices/pay", map[string]any{"invoice_ids": []string{unpaid}, "payment_token": acctadmintest.DemoID("payment-method", 1)})
	requireFieldError(t, r, "invoice_ids")
}

// TestDeclinedCardHoweverWritten: the declined test card is declined
// however its number is spaced, as a card form may send it; written with
// dashes, which the API does not take, it is refused and never stored. A
// good card spaced so is stored, with the last four digits, and charges.
func TestDeclinedCardHoweverWritten(t *testing.T) {
	srv := newDemo(t)
	cart := acctadmintest.DemoID("cart-item", 1).String()
	for _, number := range []string{
		"4000 0000 0000 0002",
		" 4000000000000002 ",
		"4000  0000  0000  0002",
		"40 00 00 00 00 00 00 02",
	} {
		requireDeclined(t, srv, number, cart)
	}
	for _, number := range []string{"4000-0000-0000-0002", "4000 - 0000 - 0000 - 0002", "4000\t0000\t0000\t0002"} {
		stored := len(srv.PaymentMethods())
		r := do(t, srv, http.MethodPost, "/payment-methods", card(number, "12", "2031"))
		require.Equal(t, http.StatusBadRequest, r.Status, "%q: %s", number, r.Body)
		require.Equal(t, []string{"number"}, errorFields(t, r), "%q", number)
		require.Len(t, srv.PaymentMethods(), stored, "%q", number)
	}

	stored := storeCard(t, srv, card("4111 1111 1111 1111", "12", "2031"))
	require.Equal(t, "1111", stored["last4"])
	r := do(t, srv, http.MethodPost, "/shopping-cart/checkout", map[string]any{"item_ids": []string{cart}, "payment_token": stored["id"]})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Len(t, r.Items(t), 1, "one invoice")
}

// TestDeclinedCardSpacedAnyWay proves on generated spacings of the
// declined test card (any spaces the API's 23 characters leave room for,
// anywhere) that every one is declined.
func TestDeclinedCardSpacedAnyWay(t *testing.T) {
	srv := newDemo(t)
	cart := acctadmintest.DemoID("cart-item", 1).String()
	rapid.Check(t, func(rt *rapid.T) {
		number := acctadmintest.DeclinedCardNumber
		for i, n := 0, rapid.IntRange(1, 23-len(number)).Draw(rt, "spaces"); i < n; i++ {
			at := rapid.IntRange(0, len(number)).Draw(rt, "at")
			number = number[:at] + " " + number[at:]
		}
		requireDeclined(t, srv, number, cart)
	})
}
