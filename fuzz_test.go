package acctadmin

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The fuzz targets below feed arbitrary bytes to everything that reads
// what a server sends (the envelope decoder and the tolerant scalar types)
// and to the query encoder. None may panic; whatever they accept must
// survive a round trip unchanged. testdata/fuzz/<target> holds their seed
// corpora; .ci/run runs each for a few seconds.

// fuzzEnvelopeSeeds are answers of every shape the decoders meet.
var fuzzEnvelopeSeeds = []string{
	`{"success":true,"timestamp":"2024-05-01 10:00:00 -0600","result":[]}`,
	`{"success":"true","timestamp":"2024-05-01T10:00:00.123-06:00","result":[{"id":"7d4a1f3e-8b2c-4e5f-9a6b-1c2d3e4f5a6b","created_at":"2024-05-01 10:00:00 -0600","title":"Annual Report","status":"unread","pages":3,"state":"Utah","payment_locked":false}]}`,
	`{"success":true,"result":[{"id":"7d4a1f3e-8b2c-4e5f-9a6b-1c2d3e4f5a6b","price":149.00,"filing_methods":[{"cost":"0.10","filed_in":[{"days":"3","hours":4}],"docs_in":{"days":1},"type":"mail"}]}]}`,
	`{"success":true,"result":[{"id":"7d4a1f3e-8b2c-4e5f-9a6b-1c2d3e4f5a6b","due_date":"2024-02-29","jurisdictions":[{"jurisdiction":"Utah"},"Idaho"],"status":"active"}]}`,
	`{"success":true,"result":[{"id":"7d4a1f3e-8b2c-4e5f-9a6b-1c2d3e4f5a6b","items":[{"price":1e2,"quantity":2,"description":"x"}],"due_date":null,"status":"unpaid"}]}`,
	`{"success":true,"result":{"id":"7d4a1f3e-8b2c-4e5f-9a6b-1c2d3e4f5a6b","emails":null,"addresses":[{"line_1":"1 Main","zip_code":"84101"}]}}`,
	`{"success":true,"result":{"companies":[{"id":"7d4a1f3e-8b2c-4e5f-9a6b-1c2d3e4f5a6b","name":"Acme","home_state":null}]}}`,
	`{"success":false,"message":"nope"}`,
	`{"success":"maybe","result":[]}`,
	`{"success":true,"result":[{"created_at":12}]}`,
	`{"success":true,"result":[{"id":"\ud800\xff"}]}`,
	`[[[[[[[[[[`,
	`{"result":[]}`,
	``,
	`null`,
}

// fuzzDecode decodes body as an envelope of T twice, and again after a
// round trip through json.Marshal, and fails on any difference. A refused
// body must give a *DecodeError.
func fuzzDecode[T any](t *testing.T, body []byte) {
	t.Helper()
	var first, again T
	ok1, err1 := decodeEnvelope("GET /fuzz", body, &first)
	ok2, err2 := decodeEnvelope("GET /fuzz", body, &again)
	if (err1 == nil) != (err2 == nil) || ok1 != ok2 {
		t.Fatalf("%T: two decodes of one body differ: (%v, %v) then (%v, %v)", first, ok1, err1, ok2, err2)
	}
	if err1 != nil {
		var de *DecodeError
		if !errors.As(err1, &de) || de.Endpoint != "GET /fuzz" {
			t.Fatalf("%T: error %v (%T) is not a *DecodeError naming the endpoint", first, err1, err1)
		}
		return
	}
	j1, err := json.Marshal(first)
	if err != nil {
		t.Fatalf("%T: accepted value does not marshal: %v", first, err)
	}
	j2, err := json.Marshal(again)
	if err != nil || !bytes.Equal(j1, j2) {
		t.Fatalf("%T: two decodes of one body differ:\n%s\n%s", first, j1, j2)
	}
	var back T
	ok3, err := decodeEnvelope("GET /fuzz", []byte(`{"success":true,"result":`+string(j1)+`}`), &back)
	if err != nil || !ok3 {
		t.Fatalf("%T: re-encoded result %s does not decode: %v", first, j1, err)
	}
	j3, err := json.Marshal(back)
	if err != nil || !bytes.Equal(j1, j3) {
		t.Fatalf("%T: round trip changed the value:\n%s\n%s (%v)", first, j1, j3, err)
	}
}

