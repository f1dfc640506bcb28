package acctadmintest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/google/uuid"
)

// Parameters are read through the contract. Once a request has passed
// validation against its operation in the OpenAPI document, a handler
// reads each parameter by its name in the document and as the type the
// document gives it: the value is one the validator has accepted, and an
// absent one is the schema's default. Bounds, types and defaults live in
// the document alone, so a handler never parses or checks a parameter
// itself. Reading a name its operation does not declare, or as another
// type, is a bug of the fake: it panics, and the route's tests catch it.

// params is what a handler reads of a validated request.
type params struct {
	op    *routers.Route
	query url.Values
	path  func(string) string
}

// declared finds the declaration of a parameter of the operation, on the
// operation or on its path.
func (p *params) declared(name string) *openapi3.Parameter {
	if p == nil || p.op == nil {
		return nil
	}
	for _, list := range []openapi3.Parameters{p.op.Operation.Parameters, p.op.PathItem.Parameters} {
		for _, ref := range list {
			if ref.Value != nil && ref.Value.Name == name {
				return ref.Value
			}
		}
	}
	return nil
}

// mustDeclare returns the declaration of name, which must be of type typ.
func (p *params) mustDeclare(name, typ string) *openapi3.Parameter {
	d := p.declared(name)
	if d == nil {
		panic(fmt.Sprintf("acctadmintest: the handler reads %q, which its operation in the OpenAPI document does not declare", name))
	}
	if d.Schema == nil || d.Schema.Value == nil || !d.Schema.Value.Type.Is(typ) {
		panic(fmt.Sprintf("acctadmintest: the handler reads %q as %s, which the OpenAPI document does not", name, typ))
	}
	return d
}

// raw returns the text of a declared parameter, "" when absent.
func (p *params) raw(d *openapi3.Parameter) string {
	if d.In == openapi3.ParameterInPath {
		return p.path(d.Name)
	}
	return p.query.Get(d.Name)
}

// str returns a string parameter, "" when it is absent.
func (c *call) str(name string) string {
	return c.in.raw(c.in.mustDeclare(name, openapi3.TypeString))
}

// num returns an integer parameter, as the validator read it (base
// prefixes and all); when it is absent or empty, the document's default,
// and 0 when it has none.
func (c *call) num(name string) int {
	d := c.in.mustDeclare(name, openapi3.TypeInteger)
	s := c.in.raw(d)
	if s == "" {
		if def := d.Schema.Value.Default; def != nil {
			s = fmt.Sprint(def)
		} else {
			return 0
		}
	}
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		panic(fmt.Sprintf("acctadmintest: %s=%q passed validation but is not an integer", name, s))
	}
	return int(n)
}

// strs returns an array parameter, which clients spell name[] or name
// (the document declares each spelling it takes), skipping empty values.
// A value of the bare spelling is also read as a comma-joined list
// ("jurisdictions=Utah,Idaho"), as a Spring client sends lists; one of
// the name[] spelling is one value, commas included.
func (c *call) strs(name string) []string {
	var out []string
	found := false
	for _, spelling := range []string{name + "[]", name} {
		d := c.in.declared(spelling)
		if d == nil {
			continue
		}
		c.in.mustDeclare(spelling, openapi3.TypeArray)
		found = true
		for _, v := range c.in.query[spelling] {
			parts := []string{v}
			if spelling == name {
				parts = strings.Split(v, ",")
			}
			for _, p := range parts {
				if p = strings.TrimSpace(p); p != "" {
					out = append(out, p)
				}
			}
		}
	}
	if !found {
		panic(fmt.Sprintf("acctadmintest: the handler reads the array %q, which its operation in the OpenAPI document does not declare", name))
	}
	return out
}

// paging reads limit and offset; their bounds and the default limit are
// the document's. A limit of 0 (none given, and no default) means all.
func (c *call) paging() (limit, offset int) {
	return c.num("limit"), c.num("offset")
}

// page cuts one page out of a sorted listing; a limit of 0 means all.
func page[T any](list []T, limit, offset int) []T {
	if offset >= len(list) {
		return []T{}
	}
	list = list[offset:]
	if limit > 0 && limit < len(list) {
		list = list[:limit]
	}
	return list
}

// parseUUID reads a UUID parameter.
func parseUUID(field, s string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, invalid(field, "must be a UUID")
	}
	if id == uuid.Nil {
		return uuid.Nil, invalid(field, "must not be the nil UUID")
	}
	return id, nil
}

// pathID reads the :id path parameter; an id that is not a UUID names
// nothing, so it is a 404.
func (c *call) pathID(what string) (uuid.UUID, error) {
	id, err := uuid.Parse(c.str("id"))
	if err != nil {
		return uuid.Nil, notFound(what)
	}
	return id, nil
}

