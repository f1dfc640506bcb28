package acctadmintest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Company is a company of the account.
type Company struct {
	ID   uuid.UUID
	Name string
	// HomeState is the jurisdiction of the company's domestic
	// registration, "" when it has none.
	HomeState  string
	EntityType string
	// Jurisdictions are the names of the jurisdictions the company is
	// registered in, as POST and PATCH /companies set them.
	Jurisdictions []string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// CompanyInput describes a company for AddCompany. Zero fields get
// defaults: a new ID, the current time.
type CompanyInput struct {
	ID            uuid.UUID
	Name          string
	HomeState     string   // a jurisdiction name, or ""
	Jurisdictions []string // names or abbreviations
	EntityType    string
	CreatedAt     time.Time
}

// AddCompany adds a company to the account and returns it. It panics if
// the name is empty or already taken, or HomeState or one of
// Jurisdictions is not a jurisdiction: those are mistakes in the calling
// test.
func (f *Fake) AddCompany(in CompanyInput) Company {
	if strings.TrimSpace(in.Name) == "" {
		panic("acctadmintest: AddCompany: empty name")
	}
	if in.HomeState != "" {
		in.HomeState = mustJurisdiction("AddCompany", in.HomeState).Name
	}
	var places []string
	for _, j := range in.Jurisdictions {
		places = append(places, mustJurisdiction("AddCompany", j).Name)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.companyByName(in.Name) != nil {
		panic("acctadmintest: AddCompany: a company named " + in.Name + " exists")
	}
	at := f.timeOr(in.CreatedAt)
	co := &Company{
		ID:            f.idOr(in.ID),
		Name:          in.Name,
		HomeState:     in.HomeState,
		EntityType:    in.EntityType,
		Jurisdictions: places,
		CreatedAt:     at,
		UpdatedAt:     at,
	}
	f.st.companies.insert(co)
	return f.st.companies.copyOf(co)
}

// Companies returns the companies of the account, oldest first.
func (f *Fake) Companies() []Company {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.companies.copies()
}

// Company returns the company with the given ID.
func (f *Fake) Company(id uuid.UUID) (Company, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.companies.lookup(id)
}

// companyByName finds a company by name, ignoring case; f.mu must be held.
func (f *Fake) companyByName(name string) *Company {
	name = strings.TrimSpace(name)
	return f.st.companies.find(func(c *Company) bool { return strings.EqualFold(c.Name, name) })
}

// companyName is the current name of a company ("" when unknown), so that
// records follow a rename; f.mu must be held.
func (f *Fake) companyName(id uuid.UUID) string {
	if c := f.st.companies.get(id); c != nil {
		return c.Name
	}
	return ""
}

// mustCompany resolves the company of a seeding helper; f.mu must be held.
func (f *Fake) mustCompany(helper string, id uuid.UUID) *Company {
	c := f.st.companies.get(id)
	if c == nil {
		panic(fmt.Sprintf("acctadmintest: %s: unknown company %s", helper, id))
	}
	return c
}

type companyWire struct {
	ID            uuid.UUID `json:"id"`
	Name          string    `json:"name"`
	HomeState     any       `json:"home_state"`
	EntityType    string    `json:"entity_type"`
	Jurisdictions []string  `json:"jurisdictions"`
	CreatedAt     string    `json:"created_at"`
	UpdatedAt     string    `json:"updated_at"`
}

func (wf wireFormat) company(c *Company) companyWire {
	return companyWire{
		ID:            c.ID,
		Name:          c.Name,
		HomeState:     nullable(c.HomeState),
		EntityType:    c.EntityType,
		Jurisdictions: append([]string{}, c.Jurisdictions...),
		CreatedAt:     wf.time(c.CreatedAt),
		UpdatedAt:     wf.time(c.UpdatedAt),
	}
}

// GET /companies: every company, oldest first, or those of the names
// given (names[] or names, any case); limit and offset are optional (all
// companies when no limit is given).
func listCompanies(c *call) error {
	limit, offset := c.paging()
	names := c.strs("names")
	f := c.f
	wf := f.wire(false)
	out, _ := locked(f, func() ([]companyWire, error) {
		list := f.st.companies.filter(func(co *Company) bool {
			return len(names) == 0 || slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, co.Name) })
		})
		return mapRows(page(list, limit, offset), wf.company), nil
	})
	return c.ok(out, answer{})
}

