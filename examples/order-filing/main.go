// Command order-filing orders a federal EIN ("tax id") filing for a
// company, end to end, the way the provider's own example clients do:
// offerings, filing method, cart, payment method, checkout, invoice, form
// schema, the order item that waits for its form, and the form data.
//
// It moves money, so it runs only on the built-in fake API, with demo
// data, inside the process:
//
//	go run ./examples/order-filing
//
// Every call that moves money is sent at most once; when one fails with
// acctadmin.ErrOutcomeUnknown the program stops and says which listing
// shows whether it happened, rather than trying again.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/google/uuid"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	fake := acctadmintest.NewServer(acctadmintest.WithDemoData())
	defer fake.Close()
	c, err := acctadmin.NewClient(fake.AccessKey, fake.SecretKey, acctadmin.WithBaseURL(fake.URL))
	if err == nil {
		fmt.Printf("Ordering on the built-in fake API at %s\n\n", fake.URL)
		err = run(ctx, os.Stdout, c, acctadmintest.DemoID("company", 3))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "order-filing:", err)
		if errors.Is(err, acctadmin.ErrOutcomeUnknown) {
			fmt.Fprintln(os.Stderr, "order-filing: the call may have taken effect; check before ordering again")
		}
		os.Exit(1)
	}
}

// einFormData is the EIN filing's form, after the provider's
// data/form_data_ein_tax_id.json.
var einFormData = map[string]any{
	"ssn": "123-45-6789", "start_date": "01/15/2024", "fiscal_year_end": "12",
	"entity_type": "Limited Liability Company", "number_of_members": "1",
	"principal_activity": "Widget manufacturing", "ein_other_employees": "0",
	"ein_agricultural_employees": "0", "ein_first_date_wages_paid": "02/01/2024",
	"ein_trucking": false, "ein_excise_tax": false, "ein_sell_tobacco": false,
	"ein_has_employees": false, "ein_involves_gambling": false, "ein_employee_tax_liability_1000": false,
	"responsible_party": map[string]any{"first_name": "Ada", "last_name": "Lovelace", "phone_number": "8015550100"},
	"company_mailing_address": map[string]any{"line1": "100 Main Street", "city": "Salt Lake City", "county": "Salt Lake",
		"zip_postal_code": "84101", "state_province_region": "UT", "country": "US"},
	"company_principal_address": map[string]any{"line1": "100 Main Street", "city": "Salt Lake City", "county": "Salt Lake",
		"zip_postal_code": "84101", "state_province_region": "UT", "country": "US"},
}

