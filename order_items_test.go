package acctadmin

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"
)

// Bad parameters of OrderItems are refused before anything is sent, by a
// *ValidationError naming the field as the API spells it.
func TestOrderItemsRefuseBadParams(t *testing.T) {
	checkRefused(t, []badParams{
		{"order items nil company", "company_ids", func(ctx context.Context, c *Client) error {
			_, err := c.OrderItems.ListRequiringAttention(ctx, &OrderItemListParams{CompanyIDs: uuids(uuid.Nil)})
			return err
		}},
		{"form data missing", "form_data", func(ctx context.Context, c *Client) error {
			_, err := c.OrderItems.SubmitFormData(ctx, &OrderItemFormDataParams{CompanyID: wcCompany, OrderItemID: wcOrder})
			return err
		}},
		{"form data without item", "order_item_id", func(ctx context.Context, c *Client) error {
			_, err := c.OrderItems.SubmitFormData(ctx, &OrderItemFormDataParams{CompanyID: wcCompany, FormData: map[string]any{}})
			return err
		}},
	})
}

// An order item's created_at and updated_at come as epoch numbers from
// the real API (a TypeScript client types them so) and as the usual time
// text from others: both are read, in seconds or milliseconds, with a
// fraction or without.
func TestOrderItemTimesAsEpochNumbers(t *testing.T) {
	at := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, created, updated string
		wantCreated            time.Time
	}{
		{"seconds", `1714557600`, `"2024-05-01 04:00:00 -0600"`, at},
		{"milliseconds", `1714557600000`, `1714557600`, at},
		{"fraction", `1714557600.5`, `1714557600`, at.Add(500 * time.Millisecond)},
		{"text", `"2024-05-01 04:00:00 -0600"`, `"2024-05-01T10:00:00Z"`, at},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(`[{"id":"`+wcOrder.String()+`","created_at":`+tc.created+`,"updated_at":`+tc.updated+`,"status":"new"}]`))
			items, err := newTestClient(t, srv).OrderItems.ListRequiringAttention(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(items) != 1 || !items[0].CreatedAt.Equal(tc.wantCreated) || !items[0].UpdatedAt.Equal(at) {
				t.Fatalf("got %+v, want created %v, updated %v", items, tc.wantCreated, at)
			}
		})
	}
	srv := newAPIServer(t, ok(`[{"id":"`+wcOrder.String()+`","created_at":true}]`))
	if _, err := newTestClient(t, srv).OrderItems.ListRequiringAttention(context.Background(), nil); err == nil {
		t.Fatal("a boolean time was read")
	}
}

// OrderItemListParams.CompanyID sends the one company_id a TypeScript
// client sends; CompanyIDs still sends the provider's company_ids[].
func TestOrderItemsOneCompanyID(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv)
	if _, err := c.OrderItems.ListRequiringAttention(context.Background(), &OrderItemListParams{CompanyID: wcCompany}); err != nil {
		t.Fatal(err)
	}
	q, _ := url.ParseQuery(srv.last(t).RawQuery)
	if len(q) != 1 || q.Get("company_id") != wcCompany.String() {
		t.Fatalf("query %v, want company_id=%s alone", q, wcCompany)
	}
	if _, err := c.OrderItems.ListRequiringAttention(context.Background(), &OrderItemListParams{CompanyIDs: []uuid.UUID{wcCompany}}); err != nil {
		t.Fatal(err)
	}
	if q, _ := url.ParseQuery(srv.last(t).RawQuery); q.Get("company_ids[]") != wcCompany.String() || q.Has("company_id") {
		t.Fatalf("query %v, want company_ids[] alone", q)
	}
}