// companyJurisdictions resolves the jurisdictions of a company write:
// names or abbreviations, an item possibly holding several comma-joined
// (as the provider's Ruby example sends them); duplicates are dropped. An
// unknown one is a 400 on field.
func companyJurisdictions(field string, items []string) ([]string, error) {
	var out []string
	for _, item := range items {
		for _, s := range strings.Split(item, ",") {
			if s = strings.TrimSpace(s); s == "" {
				continue
			}
			j, ok := LookupJurisdiction(s)
			if !ok {
				return nil, invalid(field, "contains an unknown jurisdiction: "+strconv.Quote(s))
			}
			if !slices.Contains(out, j.Name) {
				out = append(out, j.Name)
			}
		}
	}
	return out, nil
}

// entityTypes are the entity types a company write accepts, matched
// regardless of case: the full names the real server was recorded
// accepting ("Limited Liability Company", "Corporation":
// spec/recorded-behaviour.md, C3), the short forms the fake has always
// taken, and the other common kinds. Another value is refused (C2).
var entityTypes = []string{
	"Limited Liability Company", "LLC",
	"Corporation", "Corp", "Inc",
	"Professional Limited Liability Company", "PLLC",
	"Professional Corporation", "PC",
	"Nonprofit Corporation", "Nonprofit",
	"Limited Partnership", "LP",
	"Limited Liability Partnership", "LLP",
	"S Corporation", "Benefit Corporation",
}

// entityTypeParam checks the entity_type of a company write: "" means not
// given, a known type is kept as sent, another is a 400 on field.
func entityTypeParam(field string, s *string) (*string, error) {
	if s == nil || strings.TrimSpace(*s) == "" {
		return nil, nil
	}
	v := strings.TrimSpace(*s)
	if !slices.ContainsFunc(entityTypes, func(t string) bool { return strings.EqualFold(t, v) }) {
		return nil, invalid(field, "must be an entity type such as Limited Liability Company, LLC or Corporation, not "+strconv.Quote(v))
	}
	return &v, nil
}

type companyCreateBody struct {
	Companies []struct {
		Name          *string  `json:"name"`
		HomeState     *string  `json:"home_state"`
		EntityType    *string  `json:"entity_type"`
		Jurisdictions []string `json:"jurisdictions"`
	} `json:"companies"`
	DuplicateNameAllowed *bool `json:"duplicate_name_allowed"`
}

// POST /companies: adds the companies whose names are new and answers
// only those; a name the account already has is skipped, unless
// duplicate_name_allowed is true. jurisdictions (names or abbreviations)
// are where each is registered.
func createCompanies(c *call) error {
	var body companyCreateBody
	if err := c.decodeBody(&body); err != nil {
		return err
	}
	if len(body.Companies) == 0 {
		return invalid("companies", "is required and must not be empty")
	}
	type item struct {
		name, home, entity string
		places             []string
	}
	items := make([]item, len(body.Companies))
	for i, in := range body.Companies {
		field := fmt.Sprintf("companies[%d].", i)
		if in.Name == nil || strings.TrimSpace(*in.Name) == "" {
			return invalid(field+"name", "is required")
		}
		it := item{name: strings.TrimSpace(*in.Name)}
		if in.HomeState != nil && *in.HomeState != "" {
			j, ok := LookupJurisdiction(*in.HomeState)
			if !ok {
				return invalid(field+"home_state", "must be a valid jurisdiction name or abbreviation")
			}
			it.home = j.Name
		}
		entity, err := entityTypeParam(field+"entity_type", in.EntityType)
		if err != nil {
			return err
		}
		if entity != nil {
			it.entity = *entity
		}
		if it.places, err = companyJurisdictions(field+"jurisdictions", in.Jurisdictions); err != nil {
			return err
		}
		items[i] = it
	}

	f := c.f
	wf := f.wire(false)
	out, _ := locked(f, func() ([]companyWire, error) {
		now := f.now()
		out := []companyWire{}
		var created []uuid.UUID
		dup := body.DuplicateNameAllowed != nil && *body.DuplicateNameAllowed
		for _, it := range items {
			if !dup && f.companyByName(it.name) != nil {
				continue
			}
			co := &Company{ID: f.newID(), Name: it.name, HomeState: it.home, EntityType: it.entity, Jurisdictions: it.places,
				CreatedAt: now, UpdatedAt: now}
			f.st.companies.insert(co)
			created = append(created, co.ID)
			out = append(out, wf.company(co))
		}
		f.recordWrite(c, created)
		return out, nil
	})
	return c.ok(out, answer{})
}

