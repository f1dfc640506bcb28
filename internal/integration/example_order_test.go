package acctadmin_test

import (
	"context"
	"fmt"
	"log"

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

// Ordering a filing: the federal EIN ("tax id") filing for a company, from
// the offerings to the form its order item waits for, as the provider's
// end-to-end example does it. Checkout, the card and the form are sent at
// most once each.
func ExampleShoppingCartClient_Checkout() {
	srv := acctadmintest.NewServer(acctadmintest.WithDemoData())
	defer srv.Close()
	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	ctx, co, form := context.Background(), acctadmintest.DemoID("company", 3), einForm()
	card := &acctadmin.Card{Number: "4242424242424242", ExpMonth: 5, ExpYear: 2029, CVC: "123"}

	product := must(c.FilingProducts.Offerings(ctx, &acctadmin.OfferingParams{CompanyID: co, Jurisdiction: "WY"}))[0]
	method := must(c.FilingMethods.List(ctx, &acctadmin.FilingMethodListParams{CompanyID: co, Jurisdiction: "WY", FilingProductID: product.ID}))[0]
	must(c.ShoppingCart.Add(ctx, &acctadmin.CartAddParams{CompanyID: co, ProductID: product.ID, ProductOptionID: method.ID}))
	must(c.PaymentMethods.Create(ctx, card))
	pm := must(c.PaymentMethods.List(ctx))[0]
	item := must(c.ShoppingCart.List(ctx, &acctadmin.CartListParams{CompanyIDs: []uuid.UUID{co}}))[0]
	order := must(c.ShoppingCart.Checkout(ctx, &acctadmin.CheckoutParams{ItemIDs: []uuid.UUID{item.ID}, PaymentMethodID: pm.ID}))
	invoice := must(c.Invoices.Get(ctx, order.InvoiceIDs[0]))
	schema := must(c.FilingMethods.Schemas(ctx, &acctadmin.FormSchemaParams{CompanyID: co, FilingMethodID: method.ID}))[0]
	waiting := must(c.OrderItems.ListRequiringAttention(ctx, &acctadmin.OrderItemListParams{CompanyIDs: []uuid.UUID{co}}))[0]
	done := must(c.OrderItems.SubmitFormData(ctx, &acctadmin.OrderItemFormDataParams{CompanyID: co, OrderItemID: waiting.ID, FormData: form}))

	fmt.Println(product.FilingName, "/", method.Name, "/", item.Title)
	fmt.Println("invoice", invoice.Status, invoice.Total(), "- form", schema.Name, "- card", card.Number)
	fmt.Println(waiting.Name+":", waiting.Status, "->", done.Status)
	// Output:
	// tax id / Standard / Tax id filing service - Standard
	// invoice paid 79.00 - form form_data - card [redacted]
	// Standard Federal EIN - Tax Id filing: requiring-client-attention -> new
}
