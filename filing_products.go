package acctadmin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// FilingProductsClient reads the filings a website or a company can buy.
type FilingProductsClient service

var (
	routeFilingProductsList      = declare(http.MethodGet, "/filing-products", "FilingProducts.List")
	routeFilingProductsOfferings = declare(http.MethodGet, "/filing-products/offerings", "FilingProducts.Offerings")
)

// FilingProduct is a filing that can be bought.
type FilingProduct struct {
	ID            uuid.UUID      `json:"id"`
	Name          string         `json:"name"`
	FilingName    string         `json:"filing_name"` // the simplified name
	Price         Money          `json:"price"`
	FilingMethods []FilingMethod `json:"filing_methods"` // sent when the request names a jurisdiction
}

// FilingMethodType is how a filing is made.
type FilingMethodType string

// The filing method types the API documents.
const (
	FilingMethodMail   FilingMethodType = "mail"
	FilingMethodOnline FilingMethodType = "online"
	FilingMethodFax    FilingMethodType = "fax"
)

// FilingMethod is one way of making a filing in a jurisdiction.
type FilingMethod struct {
	ID                uuid.UUID        `json:"id"`
	Name              string           `json:"name"`
	Type              FilingMethodType `json:"type"`
	Cost              Money            `json:"cost"`
	FiledIn           Turnaround       `json:"filed_in"`    // the time the filing takes
	DocsIn            Turnaround       `json:"docs_in"`     // the time the documents take
	AgencyName        string           `json:"agency_name"` // the agency filed with; also read from "ageny_name"
	FilingDescription string           `json:"filing_description"`
	Jurisdiction      string           `json:"jurisdiction"`
}

// UnmarshalJSON reads a filing method in every shape the API writes it.
func (m *FilingMethod) UnmarshalJSON(data []byte) error {
	type fields FilingMethod
	w := struct {
		*fields
		AgenyName string `json:"ageny_name"`
	}{fields: (*fields)(m)}
	*m = FilingMethod{}
	err := readRecord(data, &w)
	m.AgencyName = cmp.Or(m.AgencyName, w.AgenyName)
	return err
}

// FilingProductListParams chooses the products of the website URL (full;
// required), for EntityType ("LLC"), with methods in Jurisdiction ("UT").
type FilingProductListParams struct {
	URL, Jurisdiction, EntityType string
}

// List returns the filing products of the website p.URL, with their
// filing methods in p.Jurisdiction when given. GET /filing-products.
func (s *FilingProductsClient) List(ctx context.Context, p *FilingProductListParams) ([]FilingProduct, error) {
	p = orZero(p)
	if err := checkRequired("url", p.URL); err != nil {
		return nil, err
	}
	q := new(query).str("url", p.URL).str("jurisdiction", p.Jurisdiction).str("entity_type", p.EntityType)
	var products []FilingProduct
	if err := s.c.json(ctx, routeFilingProductsList.at(), q, nil, &products); err != nil {
		return nil, err
	}
	return products, nil
}

// OfferingParams chooses the products offered to a company: both fields
// are required; Jurisdiction is an abbreviation ("UT") or a name.
type OfferingParams struct {
	CompanyID    uuid.UUID
	Jurisdiction string
}

// Offerings returns the filing products offered to the company
// p.CompanyID in p.Jurisdiction. GET /filing-products/offerings.
func (s *FilingProductsClient) Offerings(ctx context.Context, p *OfferingParams) ([]FilingProduct, error) {
	p = orZero(p)
	if err := firstErr(checkID("company_id", p.CompanyID), checkRequired("jurisdiction", p.Jurisdiction)); err != nil {
		return nil, err
	}
	q := new(query).id("company_id", p.CompanyID).str("jurisdiction", p.Jurisdiction)
	var products []FilingProduct
	if err := s.c.json(ctx, routeFilingProductsOfferings.at(), q, nil, &products); err != nil {
		return nil, err
	}
	return products, nil
}

// filingWords are the names a filing goes by, in groups of synonyms.
var filingWords = [][]string{
	{"ein", "tax id", "employer identification number", "federal tax id", "fein", "ss 4"},
	{"annual report", "annual registration", "annual statement", "annual list"},
	{"formation", "articles of organization", "articles of incorporation", "certificate of formation", "certificate of organization"},
	{"good standing", "certificate of good standing", "certificate of existence", "certificate of status", "certificate of fact"},
	{"amendment", "articles of amendment", "certificate of amendment"},
	{"dissolution", "articles of dissolution", "certificate of dissolution", "certificate of cancellation"},
	{"boi", "beneficial ownership information", "beneficial ownership report", "boir"},
	{"dba", "doing business as", "assumed name", "fictitious name", "trade name"},
	{"foreign qualification", "certificate of authority", "foreign registration"},
}

// normalWords lowercases s and keeps its letters and digits, one space
// between words: "Tax-ID" and "tax id" are the same.
func normalWords(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
	return strings.Join(f, " ")
}

// matchFiling picks the product that files what or one of its synonyms:
// by its filing name, else by its name holding one of the words whole.
func matchFiling(products []FilingProduct, what string) (*FilingProduct, error) {
	words := []string{normalWords(what)}
	for _, g := range filingWords {
		if slices.Contains(g, words[0]) {
			words = g
		}
	}
	byFilingName := func(p FilingProduct) bool { return slices.Contains(words, normalWords(p.FilingName)) }
	byName := func(p FilingProduct) bool {
		name := " " + normalWords(p.Name) + " "
		return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(name, " "+w+" ") })
	}
	for _, fits := range []func(FilingProduct) bool{byFilingName, byName} {
		if p, err := only(products, fits, "filing product "+fmt.Sprintf("%q", what)); !errors.Is(err, ErrNoMatch) {
			return p, err
		}
	}
	return nil, fmt.Errorf("%w: no filing product is %q (nor %s)", ErrNoMatch, what, strings.Join(words, ", "))
}

// Find returns the offering (see Offerings) that files what ("EIN",
// "annual report"…), matched with its synonyms whatever the case and
// punctuation, by filing name then by name. GET /filing-products/offerings.
func (s *FilingProductsClient) Find(ctx context.Context, p *OfferingParams, what string) (*FilingProduct, error) {
	if normalWords(what) == "" {
		return nil, invalid("what", "is required")
	}
	products, err := s.Offerings(ctx, p)
	if err != nil {
		return nil, err
	}
	return matchFiling(products, what)
}
