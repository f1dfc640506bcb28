package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"math/big"
	"strings"
	"text/tabwriter"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/google/uuid"
	"github.com/itchyny/gojq"
)

// wantJSON reports whether the run prints JSON (--json or --jq).
func (a *app) wantJSON() bool { return a.jsonOut || a.jq != "" }

// checkJQ compiles --jq before anything is sent, so that a bad expression
// is a usage error.
func (a *app) checkJQ() (*gojq.Code, error) {
	if a.jq == "" {
		return nil, nil
	}
	q, err := gojq.Parse(a.jq)
	if err != nil {
		return nil, usageErrorf("--jq %q: %v", a.jq, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, usageErrorf("--jq %q: %v", a.jq, err)
	}
	return code, nil
}

// listing is a listing being printed: its columns, its rows and its records
// for --json.
type listing struct {
	headers []string
	rows    [][]string
	records []json.RawMessage
}

// add appends a record: its cells for the table and its JSON.
func (l *listing) add(record any, cells ...string) error {
	raw, err := recordJSON(record)
	if err != nil {
		return err
	}
	l.rows = append(l.rows, cells)
	l.records = append(l.records, raw)
	return nil
}

// recordJSON is a record in the API's field names: a json.RawMessage as
// it is (the record as the API sent it), anything else marshalled.
func recordJSON(v any) (json.RawMessage, error) {
	if raw, ok := v.(json.RawMessage); ok && len(raw) > 0 {
		return raw, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding a record as JSON: %w", err)
	}
	return b, nil
}

// printList prints a listing: a table, or one JSON array.
func (a *app) printList(l *listing) error {
	if a.wantJSON() {
		var b bytes.Buffer
		b.WriteByte('[')
		for i, r := range l.records {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(r)
		}
		b.WriteByte(']')
		return a.printJSON(b.Bytes())
	}
	if len(l.rows) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(l.headers, "\t"))
	for _, r := range l.rows {
		fmt.Fprintln(tw, strings.Join(clean(r), "\t"))
	}
	return tw.Flush()
}

// printRecord prints one record: its fields one a line, or one JSON
// object.
func (a *app) printRecord(record any, fields ...[2]string) error {
	if a.wantJSON() {
		raw, err := recordJSON(record)
		if err != nil {
			return err
		}
		return a.printJSON(raw)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	for _, f := range fields {
		fmt.Fprintf(tw, "%s:\t%s\n", f[0], oneLine(f[1]))
	}
	return tw.Flush()
}

// clean keeps tabs and line breaks of the API's text out of a table.
func clean(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = oneLine(c)
	}
	return out
}

// printJSON prints a JSON document, indented, or what --jq makes of it.
func (a *app) printJSON(doc []byte) error {
	code, err := a.checkJQ()
	if err != nil {
		return err
	}
	if code == nil {
		var b bytes.Buffer
		if err := json.Indent(&b, doc, "", "  "); err != nil {
			return fmt.Errorf("the API's answer is not valid JSON: %w", err)
		}
		b.WriteByte('\n')
		_, err := a.stdout.Write(b.Bytes())
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("the API's answer is not valid JSON: %w", err)
	}
	lits := map[float64]string{}
	iter := code.RunWithContext(a.ctx, normalize(v, lits))
	for {
		out, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, ok := out.(error); ok {
			if he, ok := err.(*gojq.HaltError); ok && he.Value() == nil {
				return nil
			}
			return usageErrorf("--jq %q: %v", a.jq, err)
		}
		if s, ok := out.(string); ok {
			fmt.Fprintln(a.stdout, s)
			continue
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(exact(out, lits)); err != nil {
			return fmt.Errorf("--jq %q: %w", a.jq, err)
		}
		if _, err := a.stdout.Write(b.Bytes()); err != nil {
			return err
		}
	}
}

// normalize turns the json.Numbers of a decoded document into the numbers
// gojq computes with: int when whole and in range, float64 otherwise. It
// notes in lits the text each float64 was written with ("200.10"), so
// that exact prints it back so; a value written two ways keeps neither.
func normalize(v any, lits map[float64]string) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil && i >= math.MinInt && i <= math.MaxInt {
			return int(i)
		}
		f, err := v.Float64()
		if err != nil {
			// Beyond float64: jq's own reading of the text.
			return normalizeBig(v)
		}
		if lit, ok := lits[f]; ok && lit != v.String() {
			lits[f] = ""
		} else if !ok {
			lits[f] = v.String()
		}
		return f
	case []any:
		for i := range v {
			v[i] = normalize(v[i], lits)
		}
		return v
	case map[string]any:
		for k := range v {
			v[k] = normalize(v[k], lits)
		}
		return v
	}
	return v
}

