package acctadmin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/google/uuid"
	"pgregory.net/rapid"
)

// The strings a caller passes travel as values: none can add a parameter,
// change the path, or split a header.
func TestStringsCannotInject(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv)
	for _, name := range []string{
		"Acme & Sons", "a&company_id=00000000-0000-0000-0000-000000000001", "x#fragment", "../../callbacks",
		"%2F..%2Fcallbacks", "line\r\nX-Injected: 1", "Ütah Ünïcode ☃", "a=b;c=d", "+plus+", "",
	} {
		if _, err := c.Services.List(context.Background(), &ServiceListParams{Company: name}); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		r := srv.last(t)
		q, err := url.ParseQuery(r.RawQuery)
		if err != nil {
			t.Fatalf("%q: the query does not parse: %v", name, err)
		}
		if r.Path != "/services" || r.Header.Get("X-Injected") != "" {
			t.Errorf("%q: path %q, headers %v", name, r.Path, r.Header)
		}
		if name == "" {
			if q.Has("company") {
				t.Errorf("an empty company was sent")
			}
			continue
		}
		if got := q["company"]; len(got) != 1 || got[0] != name || q.Has("company_id") {
			t.Errorf("%q arrived as %v", name, q)
		}
	}
	// A website URL is a value too, whatever it holds.
	for _, u := range []string{"https://example.com/a b?x=1&y=2#z", "https://例え.jp/パス"} {
		_, _ = c.Websites.Get(context.Background(), u)
		q, _ := url.ParseQuery(srv.last(t).RawQuery)
		if q.Get("url") != u || len(q) != 1 {
			t.Errorf("url %q arrived as %v", u, q)
		}
	}
}

// writeCall drives one write route's method with parameters drawn by t:
// zero values, parts filled, and whole.
type writeCall struct {
	rt   *route
	call func(t *rapid.T, ctx context.Context, c *Client)
}

// Draws of the values the write params hold: each may be zero.
func drawStr(t *rapid.T, label string) string {
	return rapid.SampledFrom([]string{"", "Acme LLC", "Florida", "null", "Limited Liability Company"}).Draw(t, label)
}

func drawID(t *rapid.T, label string) uuid.UUID {
	return rapid.SampledFrom([]uuid.UUID{uuid.Nil, rcID, wcCompany}).Draw(t, label)
}

func drawIDs(t *rapid.T, label string) []uuid.UUID {
	return rapid.SampledFrom([][]uuid.UUID{nil, {}, {rcID}, {rcID, wcCompany}}).Draw(t, label)
}

func drawStrs(t *rapid.T, label string) []string {
	return rapid.SampledFrom([][]string{nil, {}, {"Florida"}, {"Oregon", "Texas"}}).Draw(t, label)
}

func drawSecret(t *rapid.T, label string) Secret {
	return rapid.SampledFrom([]Secret{"", "pw-Hunter2-secret", "4242424242424242", "987"}).Draw(t, label)
}

func drawForm(t *rapid.T, label string) any {
	return rapid.SampledFrom([]any{nil, map[string]any{}, map[string]any{"ssn": "123-45-6789", "start_date": "2024-01-01"},
		struct {
			Name string `json:"name"`
		}{"Acme LLC"}}).Draw(t, label)
}

func drawCard(t *rapid.T) *Card {
	// A card the SDK refuses sends nothing, so most cards drawn are whole
	// and only the optional fields vary: otherwise the family could pass
	// without one card sent (a nil card is still drawn now and then).
	if rapid.IntRange(0, 7).Draw(t, "nil card") == 0 {
		return nil
	}
	return &Card{Number: "4242 4242 4242 4242", ExpMonth: 5, ExpYear: 2029,
		CVC:       rapid.SampledFrom([]Secret{"", "987"}).Draw(t, "cvc"),
		FirstName: drawStr(t, "first_name"), LastName: drawStr(t, "last_name"),
		BillingAddress: BillingAddress{Address1: drawStr(t, "address1"), City: drawStr(t, "city")}}
}

func drawServiceAddress(t *rapid.T) ServiceAddress {
	return ServiceAddress{Line1: drawStr(t, "line_1"), City: drawStr(t, "city"), StateProvinceRegion: drawStr(t, "state")}
}

