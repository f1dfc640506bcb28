package acctadmin

import (
	"context"
	"testing"
)

// Bad parameters of SimpleProducts are refused before anything is sent, by a
// *ValidationError naming the field as the API spells it.
func TestSimpleProductsRefuseBadParams(t *testing.T) {
	checkRefused(t, []badParams{
		{"simple products without url", "url", func(ctx context.Context, c *Client) error { _, err := c.SimpleProducts.List(ctx, nil); return err }},
	})
}
