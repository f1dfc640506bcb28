package acctadmintest_test

import (
	"math"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// year is a year of 365 days, as a Duration.
const year = 365 * 24 * time.Hour

// tickingClock is an underlying clock that a test moves.
type tickingClock struct{ ns atomic.Int64 }

func (c *tickingClock) now() time.Time       { return fixedNow.Add(time.Duration(c.ns.Load())) }
func (c *tickingClock) tick(d time.Duration) { c.ns.Add(int64(d)) }

// requireNow checks that the fake reads exactly want.
func requireNow(t *testing.T, srv *acctadmintest.Server, want time.Time) {
	t.Helper()
	got := srv.Now()
	require.True(t, got.Equal(want), "the clock reads %s, want %s", got.UTC().Format(time.RFC3339Nano), want.UTC().Format(time.RFC3339Nano))
}

// TestClockKeepsFarTimes: SetClock keeps the time it was given however
// far it is from the underlying clock (a Duration spans only about 292
// years), AdvanceClock moves it from there by any Duration, and the
// clock runs on as the underlying one does.
func TestClockKeepsFarTimes(t *testing.T) {
	var under tickingClock
	srv := newServer(t, acctadmintest.WithClock(under.now))
	requireNow(t, srv, fixedNow)

	y2400 := time.Date(2400, time.January, 1, 0, 0, 0, 0, time.UTC)
	srv.SetClock(y2400)
	requireNow(t, srv, y2400)
	r := do(t, srv, http.MethodPost, "/companies", map[string]any{"companies": []any{map[string]any{"name": "Far Future LLC"}}})
	require.Contains(t, string(r.Body), `"created_at":"2399-12-31 17:00:00 -0700"`)
	under.tick(90 * time.Minute)
	requireNow(t, srv, y2400.Add(90*time.Minute))

	y2200 := time.Date(2200, time.June, 1, 12, 0, 0, 0, time.UTC)
	srv.SetClock(y2200)
	srv.AdvanceClock(150 * year)
	requireNow(t, srv, y2200.Add(150*year))
	require.Equal(t, 2350, srv.Now().Year())

	// Advances add up past what one Duration holds, both ways.
	srv.SetClock(y2200)
	srv.AdvanceClock(math.MaxInt64)
	srv.AdvanceClock(math.MaxInt64)
	requireNow(t, srv, y2200.Add(math.MaxInt64).Add(math.MaxInt64))
	srv.AdvanceClock(math.MinInt64)
	srv.AdvanceClock(math.MinInt64)
	srv.AdvanceClock(math.MinInt64)
	requireNow(t, srv, y2200.Add(math.MaxInt64).Add(math.MaxInt64).Add(math.MinInt64).Add(math.MinInt64).Add(math.MinInt64))
	require.Equal(t, 1908, srv.Now().Year())

	// From the underlying clock's time, AdvanceClock alone goes as far.
	srv2 := newServer(t)
	srv2.AdvanceClock(200 * year)
	srv2.AdvanceClock(200 * year)
	requireNow(t, srv2, fixedNow.Add(200*year).Add(200*year))

	// The smallest and the largest year the API can write are kept too.
	for _, at := range []time.Time{
		time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, time.December, 31, 23, 59, 59, 999999999, time.UTC),
	} {
		srv.SetClock(at)
		requireNow(t, srv, at)
	}
}

// TestClockKeepsAnyTime proves on generated times that the clock reads
// what SetClock gave it, moved by every AdvanceClock since and by how far
// the underlying clock ran.
func TestClockKeepsAnyTime(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var under tickingClock
		srv := acctadmintest.NewServer(acctadmintest.WithClock(under.now), acctadmintest.WithSeed(1))
		defer srv.Close()
		sec := rapid.Int64Range(-62135596800, 253402300799).Draw(rt, "unix") // years 1 to 9999
		want := time.Unix(sec, rapid.Int64Range(0, 999999999).Draw(rt, "nsec")).UTC()
		srv.SetClock(want)
		for i, n := 0, rapid.IntRange(0, 6).Draw(rt, "moves"); i < n; i++ {
			d := time.Duration(rapid.Int64().Draw(rt, "advance"))
			srv.AdvanceClock(d)
			want = want.Add(d)
			tick := time.Duration(rapid.Int64Range(0, int64(time.Hour)).Draw(rt, "tick"))
			under.tick(tick)
			want = want.Add(tick)
		}
		if got := srv.Now(); !got.Equal(want) {
			rt.Fatalf("the clock reads %s, want %s", got.UTC().Format(time.RFC3339Nano), want.UTC().Format(time.RFC3339Nano))
		}
	})
}
