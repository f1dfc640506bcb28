package acctadmin_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/google/uuid"
)

// fakeWithContract starts the fake with demo data and fails the test on
// any answer of the fake that breaks its OpenAPI document.
func fakeWithContract(t *testing.T) (*acctadmintest.Server, *acctadmin.Client) {
	t.Helper()
	srv := acctadmintest.NewServer(acctadmintest.WithDemoData(), acctadmintest.WithStrictSigning(), acctadmintest.WithContractChecks(func(err error) { t.Error(err) }))
	t.Cleanup(srv.Close)
	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL),
		acctadmin.WithRetryWait(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return srv, c
}

// The account and authentication routes on the fake: the account, its
// summary, logging in and refreshing, and a password reset.
func TestIntegrationAccountAndAuth(t *testing.T) {
	srv, c := fakeWithContract(t)
	ctx := context.Background()
	acct, err := c.Account.Get(ctx)
	if err != nil || acct.ID == uuid.Nil || acct.Email == "" || len(acct.Raw) == 0 {
		t.Fatalf("Account.Get = %+v, %v", acct, err)
	}
	panel, err := c.Account.DashPanel(ctx)
	if err != nil || panel.Companies != 6 || panel.UnpaidInvoices == 0 || panel.UnpaidTotal.IsZero() {
		t.Fatalf("DashPanel = %+v, %v", panel, err)
	}

	if _, err := c.Auth.Login(ctx, &acctadmin.LoginParams{Email: acctadmintest.DemoUserEmail, Password: "wrong-password"}); !errors.Is(err, acctadmin.ErrUnauthorized) {
		t.Fatalf("Login with a wrong password = %v, want ErrUnauthorized", err)
	}
	sess, err := c.Auth.Login(ctx, &acctadmin.LoginParams{Email: acctadmintest.DemoUserEmail, Password: acctadmintest.DemoUserPassword})
	if err != nil || sess.Token.Reveal() == "" || sess.ExpiresAt.IsZero() {
		t.Fatalf("Login = %+v, %v", sess, err)
	}
	if s := sess.Token.String(); s != "[redacted]" {
		t.Errorf("the session token prints as %q", s)
	}
	if fresh, err := c.Auth.Refresh(ctx); err != nil || fresh.Token.Reveal() == "" {
		t.Fatalf("Refresh = %+v, %v", fresh, err)
	}

	if err := c.Auth.ForgotPassword(ctx, &acctadmin.ForgotPasswordParams{EmailAddress: acctadmintest.DemoUserEmail}); err != nil {
		t.Fatal(err)
	}
	const newPassword = "a-new-password-42"
	err = c.Auth.ResetPassword(ctx, &acctadmin.ResetPasswordParams{Token: acctadmin.Secret(srv.ResetToken()), Password: newPassword})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Auth.Login(ctx, &acctadmin.LoginParams{Email: acctadmintest.DemoUserEmail, Password: newPassword}); err != nil {
		t.Fatalf("Login with the new password = %v", err)
	}
	// A used token is refused, and the error names no secret.
	err = c.Auth.ResetPassword(ctx, &acctadmin.ResetPasswordParams{Token: "not-the-token-123", Password: newPassword})
	var apiErr *acctadmin.APIError
	if !errors.As(err, &apiErr) || strings.Contains(err.Error(), newPassword) || strings.Contains(string(apiErr.Body), newPassword) {
		t.Fatalf("ResetPassword with a bad token = %v", err)
	}
}

// The reading routes beyond the first spec on the fake.
func TestIntegrationReads(t *testing.T) {
	_, c := fakeWithContract(t)
	ctx := context.Background()
	co := acctadmintest.DemoID("company", 1)
	company, err := c.Companies.Get(ctx, co)
	if err != nil || company.Name != "Acme Widgets LLC" {
		t.Fatalf("Companies.Get = %+v, %v", company, err)
	}
	if _, err := c.Companies.Get(ctx, uuid.New()); !errors.Is(err, acctadmin.ErrNotFound) {
		t.Errorf("Companies.Get(unknown) = %v, want ErrNotFound", err)
	}

	doc := acctadmintest.DemoID("document", 1)
	link, err := c.Documents.PageURL(ctx, doc, 0)
	if err != nil || !strings.HasPrefix(link.URL, "http") || link.ExpiresAt.IsZero() {
		t.Fatalf("PageURL = %+v, %v", link, err)
	}
	bulk, err := c.Documents.BulkDownload(ctx, doc, acctadmintest.DemoID("document", 2))
	if err != nil || bulk.URL == "" {
		t.Fatalf("BulkDownload = %+v, %v", bulk, err)
	}

	products, err := c.SimpleProducts.List(ctx, &acctadmin.SimpleProductListParams{URL: acctadmintest.DemoWebsiteURL})
	if err != nil || len(products) == 0 || products[0].Price.IsZero() {
		t.Fatalf("SimpleProducts.List = %+v, %v", products, err)
	}
	forms, err := c.SignedForms.List(ctx, &acctadmin.SignedFormListParams{FilingMethodID: acctadmintest.DemoEINMethodID})
	if err != nil || len(forms) != 1 || forms[0].FilingMethodID != acctadmintest.DemoEINMethodID {
		t.Fatalf("SignedForms.List = %+v, %v", forms, err)
	}
	schemas, err := c.FilingMethods.Schemas(ctx, &acctadmin.FormSchemaParams{CompanyID: co, FilingMethodID: acctadmintest.DemoEINMethodID})
	if err != nil || len(schemas) != 1 || !strings.Contains(string(schemas[0].Schema), `"ssn"`) {
		t.Fatalf("Schemas = %+v, %v", schemas, err)
	}
}