// writeCalls drives every write route's method.
func writeCalls() []writeCall {
	return []writeCall{
		{routeAuthLogin, func(t *rapid.T, ctx context.Context, c *Client) {
			_, _ = c.Auth.Login(ctx, &LoginParams{Email: drawStr(t, "email"), Password: drawSecret(t, "password"), WebsiteID: drawID(t, "website_id")})
		}},
		{routeAuthForgotPassword, func(t *rapid.T, ctx context.Context, c *Client) {
			_ = c.Auth.ForgotPassword(ctx, &ForgotPasswordParams{EmailAddress: drawStr(t, "email_address"), WebsiteID: drawID(t, "website_id"),
				Subdomain: drawStr(t, "subdomain")})
		}},
		{routeAuthResetPassword, func(t *rapid.T, ctx context.Context, c *Client) {
			pw := drawSecret(t, "password")
			_ = c.Auth.ResetPassword(ctx, &ResetPasswordParams{Token: drawSecret(t, "token"), Password: pw,
				PasswordConfirmation: rapid.SampledFrom([]Secret{"", pw}).Draw(t, "confirmation")})
		}},
		{routeCallbacksCreate, func(t *rapid.T, ctx context.Context, c *Client) {
			_, _ = c.Callbacks.Create(ctx, rapid.SampledFrom([]string{"", "https://example.com/hook"}).Draw(t, "url"))
		}},
		{routeCallbacksDelete, func(t *rapid.T, ctx context.Context, c *Client) { _ = c.Callbacks.Delete(ctx, drawID(t, "id")) }},
		{routeCompaniesCreate, func(t *rapid.T, ctx context.Context, c *Client) {
			var cs []CompanyCreateParams
			for i := rapid.IntRange(0, 3).Draw(t, "companies"); i > 0; i-- {
				cs = append(cs, CompanyCreateParams{Name: drawStr(t, "name"), HomeState: drawStr(t, "home_state"), EntityType: drawStr(t, "entity_type"),
					Jurisdictions: drawStrs(t, "jurisdictions")})
			}
			if len(cs) > 0 {
				allowed := rapid.Bool().Draw(t, "duplicate_name_allowed")
				for i := range cs {
					cs[i].DuplicateNameAllowed = allowed
				}
			}
			_, _ = c.Companies.Create(ctx, cs...)
		}},
		{routeCompaniesUpdate, func(t *rapid.T, ctx context.Context, c *Client) {
			var us []CompanyUpdateParams
			for i := rapid.IntRange(0, 3).Draw(t, "updates"); i > 0; i-- {
				us = append(us, CompanyUpdateParams{Company: drawStr(t, "company"), CompanyID: drawID(t, "company_id"), Name: drawStr(t, "name"),
					EntityType: drawStr(t, "entity_type"), HomeState: drawStr(t, "home_state"), Jurisdictions: drawStrs(t, "jurisdictions")})
			}
			_, _ = c.Companies.Update(ctx, us...)
		}},
		{routeDocumentsUnlock, func(t *rapid.T, ctx context.Context, c *Client) {
			_, _ = c.Documents.Unlock(ctx, drawID(t, "id"), drawID(t, "payment_token"))
		}},
		{routeInvoicesPay, func(t *rapid.T, ctx context.Context, c *Client) {
			_, _ = c.Invoices.Pay(ctx, &InvoicePayParams{InvoiceIDs: drawIDs(t, "invoice_ids"), PaymentMethodID: drawID(t, "payment_token")})
		}},
		{routeOrderItemsSubmitFormData, func(t *rapid.T, ctx context.Context, c *Client) {
			_, _ = c.OrderItems.SubmitFormData(ctx, &OrderItemFormDataParams{CompanyID: drawID(t, "company_id"), OrderItemID: drawID(t, "order_item_id"),
				FormData: drawForm(t, "form_data")})
		}},
		{routePaymentMethodsCreate, func(t *rapid.T, ctx context.Context, c *Client) { _, _ = c.PaymentMethods.Create(ctx, drawCard(t)) }},
		{routePaymentMethodsUpdate, func(t *rapid.T, ctx context.Context, c *Client) {
			_, _ = c.PaymentMethods.Update(ctx, drawID(t, "id"), drawCard(t))
		}},
		{routePaymentMethodsDelete, func(t *rapid.T, ctx context.Context, c *Client) { _ = c.PaymentMethods.Delete(ctx, drawID(t, "id")) }},
		{routeServicesCreate, func(t *rapid.T, ctx context.Context, c *Client) {
			_, _ = c.Services.Create(ctx, &ServiceCreateParams{Company: drawStr(t, "company"), CompanyID: drawID(t, "company_id"),
				Jurisdictions: drawStrs(t, "jurisdictions"), JurisdictionIDs: drawIDs(t, "jurisdiction_ids")})
		}},
		{routeServicesAddInfo, func(t *rapid.T, ctx context.Context, c *Client) {
			info := &ServiceInfo{}
			if rapid.Bool().Draw(t, "contact") {
				info.ContactPerson = &ServiceContact{FirstName: drawStr(t, "first_name"), Email: drawStr(t, "email"), Address: drawServiceAddress(t)}
			}
			for i := rapid.IntRange(0, 2).Draw(t, "directors"); i > 0; i-- {
				info.Directors = append(info.Directors, ServiceOfficer{Role: drawStr(t, "role"), LastName: drawStr(t, "last_name"), Address: drawServiceAddress(t)})
			}
			if rapid.Bool().Draw(t, "nil info") {
				info = nil
			}
			_, _ = c.Services.AddInfo(ctx, drawID(t, "id"), info)
		}},
		{routeServicesCancel, func(t *rapid.T, ctx context.Context, c *Client) {
			_, _ = c.Services.RequestCancellation(ctx, drawID(t, "id"))
		}},
		{routeCartAdd, func(t *rapid.T, ctx context.Context, c *Client) {
			_, _ = c.ShoppingCart.Add(ctx, &CartAddParams{CompanyID: drawID(t, "company_id"), ProductID: drawID(t, "product_id"),
				ProductOptionID: drawID(t, "product_option_id"), Quantity: rapid.IntRange(0, 2).Draw(t, "quantity"), FormData: drawForm(t, "form_data")})
		}},
		{routeCartRemove, func(t *rapid.T, ctx context.Context, c *Client) {
			_ = c.ShoppingCart.Remove(ctx, &CartRemoveParams{CompanyIDs: drawIDs(t, "company_ids"), ItemIDs: drawIDs(t, "item_ids")})
		}},
		{routeCartCheckout, func(t *rapid.T, ctx context.Context, c *Client) {
			_, _ = c.ShoppingCart.Checkout(ctx, &CheckoutParams{ItemIDs: drawIDs(t, "item_ids"), CompanyIDs: drawIDs(t, "company_ids"),
				PaymentMethodID: drawID(t, "payment_token")})
		}},
	}
}

