package acctadmin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// OrderItemsClient reads and answers the order items that wait for the client.
type OrderItemsClient service

var (
	routeOrderItemsRequiringAttention = declare(http.MethodGet, "/order-items/requiring-attention", "OrderItems.ListRequiringAttention")
	routeOrderItemsSubmitFormData     = declareOnce(http.MethodPost, "/order-items/requiring-attention", "OrderItems.SubmitFormData",
		"OrderItems.ListRequiringAttention shows whether the item still waits for its form")
)

// OrderItemStatus is the state of an order item.
type OrderItemStatus string

// The order item states the provider's clients name.
const (
	OrderItemRequiringAttention OrderItemStatus = "requiring-client-attention" // waits for form data
	OrderItemNew                OrderItemStatus = "new"                        // being worked on
)

// OrderItem is one product of an order, made by a checkout.
type OrderItem struct {
	ID        uuid.UUID       `json:"id"`
	CreatedAt time.Time       `json:"created_at"` // read from time text or epoch (milli)seconds, in UTC
	UpdatedAt time.Time       `json:"updated_at"`
	CompanyID uuid.UUID       `json:"company_id"`
	Name      string          `json:"name"` // the product's, as "Standard Federal EIN - Tax Id filing"
	OrderID   uuid.UUID       `json:"order_id"`
	Quantity  int             `json:"quantity"`
	Status    OrderItemStatus `json:"status"`
	Type      string          `json:"type"`
	Product   OrderedProduct  `json:"product"`
	Raw       json.RawMessage `json:"-"` // the record exactly as the API sent it
}

// OrderedProduct is the product an order item is for.
type OrderedProduct struct {
	ID           uuid.UUID     `json:"id"`
	Name         string        `json:"name"`
	Price        Money         `json:"price"`
	FilingMethod *FilingMethod `json:"filing_method"` // the one chosen, for a filing
}

// UnmarshalJSON reads an order item as the API writes it, into Raw too.
func (it *OrderItem) UnmarshalJSON(data []byte) error {
	type fields OrderItem
	w := struct {
		*fields
		CreatedAt epochTime `json:"created_at"`
		UpdatedAt epochTime `json:"updated_at"`
		Quantity  flexInt   `json:"quantity"`
	}{fields: (*fields)(it)}
	*it = OrderItem{}
	err := readRecord(data, &w)
	it.CreatedAt, it.UpdatedAt, it.Quantity, it.Raw = w.CreatedAt.Time, w.UpdatedAt.Time, int(w.Quantity), keepRaw(data)
	return err
}

// OrderItemListParams chooses the companies whose items to list: the
// one CompanyID, or CompanyIDs, or, with neither, every company.
type OrderItemListParams struct {
	CompanyID  uuid.UUID
	CompanyIDs []uuid.UUID
}

// ListRequiringAttention returns the companies' order items that wait for
// the client (for form data). GET /order-items/requiring-attention.
func (s *OrderItemsClient) ListRequiringAttention(ctx context.Context, p *OrderItemListParams) ([]OrderItem, error) {
	p = orZero(p)
	if err := checkIDs("company_ids", p.CompanyIDs); err != nil {
		return nil, err
	}
	q := new(query).id("company_id", p.CompanyID).ids("company_ids", p.CompanyIDs)
	var items []OrderItem
	if err := s.c.json(ctx, routeOrderItemsRequiringAttention.at(), q, nil, &items); err != nil {
		return nil, err
	}
	return items, nil
}

// OrderItemFormDataParams answers the form of an order item; all fields are
// required. FormData encodes as a JSON object (see FilingMethodsClient.Schemas).
type OrderItemFormDataParams struct {
	CompanyID   uuid.UUID `json:"company_id"`
	OrderItemID uuid.UUID `json:"order_item_id"`
	FormData    any       `json:"form_data"`
}

// SubmitFormData sends the form data an order item waits for and returns
// the item; a refused field is in the *APIError's Fields. Sent at most
// once (see the package doc). POST /order-items/requiring-attention.
func (s *OrderItemsClient) SubmitFormData(ctx context.Context, p *OrderItemFormDataParams) (*OrderItem, error) {
	p = orZero(p)
	if err := firstErr(checkID("company_id", p.CompanyID), checkID("order_item_id", p.OrderItemID),
		checkFormData("form_data", p.FormData, true)); err != nil {
		return nil, err
	}
	var items answerList[OrderItem]
	if err := s.c.json(ctx, routeOrderItemsSubmitFormData.at(), nil, bodyOf{p}, &items); err != nil || len(items) == 0 {
		return nil, err
	}
	return &items[0], nil
}

// personalValues are the form's values, which redaction takes out of answers.
func (p *OrderItemFormDataParams) personalValues() []string { return formValues(p.FormData) }

// Format prints the params as fmt prints a struct, FormData redacted.
func (p OrderItemFormDataParams) Format(f fmt.State, verb rune) {
	p.FormData = redactedForm(p.FormData)
	formatFields(f, verb, p, "acctadmin.OrderItemFormDataParams")
}

// MarshalJSON writes the params as encoding/json would, FormData redacted.
func (p OrderItemFormDataParams) MarshalJSON() ([]byte, error) {
	type plain OrderItemFormDataParams
	p.FormData = redactedForm(p.FormData)
	return json.Marshal(plain(p))
}
