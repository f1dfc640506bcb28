package acctadmin

import (
	"context"
	"testing"
)

// Bad parameters of SignedForms are refused before anything is sent, by a
// *ValidationError naming the field as the API spells it.
func TestSignedFormsRefuseBadParams(t *testing.T) {
	checkRefused(t, []badParams{
		{"signed forms without method", "filing_method_id", func(ctx context.Context, c *Client) error { _, err := c.SignedForms.List(ctx, nil); return err }},
	})
}
