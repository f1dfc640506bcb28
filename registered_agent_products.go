package acctadmin

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"
)

// RegisteredAgentProductsClient reads the registered-agent products sold
// through a website.
type RegisteredAgentProductsClient service

// routeRegisteredAgentProductsList is the route of registered-agent
// products.
var routeRegisteredAgentProductsList = declare(http.MethodGet, "/registered-agent-products", "RegisteredAgentProducts.List")

// RegisteredAgentProduct is a registered-agent service that can be bought
// in a jurisdiction. The API does not document its shape; the fields known
// are typed and the whole record is kept in Raw.
// GET /registered-agent-products.
type RegisteredAgentProduct struct {
	ID           uuid.UUID `json:"id"`
	Name         string    `json:"name"`
	Jurisdiction string    `json:"jurisdiction"`
	Price        Money     `json:"price"`
	URL          string    `json:"url"`
	// Raw is the record exactly as the API sent it.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the known fields and keeps the whole record in Raw.
func (p *RegisteredAgentProduct) UnmarshalJSON(data []byte) error {
	return decodeRecord[registeredAgentProductWire](data, p, &p.Raw)
}

// registeredAgentProductWire is the product without its UnmarshalJSON: no
// field of it needs a shape of its own.
type registeredAgentProductWire RegisteredAgentProduct

func (w registeredAgentProductWire) record() RegisteredAgentProduct { return RegisteredAgentProduct(w) }

// RegisteredAgentProductListParams chooses the products of
// GET /registered-agent-products.
type RegisteredAgentProductListParams struct {
	// URL is the full URL of the website; required.
	URL string
}

// List returns the registered-agent products of the website p.URL.
// GET /registered-agent-products.
func (s *RegisteredAgentProductsClient) List(ctx context.Context, p *RegisteredAgentProductListParams) ([]RegisteredAgentProduct, error) {
	if p == nil {
		p = &RegisteredAgentProductListParams{}
	}
	if err := checkRequired("url", p.URL); err != nil {
		return nil, err
	}
	q := &query{}
	q.str("url", p.URL)
	return call[[]RegisteredAgentProduct](ctx, s.c, routeRegisteredAgentProductsList.at(), q, nil)
}
