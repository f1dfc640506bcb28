package acctadmin

import (
	"encoding/json"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"
)

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

func TestInvoiceTotal(t *testing.T) {
	var inv Invoice
	err := json.Unmarshal([]byte(`{"items":[
		{"price":"19.99","quantity":3,"description":"annual report"},
		{"price":0.1,"quantity":1},
		{"price":"149.00","quantity":1},
		{"price":1e1,"quantity":0},
		{"price":"-5.5","quantity":2}]}`), &inv)
	if err != nil {
		t.Fatal(err)
	}
	wantItems := []string{"59.97", "0.1", "149.00", "0", "-11.0"}
	for i, it := range inv.Items {
		if got := it.Total().String(); got != wantItems[i] {
			t.Errorf("item %d total = %s, want %s", i, got, wantItems[i])
		}
	}
	total := inv.Total()
	if total.String() != "198.07" || !total.Equal(MoneyFromCents(19807)) {
		t.Fatalf("Total = %s, want 198.07", total)
	}
	if cents, err := total.Cents(); err != nil || cents != 19807 {
		t.Fatalf("Total cents = %d, %v", cents, err)
	}
	var empty Invoice
	if got := empty.Total(); !got.IsZero() {
		t.Fatalf("empty invoice totals %s", got)
	}
}

func TestInvoiceStatusConstants(t *testing.T) {
	var list []Invoice
	err := json.Unmarshal([]byte(`[{"status":"unpaid"},{"status":"paid"},{"status":"cancelled"},{"status":"refunded"}]`), &list)
	if err != nil {
		t.Fatal(err)
	}
	got := []InvoiceStatus{list[0].Status, list[1].Status, list[2].Status, list[3].Status}
	want := []InvoiceStatus{InvoiceUnpaid, InvoicePaid, InvoiceCancelled, "refunded"}
	if !slices.Equal(got, want) {
		t.Fatalf("statuses = %q, want %q", got, want)
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
