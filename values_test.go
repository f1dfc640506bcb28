package acctadmin

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"pgregory.net/rapid"
)

func TestTimeAcceptsEveryWireForm(t *testing.T) {
	mdt := time.FixedZone("", -6*3600)
	cases := []struct {
		name string
		in   string
		want time.Time
	}{
		{"api shape", `"2024-05-01 10:00:00 -0600"`, time.Date(2024, 5, 1, 10, 0, 0, 0, mdt)},
		{"api shape utc", `"2024-05-01 16:00:00 +0000"`, time.Date(2024, 5, 1, 16, 0, 0, 0, time.UTC)},
		{"api shape positive offset", `"2024-05-02 01:30:00 +0930"`, time.Date(2024, 5, 1, 16, 0, 0, 0, time.UTC)},
		{"api shape with fraction", `"2024-05-01 10:00:00.250 -0600"`, time.Date(2024, 5, 1, 10, 0, 0, 250e6, mdt)},
		{"iso milliseconds colon offset", `"2024-05-01T10:00:00.123-06:00"`, time.Date(2024, 5, 1, 10, 0, 0, 123e6, mdt)},
		{"rfc3339 no fraction", `"2024-05-01T10:00:00-06:00"`, time.Date(2024, 5, 1, 10, 0, 0, 0, mdt)},
		{"rfc3339 zulu", `"2024-05-01T16:00:00Z"`, time.Date(2024, 5, 1, 16, 0, 0, 0, time.UTC)},
		{"rfc3339 nanoseconds", `"2024-05-01T16:00:00.123456789Z"`, time.Date(2024, 5, 1, 16, 0, 0, 123456789, time.UTC)},
		{"iso offset without colon", `"2024-05-01T10:00:00-0600"`, time.Date(2024, 5, 1, 10, 0, 0, 0, mdt)},
		{"null", `null`, time.Time{}},
		{"empty string", `""`, time.Time{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got Time
			if err := json.Unmarshal([]byte(tc.in), &got); err != nil {
				t.Fatalf("Unmarshal(%s): %v", tc.in, err)
			}
			if !got.Equal(tc.want) || got.IsZero() != tc.want.IsZero() {
				t.Fatalf("Unmarshal(%s) = %v, want %v", tc.in, got.Time, tc.want)
			}
		})
	}
}

func TestTimeRefusesOtherForms(t *testing.T) {
	for _, in := range []string{
		`"2024-13-01 10:00:00 -0600"`, `"2024-02-30 10:00:00 +0000"`, `"2024-05-01 25:00:00 +0000"`,
		`"yesterday"`, `"2024-05-01"`, `12345`, `true`, `{}`, `[]`, `"2024-05-01 10:00:00"`,
	} {
		var got Time
		err := json.Unmarshal([]byte(in), &got)
		if err == nil {
			t.Errorf("Unmarshal(%s) = %v, want an error", in, got.Time)
		}
	}
}

func TestTimeMarshalRoundTrip(t *testing.T) {
	in := Time{time.Date(2024, 5, 1, 10, 0, 0, 123e6, time.FixedZone("", -6*3600))}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `"2024-05-01T10:00:00.123-06:00"` {
		t.Fatalf("Marshal = %s", b)
	}
	var back Time
	if err := json.Unmarshal(b, &back); err != nil || !back.Equal(in.Time) {
		t.Fatalf("round trip = %v, %v", back, err)
	}
	if b, _ := json.Marshal(Time{}); string(b) != "null" {
		t.Fatalf("zero Time marshals as %s, want null", b)
	}
}

func TestDateForms(t *testing.T) {
	var d Date
	if err := json.Unmarshal([]byte(`"2024-02-29"`), &d); err != nil {
		t.Fatal(err)
	}
	if d != (Date{2024, time.February, 29}) || d.String() != "2024-02-29" {
		t.Fatalf("got %#v (%s)", d, d)
	}
	for _, in := range []string{`null`, `""`} {
		d := Date{2020, 1, 1}
		if err := json.Unmarshal([]byte(in), &d); err != nil || !d.IsZero() {
			t.Fatalf("Unmarshal(%s) = %v, %v; want the zero Date", in, d, err)
		}
	}
	for _, in := range []string{`"2023-02-29"`, `"2024-1-5"`, `"2024-05-01T00:00:00Z"`, `"2024/05/01"`, `20240501`, `"2024-00-10"`, `true`} {
		var d Date
		if err := json.Unmarshal([]byte(in), &d); err == nil {
			t.Errorf("Unmarshal(%s) = %v, want an error", in, d)
		}
	}
	b, _ := json.Marshal(Date{2024, time.March, 7})
	if string(b) != `"2024-03-07"` {
		t.Fatalf("Marshal = %s", b)
	}
	if b, _ := json.Marshal(Date{}); string(b) != "null" {
		t.Fatalf("zero Date marshals as %s", b)
	}
}

