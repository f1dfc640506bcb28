package acctadmin

import (
	"context"
	"net/http"

	"github.com/google/uuid"
)

// FilingProductsClient reads the filings that can be bought, for a
// website or for one company.
type FilingProductsClient service

// The routes of filing products.
var (
	routeFilingProductsList      = declare(http.MethodGet, "/filing-products", "FilingProducts.List")
	routeFilingProductsOfferings = declare(http.MethodGet, "/filing-products/offerings", "FilingProducts.Offerings")
)

// FilingProduct is a filing that can be bought. GET /filing-products.
type FilingProduct struct {
	ID   uuid.UUID `json:"id"`
	Name string    `json:"name"`
	// FilingName is the simplified name of the filing.
	FilingName string `json:"filing_name"`
	Price      Money  `json:"price"`
	// FilingMethods are the ways the filing can be made; the API sends
	// them only when the request named a jurisdiction.
	FilingMethods []FilingMethod `json:"filing_methods"`
}

// FilingMethodType is how a filing is made. Values the API adds later are
// kept as they come.
type FilingMethodType string

// The filing method types the API documents.
const (
	FilingMethodMail   FilingMethodType = "mail"
	FilingMethodOnline FilingMethodType = "online"
	FilingMethodFax    FilingMethodType = "fax"
)

// FilingMethod is one way of making a filing in a jurisdiction, as
// GET /filing-products lists it when given a jurisdiction.
type FilingMethod struct {
	ID   uuid.UUID        `json:"id"`
	Name string           `json:"name"`
	Type FilingMethodType `json:"type"`
	Cost Money            `json:"cost"`
	// FiledIn is the time the filing takes.
	FiledIn Turnaround `json:"filed_in"`
	// DocsIn is the time the documents take to be submitted.
	DocsIn Turnaround `json:"docs_in"`
	// AgencyName is the government agency the filing goes to.
	AgencyName        string `json:"agency_name"`
	FilingDescription string `json:"filing_description"`
	Jurisdiction      string `json:"jurisdiction"`
}

// FilingProductListParams chooses the filing products of GET
// /filing-products.
type FilingProductListParams struct {
	// URL is the full URL of the website; required.
	URL string
	// Jurisdiction, a jurisdiction name, asks for each product's filing
	// methods there. Optional. The full name ("Utah") and the two-letter
	// abbreviation ("UT") both work.
	Jurisdiction string
}

// List returns the filing products of the website p.URL, with their
// filing methods in p.Jurisdiction when that is given.
// GET /filing-products.
func (s *FilingProductsClient) List(ctx context.Context, p *FilingProductListParams) ([]FilingProduct, error) {
	if p == nil {
		p = &FilingProductListParams{}
	}
	if err := checkRequired("url", p.URL); err != nil {
		return nil, err
	}
	q := &query{}
	q.str("url", p.URL)
	q.str("jurisdiction", p.Jurisdiction)
	return call[[]FilingProduct](ctx, s.c, routeFilingProductsList.at(), q, nil)
}

// OfferingParams chooses the filing products of GET
// /filing-products/offerings: both fields are required, as every one of
// the provider's clients sends them.
type OfferingParams struct {
	CompanyID uuid.UUID
	// Jurisdiction is a jurisdiction's two-letter abbreviation ("UT") or
	// its name.
	Jurisdiction string
}

// Offerings returns the filing products offered to the company
// p.CompanyID in p.Jurisdiction: the first step of ordering a filing.
// GET /filing-products/offerings.
func (s *FilingProductsClient) Offerings(ctx context.Context, p *OfferingParams) ([]FilingProduct, error) {
	if p == nil {
		p = &OfferingParams{}
	}
	if err := firstErr(checkID("company_id", p.CompanyID), checkRequired("jurisdiction", p.Jurisdiction)); err != nil {
		return nil, err
	}
	q := &query{}
	q.id("company_id", p.CompanyID)
	q.str("jurisdiction", p.Jurisdiction)
	return call[[]FilingProduct](ctx, s.c, routeFilingProductsOfferings.at(), q, nil)
}
