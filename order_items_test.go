package acctadmin

import (
	"context"
	"testing"

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
