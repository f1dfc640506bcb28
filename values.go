package acctadmin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// The value types of the API's records, and their tolerant parsers. The
// wire writes the same kind of value in several shapes depending on the
// endpoint; every shape is absorbed here, once, so that the rest of the
// client and its callers see one Go type per value.

// apiTimeLayout is how the API writes times, and so how they are sent.
const apiTimeLayout = "2006-01-02 15:04:05 -0700"

// describe says what kind of JSON value data is, and how long, for an
// error message. It never quotes the value: a server may have put a
// secret or a query string there, and errors end up in logs.
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

// unquote returns the content of a JSON string, or ok=false when data is
// not a JSON string. Like encoding/json, it gives valid UTF-8: a byte that
// is not is read as U+FFFD.
func unquote(data []byte) (s string, ok bool) {
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return "", false
	}
	inner := data[1 : len(data)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return "", false
	}
	return s, true
}

// Time is a point in time as the API writes it: the SDK reads every
// record's time.Time fields through it, and it is exported for programs
// that decode the API's JSON themselves. It accepts
// "2006-01-02 15:04:05 -0700" (the API's usual shape), RFC 3339 / ISO 8601
// with or without fractional seconds and with a "Z", "+07:00" or "+0700"
// offset (the cancel-request shape), and JSON null or "" for the zero
// time. It marshals as RFC 3339 with nanoseconds, or null when zero.
type Time struct{ time.Time }

// UnmarshalJSON implements json.Unmarshaler.
func (t *Time) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		t.Time = time.Time{}
		return nil
	}
	// The API's usual shape is read in place, without a copy of its text.
	if n := len(data); n == len(`""`)+len(apiTimeLayout) && data[0] == '"' && data[n-1] == '"' {
		if v, ok := parseAPITime(data[1 : n-1]); ok {
			t.Time = v
			return nil
		}
	}
	s, ok := unquote(data)
	if !ok {
		return fmt.Errorf("want a time string, got %s", describe(data))
	}
	v, err := ParseTime(s)
	if err != nil {
		return err
	}
	t.Time = v
	return nil
}

// MarshalJSON implements json.Marshaler.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + t.Format(time.RFC3339Nano) + `"`), nil
}

// ParseTime reads a time in any of the shapes Time accepts. The empty
// string is the zero time.
func ParseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, ok := parseAPITime(s); ok {
		return t, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700", "2006-01-02 15:04:05.999999999 -0700", "2006-01-02 15:04:05.999999999Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("unrecognised time (%s)", describeText(s))
}

// parseAPITime is the fast path for "2006-01-02 15:04:05 -0700", the shape
// of nearly every time the API sends; the offsets' locations are cached so
// a decode allocates nothing per time. It reads the text as a string or,
// straight from the JSON, as bytes.
func parseAPITime[S string | []byte](s S) (time.Time, bool) {
	if !apiTimeShaped(s) {
		return time.Time{}, false
	}
	var n [8]int
	for i, f := range apiTimeFields {
		v, ok := digits(s[f[0]:f[1]])
		if !ok {
			return time.Time{}, false
		}
		n[i] = v
	}
	year, month, day, hour, min, sec, oh, om := n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7]
	if month < 1 || month > 12 || day < 1 || day > daysIn(time.Month(month), year) ||
		hour > 23 || min > 59 || sec > 59 || oh > 23 || om > 59 {
		return time.Time{}, false
	}
	offset := oh*3600 + om*60
	if s[20] == '-' {
		offset = -offset
	}
	return time.Date(year, time.Month(month), day, hour, min, sec, 0, fixedZone(offset)), true
}

// apiTimeShaped reports whether s has the separators of
// "2006-01-02 15:04:05 -0700" where they belong.
func apiTimeShaped[S string | []byte](s S) bool {
	return len(s) == 25 && s[4] == '-' && s[7] == '-' && s[10] == ' ' && s[13] == ':' && s[16] == ':' && s[19] == ' ' && (s[20] == '+' || s[20] == '-')
}

