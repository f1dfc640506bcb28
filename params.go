package acctadmin

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// The checks of the API's rules a call can know before sending, but
// those on the path of a call (in transport.go).

// checkNotBoth refuses two parameters that exclude each other.
func checkNotBoth(a string, aSet bool, b string, bSet bool) error {
	if aSet && bSet {
		return invalid(a, "give %s or %s, not both", a, b)
	}
	return nil
}

// checkOne requires exactly one of two parameters.
func checkOne(a string, aSet bool, b string, bSet bool) error {
	return firstErr(checkSome(a, aSet, b, bSet), checkNotBoth(a, aSet, b, bSet))
}

func checkRequired(field, v string) error {
	if strings.TrimSpace(v) == "" {
		return invalid(field, "is required")
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
	fields := [2]string{"start_date", "end_date"}
	for i, d := range [2]Date{start, end} {
		if !d.IsZero() {
			if err := checkDate(fields[i], d); err != nil {
				return err
			}
		}
	}
	if !start.IsZero() && !end.IsZero() && end.Before(start) {
		return invalid("end_date", "%s is before start_date %s", end, start)
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
		return checkThat(!required, field, "is required")
	}
	switch b, err := json.Marshal(v); {
	case err != nil:
		return invalid(field, "does not encode as JSON: %v", err)
	case b[0] != '{': // json.Marshal's output is compact
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

// bodyOf sends the params struct p points to as a JSON body by its json
// tags, leaving out a field tagged omitempty whose value is zero whatever
// its type (the nil UUID too, unlike encoding/json).
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

// companiesBody is the body of POST and PATCH /companies: at least one
// company (sent as bodyOf does), each passing check given its field prefix
// ("companies[i]."), and duplicate_name_allowed, which the API takes once
// for all, so companies that differ on it are refused.
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
