package acctadmin

import (
	"context"
	"testing"
)

// Bad parameters of FilingMethods are refused before anything is sent, by a
// *ValidationError naming the field as the API spells it.
func TestFilingMethodsRefuseBadParams(t *testing.T) {
	checkRefused(t, []badParams{
		{"methods without product", "filing_product_id", func(ctx context.Context, c *Client) error {
			_, err := c.FilingMethods.List(ctx, &FilingMethodListParams{CompanyID: wcCompany, Jurisdiction: "UT"})
			return err
		}},
		{"schemas without method", "filing_method_id", func(ctx context.Context, c *Client) error {
			_, err := c.FilingMethods.Schemas(ctx, &FormSchemaParams{CompanyID: wcCompany})
			return err
		}},
	})
}