// apiTimeFields are where "2006-01-02 15:04:05 -0700" holds its numbers:
// year, month, day, hour, minute, second, the offset's hours and minutes.
var apiTimeFields = [8][2]int{{0, 4}, {5, 7}, {8, 10}, {11, 13}, {14, 16}, {17, 19}, {21, 23}, {23, 25}}

func digits[S string | []byte](s S) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func daysIn(m time.Month, year int) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

var zones sync.Map // offset seconds -> *time.Location

func fixedZone(offset int) *time.Location {
	if offset == 0 {
		return time.UTC
	}
	if loc, ok := zones.Load(offset); ok {
		return loc.(*time.Location)
	}
	loc, _ := zones.LoadOrStore(offset, time.FixedZone("", offset))
	return loc.(*time.Location)
}

// Date is a civil date with no time zone, as the API writes due dates:
// "YYYY-MM-DD". JSON null and "" decode to the zero Date.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf returns the civil date of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{Year: y, Month: m, Day: d}
}

// ParseDate reads a date written "YYYY-MM-DD".
func ParseDate(s string) (Date, error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return Date{}, fmt.Errorf("unrecognised date (%s; want YYYY-MM-DD)", describeText(s))
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	if !(ok1 && ok2 && ok3) {
		return Date{}, fmt.Errorf("unrecognised date (%s; want YYYY-MM-DD)", describeText(s))
	}
	if m < 1 || m > 12 || d < 1 || d > daysIn(time.Month(m), y) {
		// Shaped as a date, it can be quoted: digits and dashes hold
		// no secret.
		return Date{}, fmt.Errorf("unrecognised date %q (no such day)", s)
	}
	return Date{Year: y, Month: time.Month(m), Day: d}, nil
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
func (d Date) AddDays(n int) Date {
	return DateOf(d.In(time.UTC).AddDate(0, 0, n))
}

// Before reports whether d is before e.
func (d Date) Before(e Date) bool {
	if d.Year != e.Year {
		return d.Year < e.Year
	}
	if d.Month != e.Month {
		return d.Month < e.Month
	}
	return d.Day < e.Day
}

// After reports whether d is after e.
func (d Date) After(e Date) bool { return e.Before(d) }

// Compare returns -1 if d is before e, 0 if they are the same date and +1
// if d is after e, as time.Time.Compare does; it suits slices.SortFunc.
func (d Date) Compare(e Date) int {
	switch {
	case d.Before(e):
		return -1
	case e.Before(d):
		return +1
	}
	return 0
}

// DaysUntil returns the number of days from d to e: positive when e is
// after d, negative when it is before, 0 on the same date. It counts
// calendar days of the proleptic Gregorian calendar, so daylight-saving
// changes play no part. It is exact for any two dates, however far from
// the present (a month or day out of range is normalized, as time.Date
// does); a count too large for an int saturates at the largest (or
// smallest) int.
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

// dayNumber returns the number of days from 0000-03-01 to d, exactly, in
// the proleptic Gregorian calendar, with the month and the day normalized
// as time.Date does. It counts in whole 400-year eras (146,097 days each),
// so no year is too large.
func (d Date) dayNumber() *big.Int {
	// Normalize the month into 0..11 (March is 0), carrying whole years:
	// the year counts from March, so that the leap day ends it.
	m := new(big.Int).SetInt64(int64(d.Month))
	m.Sub(m, big.NewInt(3))
	y, mp := new(big.Int).DivMod(m, big.NewInt(12), new(big.Int)) // Euclidean: mp in 0..11
	y.Add(y, big.NewInt(int64(d.Year)))
	era, yoe := new(big.Int).DivMod(y, big.NewInt(400), new(big.Int)) // yoe in 0..399
	yo, mo := yoe.Int64(), mp.Int64()
	doe := yo*365 + yo/4 - yo/100 + (153*mo+2)/5 // the day before day 1 of the month
	n := new(big.Int).Mul(era, big.NewInt(146097))
	n.Add(n, big.NewInt(doe))
	return n.Add(n, big.NewInt(int64(d.Day)))
}

// MarshalText implements encoding.TextMarshaler: "YYYY-MM-DD", or empty
// for the zero Date. With it a Date can key a map that encoding/json
// marshals, as map[Date]int. A date that "YYYY-MM-DD" cannot write so
// that it reads back (a year outside 0000-9999, a month or a day that
// does not exist) is an error, never text that UnmarshalText refuses.
func (d Date) MarshalText() ([]byte, error) {
	if err := d.checkWritable(); err != nil {
		return nil, err
	}
	return []byte(d.String()), nil
}

// checkWritable reports whether d can be written as "YYYY-MM-DD" and read
// back: the zero Date, or a real day of a year from 0000 to 9999.
func (d Date) checkWritable() error {
	if d.IsZero() {
		return nil
	}
	if d.Year < 0 || d.Year > 9999 {
		return fmt.Errorf("acctadmin: date with year %d cannot be written as YYYY-MM-DD", d.Year)
	}
	if d.Month < 1 || d.Month > 12 || d.Day < 1 || d.Day > daysIn(d.Month, d.Year) {
		return fmt.Errorf("acctadmin: date %04d-%02d-%02d does not exist", d.Year, int(d.Month), d.Day)
	}
	return nil
}

// UnmarshalText implements encoding.TextUnmarshaler: "YYYY-MM-DD", or
// empty for the zero Date.
func (d *Date) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*d = Date{}
		return nil
	}
	v, err := ParseDate(string(text))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (d *Date) UnmarshalJSON(data []byte) error {
	if string(data) == "null" || string(data) == `""` {
		*d = Date{}
		return nil
	}
	s, ok := unquote(data)
	if !ok {
		return fmt.Errorf("want a date string, got %s", describe(data))
	}
	v, err := ParseDate(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// MarshalJSON implements json.Marshaler: "YYYY-MM-DD", or null for the
// zero Date; a date MarshalText refuses is an error here too.
func (d Date) MarshalJSON() ([]byte, error) {
	if d.IsZero() {
		return []byte("null"), nil
	}
	if err := d.checkWritable(); err != nil {
		return nil, err
	}
	return []byte(`"` + d.String() + `"`), nil
}

// Money is an amount of money kept exactly as the API wrote it, never
// rounded through a float64. The API writes amounts as JSON numbers
// (149.00, 1e2) or as numeric strings ("0.10"); both decode, and JSON null
// or "" decode to the zero Money. String gives the decimal text, Cents the
// amount in minor units. Money marshals as a JSON number with the same
// text.
//
// Compare amounts with Equal or Cmp, not ==. A Money keeps the digits the
// API wrote, so "1.0" and "1.00" are the same amount (Equal is true, Cmp
// is 0) but not the same value for ==, and String shows each as it was
// written; this is the same choice time.Time makes for its locations. Add
// and Sub are exact, in decimal, and never fail: see Add.
type Money struct {
	// text is the canonical decimal text: an optional "-", digits, and an
	// optional "." with digits. Empty means zero.
	text string
}

// maxMoneyDigits bounds the digits a Money may hold, so that an exponent
// cannot make a small input expand into a huge one.
const maxMoneyDigits = 64

// ParseMoney reads a decimal amount: an optional sign, digits, an optional
// fraction and an optional exponent ("19.99", "-5", "1e2", "0.10").
func ParseMoney(s string) (Money, error) {
	if s == "" {
		return Money{}, nil
	}
	text, ok := canonicalDecimal(s)
	if !ok {
		return Money{}, fmt.Errorf("unrecognised amount (%s)", describeText(s))
	}
	return Money{text: text}, nil
}

// MoneyFromCents returns the amount of cents minor units, with two
// decimals ("12.34" for 1234).
func MoneyFromCents(cents int64) Money {
	neg := cents < 0
	u := uint64(cents)
	if neg {
		u = -u
	}
	s := strconv.FormatUint(u, 10)
	for len(s) < 3 {
		s = "0" + s
	}
	s = s[:len(s)-2] + "." + s[len(s)-2:]
	if neg {
		s = "-" + s
	}
	return Money{text: s}
}

// canonicalDecimal rewrites a decimal number, possibly with an exponent,
// as plain decimal text, keeping every digit (trailing zeros included).
func canonicalDecimal(s string) (string, bool) {
	neg, intPart, frac, i := decimalMantissa(s)
	if intPart == "" && frac == "" {
		return "", false
	}
	exp, i, ok := decimalExponent(s, i)
	if !ok {
		return "", false
	}
	if i != len(s) || len(intPart)+len(frac) > maxMoneyDigits || exp > maxMoneyDigits || exp < -maxMoneyDigits {
		return "", false
	}
	ip, fp := movePoint(intPart+frac, len(intPart)+exp)
	if len(ip)+len(fp) > maxMoneyDigits {
		// The expanded text must itself be an amount ParseMoney accepts.
		return "", false
	}
	out := ip
	if fp != "" {
		out += "." + fp
	}
	if neg && strings.Trim(out, "0.") != "" {
		out = "-" + out
	}
	return out, true
}

// decimalMantissa reads an optional sign, the digits before the point and
// those after it from the start of s; i is where it stopped.
func decimalMantissa(s string) (neg bool, intPart, frac string, i int) {
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	start := i
	i = skipDigits(s, i)
	intPart = s[start:i]
	if i < len(s) && s[i] == '.' {
		fs := i + 1
		i = skipDigits(s, fs)
		frac = s[fs:i]
	}
	return neg, intPart, frac, i
}

// skipDigits returns the index of the first byte at or after i of s that
// is not a decimal digit.
func skipDigits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// decimalExponent reads the exponent that may start at s[i] ("e-3");
// ok is false for one without digits or past maxMoneyDigits.
func decimalExponent(s string, i int) (exp, next int, ok bool) {
	if i >= len(s) || (s[i] != 'e' && s[i] != 'E') {
		return 0, i, true
	}
	i++
	eneg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		eneg = s[i] == '-'
		i++
	}
	es := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		if exp > maxMoneyDigits {
			return 0, i, false
		}
		exp = exp*10 + int(s[i]-'0')
		i++
	}
	if i == es {
		return 0, i, false
	}
	if eneg {
		exp = -exp
	}
	return exp, i, true
}

