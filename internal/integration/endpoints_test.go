package acctadmin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/png"
	"io"
	"net"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/google/uuid"
)

// These tests drive the SDK against the fake API end to end, every
// endpoint: the fake reads and writes the wire with its own code, so a
// misreading of the API in the SDK cannot hide behind the same misreading
// in a hand-written test server.

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

func TestFakeEndToEndEveryEndpoint(t *testing.T) {
	srv, c := fakeClient(t)
	ctx := context.Background()

	t.Run("services", func(t *testing.T) {
		page, err := c.Services.List(ctx, &acctadmin.ServiceListParams{Limit: 3})
		if err != nil || len(page) != 3 {
			t.Fatalf("List: %d, %v", len(page), err)
		}
		n := 0
		for s, err := range c.Services.All(ctx, &acctadmin.ServiceListParams{Limit: 2}) {
			if err != nil {
				t.Fatal(err)
			}
			if s.ID == uuid.Nil || s.Company == "" || s.CreatedAt.IsZero() {
				t.Fatalf("service %+v", s)
			}
			n++
		}
		if n != len(srv.Services()) {
			t.Fatalf("All gave %d services, the fake has %d", n, len(srv.Services()))
		}
		acme := srv.Companies()[0]
		byID, err := c.Services.List(ctx, &acctadmin.ServiceListParams{CompanyID: acme.ID})
		if err != nil || len(byID) == 0 {
			t.Fatalf("by company id: %d, %v", len(byID), err)
		}
		for _, s := range byID {
			if s.CompanyID != acme.ID || s.Company != acme.Name {
				t.Fatalf("filter by company id gave %+v", s)
			}
		}

		created, err := c.Services.Create(ctx, &acctadmin.ServiceCreateParams{Company: acme.Name, Jurisdictions: []string{"Oregon"}})
		if err != nil || len(created) != 1 || created[0].Jurisdiction != "Oregon" || created[0].Status != acctadmin.ServiceActive {
			t.Fatalf("Create by name: %+v, %v", created, err)
		}
		foxglove := companyNamed(t, srv, acctadmintest.DemoNoHomeStateCompany)
		oregonID, _ := acctadmintest.LookupJurisdiction("Oregon")
		created, err = c.Services.Create(ctx, &acctadmin.ServiceCreateParams{CompanyID: foxglove.ID, JurisdictionIDs: []uuid.UUID{oregonID.ID}})
		if err != nil || len(created) != 1 || created[0].Status != acctadmin.ServiceAwaitingClientInput || created[0].CompanyID != foxglove.ID {
			t.Fatalf("Create by id: %+v, %v", created, err)
		}

		cancelled, err := c.Services.RequestCancellation(ctx, created[0].ID)
		if err != nil || cancelled.Status != acctadmin.ServiceCancelRequested || cancelled.ID != created[0].ID || cancelled.UpdatedAt.IsZero() {
			t.Fatalf("RequestCancellation: %+v, %v", cancelled, err)
		}
		if got, _ := srv.Service(created[0].ID); got.Status != "cancel-requested" {
			t.Fatalf("the fake holds status %q", got.Status)
		}

		bluebird := companyNamed(t, srv, acctadmintest.DemoUnpaidCompany)
		var unpaidSvc uuid.UUID
		for _, s := range srv.Services() {
			if s.CompanyID == bluebird.ID {
				unpaidSvc = s.ID
			}
		}
		_, err = c.Services.RequestCancellation(ctx, unpaidSvc)
		var unpaid *acctadmin.UnpaidInvoicesError
		if !errors.As(err, &unpaid) || len(unpaid.Invoices) == 0 {
			t.Fatalf("cancel with unpaid invoices: %v", err)
		}
		for _, inv := range unpaid.Invoices {
			held, ok := srv.Invoice(inv.ID)
			if !ok || held.Status != "unpaid" || inv.Status != "unpaid" || inv.CompanyID != bluebird.ID || len(inv.Items) == 0 {
				t.Fatalf("unpaid invoice %+v (fake: %+v)", inv, held)
			}
			if _, err := inv.Items[0].Price.Cents(); err != nil {
				t.Fatal(err)
			}
		}
		if got, _ := srv.Service(unpaidSvc); got.Status == "cancel-requested" {
			t.Fatal("a refused cancellation changed the service")
		}
	})

	t.Run("documents", func(t *testing.T) {
		unread, err := c.Documents.List(ctx, nil)
		if err != nil || len(unread) == 0 {
			t.Fatalf("List: %d, %v", len(unread), err)
		}
		for _, d := range unread {
			if d.Status != acctadmin.DocumentUnread || d.Jurisdiction == "" || d.CompanyName == "" {
				t.Fatalf("unread listing gave %+v", d)
			}
		}
		d := unread[0]
		got, err := c.Documents.Get(ctx, d.ID)
		if err != nil || got.ID != d.ID || got.Title != d.Title || got.Jurisdiction != d.Jurisdiction || got.Pages != d.Pages {
			t.Fatalf("Get: %+v, %v (listing had %+v)", got, err, d)
		}

		for _, dpi := range []int{72, 150, 300} {
			f, err := c.Documents.Page(ctx, d.ID, d.Pages-1, &acctadmin.PageParams{DPI: dpi})
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			w, h := acctadmintest.PagePixels(dpi)
			if b := img.Bounds(); b.Dx() != w || b.Dy() != h || f.ContentType != "image/png" {
				t.Fatalf("page at %d dpi is %v, want %dx%d", dpi, b, w, h)
			}
		}
		if _, err := c.Documents.Page(ctx, d.ID, d.Pages, nil); !errors.Is(err, acctadmin.ErrNotFound) {
			t.Fatalf("page past the end: %v", err)
		}

		f, err := c.Documents.Download(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		pdf, err := io.ReadAll(f)
		f.Close()
		if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF-")) || f.ContentType != "application/pdf" || int64(len(pdf)) != f.ContentLength || f.Filename == "" {
			t.Fatalf("Download: %d bytes, %+v, %v", len(pdf), f, err)
		}
		if pages := len(regexp.MustCompile(`/Type\s*/Page\b`).FindAll(pdf, -1)); pages != d.Pages {
			t.Fatalf("the PDF has %d pages, the document %d", pages, d.Pages)
		}
		// The download marked it read: it left the unread listing.
		after, err := c.Documents.List(ctx, &acctadmin.DocumentListParams{Limit: 200})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range after {
			if x.ID == d.ID {
				t.Fatal("a downloaded document is still in the unread listing")
			}
		}
		read := 0
		for x, err := range c.Documents.All(ctx, &acctadmin.DocumentListParams{Status: acctadmin.DocumentRead, Limit: 25}) {
			if err != nil {
				t.Fatal(err)
			}
			if x.Status != acctadmin.DocumentRead {
				t.Fatalf("read listing gave %+v", x)
			}
			read++
		}
		total := 0
		for _, x := range srv.Documents() {
			if x.Status == "read" {
				total++
			}
		}
		if read != total {
			t.Fatalf("read listing gave %d, the fake has %d read", read, total)
		}
	})

	t.Run("resources", func(t *testing.T) {
		all := srv.Resources()
		var doc acctadmintest.Resource
		for _, r := range all {
			if r.Kind == "document" && len(r.EntityTypes) > 0 {
				doc = r
				break
			}
		}
		list, err := c.Resources.List(ctx, &acctadmin.ResourceListParams{Jurisdiction: doc.Jurisdiction, Agency: doc.Agency, EntityType: doc.EntityTypes[0], Name: doc.Name})
		if err != nil || len(list) != 1 || list[0].ID != doc.ID || list[0].Kind != acctadmin.ResourceKindDocument {
			t.Fatalf("List with every filter: %+v, %v", list, err)
		}
		n := 0
		for _, err := range c.Resources.All(ctx, &acctadmin.ResourceListParams{Limit: 7}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != len(all) {
			t.Fatalf("All gave %d, the fake has %d", n, len(all))
		}
		got, err := c.Resources.Get(ctx, doc.ID)
		if err != nil || got.Name != doc.Name || got.URL != doc.URL {
			t.Fatalf("Get: %+v, %v", got, err)
		}
		f, err := c.Resources.Page(ctx, doc.ID, 0, &acctadmin.PageParams{DPI: 72})
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil || img.Bounds().Dx() != 612 {
			t.Fatalf("resource page: %v, %v", img.Bounds(), err)
		}
		f, err = c.Resources.Download(ctx, doc.ID)
		if err != nil {
			t.Fatal(err)
		}
		pdf, _ := io.ReadAll(f)
		f.Close()
		if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
			t.Fatalf("resource download %q", pdf[:min(len(pdf), 16)])
		}
	})

	t.Run("filing products", func(t *testing.T) {
		bare, err := c.FilingProducts.List(ctx, &acctadmin.FilingProductListParams{URL: acctadmintest.DemoWebsiteURL})
		if err != nil || len(bare) == 0 {
			t.Fatalf("without jurisdiction: %d, %v", len(bare), err)
		}
		for _, p := range bare {
			if p.FilingMethods != nil || p.Price.IsZero() {
				t.Fatalf("without a jurisdiction a product has methods or no price: %+v", p)
			}
		}
		withMethods, err := c.FilingProducts.List(ctx, &acctadmin.FilingProductListParams{URL: acctadmintest.DemoWebsiteURL, Jurisdiction: "Utah"})
		if err != nil {
			t.Fatal(err)
		}
		methods := 0
		for _, p := range withMethods {
			for _, m := range p.FilingMethods {
				methods++
				if m.Jurisdiction != "Utah" || m.Type == "" || (m.FiledIn.IsZero() && m.DocsIn.IsZero()) {
					t.Fatalf("method %+v", m)
				}
				if _, err := m.Cost.Cents(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if methods == 0 {
			t.Fatal("no filing method for Utah")
		}
	})

	t.Run("compliance events", func(t *testing.T) {
		today := acctadmin.DateOf(time.Now().In(acctadmintest.DefaultLocation))
		p := &acctadmin.ComplianceEventListParams{StartDate: today.AddDays(-1), EndDate: today.AddDays(366), Limit: 3}
		n := 0
		for e, err := range c.ComplianceEvents.All(ctx, p) {
			if err != nil {
				t.Fatal(err)
			}
			if e.DueDate.Before(p.StartDate) || e.DueDate.After(p.EndDate) || len(e.Jurisdictions) == 0 || e.Company == "" {
				t.Fatalf("event %+v", e)
			}
			n++
		}
		if n != len(srv.ComplianceEvents()) {
			t.Fatalf("All gave %d, the fake has %d", n, len(srv.ComplianceEvents()))
		}
		utah, err := c.ComplianceEvents.List(ctx, &acctadmin.ComplianceEventListParams{StartDate: p.StartDate, EndDate: p.EndDate, Jurisdictions: []string{"Utah"}})
		if err != nil || len(utah) == 0 {
			t.Fatalf("Utah: %d, %v", len(utah), err)
		}
		for _, e := range utah {
			if !contains(e.Jurisdictions, "Utah") {
				t.Fatalf("jurisdiction filter gave %+v", e)
			}
		}
	})

	t.Run("websites and registered-agent products", func(t *testing.T) {
		w, err := c.Websites.Get(ctx, acctadmintest.DemoWebsiteURL)
		if err != nil || w.URL != acctadmintest.DemoWebsiteURL || len(w.Emails) == 0 || len(w.Addresses) == 0 || w.Addresses[0].City == "" {
			t.Fatalf("Get: %+v, %v", w, err)
		}
		bare, err := c.Websites.Get(ctx, acctadmintest.DemoBareWebsiteURL)
		if err != nil || bare.Addresses != nil || bare.Emails != nil {
			t.Fatalf("bare website: %+v, %v", bare, err)
		}
		if _, err := c.Websites.Get(ctx, "https://unknown.example.com"); !errors.Is(err, acctadmin.ErrNotFound) {
			t.Fatalf("unknown website: %v", err)
		}
		products, err := c.RegisteredAgentProducts.List(ctx, &acctadmin.RegisteredAgentProductListParams{URL: acctadmintest.DemoWebsiteURL})
		if err != nil || len(products) == 0 || products[0].Name == "" || products[0].Price.IsZero() || len(products[0].Raw) == 0 {
			t.Fatalf("registered-agent products: %+v, %v", products, err)
		}
	})

	t.Run("companies and invoices", func(t *testing.T) {
		before, err := c.Companies.List(ctx)
		if err != nil || len(before) != len(srv.Companies()) {
			t.Fatalf("List: %d, %v", len(before), err)
		}
		added, err := c.Companies.Create(ctx,
			acctadmin.CompanyCreateParams{Name: "Juniper Labs LLC", HomeState: "Oregon", EntityType: "LLC"},
			acctadmin.CompanyCreateParams{Name: "Kestrel Freight Inc", EntityType: "Corporation"})
		if err != nil || len(added) != 2 || added[0].Name != "Juniper Labs LLC" || added[0].HomeState != "Oregon" || added[1].HomeState != "" {
			t.Fatalf("Create: %+v, %v", added, err)
		}
		updated, err := c.Companies.Update(ctx,
			acctadmin.CompanyUpdateParams{Company: "Juniper Labs LLC", Name: "Juniper Labs Holdings LLC"},
			acctadmin.CompanyUpdateParams{CompanyID: added[1].ID, HomeState: "Idaho", EntityType: "LLC"})
		if err != nil {
			t.Fatal(err)
		}
		if held, _ := srv.Company(added[0].ID); held.Name != "Juniper Labs Holdings LLC" {
			t.Fatalf("rename by name: the fake holds %+v (answer %+v)", held, updated)
		}
		if held, _ := srv.Company(added[1].ID); held.HomeState != "Idaho" || held.EntityType != "LLC" {
			t.Fatalf("update by id: the fake holds %+v", held)
		}

		bluebird := companyNamed(t, srv, acctadmintest.DemoUnpaidCompany)
		byID, err := c.Invoices.List(ctx, &acctadmin.InvoiceListParams{CompanyIDs: []uuid.UUID{bluebird.ID}})
		if err != nil || len(byID) == 0 {
			t.Fatalf("by company id: %d, %v", len(byID), err)
		}
		byName, err := c.Invoices.List(ctx, &acctadmin.InvoiceListParams{Companies: []string{bluebird.Name}})
		if err != nil || len(byName) != len(byID) {
			t.Fatalf("by company name: %d (by id %d), %v", len(byName), len(byID), err)
		}
		n := 0
		for inv, err := range c.Invoices.All(ctx, &acctadmin.InvoiceListParams{Limit: 2}) {
			if err != nil {
				t.Fatal(err)
			}
			if inv.ID == uuid.Nil || inv.DueDate.IsZero() || len(inv.Raw) == 0 {
				t.Fatalf("invoice %+v", inv)
			}
			n++
		}
		if n != len(srv.Invoices()) {
			t.Fatalf("All gave %d invoices, the fake has %d", n, len(srv.Invoices()))
		}
	})

	t.Run("callbacks and events", func(t *testing.T) {
		verifier, err := webhook.NewVerifier([]byte(srv.SecretKey), webhook.WithAccessKey(srv.AccessKey))
		if err != nil {
			t.Fatal(err)
		}
		events := make(chan *webhook.Event, 4)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		hs := &http.Server{Handler: verifier.Handler(func(_ context.Context, ev *webhook.Event) error {
			events <- ev
			return nil
		})}
		go hs.Serve(ln)
		defer hs.Close()

		cb, err := c.Callbacks.Create(ctx, "http://"+ln.Addr().String()+"/hooks")
		if err != nil || cb.ID == uuid.Nil || cb.CreatedAt.IsZero() {
			t.Fatalf("Create: %+v, %v", cb, err)
		}
		list, err := c.Callbacks.List(ctx)
		if err != nil || len(list) != 1 || list[0].ID != cb.ID {
			t.Fatalf("List: %+v, %v", list, err)
		}

		acme := srv.Companies()[0]
		doc := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: acme.ID, Title: "Statement of information", Pages: 1})
		inv := srv.AddInvoice(acctadmintest.InvoiceInput{CompanyID: acme.ID, Items: []acctadmintest.InvoiceItem{{Price: "49.00", Description: "Filing", Quantity: 1}}})
		got := map[string]*webhook.Event{}
		for len(got) < 2 {
			select {
			case ev := <-events:
				got[ev.Name] = ev
			case <-time.After(10 * time.Second):
				t.Fatalf("events received: %v", got)
			}
		}
		if ev := got[webhook.EventNewDocument]; ev == nil || ev.DocumentID != doc.ID || ev.CompanyID != acme.ID || ev.CompanyName != acme.Name {
			t.Fatalf("new-document event %+v", ev)
		}
		if ev := got[webhook.EventNewInvoice]; ev == nil || ev.InvoiceID != inv.ID || ev.CompanyID != acme.ID {
			t.Fatalf("new-invoice event %+v", ev)
		}

		if err := c.Callbacks.Delete(ctx, cb.ID); err != nil {
			t.Fatal(err)
		}
		if err := c.Callbacks.Delete(ctx, cb.ID); !errors.Is(err, acctadmin.ErrNotFound) {
			t.Fatalf("second delete: %v", err)
		}
		if list, err := c.Callbacks.List(ctx); err != nil || len(list) != 0 {
			t.Fatalf("after delete: %+v, %v", list, err)
		}
	})

	t.Run("account, auth, catalogue, cart, checkout and order items", func(t *testing.T) {
		acme := acctadmintest.DemoID("company", 1)
		site := acctadmintest.DemoID("website", 1)
		acct, err := c.Account.Get(ctx)
		if err != nil || acct.Email != acctadmintest.DemoUserEmail {
			t.Fatalf("Account.Get: %+v, %v", acct, err)
		}
		panel, err := c.Account.DashPanel(ctx)
		if err != nil || panel.UnreadDocuments == 0 || panel.ItemsRequiringAttention != 1 || panel.Companies != len(srv.Companies()) {
			t.Fatalf("DashPanel: %+v, %v", panel, err)
		}
		sess, err := c.Auth.Login(ctx, &acctadmin.LoginParams{Email: acctadmintest.DemoUserEmail, Password: acctadmin.Secret(acctadmintest.DemoUserPassword), WebsiteID: site})
		if err != nil || sess.Token == "" {
			t.Fatalf("Login: %+v, %v", sess, err)
		}
		if _, err := c.Auth.Login(ctx, &acctadmin.LoginParams{Email: acctadmintest.DemoUserEmail, Password: "wrong-password"}); err == nil {
			t.Fatal("a wrong password logged in")
		}
		if sess, err = c.Auth.Refresh(ctx); err != nil || sess.Token == "" {
			t.Fatalf("Refresh: %+v, %v", sess, err)
		}
		if err := c.Auth.ForgotPassword(ctx, &acctadmin.ForgotPasswordParams{EmailAddress: acctadmintest.DemoUserEmail}); err != nil {
			t.Fatal(err)
		}
		pw := acctadmin.Secret("a-new-password")
		if err := c.Auth.ResetPassword(ctx, &acctadmin.ResetPasswordParams{Token: acctadmin.Secret(srv.ResetToken()), Password: pw, PasswordConfirmation: pw}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Auth.Login(ctx, &acctadmin.LoginParams{Email: acctadmintest.DemoUserEmail, Password: pw}); err != nil {
			t.Fatalf("login with the new password: %v", err)
		}

		if co, err := c.Companies.Get(ctx, acme); err != nil || co.Name != "Acme Widgets LLC" {
			t.Fatalf("Companies.Get: %+v, %v", co, err)
		}
		svc := srv.Services()[0].ID
		info := &acctadmin.ServiceInfo{ContactPerson: &acctadmin.ServiceContact{FirstName: "Ada", Email: "ada@example.com"}}
		if _, err := c.Services.AddInfo(ctx, svc, info); err != nil {
			t.Fatal(err)
		}
		if got, err := c.Services.Info(ctx, svc); err != nil || got.ContactPerson == nil || got.ContactPerson.FirstName != "Ada" {
			t.Fatalf("Services.Info: %+v, %v", got, err)
		}

		doc := srv.Documents()[0].ID
		link, err := c.Documents.PageURL(ctx, doc, 0)
		if err != nil || !strings.HasPrefix(link.URL, srv.URL+"/") || link.ExpiresAt.IsZero() {
			t.Fatalf("PageURL: %+v, %v", link, err)
		}
		if link, err = c.Documents.BulkDownload(ctx, doc); err != nil || len(link.IDs) != 1 {
			t.Fatalf("BulkDownload: %+v, %v", link, err)
		}

		offers, err := c.FilingProducts.Offerings(ctx, &acctadmin.OfferingParams{CompanyID: acme, Jurisdiction: "UT"})
		if err != nil {
			t.Fatal(err)
		}
		var product uuid.UUID
		for _, p := range offers {
			if p.FilingName == "tax id" {
				product = p.ID
			}
		}
		methods, err := c.FilingMethods.List(ctx, &acctadmin.FilingMethodListParams{CompanyID: acme, Jurisdiction: "UT", FilingProductID: product})
		if err != nil || len(methods) == 0 || methods[0].Name != "Standard" {
			t.Fatalf("FilingMethods.List: %+v, %v", methods, err)
		}
		method := methods[0].ID
		if schemas, err := c.FilingMethods.Schemas(ctx, &acctadmin.FormSchemaParams{CompanyID: acme, FilingMethodID: method}); err != nil || len(schemas) != 1 || len(schemas[0].Schema) == 0 {
			t.Fatalf("Schemas: %+v, %v", schemas, err)
		}
		if sp, err := c.SimpleProducts.List(ctx, &acctadmin.SimpleProductListParams{URL: acctadmintest.DemoWebsiteURL}); err != nil || len(sp) == 0 {
			t.Fatalf("SimpleProducts.List: %+v, %v", sp, err)
		}
		if sf, err := c.SignedForms.List(ctx, &acctadmin.SignedFormListParams{FilingMethodID: method, WebsiteID: site}); err != nil || len(sf) == 0 {
			t.Fatalf("SignedForms.List: %+v, %v", sf, err)
		}

		added, err := c.ShoppingCart.Add(ctx, &acctadmin.CartAddParams{CompanyID: acme, ProductID: product, ProductOptionID: method, Quantity: 1})
		if err != nil || len(added) != 1 || added[0].Title != "Tax id filing service - Standard" {
			t.Fatalf("ShoppingCart.Add: %+v, %v", added, err)
		}
		// The fake answers card writes as the real server does, without
		// the card: Create and Update return none, the listing shows it.
		card := &acctadmin.Card{Number: "4000056655665556", ExpMonth: 5, ExpYear: 2029, CVC: "123", FirstName: "Ada", LastName: "Lovelace"}
		if made, err := c.PaymentMethods.Create(ctx, card); err != nil || made != nil {
			t.Fatalf("PaymentMethods.Create: %+v, %v", made, err)
		}
		list, err := c.PaymentMethods.List(ctx)
		if err != nil || len(list) != 2 {
			t.Fatalf("PaymentMethods.List: %+v, %v", list, err)
		}
		pm := list[slices.IndexFunc(list, func(m acctadmin.PaymentMethod) bool { return m.Last4 == "5556" })]
		if pm.ExpMonth != 5 || pm.ExpYear != 2029 {
			t.Fatalf("the card listed: %+v", pm)
		}
		card.ExpYear = 2032
		if changed, err := c.PaymentMethods.Update(ctx, pm.ID, card); err != nil || changed != nil {
			t.Fatalf("PaymentMethods.Update: %+v, %v", changed, err)
		}
		if list, err = c.PaymentMethods.List(ctx); err != nil || len(list) != 2 ||
			!slices.ContainsFunc(list, func(m acctadmin.PaymentMethod) bool { return m.ID == pm.ID && m.ExpYear == 2032 }) {
			t.Fatalf("PaymentMethods.List after Update: %+v, %v", list, err)
		}
		cart, err := c.ShoppingCart.List(ctx, &acctadmin.CartListParams{CompanyIDs: []uuid.UUID{acme}})
		if err != nil || len(cart) != 2 {
			t.Fatalf("ShoppingCart.List: %+v, %v", cart, err)
		}
		co, err := c.ShoppingCart.Checkout(ctx, &acctadmin.CheckoutParams{ItemIDs: []uuid.UUID{added[0].ID}, PaymentMethodID: pm.ID})
		if err != nil || len(co.InvoiceIDs) != 1 {
			t.Fatalf("Checkout: %+v, %v", co, err)
		}
		if inv, err := c.Invoices.Get(ctx, co.InvoiceIDs[0]); err != nil || inv.Status != acctadmin.InvoicePaid {
			t.Fatalf("Invoices.Get: %+v, %v", inv, err)
		}
		if err := c.ShoppingCart.Remove(ctx, &acctadmin.CartRemoveParams{CompanyIDs: []uuid.UUID{acme}}); err != nil {
			t.Fatal(err)
		}
		waiting, err := c.OrderItems.ListRequiringAttention(ctx, &acctadmin.OrderItemListParams{CompanyIDs: []uuid.UUID{acme}})
		if err != nil || len(waiting) != 2 {
			t.Fatalf("ListRequiringAttention: %+v, %v", waiting, err)
		}
		var form map[string]any
		if err := json.Unmarshal([]byte(einFormData), &form); err != nil {
			t.Fatal(err)
		}
		done, err := c.OrderItems.SubmitFormData(ctx, &acctadmin.OrderItemFormDataParams{CompanyID: acme, OrderItemID: waiting[1].ID, FormData: form})
		if err != nil || done.Status != acctadmin.OrderItemNew {
			t.Fatalf("SubmitFormData: %+v, %v", done, err)
		}
		var unpaid uuid.UUID
		for _, inv := range srv.Invoices() {
			if inv.Status == acctadmintest.InvoiceUnpaid {
				unpaid = inv.ID
			}
		}
		if paid, err := c.Invoices.Pay(ctx, &acctadmin.InvoicePayParams{InvoiceIDs: []uuid.UUID{unpaid}, PaymentMethodID: pm.ID}); err != nil || len(paid) != 1 || paid[0].Status != acctadmin.InvoicePaid {
			t.Fatalf("Invoices.Pay: %+v, %v", paid, err)
		}
		var locked uuid.UUID
		for _, d := range srv.Documents() {
			if d.PaymentLocked {
				locked = d.ID
			}
		}
		if u, err := c.Documents.Unlock(ctx, locked, pm.ID); err != nil || u.Action != "capture" || len(u.InvoiceIDs) != 1 {
			t.Fatalf("Documents.Unlock: %+v, %v", u, err)
		}
		if err := c.PaymentMethods.Delete(ctx, pm.ID); err != nil {
			t.Fatal(err)
		}
	})

	// Every route the SDK declares was answered with success at least
	// once.
	hit := map[string]bool{}
	for _, r := range srv.Requests() {
		if r.Status >= 200 && r.Status < 300 {
			hit[RouteShape(r.Method, r.Route)] = true
		}
	}
	var missed []string
	for _, route := range DeclaredRouteShapes() {
		if !hit[route] {
			missed = append(missed, route)
		}
	}
	sort.Strings(missed)
	if len(missed) > 0 {
		t.Fatalf("no successful call reached: %s", strings.Join(missed, ", "))
	}
}

func TestFakeRefusesAWrongSecret(t *testing.T) {
	srv, _ := fakeClient(t)
	c, err := acctadmin.NewClient(srv.AccessKey, "not-the-secret", acctadmin.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	_, err = c.Services.List(context.Background(), nil)
	var apiErr *acctadmin.APIError
	if !errors.Is(err, acctadmin.ErrUnauthorized) || !errors.As(err, &apiErr) || srv.TotalRequests() != 1 {
		t.Fatalf("got %v after %d requests", err, srv.TotalRequests())
	}
	if strings.Contains(err.Error(), "not-the-secret") {
		t.Fatal("the error shows the secret")
	}
}

// einFormData is the provider's data/form_data_ein_tax_id.json.
const einFormData = `{"ssn":"555-55-5555","start_date":"04/04/2023","fiscal_year_end":"01","entity_type":"Limited Liability Company",
"ein_trucking":true,"ein_excise_tax":true,"ein_sell_tobacco":true,"ein_has_employees":true,"number_of_members":"1",
"responsible_party":{"last_name":"Prime Corporate Services Test","first_name":"Tester McTestington","phone_number":"5555555555"},
"principal_activity":"Just a Test","ein_other_employees":"1","ein_involves_gambling":true,
"company_mailing_address":{"city":"Spokane","line1":"123 Test St","county":"Spokane","country":"US","zip_postal_code":"99223","state_province_region":"WA"},
"company_principal_address":{"city":"Spokane","line1":"123 Test St","county":"Spokane","country":"US","zip_postal_code":"99223","state_province_region":"WA"},
"ein_first_date_wages_paid":"04/17/2023","ein_agricultural_employees":"1","ein_employee_tax_liability_1000":true}`

// emptyFake starts a fake with no records, strict signing and its
// contract checks, and a client for it.
func emptyFake(t *testing.T) (*acctadmintest.Server, *acctadmin.Client) {
	t.Helper()
	srv := acctadmintest.NewServer(acctadmintest.WithStrictSigning(), acctadmintest.WithContractChecks(func(err error) { t.Error(err) }))
	t.Cleanup(srv.Close)
	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL),
		acctadmin.WithRetryWait(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return srv, c
}

// idsOf lists the ids of records, in order.
func idsOf[T any](items []T, id func(T) uuid.UUID) []uuid.UUID {
	out := []uuid.UUID{}
	for _, it := range items {
		out = append(out, id(it))
	}
	return out
}

func requireIDs(t *testing.T, what string, got []uuid.UUID, want ...uuid.UUID) {
	t.Helper()
	if want == nil {
		want = []uuid.UUID{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func documentID(d acctadmin.Document) uuid.UUID { return d.ID }

func TestIntegrationDocumentsByJurisdiction(t *testing.T) {
	srv, c := emptyFake(t)
	ctx := context.Background()
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC", HomeState: "Utah"})
	utah := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, CreatedAt: time.Now().Add(-2 * time.Minute)})
	idaho := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, Jurisdiction: "Idaho", CreatedAt: time.Now().Add(-time.Minute)})
	for _, place := range []string{"Idaho", "ID"} {
		docs, err := c.Documents.List(ctx, &acctadmin.DocumentListParams{Jurisdiction: place})
		if err != nil {
			t.Fatal(err)
		}
		requireIDs(t, "documents in "+place, idsOf(docs, documentID), idaho.ID)
	}
	docs, err := c.Documents.List(ctx, &acctadmin.DocumentListParams{Jurisdiction: "UT"})
	if err != nil {
		t.Fatal(err)
	}
	requireIDs(t, "documents in UT", idsOf(docs, documentID), utah.ID)
}

func TestIntegrationDocumentsByCompanyID(t *testing.T) {
	srv, c := emptyFake(t)
	ctx := context.Background()
	a := srv.AddCompany(acctadmintest.CompanyInput{Name: "Alpha LLC", HomeState: "Utah"})
	b := srv.AddCompany(acctadmintest.CompanyInput{Name: "Beta Inc", HomeState: "Utah"})
	var want []uuid.UUID
	for i := range 5 {
		co := []acctadmintest.Company{a, b}[i%2]
		d := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, CreatedAt: time.Now().Add(time.Duration(i-5) * time.Minute)})
		if co.ID == b.ID {
			want = append(want, d.ID)
		}
	}
	var got []uuid.UUID
	for d, err := range c.Documents.All(ctx, &acctadmin.DocumentListParams{CompanyID: b.ID, Limit: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, d.ID)
	}
	requireIDs(t, "documents of Beta", got, want...)
	if _, err := c.Documents.List(ctx, &acctadmin.DocumentListParams{CompanyID: uuid.New()}); !errors.Is(err, acctadmin.ErrNotFound) {
		t.Fatalf("an unknown company gave %v, want ErrNotFound", err)
	}
}