// normalizeBig reads a number too large for float64 as gojq does: a
// whole number as a *big.Int, anything else as an infinity.
func normalizeBig(n json.Number) any {
	if bi, ok := new(big.Int).SetString(n.String(), 10); ok {
		return bi
	}
	if strings.HasPrefix(n.String(), "-") {
		return math.Inf(-1)
	}
	return math.Inf(1)
}

// exact readies a jq result for encoding/json: a float64 that the document
// wrote as text in lits prints as that text (an amount stays "200.10"),
// NaN as null and infinities as the largest float64, as jq prints them.
func exact(v any, lits map[float64]string) any {
	switch v := v.(type) {
	case float64:
		switch {
		case math.IsNaN(v):
			return nil
		case math.IsInf(v, 1):
			return math.MaxFloat64
		case math.IsInf(v, -1):
			return -math.MaxFloat64
		}
		if lit := lits[v]; lit != "" {
			return json.Number(lit)
		}
		return v
	case []any:
		out := make([]any, len(v))
		for i := range v {
			out[i] = exact(v[i], lits)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k := range v {
			out[k] = exact(v[k], lits)
		}
		return out
	}
	return v
}

// money prints an amount exactly, with at least two decimals: "200.10",
// "149.00", "0.005".
func money(m acctadmin.Money) string {
	s := m.String()
	i := strings.IndexByte(s, '.')
	switch {
	case i < 0:
		return s + ".00"
	case len(s)-i-1 < 2:
		return s + strings.Repeat("0", 2-(len(s)-i-1))
	}
	return s
}

// day prints a time's date as YYYY-MM-DD, or "" for the zero time.
func day(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format("2006-01-02")
}

// idString prints an id, or "" for the nil id.
func idString(id uuid.UUID) string {
	if id == uuid.Nil {
		return ""
	}
	return id.String()
}

// printAll is the body of every list command: it checks --limit and --jq
// (nothing is sent when either is bad), makes the client, and prints the
// records seq yields as one listing, stopping after limit rows when limit
// is above 0. row gives a record's JSON and its cells; nil cells leave the
// record out. hint, when not "", is added to an error of the listing.
func printAll[T any](a *app, limit int, headers []string, seq func(*acctadmin.Client) iter.Seq2[T, error], row func(T) (any, []string), hint string) error {
	if err := checkLimit(limit); err != nil {
		return err
	}
	if _, err := a.checkJQ(); err != nil {
		return err
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	l := &listing{headers: headers}
	for r, err := range seq(c) {
		if err != nil {
			if hint != "" {
				return withHint(err, hint)
			}
			return err
		}
		record, cells := row(r)
		if cells == nil {
			continue
		}
		if err := l.add(record, cells...); err != nil {
			return err
		}
		if limit > 0 && len(l.rows) >= limit {
			break
		}
	}
	return a.printList(l)
}

// each yields the records of a call that returns them in one slice, or its
// error, as printAll reads them.
func each[T any](list []T, err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		if err != nil {
			var zero T
			yield(zero, err)
			return
		}
		for _, r := range list {
			if !yield(r, nil) {
				return
			}
		}
	}
}

// printOne is the body of every get command: it reads the id in arg (a
// what id: nothing is sent when it is not one), checks --jq, fetches the
// record and prints it with show. An error says how to list the group's
// records.
func printOne[T any](a *app, what, group, arg string, get func(*acctadmin.Client, uuid.UUID) (T, error), show func(T) error) error {
	id, err := parseID(what, arg)
	if err != nil {
		return err
	}
	if _, err := a.checkJQ(); err != nil {
		return err
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	r, err := get(c, id)
	if err != nil {
		return withHint(err, "list the "+group+" with `acctadmin "+group+" list`")
	}
	return show(r)
}