// movePoint puts the decimal point of the digits all before all[point]
// (point may lie outside them) and returns the integer part without
// leading zeros ("0" at least) and the fraction.
func movePoint(all string, point int) (ip, fp string) {
	for point < 0 {
		all = "0" + all
		point++
	}
	for point > len(all) {
		all += "0"
	}
	ip, fp = strings.TrimLeft(all[:point], "0"), all[point:]
	if ip == "" {
		ip = "0"
	}
	return ip, fp
}

// String returns the amount as decimal text, exactly as the API wrote it
// once any exponent is expanded ("0.10", "19.99", "100"); "0" for the zero
// Money.
func (m Money) String() string {
	if m.text == "" {
		return "0"
	}
	return m.text
}

// IsZero reports whether the amount is zero.
func (m Money) IsZero() bool { return strings.Trim(m.text, "-0.") == "" }

// Cents returns the amount in minor units (hundredths). It is an error for
// an amount with a fraction of a cent ("1.005") or one too large for an
// int64; the computation is exact, never through a float64.
func (m Money) Cents() (int64, error) {
	s := m.text
	if s == "" {
		return 0, nil
	}
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	ip, fp, _ := strings.Cut(s, ".")
	fp = strings.TrimRight(fp, "0")
	if len(fp) > 2 {
		return 0, fmt.Errorf("acctadmin: amount %s has a fraction of a cent", m.text)
	}
	for len(fp) < 2 {
		fp += "0"
	}
	// An int64 holds one more negative cent than positive: -2⁶³.
	limit := uint64(1<<63 - 1)
	if neg {
		limit++
	}
	var n uint64
	for _, c := range ip + fp {
		d := uint64(c - '0')
		if n > (limit-d)/10 {
			return 0, fmt.Errorf("acctadmin: amount %s is too large for int64 cents", m.text)
		}
		n = n*10 + d
	}
	if neg {
		return int64(-n), nil // -n wraps to -2⁶³ for n = 2⁶³, as wanted
	}
	return int64(n), nil
}