func invoiceID(v acctadmin.Invoice) uuid.UUID { return v.ID }

func TestIntegrationInvoicesByDates(t *testing.T) {
	srv, c := emptyFake(t)
	ctx := context.Background()
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC"})
	on := func(m time.Month, d int) uuid.UUID {
		return srv.AddInvoice(acctadmintest.InvoiceInput{CompanyID: co.ID, CreatedAt: time.Date(2025, m, d, 12, 0, 0, 0, time.UTC)}).ID
	}
	jan, feb, mar := on(time.January, 31), on(time.February, 1), on(time.March, 1)
	for _, tc := range []struct {
		p    acctadmin.InvoiceListParams
		want []uuid.UUID
	}{
		{acctadmin.InvoiceListParams{StartDate: acctadmin.Date{Year: 2025, Month: 1, Day: 31}, EndDate: acctadmin.Date{Year: 2025, Month: 2, Day: 1}}, []uuid.UUID{jan, feb}},
		{acctadmin.InvoiceListParams{StartDate: acctadmin.Date{Year: 2025, Month: 2, Day: 2}}, []uuid.UUID{mar}},
		{acctadmin.InvoiceListParams{EndDate: acctadmin.Date{Year: 2025, Month: 1, Day: 31}}, []uuid.UUID{jan}},
	} {
		got, err := c.Invoices.List(ctx, &tc.p)
		if err != nil {
			t.Fatal(err)
		}
		requireIDs(t, "invoices between "+tc.p.StartDate.String()+" and "+tc.p.EndDate.String(), idsOf(got, invoiceID), tc.want...)
	}
	_, err := c.Invoices.List(ctx, &acctadmin.InvoiceListParams{StartDate: acctadmin.Date{Year: 2025, Month: 2, Day: 2}, EndDate: acctadmin.Date{Year: 2025, Month: 2, Day: 1}})
	if !errors.Is(err, acctadmin.ErrInvalidParams) || len(srv.Requests()) != 3 {
		t.Fatalf("end before start gave %v after %d requests, want ErrInvalidParams and nothing sent", err, len(srv.Requests()))
	}
}

