package acctadmin

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// Bad parameters of the routes beyond the first spec are refused before
// anything is sent, by a *ValidationError naming the field as the API
// spells it; none of them shows a secret.
func TestNewRoutesRefuseBadParams(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, `{"success":true,"result":null}`) })
	c := newTestClient(t, srv)
	ctx := context.Background()
	ids := func(us ...uuid.UUID) []uuid.UUID { return us }
	badCard := func(mod func(*Card)) *Card { card := wcCardParams(); mod(card); return card }
	cases := []struct {
		name, field string
		call        func() error
	}{
		{"login without email", "email", func() error { _, err := c.Auth.Login(ctx, &LoginParams{Password: wcPassword}); return err }},
		{"login without password", "password", func() error { _, err := c.Auth.Login(ctx, &LoginParams{Email: "u@example.com"}); return err }},
		{"forgot without address", "email_address", func() error { return c.Auth.ForgotPassword(ctx, nil) }},
		{"reset without token", "token", func() error { return c.Auth.ResetPassword(ctx, &ResetPasswordParams{Password: wcPassword}) }},
		{"reset without password", "password", func() error { return c.Auth.ResetPassword(ctx, &ResetPasswordParams{Token: wcResetToken}) }},
		{"reset confirmation differs", "password_confirmation", func() error {
			return c.Auth.ResetPassword(ctx, &ResetPasswordParams{Token: wcResetToken, Password: wcPassword, PasswordConfirmation: wcPassword + "x"})
		}},
		{"company nil id", "id", func() error { _, err := c.Companies.Get(ctx, uuid.Nil); return err }},
		{"page url nil id", "id", func() error { _, err := c.Documents.PageURL(ctx, uuid.Nil, 0); return err }},
		{"page url negative page", "page_number", func() error { _, err := c.Documents.PageURL(ctx, wcDocument, -1); return err }},
		{"bulk download no ids", "ids", func() error { _, err := c.Documents.BulkDownload(ctx); return err }},
		{"bulk download nil id", "ids", func() error { _, err := c.Documents.BulkDownload(ctx, wcDocument, uuid.Nil); return err }},
		{"service info nil id", "id", func() error { _, err := c.Services.Info(ctx, uuid.Nil); return err }},
		{"add info nil info", "info", func() error { _, err := c.Services.AddInfo(ctx, wcService, nil); return err }},
		{"offerings without company", "company_id", func() error {
			_, err := c.FilingProducts.Offerings(ctx, &OfferingParams{Jurisdiction: "UT"})
			return err
		}},
		{"offerings without jurisdiction", "jurisdiction", func() error {
			_, err := c.FilingProducts.Offerings(ctx, &OfferingParams{CompanyID: wcCompany})
			return err
		}},
		{"methods without product", "filing_product_id", func() error {
			_, err := c.FilingMethods.List(ctx, &FilingMethodListParams{CompanyID: wcCompany, Jurisdiction: "UT"})
			return err
		}},
		{"schemas without method", "filing_method_id", func() error {
			_, err := c.FilingMethods.Schemas(ctx, &FormSchemaParams{CompanyID: wcCompany})
			return err
		}},
		{"simple products without url", "url", func() error { _, err := c.SimpleProducts.List(ctx, nil); return err }},
		{"signed forms without method", "filing_method_id", func() error { _, err := c.SignedForms.List(ctx, nil); return err }},
		{"cart list nil company", "company_ids", func() error {
			_, err := c.ShoppingCart.List(ctx, &CartListParams{CompanyIDs: ids(uuid.Nil)})
			return err
		}},
		{"cart add without product", "product_id", func() error {
			_, err := c.ShoppingCart.Add(ctx, &CartAddParams{CompanyID: wcCompany})
			return err
		}},
		{"cart add negative quantity", "quantity", func() error {
			_, err := c.ShoppingCart.Add(ctx, &CartAddParams{CompanyID: wcCompany, ProductID: wcProduct, Quantity: -1})
			return err
		}},
		{"cart add form data not an object", "form_data", func() error {
			_, err := c.ShoppingCart.Add(ctx, &CartAddParams{CompanyID: wcCompany, ProductID: wcProduct, FormData: []string{"x"}})
			return err
		}},
		{"cart remove nothing", "item_ids", func() error { return c.ShoppingCart.Remove(ctx, nil) }},
		{"checkout without card", "payment_token", func() error {
			_, err := c.ShoppingCart.Checkout(ctx, &CheckoutParams{ItemIDs: ids(wcItem)})
			return err
		}},
		{"checkout without items", "item_ids", func() error {
			_, err := c.ShoppingCart.Checkout(ctx, &CheckoutParams{PaymentMethodID: wcCard})
			return err
		}},
		{"card without number", "number", func() error {
			_, err := c.PaymentMethods.Create(ctx, badCard(func(k *Card) { k.Number = "" }))
			return err
		}},
		{"card number not digits", "number", func() error {
			_, err := c.PaymentMethods.Create(ctx, badCard(func(k *Card) { k.Number = "4242-4242-4242-4242" }))
			return err
		}},
		{"card month 13", "exp_month", func() error {
			_, err := c.PaymentMethods.Create(ctx, badCard(func(k *Card) { k.ExpMonth = 13 }))
			return err
		}},
		{"card year 29", "exp_year", func() error {
			_, err := c.PaymentMethods.Create(ctx, badCard(func(k *Card) { k.ExpYear = 29 }))
			return err
		}},
		{"card cvc short", "cvc", func() error {
			_, err := c.PaymentMethods.Update(ctx, wcCard, badCard(func(k *Card) { k.CVC = "12" }))
			return err
		}},
		{"card update nil id", "id", func() error { _, err := c.PaymentMethods.Update(ctx, uuid.Nil, wcCardParams()); return err }},
		{"card delete nil id", "id", func() error { return c.PaymentMethods.Delete(ctx, uuid.Nil) }},
		{"invoice nil id", "id", func() error { _, err := c.Invoices.Get(ctx, uuid.Nil); return err }},
		{"pay without invoices", "invoice_ids", func() error {
			_, err := c.Invoices.Pay(ctx, &InvoicePayParams{PaymentMethodID: wcCard})
			return err
		}},
		{"pay without card", "payment_token", func() error {
			_, err := c.Invoices.Pay(ctx, &InvoicePayParams{InvoiceIDs: ids(wcInvoice)})
			return err
		}},
		{"order items nil company", "company_ids", func() error {
			_, err := c.OrderItems.ListRequiringAttention(ctx, &OrderItemListParams{CompanyIDs: ids(uuid.Nil)})
			return err
		}},
		{"form data missing", "form_data", func() error {
			_, err := c.OrderItems.SubmitFormData(ctx, &OrderItemFormDataParams{CompanyID: wcCompany, OrderItemID: wcOrder})
			return err
		}},
		{"form data without item", "order_item_id", func() error {
			_, err := c.OrderItems.SubmitFormData(ctx, &OrderItemFormDataParams{CompanyID: wcCompany, FormData: map[string]any{}})
			return err
		}},
	}
	for _, tc := range cases {
		err := tc.call()
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
