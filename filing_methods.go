package acctadmin

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"
)

// FilingMethodsClient reads the ways a product is filed, and their forms.
type FilingMethodsClient service

var (
	routeFilingMethodsList    = declare(http.MethodGet, "/filing-methods", "FilingMethods.List")
	routeFilingMethodsSchemas = declare(http.MethodGet, "/filing-methods/schemas", "FilingMethods.Schemas")
)

// FilingMethodListParams chooses the methods to list: all fields are
// required; Jurisdiction is an abbreviation ("UT") or a name.
type FilingMethodListParams struct {
	CompanyID       uuid.UUID
	Jurisdiction    string
	FilingProductID uuid.UUID
}

// List returns the ways the product p.FilingProductID can be filed for
// the company p.CompanyID in p.Jurisdiction. GET /filing-methods.
func (s *FilingMethodsClient) List(ctx context.Context, p *FilingMethodListParams) ([]FilingMethod, error) {
	p = orZero(p)
	if err := firstErr(checkID("company_id", p.CompanyID), checkRequired("jurisdiction", p.Jurisdiction),
		checkID("filing_product_id", p.FilingProductID)); err != nil {
		return nil, err
	}
	q := new(query).id("company_id", p.CompanyID).str("jurisdiction", p.Jurisdiction).id("filing_product_id", p.FilingProductID)
	var methods []FilingMethod
	if err := s.c.json(ctx, routeFilingMethodsList.at(), q, nil, &methods); err != nil {
		return nil, err
	}
	return methods, nil
}

// FormSchema is a form a filing method needs answered in an item's form data.
type FormSchema struct {
	FilingMethodID uuid.UUID       `json:"filing_method_id"`
	Name           string          `json:"name"`   // the request's field it is for: "form_data"
	Schema         json.RawMessage `json:"schema"` // the JSON Schema the form data must pass
	Raw            json.RawMessage `json:"-"`      // the record exactly as the API sent it
}

// UnmarshalJSON reads a form schema, into Raw too.
func (f *FormSchema) UnmarshalJSON(data []byte) error {
	type fields FormSchema
	*f = FormSchema{Raw: keepRaw(data)}
	return readRecord(data, (*fields)(f))
}

// FormSchemaParams chooses the schemas to read: both fields are required.
type FormSchemaParams struct {
	CompanyID, FilingMethodID uuid.UUID
}

// Schemas returns the forms the filing method p.FilingMethodID needs
// answered for the company p.CompanyID. GET /filing-methods/schemas.
func (s *FilingMethodsClient) Schemas(ctx context.Context, p *FormSchemaParams) ([]FormSchema, error) {
	p = orZero(p)
	if err := firstErr(checkID("company_id", p.CompanyID), checkID("filing_method_id", p.FilingMethodID)); err != nil {
		return nil, err
	}
	q := new(query).id("company_id", p.CompanyID).id("filing_method_id", p.FilingMethodID)
	var schemas answerList[FormSchema]
	if err := s.c.json(ctx, routeFilingMethodsSchemas.at(), q, nil, &schemas); err != nil {
		return nil, err
	}
	return []FormSchema(schemas), nil
}