func TestIntegrationInvoicesByStatus(t *testing.T) {
	srv, c := emptyFake(t)
	ctx := context.Background()
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC"})
	unpaid := srv.AddInvoice(acctadmintest.InvoiceInput{CompanyID: co.ID, CreatedAt: time.Now().Add(-time.Hour)}).ID
	paid := srv.AddInvoice(acctadmintest.InvoiceInput{CompanyID: co.ID, Status: acctadmintest.InvoicePaid, CreatedAt: time.Now().Add(-time.Minute)}).ID
	for status, want := range map[acctadmin.InvoiceStatus]uuid.UUID{acctadmin.InvoicePaid: paid, acctadmin.InvoiceUnpaid: unpaid} {
		var got []uuid.UUID
		for inv, err := range c.Invoices.All(ctx, &acctadmin.InvoiceListParams{Status: status}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, inv.ID)
		}
		requireIDs(t, "invoices "+string(status), got, want)
	}
	// A status the SDK does not know is sent as given; the fake refuses it.
	_, err := c.Invoices.List(ctx, &acctadmin.InvoiceListParams{Status: "refunded"})
	if ae := (*acctadmin.APIError)(nil); !errors.As(err, &ae) || ae.StatusCode != http.StatusBadRequest {
		t.Fatalf("status refunded gave %v, want the API's 400", err)
	}
}

