package acctadmin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// ShoppingCartClient fills, empties and checks out the companies' carts.
type ShoppingCartClient service

var (
	routeCartList = declare(http.MethodGet, "/shopping-cart", "ShoppingCart.List")
	routeCartAdd  = declareOnce(http.MethodPost, "/shopping-cart", "ShoppingCart.Add",
		"ShoppingCart.List shows whether the item was added")
	routeCartRemove = declareOnce(http.MethodDelete, "/shopping-cart", "ShoppingCart.Remove",
		"ShoppingCart.List shows whether the items are still there")
	routeCartCheckout = declareOnce(http.MethodPost, "/shopping-cart/checkout", "ShoppingCart.Checkout",
		"Invoices.List shows whether invoices were made, and ShoppingCart.List whether the items left the cart").paying(charges)
)

// CartItem is a product in a company's shopping cart.
type CartItem struct {
	ID              uuid.UUID       `json:"id"`
	CreatedAt       time.Time       `json:"created_at"`
	UpdatedAt       time.Time       `json:"updated_at"`
	CompanyID       uuid.UUID       `json:"company_id"`
	AccountID       uuid.UUID       `json:"account_id"`
	ProductID       uuid.UUID       `json:"product_id"`
	ProductType     string          `json:"product_type"`
	ProductOptionID uuid.UUID       `json:"product_option_id"` // for a filing, its filing method
	Title           string          `json:"title"`             // as "Tax id filing service - Standard"
	Total           Money           `json:"total"`
	Quantity        int             `json:"quantity"`
	Status          string          `json:"status"` // "active" when it can be checked out
	Raw             json.RawMessage `json:"-"`      // the record exactly as the API sent it
}

// UnmarshalJSON reads a cart item as the API writes it, into Raw too.
func (it *CartItem) UnmarshalJSON(data []byte) error {
	type fields CartItem
	w := struct {
		*fields
		CreatedAt Time    `json:"created_at"`
		UpdatedAt Time    `json:"updated_at"`
		Quantity  flexInt `json:"quantity"`
	}{fields: (*fields)(it)}
	*it = CartItem{}
	err := readRecord(data, &w)
	it.CreatedAt, it.UpdatedAt, it.Quantity, it.Raw = w.CreatedAt.Time, w.UpdatedAt.Time, int(w.Quantity), keepRaw(data)
	return err
}

// CartListParams chooses the carts of CompanyIDs (nil: every company's).
type CartListParams struct {
	CompanyIDs []uuid.UUID
}

// List returns the items in the carts of p.CompanyIDs. GET /shopping-cart.
func (s *ShoppingCartClient) List(ctx context.Context, p *CartListParams) ([]CartItem, error) {
	p = orZero(p)
	if err := checkIDs("company_ids", p.CompanyIDs); err != nil {
		return nil, err
	}
	var items []CartItem
	if err := s.c.json(ctx, routeCartList.at(), new(query).ids("company_ids", p.CompanyIDs), nil, &items); err != nil {
		return nil, err
	}
	return items, nil
}

// CartAddParams puts a product in a cart: CompanyID, ProductID are required.
type CartAddParams struct {
	CompanyID       uuid.UUID `json:"company_id"`
	ProductID       uuid.UUID `json:"product_id"`                  // for a filing, a FilingProduct's ID
	ProductOptionID uuid.UUID `json:"product_option_id,omitempty"` // for a filing, one of its FilingMethods
	Quantity        int       `json:"quantity,omitempty"`          // 0 sends none: 1 for the API
	FormData        any       `json:"form_data,omitempty"`         // answers the filing's form now: a JSON object
}

// Add puts a product in a company's cart and returns the items the API
// answers with. Sent at most once (see the package doc). POST /shopping-cart.
func (s *ShoppingCartClient) Add(ctx context.Context, p *CartAddParams) ([]CartItem, error) {
	p = orZero(p)
	if err := p.check(); err != nil {
		return nil, err
	}
	var items answerList[CartItem]
	if err := s.c.json(ctx, routeCartAdd.at(), nil, bodyOf{p}, &items); err != nil {
		return nil, err
	}
	return []CartItem(items), nil
}

// CartRemoveParams chooses what Remove removes: the items ItemIDs, or
// every item of the companies CompanyIDs; at least one is required.
type CartRemoveParams struct {
	CompanyIDs []uuid.UUID `json:"company_ids,omitempty"`
	ItemIDs    []uuid.UUID `json:"item_ids,omitempty"`
}

// Remove takes the items p.ItemIDs, or every item of p.CompanyIDs, out of
// the carts. Sent at most once (see the package doc). DELETE /shopping-cart.
func (s *ShoppingCartClient) Remove(ctx context.Context, p *CartRemoveParams) error {
	p = orZero(p)
	if err := firstErr(checkSome("item_ids", len(p.ItemIDs) > 0, "company_ids", len(p.CompanyIDs) > 0),
		checkIDs("company_ids", p.CompanyIDs), checkIDs("item_ids", p.ItemIDs)); err != nil {
		return err
	}
	return s.c.json(ctx, routeCartRemove.at(), nil, p, nil)
}

