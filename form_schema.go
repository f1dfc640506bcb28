package acctadmin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// formSchema is the part of a filing method's JSON Schema that Client.Order
// checks a form against: type, required, properties, items, enum, const,
// pattern (when Go's regexp reads it), minLength, maxLength, and $ref to
// the schema's own $defs or definitions. The API checks the rest.
type formSchema struct {
	root map[string]any
}

// maxSchemaDepth bounds how deep the check follows objects, arrays and
// $ref, for a schema that refers to itself.
const maxSchemaDepth = 32

// parseFormSchema reads a JSON Schema, which must be a JSON object.
func parseFormSchema(raw json.RawMessage) (*formSchema, error) {
	v, err := decodeNumbers(raw)
	root, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, errors.New("the filing method's schema is not a JSON object")
	}
	return &formSchema{root: root}, nil
}

// decodeNumbers decodes JSON with its numbers as json.Number.
func decodeNumbers(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// check checks form, as its JSON carries it, against the schema: the
// first fault is a *ValidationError naming the field ("form_data.ssn"),
// never its value.
func (s *formSchema) check(field string, form any) error {
	v, ok := walkForm(form, func(v any) any { return v })
	if !ok {
		return invalid(field, "does not encode as JSON")
	}
	return s.value(s.root, field, v, 0)
}

// value checks v, the field's value, against the schema node n.
func (s *formSchema) value(n map[string]any, field string, v any, depth int) error {
	n, depth = s.resolve(n, depth)
	if depth > maxSchemaDepth {
		return nil
	}
	if err := checkType(n["type"], field, v); err != nil {
		return err
	}
	if enum, ok := n["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return sameValue(e, v) }) {
		return invalid(field, "is not one of the values the schema allows")
	}
	if c, ok := n["const"]; ok && !sameValue(c, v) {
		return invalid(field, "is not the value the schema requires")
	}
	switch v := v.(type) {
	case string:
		return checkText(n, field, v)
	case map[string]any:
		return s.object(n, field, v, depth)
	case []any:
		items, ok := n["items"].(map[string]any)
		for i := 0; ok && i < len(v); i++ {
			if err := s.value(items, fmt.Sprintf("%s[%d]", field, i), v[i], depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// resolve follows n's $ref to the schema's own $defs or definitions.
func (s *formSchema) resolve(n map[string]any, depth int) (map[string]any, int) {
	for depth <= maxSchemaDepth {
		ref, _ := n["$ref"].(string)
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		defs := "$defs"
		if !ok {
			name, ok = strings.CutPrefix(ref, "#/definitions/")
			defs = "definitions"
		}
		if !ok {
			return n, depth
		}
		all, _ := s.root[defs].(map[string]any)
		next, _ := all[name].(map[string]any)
		if next == nil {
			return n, depth
		}
		n, depth = next, depth+1
	}
	return n, depth
}

// object checks an object's required fields, then its fields by name.
func (s *formSchema) object(n map[string]any, field string, v map[string]any, depth int) error {
	required, _ := n["required"].([]any)
	for _, r := range required {
		if name, ok := r.(string); ok {
			if _, there := v[name]; !there {
				return invalid(field+"."+name, "is required")
			}
		}
	}
	props, _ := n["properties"].(map[string]any)
	names := make([]string, 0, len(v))
	for k := range v {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if p, ok := props[k].(map[string]any); ok {
			if err := s.value(p, field+"."+k, v[k], depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkType checks v against a schema's type: a name or a list of names.
func checkType(t any, field string, v any) error {
	var names []string
	switch t := t.(type) {
	case string:
		names = []string{t}
	case []any:
		for _, e := range t {
			if name, ok := e.(string); ok {
				names = append(names, name)
			}
		}
	}
	if len(names) == 0 || slices.ContainsFunc(names, func(name string) bool { return isType(name, v) }) {
		return nil
	}
	return invalid(field, "must be %s", strings.Join(names, " or "))
}

// isType reports whether v, as JSON decoded it, is of the type name.
func isType(name string, v any) bool {
	switch v := v.(type) {
	case nil:
		return name == "null"
	case bool:
		return name == "boolean"
	case string:
		return name == "string"
	case json.Number:
		_, err := v.Int64()
		return name == "number" || name == "integer" && err == nil
	case []any:
		return name == "array"
	case map[string]any:
		return name == "object"
	}
	return false
}

// checkText checks a string against a schema's lengths and pattern.
func checkText(n map[string]any, field, v string) error {
	length := utf8.RuneCountInString(v)
	if min, ok := schemaInt(n["minLength"]); ok && length < min {
		return invalid(field, "must be at least %d characters long", min)
	}
	if max, ok := schemaInt(n["maxLength"]); ok && length > max {
		return invalid(field, "must be at most %d characters long", max)
	}
	if p, ok := n["pattern"].(string); ok {
		if re, err := regexp.Compile(p); err == nil && !re.MatchString(v) {
			return invalid(field, "does not match the pattern %s", p)
		}
	}
	return nil
}

// schemaInt reads a schema's whole number.
func schemaInt(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return int(i), err == nil
}

// sameValue reports whether two decoded values are the same JSON value.
func sameValue(a, b any) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}
