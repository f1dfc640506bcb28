package acctadmin

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// The form checker takes the forms a schema takes and names the first
// field at fault, never its value: types, required fields, patterns,
// enumerations, const, lengths, arrays, and $ref to $defs or definitions.
func TestFormSchemaCheck(t *testing.T) {
	const schema = `{"type":"object","required":["ssn","kind"],
		"properties":{
			"ssn":{"type":"string","pattern":"^[0-9]{3}-[0-9]{2}-[0-9]{4}$"},
			"kind":{"enum":["llc","corp"]},
			"version":{"const":2},
			"members":{"type":"integer"},
			"share":{"type":["number","null"]},
			"agree":{"type":"boolean"},
			"name":{"type":"string","minLength":2,"maxLength":5},
			"owners":{"type":"array","items":{"$ref":"#/$defs/owner"}},
			"address":{"$ref":"#/definitions/address"},
			"odd":{"type":"string","pattern":"(?<=x)y"}},
		"$defs":{"owner":{"type":"object","required":["first_name"]}},
		"definitions":{"address":{"type":"object","properties":{"zip":{"type":"string","pattern":"^[0-9]{5}$"}}}}}`
	s, err := parseFormSchema([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	good := func() map[string]any {
		return map[string]any{"ssn": "123-45-6789", "kind": "llc", "version": 2, "members": 3, "share": nil, "agree": true,
			"name": "Ada", "owners": []any{map[string]any{"first_name": "Ada"}}, "address": map[string]any{"zip": "84101"}, "odd": "zzz"}
	}
	if err := s.check("form_data", good()); err != nil {
		t.Fatalf("a good form: %v", err)
	}
	for _, tc := range []struct {
		field, value string
		change       func(f map[string]any)
	}{
		{"form_data.ssn", "987654321", func(f map[string]any) { f["ssn"] = "987654321" }},
		{"form_data.ssn", "", func(f map[string]any) { delete(f, "ssn") }},
		{"form_data.ssn", "", func(f map[string]any) { f["ssn"] = 123456789 }},
		{"form_data.kind", "sole", func(f map[string]any) { f["kind"] = "sole" }},
		{"form_data.version", "", func(f map[string]any) { f["version"] = 3 }},
		{"form_data.members", "", func(f map[string]any) { f["members"] = 2.5 }},
		{"form_data.share", "", func(f map[string]any) { f["share"] = "half" }},
		{"form_data.agree", "", func(f map[string]any) { f["agree"] = "yes" }},
		{"form_data.name", "", func(f map[string]any) { f["name"] = "A" }},
		{"form_data.name", "Lovelace", func(f map[string]any) { f["name"] = "Lovelace" }},
		{"form_data.owners[1].first_name", "", func(f map[string]any) {
			f["owners"] = []any{map[string]any{"first_name": "Ada"}, map[string]any{"last_name": "Byron"}}
		}},
		{"form_data.address.zip", "8410", func(f map[string]any) { f["address"] = map[string]any{"zip": "8410"} }},
	} {
		f := good()
		tc.change(f)
		err := s.check("form_data", f)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != tc.field {
			t.Errorf("%s: err = %v", tc.field, err)
			continue
		}
		if tc.value != "" && strings.Contains(err.Error(), tc.value) {
			t.Errorf("%s: the error shows the value: %v", tc.field, err)
		}
	}
	if err := s.check("form_data", []int{1}); err == nil {
		t.Error("an array for an object schema passed")
	}
	// Not an object, or keywords of a shape the checker cannot read: the
	// schema is not used (Order notes it and the API checks the form).
	for _, bad := range []string{`[]`, `"x"`, `{`, `null`, `{"required":[1]}`, `{"minLength":"5"}`, `{"type":3}`} {
		if _, err := parseFormSchema([]byte(bad)); err == nil {
			t.Errorf("schema %s: no error", bad)
		}
	}
	// A schema that refers to itself is followed to a bound.
	loop, _ := parseFormSchema([]byte(`{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`))
	if err := loop.check("form_data", map[string]any{}); err != nil {
		t.Errorf("a self-referring schema: %v", err)
	}
}

// The fake's own EIN schema takes the provider's example form and
// refuses an SSN of the wrong shape.
func TestFormSchemaTakesTheFakesEINSchema(t *testing.T) {
	raw, err := os.ReadFile("acctadmintest/ein_form.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := parseFormSchema(raw)
	if err != nil {
		t.Fatal(err)
	}
	address := map[string]any{"line1": "100 Main Street", "city": "Salt Lake City", "zip_postal_code": "84101", "state_province_region": "UT", "country": "US"}
	form := map[string]any{"ssn": "123-45-6789", "start_date": "01/31/2024", "fiscal_year_end": "12", "entity_type": "LLC",
		"principal_activity": "Consulting", "responsible_party": map[string]any{"first_name": "Ada", "last_name": "Lovelace"},
		"company_mailing_address": address, "company_principal_address": address, "ein_trucking": false}
	if err := s.check("form_data", form); err != nil {
		t.Fatalf("the example form: %v", err)
	}
	form["ssn"] = "123 45 6789"
	var ve *ValidationError
	if err := s.check("form_data", form); !errors.As(err, &ve) || ve.Field != "form_data.ssn" {
		t.Fatalf("an SSN with spaces: %v", err)
	}
}