// fuzzPage decodes body as a page of records R the way listings do (into
// their JSON forms J, turned into records by record) and as a plain []R,
// and fails on any difference.
func fuzzPage[J, R any](t *testing.T, body []byte, record func(*J) R) {
	t.Helper()
	var page []J
	var plain []R
	ok1, err1 := decodeEnvelope("GET /fuzz", body, &page)
	ok2, err2 := decodeEnvelope("GET /fuzz", body, &plain)
	got := records(page, record)
	if ok1 != ok2 || (err1 == nil) != (err2 == nil) || err1 == nil && (len(got) > 0 || len(plain) > 0) && !reflect.DeepEqual(got, plain) {
		t.Fatalf("%T: a page reads (%v, %v) %+v, a plain list (%v, %v) %+v", plain, ok1, err1, got, ok2, err2, plain)
	}
}

func FuzzDecodeEnvelope(f *testing.F) {
	for _, s := range fuzzEnvelopeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzDecode[[]Document](t, body)
		fuzzPage(t, body, (*jsonDocument).document)
		fuzzDecode[Document](t, body)
		fuzzDecode[[]Service](t, body)
		fuzzDecode[[]Resource](t, body)
		fuzzDecode[[]FilingProduct](t, body)
		fuzzDecode[[]ComplianceEvent](t, body)
		fuzzPage(t, body, (*jsonCallback).callback)
		fuzzDecode[Website](t, body)
		fuzzDecode[[]Callback](t, body)
		fuzzDecode[[]Company](t, body)
		fuzzDecode[companyList](t, body)
		fuzzDecode[[]Invoice](t, body)
		fuzzDecode[[]RegisteredAgentProduct](t, body)
		fuzzDecode[ignored](t, body)
		// The readers of error bodies see the same bytes.
		_ = errorMessage(body)
		_, _ = unpaidInvoices(body)
	})
}

func FuzzTime(f *testing.F) {
	for _, s := range []string{
		"2024-05-01 10:00:00 -0600", "2024-05-01T10:00:00.123-06:00", "2024-05-01T16:00:00Z",
		"2024-05-01T10:00:00-0600", "2024-05-01 10:00:00.250 -0600", "0000-01-01 00:00:00 +2359",
		"", "yesterday", "2024-02-30 10:00:00 +0000",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseTime(s)
		if err != nil {
			return
		}
		if s == "" {
			if !got.IsZero() {
				t.Fatalf("ParseTime(\"\") = %v, want the zero time", got)
			}
			return
		}
		text := got.Format(time.RFC3339Nano)
		back, err := ParseTime(text)
		if err != nil || !back.Equal(got) || back.Format(time.RFC3339Nano) != text {
			t.Fatalf("ParseTime(%q) = %s, which reads back as %v, %v", s, text, back, err)
		}
		b, err := json.Marshal(Time{got})
		if err != nil {
			t.Fatalf("Marshal(%s): %v", text, err)
		}
		var tm Time
		if err := json.Unmarshal(b, &tm); err != nil || !tm.Equal(got) {
			t.Fatalf("JSON round trip of %s = %s, %v, %v", text, b, tm, err)
		}
		// Whatever the JSON decoder meets must not panic.
		_ = tm.UnmarshalJSON([]byte(s))
	})
}

func FuzzDate(f *testing.F) {
	for _, s := range []string{"2024-02-29", "2023-02-29", "0000-01-01", "9999-12-31", "2024-1-01", `"2024-05-01"`, "", "null"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var d Date
		_ = d.UnmarshalJSON([]byte(s))
		got, err := ParseDate(s)
		if err != nil {
			return
		}
		if got.String() != s {
			t.Fatalf("ParseDate(%q).String() = %q", s, got.String())
		}
		back, err := ParseDate(got.String())
		if err != nil || back != got {
			t.Fatalf("ParseDate(%q) = %+v, reads back as %+v, %v", s, got, back, err)
		}
		b, _ := json.Marshal(got)
		var j Date
		if err := json.Unmarshal(b, &j); err != nil || j != got {
			t.Fatalf("JSON round trip of %+v = %s, %+v, %v", got, b, j, err)
		}
		_ = got.AddDays(400).String()
	})
}