type companyUpdateBody struct {
	Companies []struct {
		Company       *string  `json:"company"`
		CompanyID     *string  `json:"company_id"`
		Name          *string  `json:"name"`
		EntityType    *string  `json:"entity_type"`
		HomeState     *string  `json:"home_state"`
		Jurisdictions []string `json:"jurisdictions"`
	} `json:"companies"`
	DuplicateNameAllowed *bool `json:"duplicate_name_allowed"`
}

// PATCH /companies: each item names a company by company (its name) or
// company_id and sets any of name, entity_type, home_state and
// jurisdictions (a new list). A name another company has is refused
// unless duplicate_name_allowed is true. The whole batch is checked
// before anything changes.
func updateCompanies(c *call) error {
	var body companyUpdateBody
	if err := c.decodeBody(&body); err != nil {
		return err
	}
	if len(body.Companies) == 0 {
		return invalid("companies", "is required and must not be empty")
	}
	f := c.f
	wf := f.wire(false)
	out, err := locked(f, func() ([]companyWire, error) {
		return f.applyCompanyUpdates(c, wf, &body)
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{})
}

// applyCompanyUpdates checks and applies a PATCH /companies batch; f.mu
// must be held.
func (f *Fake) applyCompanyUpdates(c *call, wf wireFormat, body *companyUpdateBody) ([]companyWire, error) {
	type change struct {
		co                 *Company
		name, entity, home *string
		places             []string // nil: unchanged
	}
	dup := body.DuplicateNameAllowed != nil && *body.DuplicateNameAllowed
	changes := make([]change, len(body.Companies))
	for i, in := range body.Companies {
		field := fmt.Sprintf("companies[%d].", i)
		name, id := deref(in.Company), deref(in.CompanyID)
		if name == "" && id == "" {
			return nil, invalidf([]fieldError{{Field: field + "company", Message: "one of company or company_id is required"}},
				"%scompany or %scompany_id is required", field, field)
		}
		co, _, err := f.companyParam(name, id)
		if err != nil {
			if e, ok := err.(*apiError); ok && len(e.fields) > 0 {
				for k := range e.fields {
					e.fields[k].Field = field + e.fields[k].Field
				}
			}
			return nil, err
		}
		entity, err := entityTypeParam(field+"entity_type", in.EntityType)
		if err != nil {
			return nil, err
		}
		ch := change{co: co, entity: entity}
		if in.Name != nil && strings.TrimSpace(*in.Name) != "" {
			n := strings.TrimSpace(*in.Name)
			if other := f.companyByName(n); !dup && other != nil && other != co {
				return nil, invalid(field+"name", "is already the name of another company")
			}
			ch.name = &n
		}
		if in.HomeState != nil && *in.HomeState != "" {
			j, ok := LookupJurisdiction(*in.HomeState)
			if !ok {
				return nil, invalid(field+"home_state", "must be a valid jurisdiction name or abbreviation")
			}
			ch.home = &j.Name
		}
		if in.Jurisdictions != nil {
			places, err := companyJurisdictions(field+"jurisdictions", in.Jurisdictions)
			if err != nil {
				return nil, err
			}
			ch.places = append([]string{}, places...)
		}
		changes[i] = ch
	}

	now := f.now()
	out := make([]companyWire, 0, len(changes))
	for _, ch := range changes {
		if ch.name != nil {
			ch.co.Name = *ch.name
		}
		if ch.entity != nil {
			ch.co.EntityType = *ch.entity
		}
		if ch.home != nil {
			ch.co.HomeState = *ch.home
		}
		if ch.places != nil {
			ch.co.Jurisdictions = ch.places
		}
		ch.co.UpdatedAt = now
		out = append(out, wf.company(ch.co))
	}
	f.recordWrite(c, nil)
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}
