package acctadmin

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"
)

// RegisteredAgentProductsClient reads a website's registered-agent products.
type RegisteredAgentProductsClient service

var routeRegisteredAgentProductsList = declare(http.MethodGet, "/registered-agent-products", "RegisteredAgentProducts.List")

// RegisteredAgentProduct is a registered-agent service sold in a jurisdiction.
type RegisteredAgentProduct struct {
	ID           uuid.UUID       `json:"id"`
	Name         string          `json:"name"`
	Jurisdiction string          `json:"jurisdiction"`
	Price        Money           `json:"price"`
	URL          string          `json:"url"`
	Raw          json.RawMessage `json:"-"` // the record exactly as the API sent it
}

// UnmarshalJSON reads a product as the API writes it, into Raw too.
func (p *RegisteredAgentProduct) UnmarshalJSON(data []byte) error {
	type fields RegisteredAgentProduct
	*p = RegisteredAgentProduct{Raw: keepRaw(data)}
	return readRecord(data, (*fields)(p))
}

// RegisteredAgentProductListParams chooses the website (full URL; required).
type RegisteredAgentProductListParams struct {
	URL string
}

// List returns the registered-agent products of the website p.URL.
// GET /registered-agent-products.
func (s *RegisteredAgentProductsClient) List(ctx context.Context, p *RegisteredAgentProductListParams) ([]RegisteredAgentProduct, error) {
	p = orZero(p)
	if err := checkRequired("url", p.URL); err != nil {
		return nil, err
	}
	var products []RegisteredAgentProduct
	if err := s.c.json(ctx, routeRegisteredAgentProductsList.at(), new(query).str("url", p.URL), nil, &products); err != nil {
		return nil, err
	}
	return products, nil
}