func companyID(v acctadmin.Company) uuid.UUID { return v.ID }

// An account with hundreds of companies is read to the last one.
func TestIntegrationCompaniesAllPages(t *testing.T) {
	srv, c := emptyFake(t)
	var want []uuid.UUID
	for i := range 250 {
		want = append(want, srv.AddCompany(acctadmintest.CompanyInput{Name: "Company " + strconv.Itoa(i), CreatedAt: time.Now().Add(time.Duration(i-250) * time.Minute)}).ID)
	}
	var got []uuid.UUID
	for co, err := range c.Companies.All(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, co.ID)
	}
	requireIDs(t, "companies", got, want...)
	// The read-ahead's documented cost: at most pages + 2 requests.
	if n := len(srv.Requests()); n < 3 || n > 3+2 {
		t.Fatalf("%d requests for 250 companies in 3 pages, want 3 to 5", n)
	}
}

func TestIntegrationCompaniesByNames(t *testing.T) {
	srv, c := emptyFake(t)
	ctx := context.Background()
	var all []acctadmintest.Company
	for i, name := range []string{"Acme Widgets LLC", "Beta & Co, Inc.", "Gamma Corp"} {
		all = append(all, srv.AddCompany(acctadmintest.CompanyInput{Name: name, CreatedAt: time.Now().Add(time.Duration(i-3) * time.Minute)}))
	}
	got, err := c.Companies.List(ctx, &acctadmin.CompanyListParams{Names: []string{"gamma corp", "Beta & Co, Inc."}})
	if err != nil {
		t.Fatal(err)
	}
	requireIDs(t, "companies by name", idsOf(got, companyID), all[1].ID, all[2].ID)
	got, err = c.Companies.List(ctx, &acctadmin.CompanyListParams{Limit: 1, Offset: 1})
	if err != nil {
		t.Fatal(err)
	}
	requireIDs(t, "the second page of one", idsOf(got, companyID), all[1].ID)
}

