package acctadmin

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// Values at the edges of their ranges: each case failed once.

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
				if ok := d.Year >= 0 && d.Year <= 9999 && d.Month >= 1 && d.Month <= 12 && d.Day >= 1 && d.Day <= daysIn(d.Month, d.Year); ok {
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

// A user agent with a control character is refused by NewClient, so no
// call is ever made with it.
func TestWithUserAgentRefusesControlCharacters(t *testing.T) {
	for _, ua := range []string{"app\x00", "app\x1b[31m", "app\x7f", "app\x01x", "a\rb", "a\nb"} {
		c, err := NewClient(testAccessKey, testSecretKey, WithUserAgent(ua))
		if err == nil || c != nil || !strings.Contains(err.Error(), "WithUserAgent") {
			t.Errorf("WithUserAgent(%q): %v, %v; want an error", ua, c, err)
		}
	}
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv, WithUserAgent("my-app/1.0\t(tab allowed) é"))
	if _, err := c.Services.List(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := srv.requests()[0].Header.Get("User-Agent"); !strings.HasPrefix(got, "my-app/1.0\t(tab allowed) é acctadmin-go/") {
		t.Fatalf("User-Agent = %q", got)
	}
}

// The envelope's timestamp is not read: no shape of it fails a good
// answer.
func TestEnvelopeTimestampIsIgnored(t *testing.T) {
	for _, ts := range []string{`"soon"`, `1700000000`, `{"at":1}`, `"2024-01-01 24:00:00 +0000"`, `null`} {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, `{"success":true,"timestamp":`+ts+`,"result":[{"id":"`+strings.Trim(sampleID, `"`)+`"}]}`)
		})
		got, err := newTestClient(t, srv).Services.List(context.Background(), nil)
		if err != nil || len(got) != 1 {
			t.Errorf("timestamp %s: %v, %v", ts, got, err)
		}
	}
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

// The message of an error body is looked for four levels down and no
// further; deeper nesting is not walked, however deep it goes.
func TestErrorMessageSearchIsBoundedInDepth(t *testing.T) {
	nest := func(levels int) string {
		s := `{"message":"deep"}`
		for i := 0; i < levels; i++ {
			s = `{"error":` + s + `}`
		}
		return s
	}
	for levels, want := range map[int]string{1: "deep", 3: "deep", 4: "", 50: ""} {
		if got := errorMessage([]byte(nest(levels))); got != want {
			t.Errorf("message under %d levels: %q, want %q", levels, got, want)
		}
	}
	if got := errorMessage([]byte(`{"errors":[[[[{"message":"deep"}]]]]}`)); got != "" {
		t.Errorf("message under nested arrays: %q, want none", got)
	}
	if got := errorMessage([]byte(`{"errors":[[{"message":"a"}],"b"]}`)); got != "a; b" {
		t.Errorf("messages in an array: %q", got)
	}
	// 1,000 levels: Go's decoder takes them, the search stops at four.
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusBadRequest, nest(1000))
	})
	_, err := newTestClient(t, srv).Services.List(context.Background(), nil)
	if got := tpAPIError(t, err).Message; got != "bad request" {
		t.Fatalf("Message = %q, want the status text", got)
	}
}