func TestDateArithmetic(t *testing.T) {
	d := Date{2024, time.December, 30}
	if got := d.AddDays(3); got != (Date{2025, time.January, 2}) {
		t.Fatalf("AddDays(3) = %v", got)
	}
	if got := d.AddDays(-365); got != (Date{2023, time.December, 31}) {
		t.Fatalf("AddDays(-365) = %v", got)
	}
	if !d.Before(Date{2024, time.December, 31}) || d.Before(d) || !d.After(Date{2024, time.January, 31}) {
		t.Fatal("Before/After disagree with the calendar")
	}
	if got := DateOf(time.Date(2024, 7, 4, 23, 59, 0, 0, time.UTC)); got != (Date{2024, time.July, 4}) {
		t.Fatalf("DateOf = %v", got)
	}
	if got := d.In(time.UTC); !got.Equal(time.Date(2024, 12, 30, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("In = %v", got)
	}
}

func TestMoneyKeepsAmountsExactly(t *testing.T) {
	cases := []struct {
		in    string
		text  string
		cents int64
	}{
		{`"0.10"`, "0.10", 10},
		{`19.99`, "19.99", 1999},
		{`1e2`, "100", 10000},
		{`"1234567890.12"`, "1234567890.12", 123456789012},
		{`149.00`, "149.00", 14900},
		{`"-5"`, "-5", -500},
		{`1.5e-1`, "0.15", 15},
		{`2.5E+1`, "25", 2500},
		{`0.1`, "0.1", 10},
		{`"  7.50 "`, "7.50", 750},
		{`"+3"`, "3", 300},
		{`0.30000000000000004e0`, "0.30000000000000004", 0},
		{`null`, "0", 0},
		{`""`, "0", 0},
		{`"1.000"`, "1.000", 100},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			var m Money
			if err := json.Unmarshal([]byte(tc.in), &m); err != nil {
				t.Fatalf("Unmarshal(%s): %v", tc.in, err)
			}
			if m.String() != tc.text {
				t.Fatalf("String() = %q, want %q", m.String(), tc.text)
			}
			cents, err := m.Cents()
			if tc.text == "0.30000000000000004" {
				if err == nil {
					t.Fatalf("Cents() of %s = %d, want an error (fraction of a cent)", tc.text, cents)
				}
				return
			}
			if err != nil || cents != tc.cents {
				t.Fatalf("Cents() = %d, %v; want %d", cents, err, tc.cents)
			}
			// Round trip: what Money writes reads back to the same amount.
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			var back Money
			if err := json.Unmarshal(b, &back); err != nil || back.String() != m.String() {
				t.Fatalf("round trip of %s gave %s (%v)", m, back, err)
			}
		})
	}
}

func TestMoneyRefusesWhatIsNotAnAmount(t *testing.T) {
	for _, in := range []string{`"abc"`, `true`, `{}`, `[]`, `"1.2.3"`, `"1e"`, `"--1"`, `"1e999"`, `"1,000.00"`, `"$5"`, `"."`, `"NaN"`, `"Infinity"`, `"0x10"`} {
		var m Money
		if err := json.Unmarshal([]byte(in), &m); err == nil {
			t.Errorf("Unmarshal(%s) = %s, want an error", in, m)
		}
	}
}

func TestMoneyCentsErrors(t *testing.T) {
	for _, s := range []string{"1.005", "0.001", "92233720368547758.08", "99999999999999999999"} {
		m, err := ParseMoney(s)
		if err != nil {
			t.Fatalf("ParseMoney(%s): %v", s, err)
		}
		if c, err := m.Cents(); err == nil {
			t.Errorf("Cents() of %s = %d, want an error", s, c)
		}
	}
	m, _ := ParseMoney("92233720368547758.07")
	if c, err := m.Cents(); err != nil || c != 9223372036854775807 {
		t.Fatalf("largest amount: %d, %v", c, err)
	}
	m, _ = ParseMoney("-92233720368547758.07")
	if c, err := m.Cents(); err != nil || c != -9223372036854775807 {
		t.Fatalf("smallest amount: %d, %v", c, err)
	}
}

func TestMoneyFromCents(t *testing.T) {
	for cents, want := range map[int64]string{0: "0.00", 5: "0.05", 1999: "19.99", -250: "-2.50", 100000: "1000.00"} {
		m := MoneyFromCents(cents)
		if m.String() != want {
			t.Errorf("MoneyFromCents(%d) = %s, want %s", cents, m, want)
		}
		if back, err := m.Cents(); err != nil || back != cents {
			t.Errorf("Cents() of %s = %d, %v", m, back, err)
		}
	}
	var zero Money
	if zero.String() != "0" || !zero.IsZero() || MoneyFromCents(1).IsZero() {
		t.Fatal("zero Money misreported")
	}
}

