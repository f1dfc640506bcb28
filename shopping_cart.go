package acctadmin

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// ShoppingCartClient fills and empties the companies' shopping carts and
// checks them out: the way to order a filing (see the package docs,
// "Ordering a filing").
type ShoppingCartClient service

// The routes of the shopping cart.
var (
	routeCartList = declare(http.MethodGet, "/shopping-cart", "ShoppingCart.List")
	routeCartAdd  = declareOnce(http.MethodPost, "/shopping-cart", "ShoppingCart.Add",
		"ShoppingCart.List shows whether the item was added")
	routeCartRemove = declareOnce(http.MethodDelete, "/shopping-cart", "ShoppingCart.Remove",
		"ShoppingCart.List shows whether the items are still there")
	routeCartCheckout = declareOnce(http.MethodPost, "/shopping-cart/checkout", "ShoppingCart.Checkout",
		"Invoices.List shows whether invoices were made, and ShoppingCart.List whether the items left the cart")
)

// CartItem is a product in a company's shopping cart. Its shape is known
// from the provider's C# model only; the fields are typed as it has them
// and the whole record is kept in Raw.
type CartItem struct {
	ID        uuid.UUID `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	CompanyID uuid.UUID `json:"company_id"`
	AccountID uuid.UUID `json:"account_id"`
	// ProductID is the filing (or other) product; ProductOptionID the
	// chosen option, for a filing its filing method.
	ProductID       uuid.UUID `json:"product_id"`
	ProductType     string    `json:"product_type"`
	ProductOptionID uuid.UUID `json:"product_option_id"`
	// Title names the product and option, as
	// "Tax id filing service - Standard".
	Title    string `json:"title"`
	Total    Money  `json:"total"`
	Quantity int    `json:"quantity"`
	// Status is "active" for an item that can be checked out.
	Status string `json:"status"`
	// Raw is the record exactly as the API sent it.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the known fields and keeps the whole record in Raw.
func (it *CartItem) UnmarshalJSON(data []byte) error {
	return decodeRecord[cartItemWire](data, it, &it.Raw)
}

type plainCartItem CartItem

type cartItemWire struct {
	plainCartItem
	CreatedAt       Time       `json:"created_at"`
	UpdatedAt       Time       `json:"updated_at"`
	ProductOptionID *uuid.UUID `json:"product_option_id"`
	Quantity        flexInt    `json:"quantity"`
}

func (w cartItemWire) record() CartItem {
	it := CartItem(w.plainCartItem)
	it.CreatedAt, it.UpdatedAt = w.CreatedAt.Time, w.UpdatedAt.Time
	if w.ProductOptionID != nil {
		it.ProductOptionID = *w.ProductOptionID
	}
	it.Quantity = int(w.Quantity)
	return it
}

// CartListParams chooses the carts of GET /shopping-cart.
type CartListParams struct {
	// CompanyIDs are the companies whose carts to list; nil lists the
	// carts of every company of the account.
	CompanyIDs []uuid.UUID
}

// List returns the items in the carts of p.CompanyIDs.
// GET /shopping-cart.
func (s *ShoppingCartClient) List(ctx context.Context, p *CartListParams) ([]CartItem, error) {
	if p == nil {
		p = &CartListParams{}
	}
	if err := checkIDs("company_ids", p.CompanyIDs); err != nil {
		return nil, err
	}
	q := &query{}
	q.ids("company_ids", p.CompanyIDs)
	return call[[]CartItem](ctx, s.c, routeCartList.at(), q, nil)
}

// CartAddParams puts a product in a company's cart. CompanyID and
// ProductID are required; zero values are not sent.
type CartAddParams struct {
	CompanyID uuid.UUID
	// ProductID is the product (for a filing, a FilingProduct's ID).
	ProductID uuid.UUID
	// ProductOptionID is the chosen option: for a filing, the ID of a
	// FilingMethod of the product.
	ProductOptionID uuid.UUID
	// Quantity is how many; zero sends none, which the API reads as 1.
	Quantity int
	// FormData, when set, answers the filing's form now (a value that
	// encodes as a JSON object, such as a map or a struct; see
	// FilingMethodsClient.Schemas), so that the order item does not wait
	// for it after checkout. It may hold personal data.
	FormData any
}

func (p *CartAddParams) validate() error {
	if p.Quantity < 0 {
		return invalid("quantity", "must not be negative, got %d", p.Quantity)
	}
	return firstErr(checkID("company_id", p.CompanyID), checkID("product_id", p.ProductID), checkFormData("form_data", p.FormData, false))
}

// Add puts a product in a company's cart and returns the items the API
// answers with (the cart's items, or the one added; none when it sends
// neither). It is sent at most once: a failure after the request may
// have arrived is ErrOutcomeUnknown, and ShoppingCart.List shows whether
// the item was added. POST /shopping-cart.
func (s *ShoppingCartClient) Add(ctx context.Context, p *CartAddParams) ([]CartItem, error) {
	if p == nil {
		p = &CartAddParams{}
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	body := struct {
		CompanyID       uuid.UUID  `json:"company_id"`
		ProductID       uuid.UUID  `json:"product_id"`
		ProductOptionID *uuid.UUID `json:"product_option_id,omitempty"`
		Quantity        int        `json:"quantity,omitempty"`
		FormData        any        `json:"form_data,omitempty"`
	}{p.CompanyID, p.ProductID, optID(p.ProductOptionID), p.Quantity, p.FormData}
	items, err := call[recordsOrOne[CartItem]](ctx, s.c, routeCartAdd.at(), nil, body)
	return []CartItem(items), err
}

// CartRemoveParams chooses what DELETE /shopping-cart removes: the items
// ItemIDs, or every item of the companies CompanyIDs; at least one of the
// two is required.
type CartRemoveParams struct {
	CompanyIDs []uuid.UUID
	ItemIDs    []uuid.UUID
}

// Remove takes items out of the carts: the items p.ItemIDs, or, given
// only p.CompanyIDs, every item in those companies' carts. The
// parameters travel in a signed JSON body, as three of the provider's
// four example clients send them. It is sent at most once: a failure
// after the request may have arrived is ErrOutcomeUnknown, and
// ShoppingCart.List shows whether the items are still there.
// DELETE /shopping-cart.
func (s *ShoppingCartClient) Remove(ctx context.Context, p *CartRemoveParams) error {
	if p == nil {
		p = &CartRemoveParams{}
	}
	if err := firstErr(
		checkSome("item_ids", len(p.ItemIDs) > 0, "company_ids", len(p.CompanyIDs) > 0),
		checkIDs("company_ids", p.CompanyIDs), checkIDs("item_ids", p.ItemIDs),
	); err != nil {
		return err
	}
	body := struct {
		CompanyIDs []uuid.UUID `json:"company_ids,omitempty"`
		ItemIDs    []uuid.UUID `json:"item_ids,omitempty"`
	}{p.CompanyIDs, p.ItemIDs}
	_, err := call[ignored](ctx, s.c, routeCartRemove.at(), nil, body)
	return err
}

// CheckoutParams pays for cart items: PaymentMethodID is required, and at
// least one of ItemIDs (those items) and CompanyIDs (every item in those
// companies' carts).
type CheckoutParams struct {
	ItemIDs    []uuid.UUID
	CompanyIDs []uuid.UUID
	// PaymentMethodID is the card to charge, the ID of a PaymentMethod
	// (the API's payment_token).
	PaymentMethodID uuid.UUID
}

// Checkout is what a checkout made.
type Checkout struct {
	// InvoiceIDs are the invoices the checkout made, read from beside the
	// envelope's result, where the API puts them.
	InvoiceIDs []uuid.UUID
	// Invoices are the invoices in the result, when the API sends them
	// there (it is not documented to).
	Invoices []Invoice
}

// Checkout charges the payment method for the chosen items, which makes
// invoices and the order items of the products (see
// OrderItemsClient.ListRequiringAttention). It is sent at most once: a
// failure after the request may have arrived is ErrOutcomeUnknown, and
// then Invoices.List shows whether invoices were made and
// ShoppingCart.List whether the items left the cart; do not simply try
// again, or the card may be charged twice.
// POST /shopping-cart/checkout.
func (s *ShoppingCartClient) Checkout(ctx context.Context, p *CheckoutParams) (*Checkout, error) {
	if p == nil {
		p = &CheckoutParams{}
	}
	if err := firstErr(
		checkID("payment_token", p.PaymentMethodID),
		checkSome("item_ids", len(p.ItemIDs) > 0, "company_ids", len(p.CompanyIDs) > 0),
		checkIDs("item_ids", p.ItemIDs), checkIDs("company_ids", p.CompanyIDs),
	); err != nil {
		return nil, err
	}
	body := struct {
		CompanyIDs   []uuid.UUID `json:"company_ids,omitempty"`
		ItemIDs      []uuid.UUID `json:"item_ids,omitempty"`
		PaymentToken uuid.UUID   `json:"payment_token"`
	}{p.CompanyIDs, p.ItemIDs, p.PaymentMethodID}
	type top struct {
		InvoiceIDs []uuid.UUID `json:"invoice_ids"`
	}
	out, err := call[withTop[recordsOrOne[Invoice], top]](ctx, s.c, routeCartCheckout.at(), nil, body)
	if err != nil {
		return nil, err
	}
	return &Checkout{InvoiceIDs: out.top.InvoiceIDs, Invoices: []Invoice(out.result)}, nil
}