func TestIntegrationFilingProductsByEntityType(t *testing.T) {
	srv, c := emptyFake(t)
	site := "https://shop.example.com"
	srv.AddWebsite(acctadmintest.WebsiteInput{URL: site, Name: "Shop"})
	llc := srv.AddFilingProduct(acctadmintest.FilingProductInput{WebsiteURL: site, Name: "LLC Amendment", EntityTypes: []string{"LLC"}})
	srv.AddFilingProduct(acctadmintest.FilingProductInput{WebsiteURL: site, Name: "Corporate Amendment", EntityTypes: []string{"Corporation"}})
	every := srv.AddFilingProduct(acctadmintest.FilingProductInput{WebsiteURL: site, Name: "Annual Report"})
	got, err := c.FilingProducts.List(context.Background(), &acctadmin.FilingProductListParams{URL: site, EntityType: "LLC"})
	if err != nil {
		t.Fatal(err)
	}
	requireIDs(t, "LLC products", idsOf(got, func(p acctadmin.FilingProduct) uuid.UUID { return p.ID }), llc.ID, every.ID)
}

func TestIntegrationCompanyJurisdictionsAndDuplicateNames(t *testing.T) {
	srv, c := emptyFake(t)
	ctx := context.Background()
	old := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC"})
	added, err := c.Companies.Create(ctx,
		acctadmin.CompanyCreateParams{Name: "Acme LLC", Jurisdictions: []string{"California", "WY"}, DuplicateNameAllowed: true})
	if err != nil || len(added) != 1 || !reflect.DeepEqual(added[0].Jurisdictions, []string{"California", "Wyoming"}) {
		t.Fatalf("Create = %+v, %v", added, err)
	}
	if again, err := c.Companies.Create(ctx, acctadmin.CompanyCreateParams{Name: "Acme LLC"}); err != nil || len(again) != 0 {
		t.Fatalf("Create without the flag = %+v, %v; want the known name skipped", again, err)
	}
	beta := srv.AddCompany(acctadmintest.CompanyInput{Name: "Beta Inc"})
	_, err = c.Companies.Update(ctx, acctadmin.CompanyUpdateParams{CompanyID: beta.ID, Name: "Acme LLC"})
	if ae := (*acctadmin.APIError)(nil); !errors.As(err, &ae) || ae.StatusCode != http.StatusBadRequest {
		t.Fatalf("a rename to a taken name gave %v, want the API's 400", err)
	}
	changed, err := c.Companies.Update(ctx,
		acctadmin.CompanyUpdateParams{CompanyID: beta.ID, Name: "Acme LLC", Jurisdictions: []string{"Nevada"}, DuplicateNameAllowed: true},
		acctadmin.CompanyUpdateParams{CompanyID: old.ID, Jurisdictions: []string{"UT"}, DuplicateNameAllowed: true})
	if err != nil || len(changed) != 2 {
		t.Fatalf("Update = %+v, %v", changed, err)
	}
	for id, want := range map[uuid.UUID][]string{beta.ID: {"Nevada"}, old.ID: {"Utah"}} {
		co, err := c.Companies.Get(ctx, id)
		if err != nil || co.Name != "Acme LLC" || !reflect.DeepEqual(co.Jurisdictions, want) {
			t.Fatalf("Companies.Get(%s) = %+v, %v; want Acme LLC in %v", id, co, err, want)
		}
	}
}