func TestTurnaroundForms(t *testing.T) {
	cases := []struct {
		name, in string
		want     Turnaround
	}{
		{"object", `{"days":3,"hours":4}`, Turnaround{3, 4}},
		{"array of one", `[{"days":10,"hours":0}]`, Turnaround{10, 0}},
		{"null", `null`, Turnaround{}},
		{"empty array", `[]`, Turnaround{}},
		{"numeric strings", `{"days":"2","hours":"12"}`, Turnaround{2, 12}},
		{"missing hours", `{"days":1}`, Turnaround{1, 0}},
		{"extra fields", `{"days":1,"hours":2,"business":true}`, Turnaround{1, 2}},
		{"spaces", ` [ {"days":5} ] `, Turnaround{5, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Turnaround{9, 9}
			if err := json.Unmarshal([]byte(tc.in), &got); err != nil {
				t.Fatalf("Unmarshal(%s): %v", tc.in, err)
			}
			if got != tc.want {
				t.Fatalf("Unmarshal(%s) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
	for _, in := range []string{`[{"days":1},{"days":2}]`, `"3 days"`, `5`, `{"days":"three"}`, `{"days":1.5}`, `[5]`, `true`} {
		var got Turnaround
		if err := json.Unmarshal([]byte(in), &got); err == nil {
			t.Errorf("Unmarshal(%s) = %+v, want an error", in, got)
		}
	}
	if d := (Turnaround{Days: 2, Hours: 3}).Duration(); d != 51*time.Hour {
		t.Fatalf("Duration = %v", d)
	}
}

func TestAPITimeFastPathAgreesWithTimeParse(t *testing.T) {
	for _, s := range []string{"2024-05-01 10:00:00 -0600", "1999-12-31 23:59:59 +1400", "2024-02-29 00:00:00 -1200", "2000-01-01 00:00:00 +0000"} {
		fast, ferr := ParseTime(s)
		slow, err := time.Parse(apiTimeLayout, s)
		if ferr != nil || err != nil || !fast.Equal(slow) {
			t.Errorf("%s: fast %v (%v), time.Parse %v (%v)", s, fast, ferr, slow, err)
		}
		_, fo := fast.Zone()
		_, so := slow.Zone()
		if fo != so {
			t.Errorf("%s: offsets %d and %d", s, fo, so)
		}
	}
}

func TestTimeReadsAPIShapeInPlace(t *testing.T) {
	var got Time
	if err := got.UnmarshalJSON([]byte(`"2024-05-01 10:00:00 -0600"`)); err != nil {
		t.Fatal(err)
	}
	want, _ := time.Parse(apiTimeLayout, "2024-05-01 10:00:00 -0600")
	if !got.Equal(want) {
		t.Errorf("got %v, want %v", got.Time, want)
	}
	// The same length as a quoted API time, without the closing quote, or
	// with an escape: not a JSON string of that time.
	for _, in := range []string{`"2024-05-01 10:00:00 -06000`, `"2024-05-01 10:00:00 -0600\`, `"2024-05-01\u002010:00:00 -06"`} {
		if err := got.UnmarshalJSON([]byte(in)); err == nil {
			t.Errorf("UnmarshalJSON(%s) = %v, want an error", in, got.Time)
		}
	}
}

// Where Secret's doc says its value shows, it does: fmt reaching it
// through an unexported field, and encoding/json writing it as a map key.
// Through an exported field, in a slice and as a map value it does not.
func TestSecretShowsOnlyWhereItsDocSays(t *testing.T) {
	const value = "visible-value"
	if got := fmt.Sprintf("%v", struct{ pw Secret }{value}); got != "{"+value+"}" {
		t.Errorf("an unexported Secret field prints %q, want its value as the doc says", got)
	}
	b, err := json.Marshal(map[Secret]int{value: 1})
	if err != nil || string(b) != `{"`+value+`":1}` {
		t.Errorf("a Secret map key marshals as %s (%v), want its value as the doc says", b, err)
	}
	// Text encodings (encoding/xml, YAML and TOML libraries) go through
	// MarshalText.
	if b, err := Secret(value).MarshalText(); err != nil || string(b) != redactedText {
		t.Errorf("MarshalText = %q (%v), want %q", b, err, redactedText)
	}
	type form struct{ PW Secret }
	if b, err := xml.Marshal(form{value}); err != nil || string(b) != "<form><PW>"+redactedText+"</PW></form>" {
		t.Errorf("XML = %s (%v), want the Secret redacted", b, err)
	}
	if b, err := Secret("").MarshalText(); err != nil || len(b) != 0 {
		t.Errorf("MarshalText of the empty Secret = %q (%v), want nothing", b, err)
	}
	for _, v := range []any{struct{ PW Secret }{value}, []Secret{value}, map[string]Secret{"k": value}} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
			if got := fmt.Sprintf(verb, v); strings.Contains(got, value) || !strings.Contains(got, redactedText) {
				t.Errorf("%s of %T = %q, want it redacted", verb, v, got)
			}
		}
		if b, err := json.Marshal(v); err != nil || strings.Contains(string(b), value) {
			t.Errorf("JSON of %T = %s (%v), want it redacted", v, b, err)
		}
	}
}

// Strings that reach callers are valid UTF-8, as encoding/json makes them.
func TestStringsReachCallersAsValidUTF8(t *testing.T) {
	t.Run("jurisdictions", func(t *testing.T) {
		var j jurisdictionNames
		if err := j.UnmarshalJSON([]byte("[\"Ut\xffah\", {\"jurisdiction\": \"Ida\xfeho\"}]")); err != nil {
			t.Fatal(err)
		}
		want := []string{"Ut\uFFFDah", "Ida\uFFFDho"}
		if !reflect.DeepEqual([]string(j), want) {
			t.Errorf("jurisdictions = %q, want %q", j, want)
		}
	})
	t.Run("unquote", func(t *testing.T) {
		s, ok := unquote([]byte("\"a\xc3\""))
		if !ok || s != "a\uFFFD" {
			t.Errorf("unquote = %q, %v; want %q", s, ok, "a\uFFFD")
		}
	})
	t.Run("message cut inside a rune", func(t *testing.T) {
		for pad := 495; pad <= 500; pad++ {
			msg := strings.Repeat("a", pad) + strings.Repeat("é", 10)
			e := newAPIError(400, "GET", "/x", []byte(`{"message":`+strconv.Quote(msg)+`}`), nil)
			if !utf8.ValidString(e.Message) || !utf8.ValidString(e.Error()) {
				t.Errorf("pad %d: message %q is not valid UTF-8", pad, e.Message[len(e.Message)-8:])
			}
		}
	})
}

// Invalid UTF-8 in strings is read as the replacement character, not
// passed on: callers always get valid strings. In an id it is an error.
func TestInvalidUTF8(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, "{\"success\":true,\"result\":[{\"id\":\"7d4a1f3e-8b2c-4e5f-9a6b-1c2d3e4f5a6b\",\"url\":\"https://ex\xff\xfeample.com/\xc0\xaf\\ud800\"}]}")
	})
	c := newTestClient(t, srv)
	cbs, err := c.Callbacks.List(context.Background())
	if err != nil || len(cbs) != 1 {
		t.Fatalf("List = %v, %v", cbs, err)
	}
	if got := cbs[0].URL; !utf8.ValidString(got) || strings.Count(got, "\uFFFD") != 5 || !strings.HasPrefix(got, "https://ex") {
		t.Errorf("URL = %q, want valid UTF-8 with 5 replacement characters", got)
	}

	bad := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, "{\"success\":true,\"result\":[{\"id\":\"7d4a1f3e-8b2c-4e5f-9a6b-1c2d3e4f5a6\xff\"}]}")
	})
	_, err = newTestClient(t, bad).Callbacks.List(context.Background())
	if de := hsWantDecodeError(t, err); de.Path != "result[0].id" {
		t.Errorf("DecodeError path = %q, want result[0].id", de.Path)
	}
}

// An amount written with more than 64 digits is refused as written, even
// when its leading zeros would leave fewer: the bound is on the input.
func TestMoneyDigitBoundCountsTheDigitsWritten(t *testing.T) {
	for _, s := range []string{strings.Repeat("0", 64) + "1", strings.Repeat("0", 60) + "1." + strings.Repeat("0", 4)} {
		if m, err := ParseMoney(s); err == nil {
			t.Errorf("ParseMoney of %d digits = %s, want an error", len(strings.ReplaceAll(s, ".", "")), m)
		}
	}
	if m, err := ParseMoney(strings.Repeat("0", 63) + "1"); err != nil || m.String() != "1" {
		t.Errorf("ParseMoney of 64 digits = %v, %v; want 1", m, err)
	}
}

func TestMoneyFromCentsRoundTripsEveryInt64(t *testing.T) {
	for _, c := range []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, math.MaxInt64} {
		if got, err := MoneyFromCents(c).Cents(); err != nil || got != c {
			t.Errorf("MoneyFromCents(%d).Cents() = %d, %v", c, got, err)
		}
	}
	// One cent past either end is refused, not wrapped.
	for _, s := range []string{"-92233720368547758.09", "92233720368547758.08"} {
		m, _ := ParseMoney(s)
		if got, err := m.Cents(); err == nil {
			t.Errorf("%s.Cents() = %d, want an error", s, got)
		}
	}
	t.Run("generated", func(t *testing.T) {
		rapid.Check(t, func(rt *rapid.T) {
			c := rapid.Int64().Draw(rt, "cents")
			if got, err := MoneyFromCents(c).Cents(); err != nil || got != c {
				rt.Fatalf("MoneyFromCents(%d).Cents() = %d, %v", c, got, err)
			}
		})
	})
}

func TestTurnaroundDurationSaturates(t *testing.T) {
	day := 24 * time.Hour
	for _, tc := range []struct {
		t    Turnaround
		want time.Duration
	}{
		{Turnaround{Days: 1, Hours: 2}, 26 * time.Hour},
		{Turnaround{Days: 106751}, 106751 * day},
		{Turnaround{Days: 106751, Hours: 23}, 106751*day + 23*time.Hour},
		{Turnaround{Days: 106752}, math.MaxInt64},
		{Turnaround{Days: 1 << 40}, math.MaxInt64},
		{Turnaround{Days: math.MaxInt, Hours: math.MaxInt}, math.MaxInt64},
		{Turnaround{Days: -106752}, math.MinInt64},
		{Turnaround{Days: math.MinInt, Hours: math.MinInt}, math.MinInt64},
		{Turnaround{Hours: math.MaxInt}, math.MaxInt64},
	} {
		if got := tc.t.Duration(); got != tc.want {
			t.Errorf("%+v.Duration() = %v, want %v", tc.t, got, tc.want)
		}
	}
	t.Run("generated", func(t *testing.T) {
		rapid.Check(t, func(rt *rapid.T) {
			tr := Turnaround{Days: rapid.IntRange(-60000, 60000).Draw(rt, "days"), Hours: rapid.IntRange(-1e6, 1e6).Draw(rt, "hours")}
			if got, want := tr.Duration(), time.Duration(tr.Days)*day+time.Duration(tr.Hours)*time.Hour; got != want {
				rt.Fatalf("%+v.Duration() = %v, want %v", tr, got, want)
			}
			big := Turnaround{Days: rapid.IntRange(106752, math.MaxInt).Draw(rt, "big"), Hours: rapid.IntRange(0, math.MaxInt).Draw(rt, "h")}
			if big.Duration() != math.MaxInt64 {
				rt.Fatalf("%+v.Duration() = %v, want the largest Duration", big, big.Duration())
			}
		})
	})
}

func TestTurnaroundString(t *testing.T) {
	for _, tc := range []struct {
		t    Turnaround
		want string
	}{
		{Turnaround{}, "0 days"},
		{Turnaround{Days: 1}, "1 day"},
		{Turnaround{Days: 2}, "2 days"},
		{Turnaround{Hours: 1}, "1 hour"},
		{Turnaround{Hours: 5}, "5 hours"},
		{Turnaround{Days: 2, Hours: 4}, "2 days 4 hours"},
		{Turnaround{Days: 1, Hours: 1}, "1 day 1 hour"},
	} {
		if got := fmt.Sprint(tc.t); got != tc.want {
			t.Errorf("fmt.Sprint(%#v) = %q, want %q", tc.t, got, tc.want)
		}
	}
}

// DaysUntil counts exactly however far the dates are from the present,
// against a model (the Unix seconds of time.Date, exact for these years).
func TestDateDaysUntilFarFromTheEpoch(t *testing.T) {
	unixDays := func(d, e Date) int {
		return int((e.In(time.UTC).Unix() - d.In(time.UTC).Unix()) / 86400)
	}
	t.Run("generated", func(t *testing.T) {
		rapid.Check(t, func(rt *rapid.T) {
			gen := func(name string) Date {
				return Date{
					Year:  rapid.IntRange(-5_000_000, 5_000_000).Draw(rt, name+" year"),
					Month: time.Month(rapid.IntRange(-30, 30).Draw(rt, name+" month")),
					Day:   rapid.IntRange(-400, 400).Draw(rt, name+" day"),
				}
			}
			d, e := gen("d"), gen("e")
			if got, want := d.DaysUntil(e), unixDays(d, e); got != want {
				rt.Fatalf("%+v.DaysUntil(%+v) = %d, want %d", d, e, got, want)
			}
			if d.DaysUntil(e) != -e.DaysUntil(d) {
				rt.Fatalf("DaysUntil is not antisymmetric for %+v, %+v", d, e)
			}
		})
	})
	for _, tc := range []struct {
		d, e Date
		want int
	}{
		{Date{math.MaxInt, 1, 1}, Date{math.MaxInt, 1, 2}, 1},
		{Date{math.MinInt, 12, 31}, Date{math.MinInt, 12, 1}, -30},
		{Date{4e12, 2, 28}, Date{4e12, 3, 1}, 2},             // a leap year: divisible by 400
		{Date{4e12 + 100, 2, 28}, Date{4e12 + 100, 3, 1}, 1}, // not one: by 100 only
		{Date{4e12 + 104, 2, 28}, Date{4e12 + 104, 3, 1}, 2},
		{Date{2000, 1, 1}, Date{2000 + 400*1_000_000, 1, 1}, 146097 * 1_000_000},
		{Date{math.MinInt, 1, 1}, Date{math.MaxInt, 1, 1}, math.MaxInt},
		{Date{math.MaxInt, 1, 1}, Date{math.MinInt, 1, 1}, math.MinInt},
	} {
		if got := tc.d.DaysUntil(tc.e); got != tc.want {
			t.Errorf("%+v.DaysUntil(%+v) = %d, want %d", tc.d, tc.e, got, tc.want)
		}
	}
}

// A Date either marshals to text that reads back as the same date, or is
// refused: as a value, and as a map key.
func TestDateMarshalReadsBackOrFails(t *testing.T) {
	for _, d := range []Date{{10000, 1, 1}, {-1, 12, 31}, {2024, 2, 30}, {2024, 13, 1}, {2024, 0, 1}, {2024, 1, 0}} {
		if b, err := json.Marshal(map[Date]int{d: 1}); err == nil {
			t.Errorf("map key %+v marshalled as %s", d, b)
		}
		if b, err := json.Marshal(d); err == nil {
			t.Errorf("%+v marshalled as %s", d, b)
		}
	}
	t.Run("generated", func(t *testing.T) {
		rapid.Check(t, func(rt *rapid.T) {
			d := Date{
				Year:  rapid.IntRange(-20000, 20000).Draw(rt, "year"),
				Month: time.Month(rapid.IntRange(-1, 14).Draw(rt, "month")),
				Day:   rapid.IntRange(-1, 32).Draw(rt, "day"),
			}
			b, err := json.Marshal(map[Date]int{d: 7})
			if err != nil {
				if ok := d.Year >= 0 && d.Year <= 9999 && d.Month >= 1 && d.Month <= 12 && d.Day >= 1 && d.Day <= time.Date(d.Year, d.Month+1, 0, 0, 0, 0, 0, time.UTC).Day(); ok {
					rt.Fatalf("%+v refused: %v", d, err)
				}
				return
			}
			var back map[Date]int
			if err := json.Unmarshal(b, &back); err != nil || back[d] != 7 || len(back) != 1 {
				rt.Fatalf("%+v marshalled as %s, read back as %v, %v", d, b, back, err)
			}
			v, err := json.Marshal(d)
			var d2 Date
			if err != nil || json.Unmarshal(v, &d2) != nil || d2 != d {
				rt.Fatalf("%+v as a value: %s, %+v, %v", d, v, d2, err)
			}
		})
	})
}

// An hour of 24, a minute or a second of 60 is not a time, in any shape.
func TestTimeRefusesOutOfRangeClock(t *testing.T) {
	for _, s := range []string{
		"2024-01-01 24:00:00 +0000", "2024-01-01 23:60:00 +0000", "2024-01-01 23:59:60 +0000",
		"2024-01-01T24:00:00Z", "2024-01-01 24:00:00.5 +0000", "2024-12-31 24:00:00 -0700",
	} {
		if v, err := ParseTime(s); err == nil {
			t.Errorf("ParseTime(%q) = %v, want an error", s, v)
		}
		var tm Time
		if err := json.Unmarshal([]byte(`"`+s+`"`), &tm); err == nil {
			t.Errorf("Time %q read as %v", s, tm.Time)
		}
	}
	for _, s := range []string{"2024-01-01 23:59:59 +0000", "2024-01-01 00:00:00 +0000"} {
		if _, err := ParseTime(s); err != nil {
			t.Errorf("ParseTime(%q): %v", s, err)
		}
	}
}

func mustMoney(t testing.TB, s string) Money {
	t.Helper()
	m, err := ParseMoney(s)
	if err != nil {
		t.Fatalf("ParseMoney(%q): %v", s, err)
	}
	return m
}

func TestMoneyCompares(t *testing.T) {
	cases := []struct {
		a, b string
		cmp  int
	}{
		{"1.0", "1.00", 0},
		{"1", "1.000", 0},
		{"1e2", "100.00", 0},
		{"-0", "0", 0},
		{"-0.00", "", 0},
		{"0", "", 0},
		{"0.10", "0.1", 0},
		{"0.1", "0.09", 1},
		{"0.09", "0.1", -1},
		{"-1", "-0.5", -1},
		{"-0.5", "-1", 1},
		{"-0.01", "0", -1},
		{"2", "10", -1},
		{"19.99", "19.990000000001", -1},
		{"123456789012345678901234567890.5", "123456789012345678901234567890.49", 1},
	}
	for _, tc := range cases {
		a, b := mustMoney(t, tc.a), mustMoney(t, tc.b)
		if got := a.Cmp(b); got != tc.cmp {
			t.Errorf("%q.Cmp(%q) = %d, want %d", tc.a, tc.b, got, tc.cmp)
		}
		if got := b.Cmp(a); got != -tc.cmp {
			t.Errorf("%q.Cmp(%q) = %d, want %d", tc.b, tc.a, got, -tc.cmp)
		}
		if got := a.Equal(b); got != (tc.cmp == 0) {
			t.Errorf("%q.Equal(%q) = %v", tc.a, tc.b, got)
		}
	}
	// == compares what was written, as documented; String keeps it.
	one, oneOO := mustMoney(t, "1.0"), mustMoney(t, "1.00")
	if one == oneOO || one.String() != "1.0" || oneOO.String() != "1.00" {
		t.Fatalf("1.0 and 1.00: == %v, strings %q %q", one == oneOO, one, oneOO)
	}
}

func TestMoneyAddSub(t *testing.T) {
	cases := []struct {
		a, b, sum, diff string
	}{
		{"1.5", "0.25", "1.75", "1.25"},
		{"1.00", "2", "3.00", "-1.00"},
		{"0.10", "0.20", "0.30", "-0.10"},
		{"0.1", "0.2", "0.3", "-0.1"},
		{"19.99", "-19.99", "0.00", "39.98"},
		{"-5", "-2.50", "-7.50", "-2.50"},
		{"", "1.50", "1.50", "-1.50"},
		{"", "", "0", "0"},
		{"1e2", "1e-2", "100.01", "99.99"},
		{"0.001", "0.009", "0.010", "-0.008"},
		{"99999999999999999999.99", "0.01", "100000000000000000000.00", "99999999999999999999.98"},
		{"-0.5", "0.5", "0.0", "-1.0"},
	}
	for _, tc := range cases {
		a, b := mustMoney(t, tc.a), mustMoney(t, tc.b)
		if got := a.Add(b); got.String() != tc.sum {
			t.Errorf("%q + %q = %q, want %q", tc.a, tc.b, got, tc.sum)
		}
		if got := a.Sub(b); got.String() != tc.diff {
			t.Errorf("%q - %q = %q, want %q", tc.a, tc.b, got, tc.diff)
		}
		// Results are canonical: they read back as themselves.
		for _, m := range []Money{a.Add(b), a.Sub(b)} {
			if back := mustMoney(t, m.String()); back != m {
				t.Errorf("%q does not parse back to itself: %#v vs %#v", m, back, m)
			}
		}
	}
	// Operands are values: nothing they hold is changed.
	a, b := mustMoney(t, "1.5"), mustMoney(t, "2.25")
	_ = a.Add(b)
	_ = a.Sub(b)
	if a.String() != "1.5" || b.String() != "2.25" {
		t.Fatalf("operands changed: %s %s", a, b)
	}
}

func TestMoneyAddBeyondTheDigitBound(t *testing.T) {
	big64 := mustMoney(t, strings.Repeat("9", maxMoneyDigits))
	sum := big64.Add(mustMoney(t, "1"))
	want := "1" + strings.Repeat("0", maxMoneyDigits)
	if sum.String() != want {
		t.Fatalf("sum = %s, want %s", sum, want)
	}
	// Exact still: taking the 1 back gives the operand.
	if back := sum.Sub(mustMoney(t, "1")); !back.Equal(big64) || back.String() != big64.String() {
		t.Fatalf("sum - 1 = %s", back)
	}
	// It marshals exactly; reading it back is refused, as documented.
	b, err := json.Marshal(sum)
	if err != nil || string(b) != want {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	var m Money
	if err := json.Unmarshal(b, &m); err == nil {
		t.Fatalf("a %d-digit amount decoded as %s", len(want), m)
	}
}

func TestDateCompareAndDaysUntil(t *testing.T) {
	d := func(y int, m time.Month, day int) Date { return Date{y, m, day} }
	cases := []struct {
		a, b Date
		cmp  int
		days int
	}{
		{d(2024, 1, 1), d(2024, 1, 1), 0, 0},
		{d(2024, 1, 1), d(2024, 1, 2), -1, 1},
		{d(2024, 1, 2), d(2024, 1, 1), 1, -1},
		{d(2024, 2, 28), d(2024, 3, 1), -1, 2}, // leap year
		{d(2023, 2, 28), d(2023, 3, 1), -1, 1},
		{d(2024, 12, 31), d(2025, 1, 1), -1, 1},
		{d(2024, 1, 1), d(2025, 1, 1), -1, 366},
		{d(2025, 1, 1), d(2026, 1, 1), -1, 365},
		{d(2024, 3, 9), d(2024, 3, 11), -1, 2}, // across a US DST change
		{d(2000, 1, 1), d(2100, 1, 1), -1, 36525},
		{d(1, 1, 1), d(9999, 12, 31), -1, 3652058},
		{d(2024, 5, 1), d(2024, 4, 30), 1, -1},
		{Date{}, Date{}, 0, 0},
	}
	for _, tc := range cases {
		if got := tc.a.Compare(tc.b); got != tc.cmp {
			t.Errorf("%v.Compare(%v) = %d, want %d", tc.a, tc.b, got, tc.cmp)
		}
		if got := tc.a.DaysUntil(tc.b); got != tc.days {
			t.Errorf("%v.DaysUntil(%v) = %d, want %d", tc.a, tc.b, got, tc.days)
		}
		if got := tc.b.DaysUntil(tc.a); got != -tc.days {
			t.Errorf("%v.DaysUntil(%v) = %d, want %d", tc.b, tc.a, got, -tc.days)
		}
		if got := tc.a.AddDays(tc.days); got != tc.b && !tc.a.IsZero() {
			t.Errorf("%v.AddDays(%d) = %v, want %v", tc.a, tc.days, got, tc.b)
		}
	}
	dates := []Date{d(2025, 1, 1), d(2024, 12, 31), d(2024, 2, 29), d(2024, 12, 1)}
	slices.SortFunc(dates, Date.Compare)
	if want := []Date{d(2024, 2, 29), d(2024, 12, 1), d(2024, 12, 31), d(2025, 1, 1)}; !slices.Equal(dates, want) {
		t.Fatalf("sorted = %v", dates)
	}
}

func TestDateTextRoundTrip(t *testing.T) {
	in := map[Date]int{{2024, time.February, 29}: 2, {2025, time.January, 1}: 5}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"2024-02-29":2,"2025-01-01":5}` {
		t.Fatalf("Marshal = %s", b)
	}
	var back map[Date]int
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || back[Date{2024, time.February, 29}] != 2 || back[Date{2025, time.January, 1}] != 5 {
		t.Fatalf("round trip = %v", back)
	}
	// Values still marshal through MarshalJSON: the zero Date is null.
	if b, _ := json.Marshal([]Date{{}, {2024, 5, 1}}); string(b) != `[null,"2024-05-01"]` {
		t.Fatalf("slice = %s", b)
	}
	// A bad key is an error naming it, and nothing is kept.
	var bad map[Date]int
	err = json.Unmarshal([]byte(`{"2024-02-30":1}`), &bad)
	if err == nil || !strings.Contains(err.Error(), "2024-02-30") || len(bad) != 0 {
		t.Fatalf("bad key: %v, %v", err, bad)
	}
	var d Date
	if err := d.UnmarshalText(nil); err != nil || !d.IsZero() {
		t.Fatalf("empty text: %v, %v", d, err)
	}
	if txt, _ := (Date{}).MarshalText(); len(txt) != 0 {
		t.Fatalf("zero Date text = %q", txt)
	}
}

// FuzzMoneyArithmetic checks Cmp, Equal, Add and Sub against math/big's
// rationals, which read the same decimal texts by their own parser.
func FuzzMoneyArithmetic(f *testing.F) {
	for _, p := range [][2]string{{"1.0", "1.00"}, {"19.99", "-0.01"}, {"1e2", "0.5"}, {"-0", "0"}, {"0.001", "1e-3"}, {"99999999999999999999", "1"}} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, x, y string) {
		a, err1 := ParseMoney(x)
		b, err2 := ParseMoney(y)
		if err1 != nil || err2 != nil {
			return
		}
		ra, rb := rat(t, a), rat(t, b)
		if got, want := a.Cmp(b), ra.Cmp(rb); got != want {
			t.Fatalf("%s.Cmp(%s) = %d, big.Rat says %d", a, b, got, want)
		}
		if a.Equal(b) != (ra.Cmp(rb) == 0) {
			t.Fatalf("%s.Equal(%s) = %v", a, b, a.Equal(b))
		}
		sum, diff := a.Add(b), a.Sub(b)
		if want := new(big.Rat).Add(ra, rb); rat(t, sum).Cmp(want) != 0 {
			t.Fatalf("%s + %s = %s, big.Rat says %s", a, b, sum, want.FloatString(70))
		}
		if want := new(big.Rat).Sub(ra, rb); rat(t, diff).Cmp(want) != 0 {
			t.Fatalf("%s - %s = %s, big.Rat says %s", a, b, diff, want.FloatString(70))
		}
		if !sum.Sub(b).Equal(a) {
			t.Fatalf("(%s + %s) - %s = %s", a, b, b, sum.Sub(b))
		}
		// The result has the decimals of the operand with more.
		if got, want := scale(sum), max(scale(a), scale(b)); got != want {
			t.Fatalf("%s + %s = %s has %d decimals, want %d", a, b, sum, got, want)
		}
	})
}

// rat reads m's text with math/big's own decimal parser.
func rat(t *testing.T, m Money) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(m.String())
	if !ok {
		t.Fatalf("big.Rat cannot read %q", m)
	}
	return r
}

func scale(m Money) int {
	_, frac, _ := strings.Cut(m.String(), ".")
	return len(frac)
}

// formatFields prints a struct that holds Secrets as fmt prints the same
// struct without a Format method, under every verb and flag.
func TestFormatFieldsPrintsAsFmtPrintsTheStruct(t *testing.T) {
	type plainCard Card
	type plainSession Session
	card := Card{Number: "4242 4242 4242 4242", ExpMonth: 12, ExpYear: 2030, CVC: "123", FirstName: "Jane",
		BillingAddress: BillingAddress{Address1: "1 Main", City: "Provo"}}
	session := Session{Token: "tok", ExpiresAt: time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC), UserID: uuid.MustParse(strings.Trim(sampleID, `"`)), UserEmail: "j@x"}
	form := OrderItemFormDataParams{CompanyID: uuid.MustParse(strings.Trim(sampleID, `"`))}
	type plainForm OrderItemFormDataParams
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d", "%10.3v", "%-8v"} {
		for _, tc := range []struct {
			got, want, name string
		}{
			{fmt.Sprintf(verb, card), fmt.Sprintf(verb, plainCard(card)), "Card"},
			{fmt.Sprintf(verb, session), fmt.Sprintf(verb, plainSession(session)), "Session"},
			{fmt.Sprintf(verb, form), fmt.Sprintf(verb, plainForm(form)), "OrderItemFormDataParams"},
		} {
			want := strings.Replace(tc.want, "acctadmin.plain"+tc.name, "acctadmin."+tc.name, 1)
			want = strings.Replace(want, "acctadmin.plainForm", "acctadmin."+tc.name, 1)
			if tc.got != want {
				t.Errorf("%s of a %s:\n got %s\nwant %s", verb, tc.name, tc.got, want)
			}
		}
	}
}
