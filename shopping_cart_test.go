package acctadmin

import (
	"context"
	"testing"

	"github.com/google/uuid"
)

// Bad parameters of ShoppingCart are refused before anything is sent, by a
// *ValidationError naming the field as the API spells it.
func TestShoppingCartRefusesBadParams(t *testing.T) {
	checkRefused(t, []badParams{
		{"cart list nil company", "company_ids", func(ctx context.Context, c *Client) error {
			_, err := c.ShoppingCart.List(ctx, &CartListParams{CompanyIDs: uuids(uuid.Nil)})
			return err
		}},
		{"cart add without product", "product_id", func(ctx context.Context, c *Client) error {
			_, err := c.ShoppingCart.Add(ctx, &CartAddParams{CompanyID: wcCompany})
			return err
		}},
		{"cart add negative quantity", "quantity", func(ctx context.Context, c *Client) error {
			_, err := c.ShoppingCart.Add(ctx, &CartAddParams{CompanyID: wcCompany, ProductID: wcProduct, Quantity: -1})
			return err
		}},
		{"cart add form data not an object", "form_data", func(ctx context.Context, c *Client) error {
			_, err := c.ShoppingCart.Add(ctx, &CartAddParams{CompanyID: wcCompany, ProductID: wcProduct, FormData: []string{"x"}})
			return err
		}},
		{"cart remove nothing", "item_ids", func(ctx context.Context, c *Client) error { return c.ShoppingCart.Remove(ctx, nil) }},
		{"checkout without card", "payment_token", func(ctx context.Context, c *Client) error {
			_, err := c.ShoppingCart.Checkout(ctx, &CheckoutParams{ItemIDs: uuids(wcItem)})
			return err
		}},
		{"checkout without items", "item_ids", func(ctx context.Context, c *Client) error {
			_, err := c.ShoppingCart.Checkout(ctx, &CheckoutParams{PaymentMethodID: wcCard})
			return err
		}},
	})
}
