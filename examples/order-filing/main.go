// Command order-filing orders a federal EIN ("tax id") filing for a
// company, end to end, with one call (Client.Order): the product found by
// what it files, its filing method, the card, the cart, the checkout, and
// the form the new order item waits for.
//
// It moves money, so it runs only on the built-in fake API, with demo
// data, inside the process:
//
//	go run ./examples/order-filing
//
// Every call that moves money is sent at most once; when the checkout's
// answer is lost, Order finds out whether the card was charged and the
// program says so, rather than trying again.
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

// run orders the EIN filing for the company co in one call, and prints
// what each step found.
func run(ctx context.Context, out io.Writer, c *acctadmin.Client, co uuid.UUID) error {
	card := &acctadmin.Card{Number: "4242424242424242", ExpMonth: 5, ExpYear: 2029, CVC: "123",
		FirstName: "Ada", LastName: "Lovelace",
		BillingAddress: acctadmin.BillingAddress{Address1: "100 Main Street", City: "Salt Lake City", State: "UT", Zip: "84101", Country: "US"}}
	res, err := c.Order(ctx, &acctadmin.OrderRequest{
		CompanyID: co, Jurisdiction: "WY", Filing: "EIN", Method: "Standard",
		Card: card, FormData: einFormData,
	})
	var lost *acctadmin.CheckoutOutcomeError
	if errors.As(err, &lost) {
		return fmt.Errorf("the checkout failed; the card was %s: %w", lost.Verdict, err)
	}
	var apiErr *acctadmin.APIError
	if errors.As(err, &apiErr) && len(apiErr.Fields) > 0 {
		return fmt.Errorf("refused: %s %s: %w", apiErr.Fields[0].Field, apiErr.Fields[0].Message, err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "1. product:       %s, %s\n", res.Product.Name, res.Product.Price)
	fmt.Fprintf(out, "2. method:        %s (%s), agency %s\n", res.Method.Name, res.Method.Type, res.Method.AgencyName)
	fmt.Fprintf(out, "3. card:          %s ending %s, %02d/%d (printed: %v)\n", res.Card.Brand, res.Card.Last4, res.Card.ExpMonth, res.Card.ExpYear, card.Number)
	fmt.Fprintf(out, "4. cart item:     %s, %s\n", res.CartItem.Title, res.CartItem.Total)
	fmt.Fprintf(out, "5. invoices:      %d\n", len(res.Checkout.InvoiceIDs))
	fmt.Fprintf(out, "6. order item:    %s, %s\n", res.OrderItem.Name, res.OrderItem.Status)
	return nil
}