// CheckoutParams pays for cart items with the card PaymentMethodID
// (required): the items ItemIDs, or every item of CompanyIDs, or both.
type CheckoutParams struct {
	ItemIDs         []uuid.UUID `json:"item_ids,omitempty"`
	CompanyIDs      []uuid.UUID `json:"company_ids,omitempty"`
	PaymentMethodID uuid.UUID   `json:"payment_token"`
}

// Checkout is what a checkout made.
type Checkout struct {
	InvoiceIDs []uuid.UUID // the invoices made (beside the envelope's result)
	Invoices   []Invoice   // the invoices in the result, if any (undocumented)
	OrderItems []OrderItem // the order items made, found by CheckoutOrder only
}

// Checkout charges the card for the chosen items, which makes invoices and
// order items; a declined card is ErrPaymentDeclined. Sent at most once
// (see the package doc). POST /shopping-cart/checkout.
func (s *ShoppingCartClient) Checkout(ctx context.Context, p *CheckoutParams) (*Checkout, error) {
	p = orZero(p)
	if err := p.check(); err != nil {
		return nil, err
	}
	var out Checkout
	if err := s.c.json(ctx, routeCartCheckout.at(), nil, p, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// decodeEnvelope reads the result's invoices and the invoice ids beside it.
func (a *Checkout) decodeEnvelope(endpoint string, body []byte) (bool, error) {
	success, _, err := decodeEnvelopeInto(endpoint, body, (*answerList[Invoice])(&a.Invoices))
	ids := struct {
		InvoiceIDs *[]uuid.UUID `json:"invoice_ids"`
	}{&a.InvoiceIDs}
	if err == nil {
		err = decodeJSON(endpoint, body, &ids)
	}
	return success && err == nil, err
}

// check is what Add and AddItem check before sending.
func (p *CartAddParams) check() error {
	return firstErr(checkNotNegative("quantity", p.Quantity), checkID("company_id", p.CompanyID),
		checkID("product_id", p.ProductID), checkFormData("form_data", p.FormData, false))
}

// check is what Checkout and CheckoutOrder check before sending.
func (p *CheckoutParams) check() error {
	return firstErr(checkID("payment_token", p.PaymentMethodID),
		checkSome("item_ids", len(p.ItemIDs) > 0, "company_ids", len(p.CompanyIDs) > 0),
		checkIDs("item_ids", p.ItemIDs), checkIDs("company_ids", p.CompanyIDs))
}

// AddItem adds as Add does and returns the new item of that product (and
// option), in the answer or the cart listed after. GET, POST /shopping-cart.
func (s *ShoppingCartClient) AddItem(ctx context.Context, p *CartAddParams) (*CartItem, error) {
	if p = orZero(p); ctx == nil || p.check() != nil {
		_, err := s.Add(ctx, p) // refused before sending
		return nil, err
	}
	cart := &CartListParams{CompanyIDs: []uuid.UUID{p.CompanyID}}
	before, err := s.List(ctx, cart)
	if err != nil {
		return nil, err
	}
	answer, err := s.Add(ctx, p)
	if err != nil {
		return nil, err
	}
	fits := func(it CartItem) bool {
		return it.CompanyID == p.CompanyID && it.ProductID == p.ProductID &&
			(p.ProductOptionID == uuid.Nil || it.ProductOptionID == p.ProductOptionID)
	}
	what := "new cart item of product " + p.ProductID.String()
	if it, err := made(before, answer, cartItemID, fits, what); err == nil {
		return it, nil
	}
	after, err := s.List(ctx, cart)
	if err != nil {
		return nil, fmt.Errorf("acctadmin: the item was added; listing the cart to find it: %w", err)
	}
	return made(before, after, cartItemID, fits, what+" in the cart listed after adding")
}

// CheckoutOrder checks out as Checkout does and fills OrderItems with the new
// items waiting for form data, or returns the Checkout with the listing's
// error. GET /order-items/requiring-attention, POST /shopping-cart/checkout.
func (s *ShoppingCartClient) CheckoutOrder(ctx context.Context, p *CheckoutParams) (*Checkout, error) {
	if p = orZero(p); ctx == nil || p.check() != nil {
		return s.Checkout(ctx, p) // refused before sending
	}
	before, err := s.c.OrderItems.ListRequiringAttention(ctx, nil)
	if err != nil {
		return nil, err
	}
	out, err := s.Checkout(ctx, p)
	if err != nil {
		return nil, err
	}
	after, err := s.c.OrderItems.ListRequiringAttention(ctx, nil)
	if err != nil {
		return out, fmt.Errorf("acctadmin: checked out; listing the order items it made: %w", err)
	}
	out.OrderItems = fresh(before, after, orderItemID)
	return out, nil
}

// personalValues are the form's values, which redaction takes out of answers.
func (p *CartAddParams) personalValues() []string { return formValues(p.FormData) }

// Format prints the params as fmt prints a struct, FormData redacted.
func (p CartAddParams) Format(f fmt.State, verb rune) {
	p.FormData = redactedForm(p.FormData)
	formatFields(f, verb, p, "acctadmin.CartAddParams")
}

// MarshalJSON writes the params as encoding/json would, FormData redacted.
func (p CartAddParams) MarshalJSON() ([]byte, error) {
	type plain CartAddParams
	p.FormData = redactedForm(p.FormData)
	return json.Marshal(plain(p))
}