// Equal reports whether m and n are the same amount, whatever their
// number of decimals: "1.0" equals "1.00", and "-0" equals "0".
func (m Money) Equal(n Money) bool { return m.Cmp(n) == 0 }

// Cmp compares m and n as amounts and returns -1 if m < n, 0 if m == n and
// +1 if m > n. It suits slices.SortFunc.
func (m Money) Cmp(n Money) int {
	a, as := m.decimal()
	b, bs := n.decimal()
	a, b = align(a, as, b, bs)
	return a.Cmp(b)
}

// Add returns m + n, exactly, with as many decimals as the operand that
// has more ("1.5" + "0.25" is "1.75"; "1.00" + "2" is "3.00").
//
// Add never fails and never rounds. The sum of two amounts has at most one
// more digit than the longer of them, so it may go beyond the 64 digits
// that ParseMoney and decoding accept (a bound that keeps an exponent such
// as 1e999999 from expanding a short input); only operands close to 10^64
// get there. Such a Money still compares, adds, prints and marshals
// exactly, but decoding its text is refused.
func (m Money) Add(n Money) Money {
	a, as := m.decimal()
	b, bs := n.decimal()
	a, b = align(a, as, b, bs)
	return moneyOf(a.Add(a, b), max(as, bs))
}

// Sub returns m - n, exactly, as Add does.
func (m Money) Sub(n Money) Money {
	a, as := m.decimal()
	b, bs := n.decimal()
	a, b = align(a, as, b, bs)
	return moneyOf(a.Sub(a, b), max(as, bs))
}

