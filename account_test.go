package acctadmin

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestDashPanelCountsAsNumbersOrNumericStrings(t *testing.T) {
	for _, body := range []string{
		`{"companies":3,"active_services":4,"unread_documents":5,"unpaid_invoices":1,"unpaid_total":"12.50","items_requiring_attention":2}`,
		`{"companies":"3","active_services":"4","unread_documents":" 5","unpaid_invoices":"1","unpaid_total":12.50,"items_requiring_attention":"2"}`,
	} {
		var d DashPanel
		if err := json.Unmarshal([]byte(body), &d); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if d.Companies != 3 || d.ActiveServices != 4 || d.UnreadDocuments != 5 || d.UnpaidInvoices != 1 ||
			d.ItemsRequiringAttention != 2 || d.UnpaidTotal.String() != "12.50" || string(d.Raw) != body {
			t.Fatalf("%s: got %+v", body, d)
		}
	}
	var d DashPanel
	if err := json.Unmarshal([]byte(`{"companies":"three"}`), &d); err == nil {
		t.Fatal("a count that is no number decoded")
	}
}

// The real API nests the account under "account" (customers' clients read
// it so); the fake's earlier shape, the record itself, is read too.
func TestAccountGetNestedOrNot(t *testing.T) {
	const inner = `{"id":"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c01","website_id":"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c09","type":"business",
		"affiliate":null,"people":[{"first_name":"Ada","last_name":"Lovelace","person_emails":[{"email_address":"ada@example.com"}]}],
		"name":"Acme Holdings","email":"ops@example.com","created_at":"2024-01-02 03:04:05 +0000"}`
	for _, tc := range []struct{ name, result, raw string }{
		{"nested", `{"account":` + inner + `}`, inner},
		{"bare", inner, inner},
		{"nested with more beside it", `{"account":` + inner + `,"meta":{"v":2}}`, inner},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(tc.result))
			c := newTestClient(t, srv)
			a, err := c.Account.Get(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			requireSent(t, srv, http.MethodGet, "/account", "")
			if a.ID != uuid.MustParse("5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c01") || a.WebsiteID != uuid.MustParse("5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c09") ||
				a.Type != "business" || a.Name != "Acme Holdings" || a.Email != "ops@example.com" ||
				!a.CreatedAt.Equal(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)) {
				t.Fatalf("account %+v", a)
			}
			requireJSONBody(t, string(a.Raw), tc.raw)
		})
	}
}

func TestAccountUnwrapsOnlyAnAccountObject(t *testing.T) {
	for _, tc := range []struct{ name, in, id, typ string }{
		// A record with an id is the account, whatever else it holds.
		{"an id beside account", `{"id":"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c01","account":{"id":"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c02"}}`,
			"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c01", ""},
		{"account that is no object", `{"account":"x","type":"personal"}`, "00000000-0000-0000-0000-000000000000", "personal"},
		{"account null", `{"account":null,"type":"personal"}`, "00000000-0000-0000-0000-000000000000", "personal"},
		{"website id that is no UUID", `{"account":{"id":"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c02","website_id":42,"type":"t"}}`,
			"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c02", "t"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a Account
			if err := json.Unmarshal([]byte(tc.in), &a); err != nil {
				t.Fatal(err)
			}
			if a.ID.String() != tc.id || a.Type != tc.typ || a.WebsiteID != uuid.Nil {
				t.Fatalf("account %+v, want id %s type %q", a, tc.id, tc.typ)
			}
		})
	}
}
