package acctadmin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// query builds a query string in the order its parameters are added, the
// way the API reads it: zero values are left out, arrays are repeated
// under the key with a "[]" suffix (jurisdictions[]=Utah&jurisdictions[]=Idaho),
// times and dates are written in the API's own formats.
type query struct {
	b []byte
}

func (q *query) add(key, value string) {
	if len(q.b) > 0 {
		q.b = append(q.b, '&')
	}
	if base, ok := strings.CutSuffix(key, "[]"); ok {
		q.b = append(q.b, url.QueryEscape(base)...)
		q.b = append(q.b, "[]"...)
	} else {
		q.b = append(q.b, url.QueryEscape(key)...)
	}
	q.b = append(q.b, '=')
	q.b = append(q.b, url.QueryEscape(value)...)
}

// The adders below return q, so that a query is written as one chain:
// new(query).str("url", u).id("company_id", id).

func (q *query) str(key, v string) *query {
	if v != "" {
		q.add(key, v)
	}
	return q
}

func (q *query) int(key string, v int) *query {
	if v != 0 {
		q.add(key, strconv.Itoa(v))
	}
	return q
}

func (q *query) id(key string, v uuid.UUID) *query {
	if v != uuid.Nil {
		q.add(key, v.String())
	}
	return q
}

func (q *query) time(key string, v time.Time) *query {
	if !v.IsZero() {
		q.add(key, v.Format(apiTimeLayout))
	}
	return q
}

func (q *query) date(key string, v Date) *query {
	if !v.IsZero() {
		q.add(key, v.String())
	}
	return q
}

func (q *query) strs(key string, vs []string) *query {
	for _, v := range vs {
		q.add(key+"[]", v)
	}
	return q
}

func (q *query) ids(key string, vs []uuid.UUID) *query {
	for _, v := range vs {
		q.add(key+"[]", v.String())
	}
	return q
}

// pageQuery starts the query of a listing with its limit and offset.
func pageQuery(limit, offset int) *query { return new(query).int("limit", limit).int("offset", offset) }

// orZero returns p, or a new zero P when p is nil: a method given nil
// params reads them as the zero params.
func orZero[P any](p *P) *P {
	if p == nil {
		return new(P)
	}
	return p
}

// encode returns the query string; a nil query encodes as "".
func (q *query) encode() string {
	if q == nil {
		return ""
	}
	return string(q.b)
}

// The checks below are the API's rules that can be known before sending.
// Each returns a *ValidationError naming the parameter, or nil.

func checkPage(limit, maxLimit, offset int) error {
	if limit < 0 {
		return invalid("limit", "must not be negative, got %d", limit)
	}
	if limit > maxLimit {
		return invalid("limit", "must be at most %d, got %d", maxLimit, limit)
	}
	if offset < 0 {
		return invalid("offset", "must not be negative, got %d", offset)
	}
	return nil
}

// checkNotBoth refuses two parameters that exclude each other.
func checkNotBoth(a string, aSet bool, b string, bSet bool) error {
	if aSet && bSet {
		return invalid(a, "give %s or %s, not both", a, b)
	}
	return nil
}

// checkOne requires exactly one of two parameters.
func checkOne(a string, aSet bool, b string, bSet bool) error {
	if !aSet && !bSet {
		return invalid(a, "give %s or %s", a, b)
	}
	return checkNotBoth(a, aSet, b, bSet)
}

func checkID(field string, id uuid.UUID) error {
	if id == uuid.Nil {
		return invalid(field, "must not be the nil UUID")
	}
	return nil
}