// times returns m multiplied by the whole number k, exactly, with m's
// decimals.
func (m Money) times(k int64) Money {
	a, as := m.decimal()
	return moneyOf(a.Mul(a, big.NewInt(k)), as)
}

// decimal returns m as the integer v and the scale s, m = v × 10^-s.
func (m Money) decimal() (*big.Int, int) {
	v := new(big.Int)
	if m.text == "" {
		return v, 0
	}
	ip, fp, _ := strings.Cut(m.text, ".")
	// The text is canonical (see canonicalDecimal), so this cannot fail.
	v.SetString(ip+fp, 10)
	return v, len(fp)
}

// align scales the one of a (scale as) and b (scale bs) with fewer
// decimals up to the other's scale, so that the two can be compared or
// added as integers.
func align(a *big.Int, as int, b *big.Int, bs int) (*big.Int, *big.Int) {
	if as < bs {
		a.Mul(a, pow10(bs-as))
	} else if bs < as {
		b.Mul(b, pow10(as-bs))
	}
	return a, b
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// moneyOf returns the Money v × 10^-scale, in canonical text.
func moneyOf(v *big.Int, scale int) Money {
	digits := new(big.Int).Abs(v).String()
	for len(digits) <= scale {
		digits = "0" + digits
	}
	text := digits
	if scale > 0 {
		text = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if v.Sign() < 0 {
		text = "-" + text
	}
	return Money{text: text}
}

// UnmarshalJSON implements json.Unmarshaler.
func (m *Money) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*m = Money{}
		return nil
	}
	s := string(data)
	if u, ok := unquote(data); ok {
		s = strings.TrimSpace(u)
	} else if len(data) == 0 || !(data[0] == '-' || data[0] >= '0' && data[0] <= '9') {
		return fmt.Errorf("want an amount, got %s", describe(data))
	}
	v, err := ParseMoney(s)
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// MarshalJSON implements json.Marshaler.
func (m Money) MarshalJSON() ([]byte, error) { return []byte(m.String()), nil }

// Turnaround is how long a filing method takes: Days and Hours. The API
// writes it as an object {"days", "hours"}, as an array holding one such
// object, or as null (the zero Turnaround); the numbers may also come as
// numeric strings. An array of more than one object is an error, since it
// cannot be told which one holds.
type Turnaround struct {
	Days  int `json:"days"`
	Hours int `json:"hours"`
}

// Duration returns the turnaround as a time.Duration (a day is 24 hours).
// A time.Duration holds about 292 years; a turnaround longer than that
// (or more negative) saturates at the largest (or smallest) Duration
// rather than wrap around.
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

// String returns the turnaround in words: "1 day", "2 days 4 hours",
// "5 hours", or "0 days" for the zero Turnaround.
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
	if string(data) == "null" {
		*t = Turnaround{}
		return nil
	}
	if len(data) > 0 && data[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(data, &items); err != nil {
			return err
		}
		switch len(items) {
		case 0:
			*t = Turnaround{}
			return nil
		case 1:
			// One level only: reading nested arrays level by level would
			// read the inner levels again at each one.
			if item := bytes.TrimSpace(items[0]); len(item) > 0 && item[0] == '[' {
				return errors.New("want one turnaround, got an array inside an array")
			}
			return t.UnmarshalJSON(items[0])
		default:
			return fmt.Errorf("want one turnaround, got an array of %d", len(items))
		}
	}
	if len(data) == 0 || data[0] != '{' {
		return fmt.Errorf("want a turnaround object, got %s", describe(data))
	}
	var w struct {
		Days  flexInt `json:"days"`
		Hours flexInt `json:"hours"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*t = Turnaround{Days: int(w.Days), Hours: int(w.Hours)}
	return nil
}

// flexInt is an integer carried as a JSON number or a numeric string. A
// null leaves it as it is, as encoding/json does for an int.
type flexInt int

func (n *flexInt) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	s := string(data)
	if u, ok := unquote(data); ok {
		s = strings.TrimSpace(u)
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want an integer, got %s", describe(data))
	}
	*n = flexInt(v)
	return nil
}

// epochTime is a time.Time as Time reads it or as a JSON number of
// seconds since the Unix epoch, in UTC (order items' created_at and
// updated_at, as a TypeScript client of the real API types them). A
// number of 1e11 or more is taken for milliseconds: as seconds it would
// lie past the year 5000.
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

// listedID is an id that may be unusable: one that is not a UUID (a
// legacy "legacy-42", a number, an empty string) is read as no id rather
// than failing the whole page. A record read so is one without an id,
// which costs only itself (All yields it, Pull passes over it and counts it
// in PullProgress.Skipped), as a null or missing id does.
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

// jurisdictionNames is a list of jurisdictions written as plain strings or
// as objects {"jurisdiction": name} (or {"name": name}), as
// compliance-event listings do, or one name alone (a string; "" is none).
type jurisdictionNames []string

func (j *jurisdictionNames) UnmarshalJSON(data []byte) error {
	*j = nil
	if s, ok := unquote(data); ok {
		if s != "" {
			*j = jurisdictionNames{s}
		}
		return nil
	}
	if string(data) == "null" {
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		return fmt.Errorf("want an array of jurisdictions, got %s", describe(data))
	}
	out := make([]string, 0, len(items))
	for i, raw := range items {
		if s, ok := unquote(raw); ok {
			out = append(out, s)
			continue
		}
		var obj struct {
			Jurisdiction *string `json:"jurisdiction"`
			Name         *string `json:"name"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil || (obj.Jurisdiction == nil && obj.Name == nil) {
			return fmt.Errorf("item %d: want a jurisdiction name or {\"jurisdiction\": name}, got %s", i, describe(raw))
		}
		if obj.Jurisdiction != nil {
			out = append(out, *obj.Jurisdiction)
		} else {
			out = append(out, *obj.Name)
		}
	}
	*j = out
	return nil
}

