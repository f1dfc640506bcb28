package acctadmin

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"
)

// FilingMethodsClient reads the ways a filing product can be filed for a
// company, and the form each one needs.
type FilingMethodsClient service

// The routes of filing methods.
var (
	routeFilingMethodsList    = declare(http.MethodGet, "/filing-methods", "FilingMethods.List")
	routeFilingMethodsSchemas = declare(http.MethodGet, "/filing-methods/schemas", "FilingMethods.Schemas")
)

// UnmarshalJSON decodes a filing method, reading its agency from
// "agency_name" or from "ageny_name", the spelling of the provider's own
// C# model.
func (m *FilingMethod) UnmarshalJSON(data []byte) error {
	var w struct {
		plainFilingMethod
		AgenyName string `json:"ageny_name"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*m = FilingMethod(w.plainFilingMethod)
	if m.AgencyName == "" {
		m.AgencyName = w.AgenyName
	}
	return nil
}

type plainFilingMethod FilingMethod

// FilingMethodListParams chooses the filing methods of GET
// /filing-methods: every field is required, as every one of the
// provider's clients sends them all.
type FilingMethodListParams struct {
	CompanyID uuid.UUID
	// Jurisdiction is a jurisdiction's two-letter abbreviation ("UT") or
	// its name.
	Jurisdiction string
	// FilingProductID is the product, from FilingProducts.Offerings.
	FilingProductID uuid.UUID
}

// List returns the ways the product p.FilingProductID can be filed for
// the company p.CompanyID in p.Jurisdiction. GET /filing-methods.
func (s *FilingMethodsClient) List(ctx context.Context, p *FilingMethodListParams) ([]FilingMethod, error) {
	if p == nil {
		p = &FilingMethodListParams{}
	}
	if err := firstErr(checkID("company_id", p.CompanyID), checkRequired("jurisdiction", p.Jurisdiction), checkID("filing_product_id", p.FilingProductID)); err != nil {
		return nil, err
	}
	q := &query{}
	q.id("company_id", p.CompanyID)
	q.str("jurisdiction", p.Jurisdiction)
	q.id("filing_product_id", p.FilingProductID)
	return call[[]FilingMethod](ctx, s.c, routeFilingMethodsList.at(), q, nil)
}

// FormSchema is the form a filing method needs answered, as the form
// data of an order item (OrderItemsClient.SubmitFormData) or of a cart
// item (CartAddParams.FormData). The provider's clients only print this
// answer; the fields typed here are those of the SDK's fake, and the whole
// record is kept in Raw.
type FormSchema struct {
	FilingMethodID uuid.UUID `json:"filing_method_id"`
	// Name is the field of the request the schema is for: "form_data".
	Name string `json:"name"`
	// Schema is the JSON Schema the form data must pass.
	Schema json.RawMessage `json:"schema"`
	// Raw is the record exactly as the API sent it.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the known fields and keeps the whole record in Raw.
func (f *FormSchema) UnmarshalJSON(data []byte) error {
	return decodeRecord[formSchemaWire](data, f, &f.Raw)
}

type formSchemaWire FormSchema

func (w formSchemaWire) record() FormSchema { return FormSchema(w) }

// FormSchemaParams chooses the schemas of GET /filing-methods/schemas:
// both fields are required.
type FormSchemaParams struct {
	CompanyID      uuid.UUID
	FilingMethodID uuid.UUID
}

// Schemas returns the forms the filing method p.FilingMethodID needs
// answered for the company p.CompanyID (a list, which may hold one schema
// or none; a single object is read as a list of one).
// GET /filing-methods/schemas.
func (s *FilingMethodsClient) Schemas(ctx context.Context, p *FormSchemaParams) ([]FormSchema, error) {
	if p == nil {
		p = &FormSchemaParams{}
	}
	if err := firstErr(checkID("company_id", p.CompanyID), checkID("filing_method_id", p.FilingMethodID)); err != nil {
		return nil, err
	}
	q := &query{}
	q.id("company_id", p.CompanyID)
	q.id("filing_method_id", p.FilingMethodID)
	schemas, err := call[recordsOrOne[FormSchema]](ctx, s.c, routeFilingMethodsSchemas.at(), q, nil)
	return []FormSchema(schemas), err
}
