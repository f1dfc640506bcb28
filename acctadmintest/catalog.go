package acctadmintest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/google/uuid"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// FederalJurisdiction is the jurisdiction of filings made with the federal
// government (an EIN, say): their products are offered in every
// jurisdiction.
const FederalJurisdiction = "Federal"

// offering is what the fake knows about a filing method beyond its wire
// fields: the name of the order item it becomes, and the JSON Schema its
// form_data must pass (nil when it needs none).
type offering struct {
	orderName string
	schema    json.RawMessage
}

// SimpleProduct is a product that is not a filing: a certified copy, a
// template. It goes into the cart without a product option.
type SimpleProduct struct {
	ID          uuid.UUID
	WebsiteURL  string
	Name        string
	Description string
	Price       string // decimal text such as "25.00"
}

// SignedForm is a form the client signs for a filing method.
type SignedForm struct {
	ID             uuid.UUID
	FilingMethodID uuid.UUID
	WebsiteID      uuid.UUID // uuid.Nil: offered on every website
	Name           string
	Pages          int
}

// findMethod finds a filing method, and its product, among the website
// products and the federal catalogue; f.mu must be held.
func (f *Fake) findMethod(id uuid.UUID) (*FilingProduct, *FilingMethod) {
	for _, t := range []*table[FilingProduct]{&f.st.catalog, &f.st.products} {
		for _, p := range t.rows {
			for i := range p.Methods {
				if p.Methods[i].ID == id {
					return p, &p.Methods[i]
				}
			}
		}
	}
	return nil, nil
}

// findProduct finds a filing product in the catalogue or on a website;
// f.mu must be held.
func (f *Fake) findProduct(id uuid.UUID) *FilingProduct {
	if p := f.st.catalog.get(id); p != nil {
		return p
	}
	return f.st.products.get(id)
}

// offeredMethods are the methods of a product that a company may order in
// a jurisdiction: all of a federal product's, a website product's in that
// jurisdiction.
func offeredMethods(p *FilingProduct, j Jurisdiction) []FilingMethod {
	var out []FilingMethod
	for _, m := range p.Methods {
		if m.Jurisdiction == FederalJurisdiction || m.Jurisdiction == j.Name {
			out = append(out, m)
		}
	}
	return out
}

// requiredCompany reads a required company_id query parameter: absent or
// not a UUID is 400, unknown is 404; f.mu must be held.
func (f *Fake) requiredCompany(c *call) (*Company, error) {
	s := c.str("company_id")
	if s == "" {
		return nil, invalid("company_id", "is required")
	}
	id, err := parseUUID("company_id", s)
	if err != nil {
		return nil, err
	}
	co := f.st.companies.get(id)
	if co == nil {
		return nil, notFound("company")
	}
	return co, nil
}

// requiredJurisdiction reads a required jurisdiction query parameter, a
// name or a two-letter abbreviation.
func requiredJurisdiction(c *call) (Jurisdiction, error) {
	s := c.str("jurisdiction")
	if s == "" {
		return Jurisdiction{}, invalid("jurisdiction", "is required")
	}
	j, ok := LookupJurisdiction(s)
	if !ok {
		return Jurisdiction{}, invalid("jurisdiction", "is not a known jurisdiction name or abbreviation: "+s)
	}
	return j, nil
}

// requiredID reads a required UUID query parameter.
func requiredID(c *call, name string) (uuid.UUID, error) {
	s := c.str(name)
	if s == "" {
		return uuid.Nil, invalid(name, "is required")
	}
	return parseUUID(name, s)
}