// Secret is a value that must never be shown: a card number, a CVC, a
// password, a reset or session token. It formats itself as "[redacted]"
// (and the empty Secret as "") under every fmt verb, in slog, and in JSON
// and text encodings; the SDK sends its value only in the body of the
// request that needs it, and takes it out of any error message or error
// body an answer echoes it into. Reveal returns the value itself.
//
// Two places show the value, since they call none of its methods and see
// only a string:
//
//   - fmt, where it reaches a Secret by reflection: in a struct field
//     that is not exported (struct{ pw Secret }), anywhere inside a value
//     reached through such a field, and inside the %!verb(*T=…) text fmt
//     writes for a value of a type without a Format method that does not
//     take the verb, as %s or %q of a []*T or a map[K]*T whose T holds a
//     Secret. Give such a T a Format method, or export the field. The
//     SDK's own types that hold Secrets (Card, LoginParams,
//     ResetPasswordParams, Session) have one: they print redacted in
//     slices and maps and behind pointers too.
//   - encoding/json, for a Secret used as a map key: it writes a key of
//     a string type as it is, without MarshalText or MarshalJSON, so
//     map[Secret]int{"4111…": 1} marshals as {"4111…":1}.
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

// Format writes the redacted form under every verb (%v, %+v, %#v, %s,
// %q, %x, …), so that no verb prints the value.
func (s Secret) Format(f fmt.State, verb rune) {
	switch verb {
	case 'q':
		fmt.Fprint(f, strconv.Quote(s.String()))
	case 'v':
		if f.Flag('#') {
			fmt.Fprint(f, s.GoString())
			return
		}
		fmt.Fprint(f, s.String())
	default:
		fmt.Fprint(f, s.String())
	}
}

