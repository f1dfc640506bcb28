package acctadmin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// formSchema is the part of a filing method's JSON Schema that Client.Order
// checks a form against (a pattern only when Go's regexp reads it); the
// API checks the rest. A schema whose keywords have other shapes is not used.
type formSchema struct {
	Type        schemaTypes            `json:"type"`
	Required    []string               `json:"required"`
	Properties  map[string]*formSchema `json:"properties"`
	Items       *formSchema            `json:"items"`
	Enum        []any                  `json:"enum"`
	Const       json.RawMessage        `json:"const"`
	Pattern     string                 `json:"pattern"`
	MinLength   *int                   `json:"minLength"`
	MaxLength   *int                   `json:"maxLength"`
	Ref         string                 `json:"$ref"`
	Defs        map[string]*formSchema `json:"$defs"`
	Definitions map[string]*formSchema `json:"definitions"`
}

// schemaTypes is a schema's type: one name or a list of names.
type schemaTypes []string

func (t *schemaTypes) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*t = schemaTypes{one}
		return nil
	}
	return json.Unmarshal(b, (*[]string)(t))
}

// maxSchemaDepth bounds how deep the check follows objects, arrays and
// $ref, for a schema that refers to itself.
const maxSchemaDepth = 32

// parseFormSchema reads a JSON Schema, which must be a JSON object.
func parseFormSchema(raw json.RawMessage) (*formSchema, error) {
	var s *formSchema
	if err := decodeNumbers(raw, &s); err != nil || s == nil {
		return nil, errors.New("the filing method's schema is not a JSON object Order can use")
	}
	return s, nil
}

// decodeNumbers decodes JSON into v with its numbers as json.Number.
func decodeNumbers(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

// check checks form, as its JSON carries it, against the schema: the first
// fault is a *ValidationError naming the field ("form_data.ssn").
func (s *formSchema) check(field string, form any) error {
	v, ok := walkForm(form, func(v any) any { return v })
	if !ok {
		return invalid(field, "does not encode as JSON")
	}
	return s.value(s, field, v, 0)
}

// value checks v, the field's value, against the schema node n.
func (s *formSchema) value(n *formSchema, field string, v any, depth int) error {
	n, depth = s.resolve(n, depth)
	if depth > maxSchemaDepth {
		return nil
	}
	if len(n.Type) > 0 && !slices.ContainsFunc(n.Type, func(name string) bool { return isType(name, v) }) {
		return invalid(field, "must be %s", strings.Join(n.Type, " or "))
	}
	if n.Enum != nil && !slices.ContainsFunc(n.Enum, func(e any) bool { return sameValue(e, v) }) {
		return invalid(field, "is not one of the values the schema allows")
	}
	if n.Const != nil {
		var c any
		if err := decodeNumbers(n.Const, &c); err != nil || !sameValue(c, v) {
			return invalid(field, "is not the value the schema requires")
		}
	}
	switch v := v.(type) {
	case string:
		return checkText(n, field, v)
	case map[string]any:
		return s.object(n, field, v, depth)
	case []any:
		for i := 0; n.Items != nil && i < len(v); i++ {
			if err := s.value(n.Items, fmt.Sprintf("%s[%d]", field, i), v[i], depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// resolve follows n's $ref to the root's $defs or definitions.
func (s *formSchema) resolve(n *formSchema, depth int) (*formSchema, int) {
	for depth <= maxSchemaDepth {
		var next *formSchema
		if name, ok := strings.CutPrefix(n.Ref, "#/$defs/"); ok {
			next = s.Defs[name]
		} else if name, ok := strings.CutPrefix(n.Ref, "#/definitions/"); ok {
			next = s.Definitions[name]
		}
		if next == nil {
			return n, depth
		}
		n, depth = next, depth+1
	}
	return n, depth
}

// object checks an object's required fields, then its fields by name.
func (s *formSchema) object(n *formSchema, field string, v map[string]any, depth int) error {
	for _, name := range n.Required {
		if _, there := v[name]; !there {
			return invalid(field+"."+name, "is required")
		}
	}
	for _, k := range sortedKeys(v) {
		if p := n.Properties[k]; p != nil {
			if err := s.value(p, field+"."+k, v[k], depth+1); err != nil {
				return err
			}
		}
	}
	return nil
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
func checkText(n *formSchema, field, v string) error {
	length := utf8.RuneCountInString(v)
	if n.MinLength != nil && length < *n.MinLength {
		return invalid(field, "must be at least %d characters long", *n.MinLength)
	}
	if n.MaxLength != nil && length > *n.MaxLength {
		return invalid(field, "must be at most %d characters long", *n.MaxLength)
	}
	if n.Pattern != "" {
		if re, err := regexp.Compile(n.Pattern); err == nil && !re.MatchString(v) {
			return invalid(field, "does not match the pattern %s", n.Pattern)
		}
	}
	return nil
}

// sameValue reports whether two decoded values are the same JSON value.
func sameValue(a, b any) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}
