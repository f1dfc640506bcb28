package acctadmin_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"slices"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/google/uuid"
)

// einForm is the EIN filing's form, after the provider's
// data/form_data_ein_tax_id.json.
func einForm() map[string]any {
	address := map[string]any{"line1": "100 Main Street", "city": "Salt Lake City", "zip_postal_code": "84101",
		"state_province_region": "UT", "country": "US"}
	return map[string]any{
		"ssn": "123-45-6789", "start_date": "01/15/2024", "fiscal_year_end": "12",
		"entity_type": "Limited Liability Company", "principal_activity": "Widget manufacturing",
		"responsible_party":       map[string]any{"first_name": "Ada", "last_name": "Lovelace"},
		"company_mailing_address": address, "company_principal_address": address,
	}
}

// Ordering a filing in one call: the federal EIN ("tax id") filing for a
// company, from the offerings to the form its order item waits for. The
// checkout is sent once; if its answer is lost, Order finds out whether
// the card was charged.
func ExampleClient_Order() {
	srv := acctadmintest.NewServer(acctadmintest.WithDemoData())
	defer srv.Close()
	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	ctx, co := context.Background(), acctadmintest.DemoID("company", 3)
	card := &acctadmin.Card{Number: "4242424242424242", ExpMonth: 5, ExpYear: 2029, CVC: "123"}

	einFormData := einForm()

	// card is an *acctadmin.Card, einFormData the form's fields as a
	// map[string]any: examples/order-filing/main.go has both, whole.
	res, err := c.Order(ctx, &acctadmin.OrderRequest{
		CompanyID: co, Jurisdiction: "WY", Filing: "EIN", Method: "Standard",
		Card: card, FormData: einFormData,
	})
	var lost *acctadmin.CheckoutOutcomeError
	if errors.As(err, &lost) {
		log.Fatalf("the checkout failed; the card was %s", lost.Verdict)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Product.Name, "/", res.Method.Name, "/", res.CartItem.Title)
	fmt.Println("card", res.Card.Last4, "- invoices", len(res.Checkout.InvoiceIDs), "- printed", card.Number)
	fmt.Println(res.OrderItem.Name+":", res.OrderItem.Status)
	// Output:
	// Tax id filing service / Standard / Tax id filing service - Standard
	// card 4242 - invoices 1 - printed [redacted]
	// Standard Federal EIN - Tax Id filing: new
}

// Ordering a filing step by step, as the provider's end-to-end example
// does it, with the calls that return what they made: the product found
// by what it files, the added cart item, the stored card, the order item
// the checkout made. Checkout, the card and the form are sent at most
// once each.
func ExampleShoppingCartClient_CheckoutOrder() {
	srv := acctadmintest.NewServer(acctadmintest.WithDemoData())
	defer srv.Close()
	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	ctx, co, form := context.Background(), acctadmintest.DemoID("company", 3), einForm()
	card := &acctadmin.Card{Number: "4242424242424242", ExpMonth: 5, ExpYear: 2029, CVC: "123"}

	product := must(c.FilingProducts.Find(ctx, &acctadmin.OfferingParams{CompanyID: co, Jurisdiction: "WY"}, "EIN"))
	methods := must(c.FilingMethods.List(ctx, &acctadmin.FilingMethodListParams{CompanyID: co, Jurisdiction: "WY", FilingProductID: product.ID}))
	method := methods[slices.IndexFunc(methods, func(m acctadmin.FilingMethod) bool { return m.Name == "Standard" })]
	item := must(c.ShoppingCart.AddItem(ctx, &acctadmin.CartAddParams{CompanyID: co, ProductID: product.ID, ProductOptionID: method.ID}))
	pm := must(c.PaymentMethods.Store(ctx, card))
	order := must(c.ShoppingCart.CheckoutOrder(ctx, &acctadmin.CheckoutParams{ItemIDs: []uuid.UUID{item.ID}, PaymentMethodID: pm.ID}))
	invoice := must(c.Invoices.Get(ctx, order.InvoiceIDs[0]))
	schema := must(c.FilingMethods.Schemas(ctx, &acctadmin.FormSchemaParams{CompanyID: co, FilingMethodID: method.ID}))[0]
	waiting := order.OrderItems[0] // the one order item this checkout made
	done := must(c.OrderItems.SubmitFormData(ctx, &acctadmin.OrderItemFormDataParams{CompanyID: co, OrderItemID: waiting.ID, FormData: form}))

	fmt.Println(product.FilingName, "/", method.Name, "/", item.Title, "/", len(order.OrderItems), "order item")
	fmt.Println("invoice", invoice.Status, invoice.Total(), "- form", schema.Name, "- card", card.Number)
	fmt.Println(waiting.Name+":", waiting.Status, "->", done.Status)
	// Output:
	// tax id / Standard / Tax id filing service - Standard / 1 order item
	// invoice paid 79.00 - form form_data - card [redacted]
	// Standard Federal EIN - Tax Id filing: requiring-client-attention -> new
}