// The fake nests the account under "account", as the real API does; the
// SDK reads it.
func TestIntegrationAccountNested(t *testing.T) {
	srv, c := emptyFake(t)
	site := srv.AddWebsite(acctadmintest.WebsiteInput{URL: "https://shop.example.com", Name: "Shop"})
	acct, err := c.Account.Get(context.Background())
	if err != nil || acct.Email != acctadmintest.DemoUserEmail || acct.WebsiteID != site.ID || acct.Type != "wholesale-registered-agent" ||
		!strings.Contains(string(acct.Raw), `"people"`) || strings.Contains(string(acct.Raw), `"account"`) {
		t.Fatalf("Account.Get = %+v (%s), %v", acct, acct.Raw, err)
	}
}

// On the fake, a payment-locked document's download, page and page URL
// are ErrPaymentRequired, a declined card is ErrPaymentDeclined wherever
// it is charged (and neither is the other), and Documents.Unlock with a
// good card charges the document's price, makes a paid invoice and
// releases it.
func TestFakeLockedDocumentUnlock(t *testing.T) {
	srv, c := fakeClient(t)
	ctx := context.Background()
	var doc acctadmintest.Document
	for _, d := range srv.Documents() {
		if d.PaymentLocked && d.Status == acctadmintest.DocumentUnread {
			doc = d
			break
		}
	}
	if doc.ID == uuid.Nil {
		t.Fatal("the demo has no unread payment-locked document")
	}
	refusals := map[string]error{}
	_, refusals["Download"] = c.Documents.Download(ctx, doc.ID)
	_, refusals["Page"] = c.Documents.Page(ctx, doc.ID, 0, nil)
	_, refusals["PageURL"] = c.Documents.PageURL(ctx, doc.ID, 0)
	_, refusals["BulkDownload"] = c.Documents.BulkDownload(ctx, doc.ID)
	for name, err := range refusals {
		var ae *acctadmin.APIError
		if !errors.Is(err, acctadmin.ErrPaymentRequired) || errors.Is(err, acctadmin.ErrPaymentDeclined) || !errors.As(err, &ae) || ae.StatusCode != 402 {
			t.Fatalf("%s of a locked document: %v, want ErrPaymentRequired (402)", name, err)
		}
	}

	declined, err := c.PaymentMethods.Store(ctx, &acctadmin.Card{Number: acctadmintest.DeclinedCardNumber, ExpMonth: 5, ExpYear: 2031, CVC: "123", FirstName: "Ada", LastName: "Lovelace"})
	if err != nil {
		t.Fatal(err)
	}
	invoices := len(srv.Invoices())
	charges := map[string]error{}
	_, charges["Unlock"] = c.Documents.Unlock(ctx, doc.ID, declined.ID)
	var unpaid uuid.UUID
	for _, inv := range srv.Invoices() {
		if inv.Status == acctadmintest.InvoiceUnpaid {
			unpaid = inv.ID
		}
	}
	_, charges["Invoices.Pay"] = c.Invoices.Pay(ctx, &acctadmin.InvoicePayParams{InvoiceIDs: []uuid.UUID{unpaid}, PaymentMethodID: declined.ID})
	for name, err := range charges {
		if !errors.Is(err, acctadmin.ErrPaymentDeclined) || errors.Is(err, acctadmin.ErrPaymentRequired) || errors.Is(err, acctadmin.ErrOutcomeUnknown) {
			t.Fatalf("%s with a declined card: %v, want ErrPaymentDeclined", name, err)
		}
	}
	if got, _ := srv.Document(doc.ID); !got.PaymentLocked || len(srv.Invoices()) != invoices {
		t.Fatalf("a declined card changed something: locked %v, %d invoices (was %d)", got.PaymentLocked, len(srv.Invoices()), invoices)
	}

	good, err := c.PaymentMethods.Store(ctx, &acctadmin.Card{Number: "4242424242424242", ExpMonth: 5, ExpYear: 2031, CVC: "123", FirstName: "Ada", LastName: "Lovelace"})
	if err != nil {
		t.Fatal(err)
	}
	listed, err := c.Documents.Get(ctx, doc.ID)
	if err != nil || !listed.PaymentLocked || listed.UnlockPrice.String() != acctadmintest.DefaultUnlockPrice {
		t.Fatalf("Documents.Get: %+v, %v", listed, err)
	}
	u, err := c.Documents.Unlock(ctx, doc.ID, good.ID)
	if err != nil || u.Action != "capture" || !u.Amount.Equal(listed.UnlockPrice) || len(u.InvoiceIDs) != 1 {
		t.Fatalf("Unlock: %+v, %v", u, err)
	}
	inv, err := c.Invoices.Get(ctx, u.InvoiceIDs[0])
	if err != nil || inv.Status != acctadmin.InvoicePaid || !inv.Total().Equal(u.Amount) {
		t.Fatalf("the unlock's invoice: %+v, %v", inv, err)
	}
	f, err := c.Documents.Download(ctx, doc.ID)
	if err != nil {
		t.Fatalf("download after the unlock: %v", err)
	}
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil || !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Fatalf("download after the unlock: %d bytes, %v", len(b), err)
	}
	if _, err := c.Documents.Unlock(ctx, doc.ID, good.ID); errors.Is(err, acctadmin.ErrPaymentDeclined) || err == nil {
		t.Fatalf("a second unlock: %v, want a refusal that is no decline", err)
	}
}