// LogValue makes slog log the redacted form.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// formatFields prints v, a struct that holds Secrets, as fmt prints a
// struct under f's verb and flags, field by field: each field is printed
// as a value of its own, so a Secret field formats itself redacted. Under
// %#v the type reads as name. The types that hold Secrets format
// themselves through it, so that fmt never writes them in the
// %!verb(*T=…) form, which calls no method: that is how %s of a []*Card
// or a map[string]*Card would show the number.
func formatFields(f fmt.State, verb rune, v any, name string) {
	rv := reflect.ValueOf(v)
	sharp, plus := verb == 'v' && f.Flag('#'), verb == 'v' && f.Flag('+')
	format := fmt.FormatString(f, verb)
	var b strings.Builder
	if sharp {
		b.WriteString(name)
	}
	b.WriteByte('{')
	for i := 0; i < rv.NumField(); i++ {
		switch {
		case i > 0 && sharp:
			b.WriteString(", ")
		case i > 0:
			b.WriteByte(' ')
		}
		if sharp || plus {
			b.WriteString(rv.Type().Field(i).Name + ":")
		}
		switch field := rv.Field(i); {
		case field.Kind() == reflect.Interface && field.IsNil() && sharp:
			b.WriteString(field.Type().String() + "(nil)")
		case field.Kind() == reflect.Interface && field.IsNil():
			b.WriteString("<nil>")
		default:
			fmt.Fprintf(&b, format, field.Interface())
		}
	}
	b.WriteByte('}')
	_, _ = io.WriteString(f, b.String())
}

// MarshalJSON writes the redacted form: a params value marshalled by a
// program shows no secret. The SDK writes request bodies with the value.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// MarshalText writes the redacted form.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
