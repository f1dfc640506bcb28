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

// routeSimpleProductsList is the route of simple products.
var routeSimpleProductsList = declare(http.MethodGet, "/simple-products", "SimpleProducts.List")

// SimpleProduct is a product a website sells. Nothing of its shape is
// shown by the provider: the fields are those it likely shares with filing
// products, and the whole record is kept in Raw.
type SimpleProduct struct {
	ID    uuid.UUID       `json:"id"`
	Name  string          `json:"name"`
	Price Money           `json:"price"`
	Raw   json.RawMessage `json:"-"` // the record exactly as the API sent it
}

// UnmarshalJSON reads a product as the API writes it, into Raw too.
func (p *SimpleProduct) UnmarshalJSON(data []byte) error {
	type fields SimpleProduct
	*p = SimpleProduct{}
	err := readRecord(data, (*fields)(p))
	p.Raw = keepRaw(data)
	return err
}

// SimpleProductListParams chooses the products of GET /simple-products:
// those of the website URL (its full URL; required).
type SimpleProductListParams struct {
	URL string
}

// List returns the simple products of the website p.URL.
// GET /simple-products.
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
