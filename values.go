package acctadmin

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"math/big"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// apiTimeLayout is how the API writes times, and so how they are sent.
const apiTimeLayout = "2006-01-02 15:04:05 -0700"

// describe says what kind of JSON value data is and how long, never what.
func describe(data []byte) string {
	data = bytes.TrimSpace(data)
	switch {
	case len(data) == 0:
		return "nothing"
	case string(data) == "true" || string(data) == "false" || string(data) == "null":
		return string(data)
	case data[0] == '"':
		return "a string of " + byteCount(len(data)-2)
	case data[0] == '{':
		return "an object of " + byteCount(len(data))
	case data[0] == '[':
		return "an array of " + byteCount(len(data))
	case data[0] == '-' || data[0] >= '0' && data[0] <= '9':
		return "a number of " + byteCount(len(data))
	}
	return byteCount(len(data)) + " that are not JSON"
}

// describeText is describe for a text already out of its JSON string.
func describeText(s string) string { return "a string of " + byteCount(len(s)) }

func byteCount(n int) string {
	if n == 1 {
		return "1 byte"
	}
	return strconv.Itoa(n) + " bytes"
}

// unquote reads a JSON string as encoding/json does (bad UTF-8 as U+FFFD).
func unquote(data []byte) (s string, ok bool) {
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return "", false
	}
	inner := data[1 : len(data)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	err := json.Unmarshal(data, &s) // leaves s "" when it fails
	return s, err == nil
}

// Time is a time.Time written "2006-01-02 15:04:05 -0700" or RFC 3339 (offset
// "Z", "+07:00" or "+0700"), null and "" zero; it marshals as RFC 3339.
type Time struct{ time.Time }

// UnmarshalJSON implements json.Unmarshaler.
func (t *Time) UnmarshalJSON(data []byte) error {
	s, ok := "", string(data) == "null"
	if n := len(data); !ok && n >= 2 && data[0] == '"' && data[n-1] == '"' && bytes.IndexByte(data, '\\') < 0 && utf8.Valid(data) {
		s, ok = string(data[1:n-1]), true // as unquote does, without a call
	} else if !ok {
		s, ok = unquote(data)
	}
	if !ok {
		return fmt.Errorf("want a time string, got %s", describe(data))
	}
	v, err := ParseTime(s)
	if err == nil {
		t.Time = v
	}
	return err
}

// MarshalJSON implements json.Marshaler.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + t.Format(time.RFC3339Nano) + `"`), nil
}

// apiTimeFields are where apiTimeLayout holds each number, and its bounds.
var apiTimeFields = [8]struct{ from, to, min, max int }{
	{0, 4, 0, 9999}, {5, 7, 1, 12}, {8, 10, 1, 31}, {11, 13, 0, 23},
	{14, 16, 0, 59}, {17, 19, 0, 59}, {21, 23, 0, 23}, {23, 25, 0, 59},
}

// timeLayouts are the shapes ParseTime reads through time.Parse.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700", "2006-01-02 15:04:05.999999999 -0700", "2006-01-02 15:04:05.999999999Z07:00"}

// ParseTime reads a time in any shape Time accepts; "" is the zero time.
func ParseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	// The API's own shape, by hand: faster, and in a fixed zone, never Local.
	var n [8]int
	read := 0
	if len(s) == len(apiTimeLayout) && s[4] == '-' && s[7] == '-' && s[10] == ' ' && s[13] == ':' && s[16] == ':' && s[19] == ' ' && (s[20] == '+' || s[20] == '-') {
		for _, f := range apiTimeFields {
			v, err := strconv.ParseUint(s[f.from:f.to], 10, 16)
			if err != nil || int(v) < f.min || int(v) > f.max {
				break
			}
			n[read] = int(v)
			read++
		}
	}
	if read == len(n) && n[2] <= time.Date(n[0], time.Month(n[1])+1, 0, 0, 0, 0, 0, time.UTC).Day() {
		offset, loc := n[6]*3600+n[7]*60, time.UTC
		if s[20] == '-' {
			offset = -offset
		}
		if offset != 0 {
			loc = time.FixedZone("", offset)
		}
		return time.Date(n[0], time.Month(n[1]), n[2], n[3], n[4], n[5], 0, loc), nil
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("unrecognised time (%s)", describeText(s))
}

