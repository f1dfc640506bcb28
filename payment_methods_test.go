package acctadmin

import (
	"context"
	"testing"

	"github.com/google/uuid"
)

// Bad parameters of PaymentMethods are refused before anything is sent, by a
// *ValidationError naming the field as the API spells it.
func TestPaymentMethodsRefuseBadParams(t *testing.T) {
	checkRefused(t, []badParams{
		{"card without number", "number", func(ctx context.Context, c *Client) error {
			_, err := c.PaymentMethods.Create(ctx, badCard(func(k *Card) { k.Number = "" }))
			return err
		}},
		{"card number not digits", "number", func(ctx context.Context, c *Client) error {
			_, err := c.PaymentMethods.Create(ctx, badCard(func(k *Card) { k.Number = "4242-4242-4242-4242" }))
			return err
		}},
		{"card month 13", "exp_month", func(ctx context.Context, c *Client) error {
			_, err := c.PaymentMethods.Create(ctx, badCard(func(k *Card) { k.ExpMonth = 13 }))
			return err
		}},
		{"card year 29", "exp_year", func(ctx context.Context, c *Client) error {
			_, err := c.PaymentMethods.Create(ctx, badCard(func(k *Card) { k.ExpYear = 29 }))
			return err
		}},
		{"card cvc short", "cvc", func(ctx context.Context, c *Client) error {
			_, err := c.PaymentMethods.Update(ctx, wcCard, badCard(func(k *Card) { k.CVC = "12" }))
			return err
		}},
		{"card update nil id", "id", func(ctx context.Context, c *Client) error {
			_, err := c.PaymentMethods.Update(ctx, uuid.Nil, wcCardParams())
			return err
		}},
		{"card delete nil id", "id", func(ctx context.Context, c *Client) error { return c.PaymentMethods.Delete(ctx, uuid.Nil) }},
	})
}

// The real API answers the create and the update of a card with
// result {status_code, success}, not the card: Create and Update return
// no card then (not a card without an id), after one request; Delete
// succeeds.
func TestPaymentMethodWritesAnsweredWithStatus(t *testing.T) {
	srv := newAPIServer(t, ok(`{"status_code":200,"success":true}`))
	c := newTestClient(t, srv)
	ctx := context.Background()
	pm, err := c.PaymentMethods.Create(ctx, wcCardParams())
	if err != nil || pm != nil {
		t.Fatalf("Create = %+v, %v; want no card and no error", pm, err)
	}
	pm, err = c.PaymentMethods.Update(ctx, wcCard, wcCardParams())
	if err != nil || pm != nil {
		t.Fatalf("Update = %+v, %v; want no card and no error", pm, err)
	}
	if err := c.PaymentMethods.Delete(ctx, wcCard); err != nil {
		t.Fatal(err)
	}
	if n := srv.count(); n != 3 {
		t.Fatalf("%d requests, want 3", n)
	}
}