// The service information routes: what a service holds, and adding to it.
func TestIntegrationServiceInfo(t *testing.T) {
	srv, c := fakeWithContract(t)
	ctx := context.Background()
	svc := srv.Services()[0]
	info := &acctadmin.ServiceInfo{
		ContactPerson: &acctadmin.ServiceContact{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com",
			Address: acctadmin.ServiceAddress{Line1: "1 Main", City: "Provo", ZipPostalCode: "84601", StateProvinceRegion: "UT", Country: "US"}},
		Directors: []acctadmin.ServiceOfficer{{Role: "Director", FirstName: "Grace", LastName: "Hopper"}},
	}
	if _, err := c.Services.AddInfo(ctx, svc.ID, info); err != nil {
		t.Fatal(err)
	}
	got, err := c.Services.Info(ctx, svc.ID)
	if err != nil || got.ContactPerson == nil || got.ContactPerson.Address.City != "Provo" || len(got.Directors) != 1 || got.Directors[0].LastName != "Hopper" {
		t.Fatalf("Info = %+v, %v", got, err)
	}
}

// Cards, the cart, paying invoices and a refused form on the fake.
func TestIntegrationMoney(t *testing.T) {
	srv, c := fakeWithContract(t)
	ctx := context.Background()
	co := acctadmintest.DemoID("company", 1)
	card := &acctadmin.Card{Number: "5555555555554444", ExpMonth: 3, ExpYear: 2031, CVC: "321", FirstName: "Ada", LastName: "Lovelace"}
	if _, err := c.PaymentMethods.Create(ctx, card); err != nil {
		t.Fatal(err)
	}
	cards, err := c.PaymentMethods.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var pm acctadmin.PaymentMethod
	for _, m := range cards {
		if m.Last4 == "4444" {
			pm = m
		}
	}
	if pm.ID == uuid.Nil || pm.ExpMonth != 3 || pm.ExpYear != 2031 {
		t.Fatalf("the new card is not listed: %+v", cards)
	}
	card.ExpYear = 2033
	if _, err := c.PaymentMethods.Update(ctx, pm.ID, card); err != nil {
		t.Fatal(err)
	}

	// Pay the unpaid invoices of the demo company that has them.
	var unpaid []uuid.UUID
	for _, inv := range srv.Invoices() {
		if inv.Status == acctadmintest.InvoiceUnpaid {
			unpaid = append(unpaid, inv.ID)
		}
	}
	if len(unpaid) == 0 {
		t.Fatal("the demo has no unpaid invoice")
	}
	if _, err := c.Invoices.Pay(ctx, &acctadmin.InvoicePayParams{InvoiceIDs: unpaid[:1], PaymentMethodID: pm.ID}); err != nil {
		t.Fatal(err)
	}
	if inv, err := c.Invoices.Get(ctx, unpaid[0]); err != nil || inv.Status != acctadmin.InvoicePaid {
		t.Fatalf("after Pay: %+v, %v", inv, err)
	}

	// Add to the cart and take it out again.
	if _, err := c.ShoppingCart.Add(ctx, &acctadmin.CartAddParams{CompanyID: co, ProductID: acctadmintest.DemoEINProductID,
		ProductOptionID: acctadmintest.DemoID("catalog-method", 2)}); err != nil {
		t.Fatal(err)
	}
	items, err := c.ShoppingCart.List(ctx, &acctadmin.CartListParams{CompanyIDs: []uuid.UUID{co}})
	if err != nil || len(items) == 0 {
		t.Fatalf("cart = %+v, %v", items, err)
	}
	var ids []uuid.UUID
	for _, it := range items {
		ids = append(ids, it.ID)
	}
	if err := c.ShoppingCart.Remove(ctx, &acctadmin.CartRemoveParams{ItemIDs: ids}); err != nil {
		t.Fatal(err)
	}
	if items, err := c.ShoppingCart.List(ctx, &acctadmin.CartListParams{CompanyIDs: []uuid.UUID{co}}); err != nil || len(items) != 0 {
		t.Fatalf("cart after Remove = %+v, %v", items, err)
	}

	// The demo's waiting order item refuses a form without its fields, and
	// says which.
	waiting, err := c.OrderItems.ListRequiringAttention(ctx, nil)
	if err != nil || len(waiting) == 0 {
		t.Fatalf("waiting = %+v, %v", waiting, err)
	}
	_, err = c.OrderItems.SubmitFormData(ctx, &acctadmin.OrderItemFormDataParams{CompanyID: waiting[0].CompanyID, OrderItemID: waiting[0].ID,
		FormData: map[string]any{"ssn": "12"}})
	var apiErr *acctadmin.APIError
	if !errors.As(err, &apiErr) || len(apiErr.Fields) == 0 || errors.Is(err, acctadmin.ErrOutcomeUnknown) {
		t.Fatalf("a bad form: err = %v, want an *APIError naming fields", err)
	}
	t.Logf("the fake refused the form: %+v", apiErr.Fields)

	if err := c.PaymentMethods.Delete(ctx, pm.ID); err != nil {
		t.Fatal(err)
	}
	if n := srv.RequestCount(http.MethodDelete, "/payment-methods/{id}"); n > 1 {
		t.Errorf("DELETE /payment-methods sent %d times", n)
	}
}
