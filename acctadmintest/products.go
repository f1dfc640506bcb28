package acctadmintest

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// Filing method types.
const (
	FilingMail   = "mail"
	FilingOnline = "online"
	FilingFax    = "fax"
)

// Turnaround is a duration in days and hours, as filed_in and docs_in
// carry it.
type Turnaround struct {
	Days  int
	Hours int
}

// FilingMethod is a way of making a filing in a jurisdiction. As input to
// AddFilingProduct a zero ID gets a new one and an empty Cost is "0.00".
type FilingMethod struct {
	ID   uuid.UUID
	Name string
	Type string // mail, online or fax
	// Cost is decimal text such as "25.00", written on the wire as that
	// exact JSON number.
	Cost              string
	FiledIn           Turnaround
	DocsIn            Turnaround
	AgencyName        string
	FilingDescription string
	Jurisdiction      string // a jurisdiction name
}

// FilingProduct is a filing sold on a website.
type FilingProduct struct {
	ID         uuid.UUID
	WebsiteURL string
	Name       string
	FilingName string
	// Price is decimal text such as "149.00", written on the wire as that
	// exact JSON number.
	Price   string
	Methods []FilingMethod
	// EntityTypes are the entity types the product is for ("LLC",
	// "Corporation"); none means every type.
	EntityTypes []string
}

// FilingProductInput describes a filing product for AddFilingProduct.
// Zero fields get defaults: a new ID, a price of "0.00".
type FilingProductInput struct {
	ID         uuid.UUID
	WebsiteURL string // required: the URL of a website added before
	Name       string
	FilingName string
	Price      string
	Methods    []FilingMethod
	// EntityTypes are the entity types the product is for, which
	// entity_type filters on; none means every type.
	EntityTypes []string
}

// AddFilingProduct adds a filing product to a website and returns it. It
// panics on an unknown website or jurisdiction, or an amount that is not
// decimal text.
func (f *Fake) AddFilingProduct(in FilingProductInput) FilingProduct {
	methods := make([]FilingMethod, len(in.Methods))
	for i, m := range in.Methods {
		m.Jurisdiction = mustJurisdiction("AddFilingProduct", m.Jurisdiction).Name
		m.Cost = mustPrice("AddFilingProduct", m.Cost)
		methods[i] = m
	}
	price := mustPrice("AddFilingProduct", in.Price)
	f.mu.Lock()
	defer f.mu.Unlock()
	w := f.websiteByURL(in.WebsiteURL)
	if w == nil {
		panic("acctadmintest: AddFilingProduct: unknown website " + in.WebsiteURL)
	}
	for i := range methods {
		methods[i].ID = f.idOr(methods[i].ID)
	}
	p := &FilingProduct{
		ID:          f.idOr(in.ID),
		WebsiteURL:  w.URL,
		Name:        in.Name,
		FilingName:  in.FilingName,
		Price:       price,
		Methods:     methods,
		EntityTypes: slices.Clone(in.EntityTypes),
	}
	f.st.products.insert(p)
	return f.st.products.copyOf(p)
}

// FilingProducts returns every filing product of every website, in the
// order they were added.
func (f *Fake) FilingProducts() []FilingProduct {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.products.copies()
}

type turnaroundWire struct {
	Days  int `json:"days"`
	Hours int `json:"hours"`
}

type filingMethodWire struct {
	ID                uuid.UUID   `json:"id"`
	Name              string      `json:"name"`
	Type              string      `json:"type"`
	Cost              json.Number `json:"cost"`
	FiledIn           any         `json:"filed_in"`
	DocsIn            any         `json:"docs_in"`
	AgencyName        string      `json:"agency_name"`
	FilingDescription string      `json:"filing_description"`
	Jurisdiction      string      `json:"jurisdiction"`
}

type filingProductWire struct {
	ID            uuid.UUID           `json:"id"`
	Name          string              `json:"name"`
	FilingName    string              `json:"filing_name"`
	Price         json.Number         `json:"price"`
	FilingMethods *[]filingMethodWire `json:"filing_methods,omitempty"`
}

// turnaround writes filed_in or docs_in. With quirks, mail and fax methods
// carry an array holding the object, online methods the bare object.
func (wf wireFormat) turnaround(methodType string, t Turnaround) any {
	obj := turnaroundWire(t)
	if wf.quirks && methodType != FilingOnline {
		return []turnaroundWire{obj}
	}
	return obj
}

func (wf wireFormat) filingMethod(m FilingMethod) filingMethodWire {
	return filingMethodWire{
		ID:                m.ID,
		Name:              m.Name,
		Type:              m.Type,
		Cost:              json.Number(m.Cost),
		FiledIn:           wf.turnaround(m.Type, m.FiledIn),
		DocsIn:            wf.turnaround(m.Type, m.DocsIn),
		AgencyName:        m.AgencyName,
		FilingDescription: m.FilingDescription,
		Jurisdiction:      m.Jurisdiction,
	}
}

