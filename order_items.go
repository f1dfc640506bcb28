package acctadmin

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// OrderItemsClient reads the items of the account's orders that wait for
// the client, and answers them.
type OrderItemsClient service

// The routes of order items.
var (
	routeOrderItemsRequiringAttention = declare(http.MethodGet, "/order-items/requiring-attention", "OrderItems.ListRequiringAttention")
	routeOrderItemsSubmitFormData     = declareOnce(http.MethodPost, "/order-items/requiring-attention", "OrderItems.SubmitFormData",
		"OrderItems.ListRequiringAttention shows whether the item still waits for its form")
)

// OrderItemStatus is the state of an order item. Values the API adds
// later are kept as they come.
type OrderItemStatus string

// The order item states the provider's clients name.
const (
	// OrderItemRequiringAttention waits for the client's form data.
	OrderItemRequiringAttention OrderItemStatus = "requiring-client-attention"
	// OrderItemNew has what it needs and is being worked on.
	OrderItemNew OrderItemStatus = "new"
)

// OrderItem is one product of an order, made by a checkout. Its shape is
// known from the provider's C# model only; the fields are typed as it has
// them and the whole record is kept in Raw.
type OrderItem struct {
	ID        uuid.UUID `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	CompanyID uuid.UUID `json:"company_id"`
	// Name names the product, as "Standard Federal EIN - Tax Id filing".
	Name     string          `json:"name"`
	OrderID  uuid.UUID       `json:"order_id"`
	Quantity int             `json:"quantity"`
	Status   OrderItemStatus `json:"status"`
	Type     string          `json:"type"`
	Product  OrderedProduct  `json:"product"`
	// Raw is the record exactly as the API sent it.
	Raw json.RawMessage `json:"-"`
}

// OrderedProduct is the product an order item is for.
type OrderedProduct struct {
	ID    uuid.UUID `json:"id"`
	Name  string    `json:"name"`
	Price Money     `json:"price"`
	// FilingMethod is the filing method chosen, for a filing; nil
	// otherwise.
	FilingMethod *FilingMethod `json:"filing_method"`
}

// UnmarshalJSON decodes the known fields and keeps the whole record in Raw.
func (it *OrderItem) UnmarshalJSON(data []byte) error {
	return decodeRecord[orderItemWire](data, it, &it.Raw)
}

type plainOrderItem OrderItem

type orderItemWire struct {
	plainOrderItem
	CreatedAt Time    `json:"created_at"`
	UpdatedAt Time    `json:"updated_at"`
	Quantity  flexInt `json:"quantity"`
}

func (w orderItemWire) record() OrderItem {
	it := OrderItem(w.plainOrderItem)
	it.CreatedAt, it.UpdatedAt = w.CreatedAt.Time, w.UpdatedAt.Time
	it.Quantity = int(w.Quantity)
	return it
}

// OrderItemListParams chooses the companies of
// GET /order-items/requiring-attention.
type OrderItemListParams struct {
	// CompanyIDs are the companies whose items to list; nil lists those of
	// every company of the account.
	CompanyIDs []uuid.UUID
}

// ListRequiringAttention returns the order items of p.CompanyIDs that
// wait for the client (status requiring-client-attention): a filing
// bought without its form data waits here until SubmitFormData answers
// it. GET /order-items/requiring-attention.
func (s *OrderItemsClient) ListRequiringAttention(ctx context.Context, p *OrderItemListParams) ([]OrderItem, error) {
	if p == nil {
		p = &OrderItemListParams{}
	}
	if err := checkIDs("company_ids", p.CompanyIDs); err != nil {
		return nil, err
	}
	q := &query{}
	q.ids("company_ids", p.CompanyIDs)
	return call[[]OrderItem](ctx, s.c, routeOrderItemsRequiringAttention.at(), q, nil)
}

// OrderItemFormDataParams answers the form of an order item: every field
// is required.
type OrderItemFormDataParams struct {
	CompanyID   uuid.UUID
	OrderItemID uuid.UUID
	// FormData holds the answers, a value that encodes as a JSON object
	// (a map or a struct) whose keys are the fields of the filing method's
	// schema (FilingMethodsClient.Schemas). It holds personal data: an
	// SSN, names, addresses.
	FormData any
}

// SubmitFormData sends the form data an order item waits for and returns
// the item, whose status is then new. When the API refuses a field, the
// *APIError's Fields name it. It is sent at most once: a failure after
// the request may have arrived is ErrOutcomeUnknown, and
// ListRequiringAttention shows whether the item still waits for its form.
// POST /order-items/requiring-attention.
func (s *OrderItemsClient) SubmitFormData(ctx context.Context, p *OrderItemFormDataParams) (*OrderItem, error) {
	if p == nil {
		p = &OrderItemFormDataParams{}
	}
	if err := firstErr(checkID("company_id", p.CompanyID), checkID("order_item_id", p.OrderItemID), checkFormData("form_data", p.FormData, true)); err != nil {
		return nil, err
	}
	body := struct {
		CompanyID   uuid.UUID `json:"company_id"`
		OrderItemID uuid.UUID `json:"order_item_id"`
		FormData    any       `json:"form_data"`
	}{p.CompanyID, p.OrderItemID, p.FormData}
	return firstRecord(call[recordsOrOne[OrderItem]](ctx, s.c, routeOrderItemsSubmitFormData.at(), nil, body))
}