func checkRequired(field, v string) error {
	if strings.TrimSpace(v) == "" {
		return invalid(field, "is required")
	}
	return nil
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// optID returns nil for the nil UUID, so that omitempty leaves it out of
// a JSON body.
func optID(id uuid.UUID) *uuid.UUID {
	if id == uuid.Nil {
		return nil
	}
	return &id
}

// checkDate requires d, a real calendar date.
func checkDate(field string, d Date) error {
	if d.IsZero() {
		return invalid(field, "is required")
	}
	if _, err := ParseDate(d.String()); err != nil {
		return invalid(field, "%04d-%02d-%02d is not a calendar date", d.Year, int(d.Month), d.Day)
	}
	return nil
}

// checkDates checks the optional start_date and end_date of a listing:
// each, when given, a real calendar date, and end not before start.
func checkDates(start, end Date) error {
	for _, d := range []struct {
		field string
		d     Date
	}{{"start_date", start}, {"end_date", end}} {
		if !d.d.IsZero() {
			if err := checkDate(d.field, d.d); err != nil {
				return err
			}
		}
	}
	if !start.IsZero() && !end.IsZero() && end.Before(start) {
		return invalid("end_date", "%s is before start_date %s", end, start)
	}
	return nil
}

// checkIDs refuses the nil UUID in a list of ids.
func checkIDs(field string, ids []uuid.UUID) error {
	for i, id := range ids {
		if id == uuid.Nil {
			return invalid(field, "item %d is the nil UUID", i)
		}
	}
	return nil
}

// checkSome requires at least one of two parameters.
func checkSome(a string, aSet bool, b string, bSet bool) error {
	if !aSet && !bSet {
		return invalid(a, "give %s or %s", a, b)
	}
	return nil
}

// checkFormData checks a form's answers: a value that encodes as a JSON
// object. A nil one is refused when required.
func checkFormData(field string, v any, required bool) error {
	if v == nil {
		if required {
			return invalid(field, "is required")
		}
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return invalid(field, "does not encode as JSON: %v", err)
	}
	if b = bytes.TrimSpace(b); len(b) == 0 || b[0] != '{' {
		return invalid(field, "must encode as a JSON object")
	}
	return nil
}

// checkNotNegative refuses a negative number.
func checkNotNegative(field string, n int) error {
	if n < 0 {
		return invalid(field, "must not be negative, got %d", n)
	}
	return nil
}

// checkNotEmpty requires a list of at least one item.
func checkNotEmpty(field string, n int) error {
	if n == 0 {
		return invalid(field, "give at least one")
	}
	return nil
}

// bodyOf sends the params struct p points to as a JSON body, its fields
// named by their json tags. Unlike encoding/json, it leaves out a field
// tagged omitempty whose value is zero whatever its type: the nil UUID
// too.
type bodyOf struct{ p any }

// personalValues are those of the params, when they carry a form.
func (b bodyOf) personalValues() []string {
	if pb, ok := b.p.(personalBody); ok {
		return pb.personalValues()
	}
	return nil
}

func (b bodyOf) MarshalJSON() ([]byte, error) {
	v := reflect.ValueOf(b.p).Elem()
	out := []byte{'{'}
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		name, opt, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		empty := f.IsZero() || (f.Kind() == reflect.Slice || f.Kind() == reflect.String) && f.Len() == 0
		if name == "" || name == "-" || opt == "omitempty" && empty {
			continue
		}
		val, err := json.Marshal(f.Interface())
		if err != nil {
			return nil, err
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(strconv.AppendQuote(out, name), ':'), val...)
	}
	return append(out, '}'), nil
}

// companiesBody is the body of POST and PATCH /companies: the companies
// (params structs sent as bodyOf does), at least one, each passing check
// (given its field prefix, "companies[i]."), and duplicate_name_allowed
// when check says they allow it: the API takes it once for all, so items
// that differ are refused.
func companiesBody[T any](items []T, check func(field string, item *T) (allowed bool, err error)) (any, error) {
	var b struct {
		Companies []bodyOf `json:"companies"`
		Allowed   bool     `json:"duplicate_name_allowed,omitempty"`
	}
	if err := checkNotEmpty("companies", len(items)); err != nil {
		return nil, err
	}
	for i := range items {
		field := fmt.Sprintf("companies[%d].", i)
		allowed, err := check(field, &items[i])
		if err == nil && i > 0 && allowed != b.Allowed {
			err = invalid(field+"duplicate_name_allowed", "must be the same for every company of a call")
		}
		if err != nil {
			return nil, err
		}
		b.Allowed = allowed
		b.Companies = append(b.Companies, bodyOf{&items[i]})
	}
	return b, nil
}

// checkThat refuses field, saying why, unless ok.
func checkThat(ok bool, field, why string) error {
	if !ok {
		return invalid(field, "%s", why)
	}
	return nil
}