func FuzzMoney(f *testing.F) {
	for _, s := range []string{"149.00", "0.10", "-5", "1e2", "1.005", "+.5", "5.", "1e-64", "9223372036854775807", `"12.30"`, "null", "", "-0.00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, m := range fuzzMoneyInputs(t, s) {
			text := m.String()
			back, err := ParseMoney(text)
			if err != nil || back.String() != text {
				t.Fatalf("%q reads as %s, which parses as %q, %v", s, text, back.String(), err)
			}
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatalf("Marshal(%s): %v", text, err)
			}
			var j Money
			if err := json.Unmarshal(b, &j); err != nil || j.String() != text {
				t.Fatalf("JSON round trip of %s = %s, %q, %v", text, b, j.String(), err)
			}
			if cents, err := m.Cents(); err == nil {
				if got, _ := MoneyFromCents(cents).Cents(); got != cents {
					t.Fatalf("%s: Cents %d, MoneyFromCents(%d).Cents() = %d", text, cents, cents, got)
				}
				if (cents == 0) != m.IsZero() {
					t.Fatalf("%s: Cents %d but IsZero %v", text, cents, m.IsZero())
				}
			}
		}
	})
}

// fuzzMoneyInputs returns the Money values s gives, read as text and as
// JSON.
func fuzzMoneyInputs(t *testing.T, s string) []Money {
	t.Helper()
	var out []Money
	if m, err := ParseMoney(s); err == nil {
		out = append(out, m)
	}
	var j Money
	if err := j.UnmarshalJSON([]byte(s)); err == nil {
		out = append(out, j)
	}
	return out
}

func FuzzTurnaround(f *testing.F) {
	for _, s := range []string{`{"days":3,"hours":4}`, `[{"days":"1","hours":"2"}]`, `[]`, `null`, `[{"days":1},{"days":2}]`, `[[{"days":1}]]`, `{"days":1.5}`, `"3 days"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var ta Turnaround
		if err := ta.UnmarshalJSON(data); err != nil {
			return
		}
		_ = ta.Duration()
		b, err := json.Marshal(ta)
		if err != nil {
			t.Fatal(err)
		}
		var back Turnaround
		if err := json.Unmarshal(b, &back); err != nil || back != ta {
			t.Fatalf("%q reads as %+v; its JSON %s reads back as %+v, %v", data, ta, b, back, err)
		}
	})
}

func FuzzQuery(f *testing.F) {
	f.Add("jurisdictions[]", "Utah", "company", "Acme & Sons; LLC", "Idaho")
	f.Add("start", "2024-05-01 10:00:00 -0600", "url", "https://www.example.com/a?b=c#d", "")
	f.Add("a[][]", "%zz", "", "=", "+")
	f.Add("k\x00\xff", "v\xfe", "k\x00\xff", "\u00e9", "[]")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2, v3 string) {
		q := &query{}
		want := url.Values{}
		q.add(k1, v1)
		want.Add(k1, v1)
		q.add(k2, v2)
		want.Add(k2, v2)
		q.strs(k1, []string{v2, v3})
		want.Add(k1+"[]", v2)
		want.Add(k1+"[]", v3)
		raw := q.encode()
		got, err := url.ParseQuery(raw)
		if err != nil {
			t.Fatalf("ParseQuery(%q): %v", raw, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("query %q reads back as %q, want %q", raw, got, want)
		}
		if strings.ContainsAny(raw, " #;\x00") {
			t.Fatalf("query %q holds a character that must be escaped", raw)
		}
	})
}

// An amount whose exponent expands it past the 64 digits a Money holds
// was once accepted, and its String() was then refused by ParseMoney, so
// a decoded price could not be encoded and read back. Found by FuzzMoney.
func TestMoneyExpansionStaysWithinTheDigitBound(t *testing.T) {
	for _, s := range []string{"1e-64", "1e64", "0.5e-63", "12345678901234567890123456789012e33"} {
		if m, err := ParseMoney(s); err == nil {
			t.Errorf("ParseMoney(%q) = %s, want an error: it expands past 64 digits", s, m)
		}
	}
	for s, want := range map[string]string{
		"1e-63": "0." + strings.Repeat("0", 62) + "1",
		"1e63":  "1" + strings.Repeat("0", 63),
		"1e-62": "0." + strings.Repeat("0", 61) + "1",
	} {
		m, err := ParseMoney(s)
		if err != nil || m.String() != want {
			t.Errorf("ParseMoney(%q) = %s, %v; want %s", s, m, err, want)
			continue
		}
		if back, err := ParseMoney(m.String()); err != nil || back != m {
			t.Errorf("ParseMoney(%s) = %s, %v; want it back", m, back, err)
		}
	}
}