// Date is a civil date, written "YYYY-MM-DD"; null and "" are zero.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf returns the civil date of t in t's location.
func DateOf(t time.Time) Date { return Date{t.Year(), t.Month(), t.Day()} }

// ParseDate reads a date written "YYYY-MM-DD".
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	switch {
	case err == nil:
		return DateOf(t), nil
	case len(s) == 10 && s[4] == '-' && s[7] == '-' && strings.Count(s, "-") == 2 && strings.Trim(s, "-0123456789") == "":
		// Digits and dashes hold no secret: the text can be quoted.
		return Date{}, fmt.Errorf("unrecognised date %q (no such day)", s)
	}
	return Date{}, fmt.Errorf("unrecognised date (%s; want YYYY-MM-DD)", describeText(s))
}

// String returns the date as "YYYY-MM-DD", or "" for the zero Date.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d == Date{} }

// In returns the time at midnight starting d in loc.
func (d Date) In(loc *time.Location) time.Time {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, loc)
}

// AddDays returns d moved by n days (n may be negative).
func (d Date) AddDays(n int) Date { return DateOf(d.In(time.UTC).AddDate(0, 0, n)) }

// Before reports whether d is before e.
func (d Date) Before(e Date) bool { return d.Compare(e) < 0 }

// After reports whether d is after e.
func (d Date) After(e Date) bool { return d.Compare(e) > 0 }

// Compare returns -1, 0 or +1 as d is before, the same as or after e.
func (d Date) Compare(e Date) int {
	return cmp.Or(cmp.Compare(d.Year, e.Year), cmp.Compare(d.Month, e.Month), cmp.Compare(d.Day, e.Day))
}

// DaysUntil returns the days from d to e, exactly; beyond an int it saturates.
func (d Date) DaysUntil(e Date) int {
	n := new(big.Int).Sub(e.dayNumber(), d.dayNumber())
	switch {
	case n.Cmp(big.NewInt(math.MaxInt)) > 0:
		return math.MaxInt
	case n.Cmp(big.NewInt(math.MinInt)) < 0:
		return math.MinInt
	}
	return int(n.Int64())
}

// dayNumber returns the days from 0000-03-01 to d, in whole 400-year eras
// of 146,097 days; years count from March, so that leap days end them.
func (d Date) dayNumber() *big.Int {
	m := new(big.Int).SetInt64(int64(d.Month))
	m.Sub(m, big.NewInt(3))
	y, mp := new(big.Int).DivMod(m, big.NewInt(12), new(big.Int))
	y.Add(y, big.NewInt(int64(d.Year)))
	era, yoe := new(big.Int).DivMod(y, big.NewInt(400), new(big.Int))
	yo, mo := yoe.Int64(), mp.Int64()
	doe := yo*365 + yo/4 - yo/100 + (153*mo+2)/5 // the day before day 1 of the month
	n := new(big.Int).Mul(era, big.NewInt(146097))
	n.Add(n, big.NewInt(doe))
	return n.Add(n, big.NewInt(int64(d.Day)))
}

