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
// shown by the provider; the fields typed here are those of its filing
// products that it is likely to share, and the whole record is kept in
// Raw.
type SimpleProduct struct {
	ID    uuid.UUID `json:"id"`
	Name  string    `json:"name"`
	Price Money     `json:"price"`
	// Raw is the record exactly as the API sent it.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the known fields and keeps the whole record in Raw.
func (p *SimpleProduct) UnmarshalJSON(data []byte) error {
	return decodeRecord[simpleProductWire](data, p, &p.Raw)
}

type simpleProductWire SimpleProduct

func (w simpleProductWire) record() SimpleProduct { return SimpleProduct(w) }

// SimpleProductListParams chooses the products of GET /simple-products.
type SimpleProductListParams struct {
	// URL is the full URL of the website; required.
	URL string
}

// List returns the simple products of the website p.URL.
// GET /simple-products.
func (s *SimpleProductsClient) List(ctx context.Context, p *SimpleProductListParams) ([]SimpleProduct, error) {
	if p == nil {
		p = &SimpleProductListParams{}
	}
	if err := checkRequired("url", p.URL); err != nil {
		return nil, err
	}
	q := &query{}
	q.str("url", p.URL)
	return call[[]SimpleProduct](ctx, s.c, routeSimpleProductsList.at(), q, nil)
}
