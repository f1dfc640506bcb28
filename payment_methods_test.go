package acctadmin

import (
	"context"
	"testing"
)

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
