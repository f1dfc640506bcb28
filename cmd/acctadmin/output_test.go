package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	acctadmin "github.com/acctadmin/acctadmin-go"
)

// TestMoney prints amounts exactly, with at least two decimals.
func TestMoney(t *testing.T) {
	for in, want := range map[string]string{
		"200.1": "200.10", "200.10": "200.10", "149": "149.00", "0": "0.00",
		"0.005": "0.005", "-3.5": "-3.50", "1e2": "100.00", "19.99": "19.99",
		"123456789012345678901234567890.1": "123456789012345678901234567890.10",
	} {
		m, err := acctadmin.ParseMoney(in)
		if err != nil {
			t.Fatalf("ParseMoney(%q): %v", in, err)
		}
		if got := money(m); got != want {
			t.Errorf("money(%q) = %q, want %q", in, got, want)
		}
	}
}

// printJSONTo prints doc through the jq expression expr.
func (a *app) printJSONTo(doc []byte, expr string) error {
	a.jq = expr
	return a.printJSON(doc)
}

// TestPrintJSON: --json prints the records as the API sent them, one
// array; --jq filters it and prints strings bare.
func TestPrintJSON(t *testing.T) {
	var out bytes.Buffer
	a := &app{ctx: context.Background(), stdout: &out, jsonOut: true}
	l := &listing{}
	if err := l.add(json.RawMessage(`{"z":1,"price":200.10}`)); err != nil {
		t.Fatal(err)
	}
	if err := l.add(struct {
		Name string `json:"name"`
	}{"b"}); err != nil {
		t.Fatal(err)
	}
	if err := a.printList(l); err != nil {
		t.Fatal(err)
	}
	want := "[\n  {\n    \"z\": 1,\n    \"price\": 200.10\n  },\n  {\n    \"name\": \"b\"\n  }\n]\n"
	if out.String() != want {
		t.Errorf("--json printed %q, want %q", out.String(), want)
	}

	out.Reset()
	a.jq = `.[] | .name // .z`
	if err := a.printList(l); err != nil {
		t.Fatal(err)
	}
	if out.String() != "1\nb\n" {
		t.Errorf("--jq printed %q, want %q", out.String(), "1\nb\n")
	}

	// Amounts keep the text the API wrote through jq; computed numbers
	// print as jq computes them, and a value written two ways as a number.
	out.Reset()
	a.jq = `.[0].price, (.[0].price * 2), {p: .[0].price}`
	if err := a.printList(l); err != nil {
		t.Fatal(err)
	}
	if want := "200.10\n400.2\n{\n  \"p\": 200.10\n}\n"; out.String() != want {
		t.Errorf("--jq printed %q, want %q", out.String(), want)
	}
	out.Reset()
	if err := a.printJSONTo([]byte(`[1.50, 1.5, 2.50, 1e400, 12345678901234567890123]`), `.[]`); err != nil {
		t.Fatal(err)
	}
	if want := "1.5\n1.5\n2.50\n1.7976931348623157e+308\n12345678901234567890123\n"; out.String() != want {
		t.Errorf("--jq printed %q, want %q", out.String(), want)
	}

	out.Reset()
	a.jsonOut, a.jq = false, ""
	if err := a.printList(&listing{}); err != nil || out.String() != "" {
		t.Errorf("an empty table printed %q, %v", out.String(), err)
	}
	a.jsonOut = true
	if err := a.printList(&listing{}); err != nil || out.String() != "[]\n" {
		t.Errorf("an empty listing printed %q, %v; want []", out.String(), err)
	}
}
