package acctadmin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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

// AddItem returns the item added whatever the answer holds, and refuses
// to guess between two new items of the product; Store finds the card the
// status answer does not hold, beside an older card of the same digits.
func TestAddItemAndStoreFindWhatTheyMade(t *testing.T) {
	ctx := context.Background()
	os := newOrderServer()
	srv := newAPIServer(t, os.handle)
	c := newTestClient(t, srv)
	p := &CartAddParams{CompanyID: wcCompany, ProductID: wcProduct, ProductOptionID: wcMethod}
	for _, add := range []string{"item", "cart", "none"} {
		os.addAnswer = add
		n := srv.count()
		it, err := c.ShoppingCart.AddItem(ctx, p)
		if err != nil || it == nil || it.ID.String() != fmt.Sprint(os.cart[len(os.cart)-1]["id"]) {
			t.Fatalf("%s: got %+v, %v; want the last item", add, it, err)
		}
		if want := map[string]int{"item": 2, "cart": 2, "none": 3}[add]; srv.count()-n != want {
			t.Errorf("%s: %d requests, want %d", add, srv.count()-n, want)
		}
	}
	twice := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			os.mu.Lock()
			os.cart = append(os.cart, map[string]any{"id": uuid.New(), "company_id": wcCompany, "product_id": wcProduct, "product_option_id": wcMethod})
			os.mu.Unlock()
		}
		os.handle(w, r)
	})
	os.addAnswer = "none"
	if it, err := newTestClient(t, twice).ShoppingCart.AddItem(ctx, p); !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("two new items: got %+v, %v; want ErrAmbiguous", it, err)
	}

	card := &Card{Number: "4111111111111111", ExpMonth: 5, ExpYear: 2029, CVC: "123"}
	os.cards = append(os.cards, map[string]any{"id": uuid.New(), "last4": "1111", "exp_month": 5, "exp_year": 2029})
	for _, reply := range []string{"status", "card"} {
		os.cardReply = reply
		pm, err := c.PaymentMethods.Store(ctx, card)
		if err != nil || pm == nil || pm.ID.String() != fmt.Sprint(os.cards[len(os.cards)-1]["id"]) {
			t.Fatalf("%s: got %+v, %v; want the new card", reply, pm, err)
		}
	}
}