// GET /filing-products?url=&jurisdiction=: the products of a website (url
// required: 400; a URL no website is registered as, matched exactly as
// GET /websites does: 404). With a jurisdiction (which must be
// valid: 400), every product carries filing_methods, the methods of that
// jurisdiction (possibly []); without one the field is absent. With an
// entity_type, only the products for that type (or for every type).
func listFilingProducts(c *call) error {
	var jurisdiction string
	if s := c.str("jurisdiction"); s != "" {
		j, ok := LookupJurisdiction(s)
		if !ok {
			return invalid("jurisdiction", "must be a valid jurisdiction name or abbreviation")
		}
		jurisdiction = j.Name
	}
	entity := strings.TrimSpace(c.str("entity_type"))
	f := c.f
	wf := f.wire(false)
	out, err := locked(f, func() ([]filingProductWire, error) {
		w, err := f.productsWebsite(c)
		if err != nil {
			return []filingProductWire{}, err
		}
		list := f.st.products.filter(func(p *FilingProduct) bool {
			return p.WebsiteURL == w.URL && (entity == "" || len(p.EntityTypes) == 0 ||
				slices.ContainsFunc(p.EntityTypes, func(t string) bool { return strings.EqualFold(t, entity) }))
		})
		return mapRows(list, func(p *FilingProduct) filingProductWire {
			pw := filingProductWire{ID: p.ID, Name: p.Name, FilingName: p.FilingName, Price: json.Number(p.Price)}
			if jurisdiction != "" {
				methods := []filingMethodWire{}
				for _, m := range p.Methods {
					if m.Jurisdiction == jurisdiction {
						methods = append(methods, wf.filingMethod(m))
					}
				}
				pw.FilingMethods = &methods
			}
			return pw
		}), nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{})
}

// RegisteredAgentProduct is a registered-agent service sold on a website
// for a jurisdiction.
type RegisteredAgentProduct struct {
	ID           uuid.UUID
	WebsiteURL   string
	Name         string
	Jurisdiction string
	// Price is decimal text such as "99.00", written on the wire as that
	// exact JSON number.
	Price string
	// Duration is how long the service runs, in months.
	Duration int
	URL      string
}

// RegisteredAgentProductInput describes a product for
// AddRegisteredAgentProduct. Zero fields get defaults: a new ID, a price
// of "0.00".
type RegisteredAgentProductInput struct {
	ID           uuid.UUID
	WebsiteURL   string // required: the URL of a website added before
	Name         string
	Jurisdiction string // a jurisdiction name
	Price        string
	Duration     int // months; 12 when zero
	URL          string
}

// AddRegisteredAgentProduct adds a registered-agent product to a website
// and returns it. It panics on an unknown website or jurisdiction, or a
// price that is not decimal text.
func (f *Fake) AddRegisteredAgentProduct(in RegisteredAgentProductInput) RegisteredAgentProduct {
	j := mustJurisdiction("AddRegisteredAgentProduct", in.Jurisdiction)
	price := mustPrice("AddRegisteredAgentProduct", in.Price)
	f.mu.Lock()
	defer f.mu.Unlock()
	w := f.websiteByURL(in.WebsiteURL)
	if w == nil {
		panic("acctadmintest: AddRegisteredAgentProduct: unknown website " + in.WebsiteURL)
	}
	p := &RegisteredAgentProduct{
		ID:           f.idOr(in.ID),
		WebsiteURL:   w.URL,
		Name:         in.Name,
		Jurisdiction: j.Name,
		Price:        price,
		Duration:     in.Duration,
		URL:          in.URL,
	}
	if p.Duration == 0 {
		p.Duration = 12
	}
	f.st.raProducts.insert(p)
	return *p
}

type registeredAgentProductWire struct {
	ID           uuid.UUID   `json:"id"`
	Name         string      `json:"name"`
	Jurisdiction string      `json:"jurisdiction"`
	Price        json.Number `json:"price"`
	Duration     int         `json:"duration"` // months
	URL          string      `json:"url"`
}

// GET /registered-agent-products?url=: the registered-agent products of a
// website (url required: 400; a URL no website is registered as, matched
// exactly as GET /websites does: 404), with their duration in months (W2).
func listRegisteredAgentProducts(c *call) error {
	f := c.f
	out, err := locked(f, func() ([]registeredAgentProductWire, error) {
		w, err := f.productsWebsite(c)
		if err != nil {
			return []registeredAgentProductWire{}, err
		}
		list := f.st.raProducts.filter(func(p *RegisteredAgentProduct) bool { return p.WebsiteURL == w.URL })
		return mapRows(list, func(p *RegisteredAgentProduct) registeredAgentProductWire {
			return registeredAgentProductWire{ID: p.ID, Name: p.Name, Jurisdiction: p.Jurisdiction, Price: json.Number(p.Price), Duration: p.Duration, URL: p.URL}
		}), nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{})
}
