package acctadmin

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"
)

// SimpleProductsClient reads the products other than filings and
// registered-agent services that a website sells.
type SimpleProductsClient service

var routeSimpleProductsList = declare(http.MethodGet, "/simple-products", "SimpleProducts.List")

// SimpleProduct is a product a website sells.
type SimpleProduct struct {
	ID    uuid.UUID       `json:"id"`
	Name  string          `json:"name"`
	Price Money           `json:"price"`
	Raw   json.RawMessage `json:"-"` // the record exactly as the API sent it
}

// UnmarshalJSON reads a product as the API writes it, into Raw too.
func (p *SimpleProduct) UnmarshalJSON(data []byte) error {
	type fields SimpleProduct
	*p = SimpleProduct{Raw: keepRaw(data)}
	return readRecord(data, (*fields)(p))
}

// SimpleProductListParams chooses the website (its full URL; required).
type SimpleProductListParams struct {
	URL string
}

// List returns the simple products of the website p.URL. GET /simple-products.
func (s *SimpleProductsClient) List(ctx context.Context, p *SimpleProductListParams) ([]SimpleProduct, error) {
	p = orZero(p)
	if err := checkRequired("url", p.URL); err != nil {
		return nil, err
	}
	var products []SimpleProduct
	if err := s.c.json(ctx, routeSimpleProductsList.at(), new(query).str("url", p.URL), nil, &products); err != nil {
		return nil, err
	}
	return products, nil
}