// MarshalText implements encoding.TextMarshaler (a Date can key a map); a
// date that would not read back (year past 0000-9999, no such day) fails.
func (d Date) MarshalText() ([]byte, error) {
	if d.Year < 0 || d.Year > 9999 {
		return nil, fmt.Errorf("acctadmin: date with year %d cannot be written as YYYY-MM-DD", d.Year)
	}
	if !d.IsZero() && DateOf(d.In(time.UTC)) != d {
		return nil, fmt.Errorf("acctadmin: date %04d-%02d-%02d does not exist", d.Year, int(d.Month), d.Day)
	}
	return []byte(d.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler; empty is zero.
func (d *Date) UnmarshalText(text []byte) error {
	v, err := Date{}, error(nil)
	if len(text) > 0 {
		v, err = ParseDate(string(text))
	}
	if err == nil {
		*d = v
	}
	return err
}

// UnmarshalJSON implements json.Unmarshaler.
func (d *Date) UnmarshalJSON(data []byte) error {
	if string(data) == "null" || string(data) == `""` {
		*d = Date{}
		return nil
	}
	var s string
	if n := len(data); n < 2 || data[0] != '"' || data[n-1] != '"' || json.Unmarshal(data, &s) != nil {
		return fmt.Errorf("want a date string, got %s", describe(data))
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		_, err = ParseDate(s) // for its message
		return err
	}
	*d = Date{Year: t.Year(), Month: t.Month(), Day: t.Day()}
	return nil
}

// MarshalJSON implements json.Marshaler: as MarshalText, null for zero.
func (d Date) MarshalJSON() ([]byte, error) {
	if d.IsZero() {
		return []byte("null"), nil
	}
	text, err := d.MarshalText()
	if err != nil {
		return nil, err
	}
	return []byte(`"` + string(text) + `"`), nil
}

// Money is an amount exactly as written (149.00, 1e2, "0.10"); null and ""
// are zero. Compare with Equal or Cmp, not ==: "1.0" and "1.00" are equal.
type Money struct {
	text string // an optional "-", digits, and an optional "." with digits; "" is zero
}

// maxMoneyDigits bounds a Money's digits: an exponent cannot make it huge.
const maxMoneyDigits = 64

// moneyPattern is what ParseMoney reads: sign, digits, fraction, exponent.
var moneyPattern = regexp.MustCompile(`^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$`)

// ParseMoney reads a decimal amount ("19.99", "-5", "1e2", "0.10").
func ParseMoney(s string) (Money, error) {
	if s == "" {
		return Money{}, nil
	}
	m := moneyPattern.FindStringSubmatch(s)
	if m == nil || m[2]+m[3] == "" {
		return Money{}, fmt.Errorf("unrecognised amount (%s)", describeText(s))
	}
	intPart, frac := m[2], m[3]
	exp, err := strconv.Atoi(cmp.Or(m[4], "0"))
	if err != nil || len(intPart)+len(frac) > maxMoneyDigits || exp > maxMoneyDigits || exp < -maxMoneyDigits {
		return Money{}, fmt.Errorf("unrecognised amount (%s)", describeText(s))
	}
	// The point moves by exp within zeros wide enough for any exp allowed.
	zeros := strings.Repeat("0", maxMoneyDigits)
	all, point := zeros+intPart+frac+zeros, maxMoneyDigits+len(intPart)+exp
	ip, fp := cmp.Or(strings.TrimLeft(all[:point], "0"), "0"), all[point:max(point, maxMoneyDigits+len(intPart)+len(frac))]
	if len(ip)+len(fp) > maxMoneyDigits {
		// The text must itself be an amount ParseMoney reads.
		return Money{}, fmt.Errorf("unrecognised amount (%s)", describeText(s))
	}
	text := strings.TrimSuffix(ip+"."+fp, ".")
	if m[1] == "-" && strings.Trim(text, "0.") != "" {
		text = "-" + text
	}
	return Money{text: text}, nil
}

// MoneyFromCents returns cents minor units, with two decimals ("12.34").
func MoneyFromCents(cents int64) Money { return Money{text: big.NewRat(cents, 100).FloatString(2)} }

// String returns the amount as written, exponent expanded; "0" for zero.
func (m Money) String() string { return cmp.Or(m.text, "0") }

// IsZero reports whether the amount is zero.
func (m Money) IsZero() bool { return strings.Trim(m.text, "-0.") == "" }

// Cents returns the amount in cents; a fraction of a cent is an error.
func (m Money) Cents() (int64, error) {
	ip, fp, _ := strings.Cut(m.String(), ".")
	fp = strings.TrimRight(fp, "0")
	if len(fp) > 2 {
		return 0, fmt.Errorf("acctadmin: amount %s has a fraction of a cent", m.text)
	}
	n, err := strconv.ParseInt(ip+fp+strings.Repeat("0", 2-len(fp)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("acctadmin: amount %s is too large for int64 cents", m.text)
	}
	return n, nil
}

// Equal reports whether m and n are the same amount: "1.0" equals "1.00".
func (m Money) Equal(n Money) bool { return m.Cmp(n) == 0 }

// Cmp returns -1, 0 or +1 as m is less than, equal to or more than n.
func (m Money) Cmp(n Money) int { return m.rat().Cmp(n.rat()) }

// Add returns m + n exactly, with the most decimals of the two ("1.00" +
// "2" is "3.00"); a sum past 64 digits still prints and compares.
func (m Money) Add(n Money) Money {
	return Money{text: new(big.Rat).Add(m.rat(), n.rat()).FloatString(max(m.decimals(), n.decimals()))}
}

// Sub returns m - n, exactly, as Add does.
func (m Money) Sub(n Money) Money {
	return Money{text: new(big.Rat).Sub(m.rat(), n.rat()).FloatString(max(m.decimals(), n.decimals()))}
}

// times returns m multiplied by k, exactly, with m's decimals.
func (m Money) times(k int64) Money {
	return Money{text: new(big.Rat).Mul(m.rat(), big.NewRat(k, 1)).FloatString(m.decimals())}
}

// rat returns the amount as an exact fraction (its text always reads).
func (m Money) rat() *big.Rat {
	r, _ := new(big.Rat).SetString(m.String())
	return r
}

// decimals returns how many digits the amount has after its point.
func (m Money) decimals() int {
	_, frac, _ := strings.Cut(m.text, ".")
	return len(frac)
}

// UnmarshalJSON implements json.Unmarshaler.
func (m *Money) UnmarshalJSON(data []byte) error {
	s, n := string(data), len(data)
	switch quoted := n >= 2 && data[0] == '"' && data[n-1] == '"'; {
	case s == "null":
		s = ""
	case quoted && json.Unmarshal(data, &s) == nil:
		s = strings.TrimSpace(s)
	case quoted || n == 0 || !(data[0] == '-' || data[0] >= '0' && data[0] <= '9'):
		return fmt.Errorf("want an amount, got %s", describe(data))
	}
	v, err := ParseMoney(s)
	if err == nil {
		*m = v
	}
	return err
}

// MarshalJSON implements json.Marshaler.
func (m Money) MarshalJSON() ([]byte, error) { return []byte(m.String()), nil }

// Turnaround is how long a filing method takes: {"days", "hours"} (numbers
// or numeric strings), an array of one, or null; several is an error.
type Turnaround struct {
	Days  int `json:"days"`
	Hours int `json:"hours"`
}

// Duration returns t as a time.Duration (a day is 24 hours), saturating.
func (t Turnaround) Duration() time.Duration {
	hours := new(big.Int).Mul(big.NewInt(int64(t.Days)), big.NewInt(24))
	hours.Add(hours, big.NewInt(int64(t.Hours)))
	const maxHours = math.MaxInt64 / int64(time.Hour)
	switch {
	case hours.Cmp(big.NewInt(maxHours)) > 0:
		return math.MaxInt64
	case hours.Cmp(big.NewInt(-maxHours)) < 0:
		return math.MinInt64
	}
	return time.Duration(hours.Int64()) * time.Hour
}

// String returns the turnaround in words: "1 day", "2 days 4 hours".
func (t Turnaround) String() string {
	unit := func(n int, one string) string {
		if n == 1 || n == -1 {
			return strconv.Itoa(n) + " " + one
		}
		return strconv.Itoa(n) + " " + one + "s"
	}
	switch {
	case t.Hours == 0:
		return unit(t.Days, "day")
	case t.Days == 0:
		return unit(t.Hours, "hour")
	}
	return unit(t.Days, "day") + " " + unit(t.Hours, "hour")
}

// IsZero reports whether t is the zero Turnaround.
func (t Turnaround) IsZero() bool { return t == Turnaround{} }

// UnmarshalJSON implements json.Unmarshaler.
func (t *Turnaround) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(data, &items); err != nil {
			return err
		}
		switch data = []byte("null"); {
		case len(items) > 1:
			return fmt.Errorf("want one turnaround, got an array of %d", len(items))
		case len(items) == 1:
			data = items[0]
		}
	}
	var w struct{ Days, Hours flexInt }
	// One level of array only: an array in it is refused here, not read.
	if string(data) != "null" && (len(data) == 0 || data[0] != '{') {
		return fmt.Errorf("want a turnaround object, got %s", describe(data))
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*t = Turnaround{Days: int(w.Days), Hours: int(w.Hours)}
	return nil
}

// flexInt is an int written as a number or a numeric string; null keeps it.
type flexInt int

func (n *flexInt) UnmarshalJSON(data []byte) error {
	s := string(data)
	if s == "null" {
		return nil
	}
	if len(data) > 0 && data[0] == '"' {
		u, _ := unquote(data)
		s = strings.TrimSpace(u)
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want an integer, got %s", describe(data))
	}
	*n = flexInt(v)
	return nil
}

// epochTime is a Time or a number of Unix seconds, in UTC; 1e11 or more
// is milliseconds (as seconds it would lie past the year 5000).
type epochTime struct{ time.Time }

func (t *epochTime) UnmarshalJSON(data []byte) error {
	if len(data) == 0 || (data[0] != '-' && (data[0] < '0' || data[0] > '9')) {
		return (*Time)(t).UnmarshalJSON(data)
	}
	f, err := strconv.ParseFloat(string(data), 64)
	if err != nil || math.IsInf(f, 0) || math.Abs(f) >= 1e17 {
		return fmt.Errorf("want a time, got %s", describe(data))
	}
	if math.Abs(f) >= 1e11 {
		f /= 1000
	}
	sec := math.Floor(f)
	t.Time = time.Unix(int64(sec), int64(math.Round((f-sec)*1e9))).UTC()
	return nil
}

// listedID is an id read as none when not a UUID, failing no listing.
type listedID uuid.UUID

func (id *listedID) UnmarshalJSON(data []byte) error {
	*id = listedID(uuid.Nil)
	if n := len(data); n > 2 && data[0] == '"' && data[n-1] == '"' {
		text := data[1 : n-1] // read in place, unless escaped
		if bytes.IndexByte(text, '\\') >= 0 {
			s, _ := unquote(data)
			text = []byte(s)
		}
		if u, err := uuid.ParseBytes(text); err == nil {
			*id = listedID(u)
		}
	}
	return nil
}

// jurisdictionNames are names, {"jurisdiction"|"name": name}, or one name.
type jurisdictionNames []string

func (j *jurisdictionNames) UnmarshalJSON(data []byte) error {
	*j = nil
	if s, ok := unquote(data); ok || string(data) == "null" {
		if s != "" {
			*j = jurisdictionNames{s}
		}
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		return fmt.Errorf("want an array of jurisdictions, got %s", describe(data))
	}
	out := make([]string, len(items))
	for i, raw := range items {
		var obj struct{ Jurisdiction, Name *string }
		var ok bool
		if out[i], ok = unquote(raw); !ok {
			if json.Unmarshal(raw, &obj) != nil || obj.Jurisdiction == nil && obj.Name == nil {
				return fmt.Errorf("item %d: want a jurisdiction name or {\"jurisdiction\": name}, got %s", i, describe(raw))
			}
			out[i] = *cmp.Or(obj.Jurisdiction, obj.Name)
		}
	}
	*j = out
	return nil
}

// Secret is a value never shown (a card number, a password, a token): it
// prints "[redacted]" ("" if empty) in fmt, slog, JSON and text, except to
// fmt by reflection (an unexported field, %!verb(*T=…)) and as a map key.
type Secret string

const redactedText = "[redacted]"

// Reveal returns the secret value. Keep it out of logs.
func (s Secret) Reveal() string { return string(s) }

// String returns "[redacted]", or "" for the empty Secret.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redactedText
}

// GoString returns the redacted form, for %#v.
func (s Secret) GoString() string { return strconv.Quote(s.String()) }

// Format writes the redacted form under every verb.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'q' || verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, s.GoString())
		return
	}
	fmt.Fprint(f, s.String())
}

// LogValue makes slog log the redacted form.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// formatFields prints v, a struct holding Secrets, as fmt would but field
// by field, so that each Secret formats itself; %#v names it name.
func formatFields(f fmt.State, verb rune, v any, name string) {
	rv := reflect.ValueOf(v)
	sharp, plus := verb == 'v' && f.Flag('#'), verb == 'v' && f.Flag('+')
	format, sep := fmt.FormatString(f, verb), " "
	if sharp {
		fmt.Fprint(f, name)
		sep = ", "
	}
	fmt.Fprint(f, "{")
	for i := 0; i < rv.NumField(); i++ {
		if i > 0 {
			fmt.Fprint(f, sep)
		}
		if sharp || plus {
			fmt.Fprint(f, rv.Type().Field(i).Name+":")
		}
		fmt.Fprintf(f, format, rv.Field(i)) // as fmt prints a field: a nil interface too
	}
	fmt.Fprint(f, "}")
}

// MarshalJSON writes the redacted form (request bodies carry the value).
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// MarshalText writes the redacted form.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