// GET /filing-products/offerings?company_id=&jurisdiction=: the federal
// products and the website products with a method in the jurisdiction.
func listOfferings(c *call) error {
	f := c.f
	out, err := locked(f, func() ([]filingProductWire, error) {
		if _, err := f.requiredCompany(c); err != nil {
			return nil, err
		}
		j, err := requiredJurisdiction(c)
		if err != nil {
			return nil, err
		}
		out := []filingProductWire{}
		for _, t := range []*table[FilingProduct]{&f.st.catalog, &f.st.products} {
			for _, p := range t.rows {
				if len(offeredMethods(p, j)) > 0 {
					out = append(out, filingProductWire{ID: p.ID, Name: p.Name, FilingName: p.FilingName, Price: json.Number(p.Price)})
				}
			}
		}
		return out, nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{})
}

// GET /filing-methods?company_id=&jurisdiction=&filing_product_id=.
func listFilingMethods(c *call) error {
	f := c.f
	wf := f.wire(false)
	out, err := locked(f, func() ([]filingMethodWire, error) {
		if _, err := f.requiredCompany(c); err != nil {
			return nil, err
		}
		j, err := requiredJurisdiction(c)
		if err != nil {
			return nil, err
		}
		pid, err := requiredID(c, "filing_product_id")
		if err != nil {
			return nil, err
		}
		p := f.findProduct(pid)
		if p == nil {
			return nil, notFound("filing product")
		}
		return mapRows(ptrs(offeredMethods(p, j)), func(m *FilingMethod) filingMethodWire { return wf.filingMethod(*m) }), nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{})
}

// ptrs points at each element of list.
func ptrs[T any](list []T) []*T {
	out := make([]*T, len(list))
	for i := range list {
		out[i] = &list[i]
	}
	return out
}

type formSchemaWire struct {
	FilingMethodID uuid.UUID       `json:"filing_method_id"`
	Name           string          `json:"name"`
	Schema         json.RawMessage `json:"schema"`
}

// GET /filing-methods/schemas?company_id=&filing_method_id=: the schema of
// the method's form_data, in a list (empty when it needs none).
func listFilingMethodSchemas(c *call) error {
	f := c.f
	out, err := locked(f, func() ([]formSchemaWire, error) {
		if _, err := f.requiredCompany(c); err != nil {
			return nil, err
		}
		id, err := requiredID(c, "filing_method_id")
		if err != nil {
			return nil, err
		}
		if _, m := f.findMethod(id); m == nil {
			return nil, notFound("filing method")
		}
		out := []formSchemaWire{}
		if o := f.st.offerings[id]; o.schema != nil {
			out = append(out, formSchemaWire{FilingMethodID: id, Name: "form_data", Schema: o.schema})
		}
		return out, nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{})
}

type simpleProductWire struct {
	ID          uuid.UUID   `json:"id"`
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Price       json.Number `json:"price"`
}

// GET /simple-products?url=: the simple products of a website.
func listSimpleProducts(c *call) error {
	f := c.f
	out, err := locked(f, func() ([]simpleProductWire, error) {
		w, err := f.productsWebsite(c)
		if err != nil {
			return []simpleProductWire{}, err
		}
		list := f.st.simple.filter(func(p *SimpleProduct) bool { return p.WebsiteURL == w.URL })
		return mapRows(list, func(p *SimpleProduct) simpleProductWire {
			return simpleProductWire{ID: p.ID, Name: p.Name, Description: p.Description, Price: json.Number(p.Price)}
		}), nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{})
}

type signedFormWire struct {
	ID             uuid.UUID `json:"id"`
	Name           string    `json:"name"`
	FilingMethodID uuid.UUID `json:"filing_method_id"`
	Pages          int       `json:"pages"`
}

// GET /signed-forms?filing_method_id=&website_id=: the forms signed for a
// filing method, on one website when website_id names one.
func listSignedForms(c *call) error {
	f := c.f
	out, err := locked(f, func() ([]signedFormWire, error) {
		id, err := requiredID(c, "filing_method_id")
		if err != nil {
			return nil, err
		}
		if _, m := f.findMethod(id); m == nil {
			return nil, notFound("filing method")
		}
		var site uuid.UUID
		if s := c.str("website_id"); s != "" {
			if site, err = parseUUID("website_id", s); err != nil {
				return nil, err
			}
			if f.st.websites.get(site) == nil {
				return nil, notFound("website")
			}
		}
		list := f.st.forms.filter(func(sf *SignedForm) bool {
			return sf.FilingMethodID == id && (site == uuid.Nil || sf.WebsiteID == uuid.Nil || sf.WebsiteID == site)
		})
		return mapRows(list, func(sf *SignedForm) signedFormWire {
			return signedFormWire{ID: sf.ID, Name: sf.Name, FilingMethodID: sf.FilingMethodID, Pages: sf.Pages}
		}), nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{})
}

// compiledSchemas caches compiled form schemas by their text.
var compiledSchemas sync.Map // string -> *jsonschema.Schema

// compileSchema compiles a form schema once.
func compileSchema(doc json.RawMessage) (*jsonschema.Schema, error) {
	if s, ok := compiledSchemas.Load(string(doc)); ok {
		return s.(*jsonschema.Schema), nil
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	comp := jsonschema.NewCompiler()
	if err := comp.AddResource("form.json", v); err != nil {
		return nil, err
	}
	s, err := comp.Compile("form.json")
	if err != nil {
		return nil, err
	}
	compiledSchemas.Store(string(doc), s)
	return s, nil
}

// validateForm checks form data against a schema and returns one field
// error per place at fault, the field written under prefix
// ("form_data.responsible_party.phone_number").
func validateForm(schema, data json.RawMessage, prefix string) []fieldError {
	s, err := compileSchema(schema)
	if err != nil {
		return []fieldError{{Field: prefix, Message: "cannot be checked: the filing method's schema is invalid: " + err.Error()}}
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return []fieldError{{Field: prefix, Message: "is not valid JSON"}}
	}
	err = s.Validate(v)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []fieldError{{Field: prefix, Message: err.Error()}}
	}
	var out []fieldError
	var walk func(u jsonschema.OutputUnit)
	walk = func(u jsonschema.OutputUnit) {
		if u.Error != nil && len(u.Errors) == 0 {
			field := prefix
			if loc := strings.Trim(u.InstanceLocation, "/"); loc != "" {
				field += "." + strings.ReplaceAll(loc, "/", ".")
			}
			out = append(out, fieldError{Field: field, Message: u.Error.String()})
		}
		for _, e := range u.Errors {
			walk(e)
		}
	}
	walk(*ve.BasicOutput())
	if len(out) == 0 {
		out = append(out, fieldError{Field: prefix, Message: fmt.Sprint(ve)})
	}
	return out
}

// formError is the 400 of form data that fails its schema.
func formError(fields []fieldError) *apiError {
	msgs := make([]string, len(fields))
	for i, fe := range fields {
		msgs[i] = fe.Field + " " + fe.Message
	}
	return &apiError{status: http.StatusBadRequest, msg: "form_data does not pass the filing method's schema: " + strings.Join(msgs, "; "), fields: fields}
}