// nullAt returns the JSON path of the first null in v, a decoded JSON
// value, or "" when it holds none.
func nullAt(v any, path string) string {
	switch v := v.(type) {
	case nil:
		return path
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p := nullAt(v[k], path+"."+k); p != "" {
				return p
			}
		}
	case []any:
		for i, item := range v {
			if p := nullAt(item, fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	}
	return ""
}

// The real API refuses an explicit null where it takes the key absent
// (spec/recorded-behaviour.md, C1). No write the SDK sends holds a JSON
// null anywhere in its body, whatever its params leave zero: every write
// route's method, on a generated family of params.
func TestWritesNeverSendNull(t *testing.T) {
	calls := writeCalls()
	drives := map[*route]bool{}
	for _, wc := range calls {
		drives[wc.rt] = true
	}
	for _, rt := range routes {
		if rt.method != http.MethodGet && !drives[rt] {
			t.Errorf("no generated params for the write %s %s (%s): add it to writeCalls", rt.method, rt.pattern, rt.operation)
		}
	}
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv, WithMaxRetries(0))
	sent := map[*route]int{}
	rapid.Check(t, func(t *rapid.T) {
		for _, wc := range calls {
			before := srv.count()
			wc.call(t, context.Background(), c)
			reqs := srv.requests()
			for _, r := range reqs[before:] {
				sent[wc.rt]++
				if r.Body == "" {
					continue
				}
				dec := json.NewDecoder(strings.NewReader(r.Body))
				dec.UseNumber()
				var v any
				if err := dec.Decode(&v); err != nil {
					t.Fatalf("%s: body is not JSON: %v", wc.rt.operation, err)
				}
				if p := nullAt(v, "body"); p != "" {
					t.Fatalf("%s sent null at %s: %s", wc.rt.operation, p, r.Body)
				}
			}
		}
	})
	// Every route was sent, not only refused before sending.
	for _, wc := range calls {
		if sent[wc.rt] == 0 {
			t.Errorf("%s: no request sent in the whole family", wc.rt.operation)
		}
	}
}

// The recorded case: a company with its name alone goes without
// jurisdictions, home_state and duplicate_name_allowed, not with them
// null (spec/recorded-behaviour.md, C1).
func TestCompanyCreateLeavesZeroKeysOut(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv)
	if _, err := c.Companies.Create(context.Background(), CompanyCreateParams{Name: "TEST Acme LLC"}); err != nil {
		t.Fatal(err)
	}
	if body := srv.last(t).Body; body != `{"companies":[{"name":"TEST Acme LLC"}]}` {
		t.Fatalf("body %s", body)
	}
	if _, err := c.Companies.Update(context.Background(), CompanyUpdateParams{CompanyID: rcID, Name: "TEST Acme 2"}); err != nil {
		t.Fatal(err)
	}
	if body := srv.last(t).Body; body != `{"companies":[{"company_id":"`+rcID.String()+`","name":"TEST Acme 2"}]}` {
		t.Fatalf("body %s", body)
	}
}
