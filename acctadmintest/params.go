package acctadmintest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"

	"github.com/google/uuid"
)

// Parameters.

// scalar returns the first value of a query parameter, "" when absent.
func (c *call) scalar(name string) string {
	if v := c.query[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// list returns the values of an array parameter, given as name[] (the
// form clients use) or as name, skipping empty values.
func (c *call) list(name string) []string {
	var out []string
	for _, v := range append(append([]string(nil), c.query[name+"[]"]...), c.query[name]...) {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// paging reads limit and offset. def is the default limit; max the largest
// limit allowed. A def of 0 means "all" when no limit is given.
func (c *call) paging(def, max int) (limit, offset int, err error) {
	limit = def
	if s := c.scalar("limit"); s != "" {
		n, err := strconv.Atoi(s)
		switch {
		case err != nil:
			return 0, 0, invalid("limit", "must be an integer")
		case n < 1:
			return 0, 0, invalid("limit", "must be at least 1")
		case n > max:
			return 0, 0, invalid("limit", fmt.Sprintf("must be at most %d", max))
		}
		limit = n
	}
	if s := c.scalar("offset"); s != "" {
		n, err := strconv.Atoi(s)
		switch {
		case err != nil:
			return 0, 0, invalid("offset", "must be an integer")
		case n < 0:
			return 0, 0, invalid("offset", "must not be negative")
		}
		offset = n
	}
	return limit, offset, nil
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
	id, err := uuid.Parse(c.r.PathValue("id"))
	if err != nil {
		return uuid.Nil, notFound(what)
	}
	return id, nil
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