// run orders the EIN filing for the company co, printing each step.
func run(ctx context.Context, out io.Writer, c *acctadmin.Client, co uuid.UUID) error {
	// 1. The filing products offered to the company, and the EIN among them.
	products, err := c.FilingProducts.Offerings(ctx, &acctadmin.OfferingParams{CompanyID: co, Jurisdiction: "WY"})
	if err != nil {
		return err
	}
	product, ok := find(products, func(p acctadmin.FilingProduct) bool { return p.FilingName == "tax id" })
	if !ok {
		return errors.New("no tax id filing is offered")
	}
	fmt.Fprintf(out, "1. product:       %s, %s\n", product.Name, product.Price)

	// 2. Its standard online filing method.
	methods, err := c.FilingMethods.List(ctx, &acctadmin.FilingMethodListParams{CompanyID: co, Jurisdiction: "WY", FilingProductID: product.ID})
	if err != nil {
		return err
	}
	method, ok := find(methods, func(m acctadmin.FilingMethod) bool {
		return m.Name == "Standard" && m.Type == acctadmin.FilingMethodOnline
	})
	if !ok {
		return errors.New("no standard online filing method")
	}
	fmt.Fprintf(out, "2. method:        %s (%s), agency %s\n", method.Name, method.Type, method.AgencyName)

	// 3. Into the cart.
	if _, err := c.ShoppingCart.Add(ctx, &acctadmin.CartAddParams{CompanyID: co, ProductID: product.ID, ProductOptionID: method.ID, Quantity: 1}); err != nil {
		return err
	}

	// 4, 5. A card to pay with, found again in the listing by its last
	// four digits and expiry: the API does not promise to answer with it.
	card := &acctadmin.Card{Number: "4242424242424242", ExpMonth: 5, ExpYear: 2029, CVC: "123",
		FirstName: "Ada", LastName: "Lovelace",
		BillingAddress: acctadmin.BillingAddress{Address1: "100 Main Street", City: "Salt Lake City", State: "UT", Zip: "84101", Country: "US"}}
	if _, err := c.PaymentMethods.Create(ctx, card); err != nil {
		return err
	}
	cards, err := c.PaymentMethods.List(ctx)
	if err != nil {
		return err
	}
	pm, ok := find(cards, func(m acctadmin.PaymentMethod) bool { return m.Last4 == "4242" && m.ExpMonth == 5 && m.ExpYear == 2029 })
	if !ok {
		return errors.New("the card is not listed")
	}
	fmt.Fprintf(out, "3. card:          %s ending %s, %02d/%d (printed: %v)\n", pm.Brand, pm.Last4, pm.ExpMonth, pm.ExpYear, card.Number)

	// 6. The cart item.
	items, err := c.ShoppingCart.List(ctx, &acctadmin.CartListParams{CompanyIDs: []uuid.UUID{co}})
	if err != nil {
		return err
	}
	item, ok := find(items, func(it acctadmin.CartItem) bool { return it.ProductID == product.ID && it.ProductOptionID == method.ID })
	if !ok {
		return errors.New("the filing is not in the cart")
	}
	fmt.Fprintf(out, "4. cart item:     %s, %s\n", item.Title, item.Total)

	// 7. Checkout: sent once; an unknown outcome stops here.
	checkout, err := c.ShoppingCart.Checkout(ctx, &acctadmin.CheckoutParams{ItemIDs: []uuid.UUID{item.ID}, PaymentMethodID: pm.ID})
	if err != nil {
		return err
	}
	if len(checkout.InvoiceIDs) == 0 {
		return errors.New("checkout made no invoice")
	}

	// 8. The invoice.
	inv, err := c.Invoices.Get(ctx, checkout.InvoiceIDs[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "5. invoice:       %s, total %s\n", inv.Status, inv.Total())

	// 9. The form the filing needs.
	schemas, err := c.FilingMethods.Schemas(ctx, &acctadmin.FormSchemaParams{CompanyID: co, FilingMethodID: method.ID})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "6. form schemas:  %d\n", len(schemas))

	// 10. The order item waiting for it.
	waiting, err := c.OrderItems.ListRequiringAttention(ctx, &acctadmin.OrderItemListParams{CompanyIDs: []uuid.UUID{co}})
	if err != nil {
		return err
	}
	oi, ok := find(waiting, func(it acctadmin.OrderItem) bool {
		return it.Name == "Standard Federal EIN - Tax Id filing" && it.CompanyID == co
	})
	if !ok {
		return errors.New("no order item waits for the form")
	}
	fmt.Fprintf(out, "7. order item:    %s, %s\n", oi.Name, oi.Status)

	// 11. The form data; a refused field is named in APIError.Fields.
	done, err := c.OrderItems.SubmitFormData(ctx, &acctadmin.OrderItemFormDataParams{CompanyID: co, OrderItemID: oi.ID, FormData: einFormData})
	var apiErr *acctadmin.APIError
	if errors.As(err, &apiErr) && len(apiErr.Fields) > 0 {
		return fmt.Errorf("form refused: %s %s: %w", apiErr.Fields[0].Field, apiErr.Fields[0].Message, err)
	}
	if err != nil {
		return err
	}
	if done == nil {
		return errors.New("the answer holds no order item")
	}
	fmt.Fprintf(out, "8. order item:    %s\n", done.Status)
	return nil
}

// find returns the first element of list that ok accepts.
func find[T any](list []T, ok func(T) bool) (T, bool) {
	for _, v := range list {
		if ok(v) {
			return v, true
		}
	}
	var zero T
	return zero, false
}