// answerByID answers the record of a table that the path's id names,
// written by write with f.mu held; an id that names nothing is a 404
// naming what.
func answerByID[T, W any](c *call, what string, tbl func(*state) *table[T], write func(wireFormat, *T) W, a answer) error {
	id, err := c.pathID(what)
	if err != nil {
		return err
	}
	f := c.f
	wf := f.wire(false)
	out, err := locked(f, func() (W, error) {
		r := tbl(&f.st).get(id)
		if r == nil {
			var zero W
			return zero, notFound(what)
		}
		return write(wf, r), nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, a)
}

// decodeBody reads a JSON object body into v.
func (c *call) decodeBody(v any) error {
	b := bytes.TrimSpace(c.body)
	if len(b) == 0 || b[0] != '{' {
		return &apiError{status: http.StatusBadRequest, msg: "request body must be a JSON object"}
	}
	if err := json.Unmarshal(b, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return invalid(te.Field, "must be of type "+jsonType(te.Type.Kind().String()))
		}
		return &apiError{status: http.StatusBadRequest, msg: "request body is not valid JSON"}
	}
	return nil
}

func jsonType(kind string) string {
	switch kind {
	case "slice", "array":
		return "array"
	case "struct", "map":
		return "object"
	case "string", "ptr":
		return "string"
	case "bool":
		return "boolean"
	default:
		return "number"
	}
}

// companyParam resolves the company / company_id pair of a request: at
// most one may be given; unknown companies are 404. ok is false when
// neither was given. f.mu must be held.
func (f *Fake) companyParam(name, id string) (co *Company, ok bool, err error) {
	switch {
	case name != "" && id != "":
		return nil, false, invalidf([]fieldError{
			{Field: "company", Message: "must not be given with company_id"},
			{Field: "company_id", Message: "must not be given with company"},
		}, "company and company_id must not both be given")
	case id != "":
		cid, err := parseUUID("company_id", id)
		if err != nil {
			return nil, false, err
		}
		co := f.st.companies.get(cid)
		if co == nil {
			return nil, false, notFound("company")
		}
		return co, true, nil
	case name != "":
		co := f.companyByName(name)
		if co == nil {
			return nil, false, notFound("company")
		}
		return co, true, nil
	}
	return nil, false, nil
}

// jurisdictionsParam resolves the jurisdictions / jurisdiction_ids pair:
// at most one may be given, every entry must be valid (400 otherwise).
// Duplicates are dropped. ok is false when neither was given.
func jurisdictionsParam(names, ids []string) (out []Jurisdiction, ok bool, err error) {
	switch {
	case len(names) > 0 && len(ids) > 0:
		return nil, false, invalidf([]fieldError{
			{Field: "jurisdictions", Message: "must not be given with jurisdiction_ids"},
			{Field: "jurisdiction_ids", Message: "must not be given with jurisdictions"},
		}, "jurisdictions and jurisdiction_ids must not both be given")
	case len(names) > 0:
		for _, n := range names {
			j, found := LookupJurisdiction(n)
			if !found {
				return nil, false, invalid("jurisdictions", "contains an unknown jurisdiction: "+strconv.Quote(n))
			}
			out = appendJurisdiction(out, j)
		}
		return out, true, nil
	case len(ids) > 0:
		for _, s := range ids {
			id, err := uuid.Parse(s)
			if err != nil {
				return nil, false, invalid("jurisdiction_ids", "must contain UUIDs: "+strconv.Quote(s))
			}
			j, found := LookupJurisdictionID(id)
			if !found {
				return nil, false, invalid("jurisdiction_ids", "contains an unknown jurisdiction id: "+s)
			}
			out = appendJurisdiction(out, j)
		}
		return out, true, nil
	}
	return nil, false, nil
}

func appendJurisdiction(list []Jurisdiction, j Jurisdiction) []Jurisdiction {
	for _, x := range list {
		if x.ID == j.ID {
			return list
		}
	}
	return append(list, j)
}

// locked runs fn with f.mu held, so that handlers write their answer after
// releasing the lock.
func locked[T any](f *Fake, fn func() (T, error)) (T, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fn()
}

var decimalRE = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// mustPrice checks an amount given to a seeding helper: decimal text such
// as "149.00", written on the wire as that exact JSON number. "" is "0.00".
func mustPrice(helper, s string) string {
	if s == "" {
		return "0.00"
	}
	if !decimalRE.MatchString(s) {
		panic("acctadmintest: " + helper + ": price " + strconv.Quote(s) + " is not decimal text like 149.00")
	}
	return s
}
