package acctadmintest_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
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

func TestConcurrentUse(t *testing.T) {
	srv := newDemo(t)
	rc := newReceiver(t)
	srv.AddCallback(rc.URL)
	docs := srv.Documents()
	company := srv.Companies()[0]

	const workers, rounds = 64, 12
	var (
		wg               sync.WaitGroup
		requests, posted atomic.Int64
		added            atomic.Int64
		downloaded       sync.Map
	)
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				var status int
				var err error
				want := http.StatusOK // a payment-locked document's file answers 402
				switch (g + i) % 6 {
				case 0:
					status, err = call(srv, http.MethodGet, "/documents?limit=20", nil)
				case 1:
					d := docs[(g*rounds+i)%len(docs)]
					if d.PaymentLocked {
						want = http.StatusPaymentRequired
					} else {
						downloaded.Store(d.ID, true)
					}
					status, err = call(srv, http.MethodGet, "/documents/"+d.ID.String()+"/download", nil)
				case 2:
					// Register a callback and delete it again.
					posted.Add(1)
					var body []byte
					status, body, err = callBody(srv, http.MethodPost, "/callbacks", []byte(fmt.Sprintf(`{"url":"%s/g%d"}`, rc.URL, g)))
					if err == nil && status == http.StatusOK {
						var cb struct {
							Result struct{ ID string } `json:"result"`
						}
						if assert.NoError(t, json.Unmarshal(body, &cb)) {
							requests.Add(1)
							status, err = call(srv, http.MethodDelete, "/callbacks/"+cb.Result.ID, nil)
						}
					}
				case 3:
					srv.AddDocument(acctadmintest.DocumentInput{CompanyID: company.ID, Title: "Concurrent"})
					added.Add(1)
					continue
				case 4:
					if docs[g].PaymentLocked {
						want = http.StatusPaymentRequired
					}
					status, err = call(srv, http.MethodGet, fmt.Sprintf("/documents/%s/page/0?dpi=72", docs[g].ID), nil)
				case 5:
					_ = srv.Requests()
					_ = srv.Documents()
					status, err = call(srv, http.MethodGet, "/services?limit=5", nil)
				}
				requests.Add(1)
				if assert.NoError(t, err) {
					assert.Equal(t, want, status)
				}
			}
		}(g)
	}
	wg.Wait()

	require.EqualValues(t, requests.Load(), srv.TotalRequests())
	require.Len(t, srv.Callbacks(), 1)
	require.Len(t, srv.Documents(), len(docs)+int(added.Load()))
	downloaded.Range(func(k, _ any) bool {
		for _, d := range srv.Documents() {
			if d.ID == k {
				require.Equal(t, acctadmintest.DocumentRead, d.Status)
			}
		}
		return true
	})
	require.Equal(t, int(posted.Load()), srv.RequestCount(http.MethodPost, "/callbacks"))
	require.Equal(t, int(posted.Load()), srv.RequestCount(http.MethodDelete, "/callbacks/:id"))
	// Every event reached at least the callback that stayed. Deliveries to
	// the callbacks registered and deleted meanwhile end too, in any order,
	// so wait for the ones to the callback that stayed by counting them.
	delivered := func() int {
		n := 0
		for _, d := range srv.Deliveries() {
			if d.URL == rc.URL && d.Delivered {
				n++
			}
		}
		return n
	}
	require.Eventually(t, func() bool { return delivered() >= int(added.Load()) }, 10*time.Second, 5*time.Millisecond)
	require.EqualValues(t, added.Load(), delivered())
}

func TestClockAndLocation(t *testing.T) {
	now := time.Date(2024, 12, 31, 23, 30, 0, 0, time.UTC)
	srv := newServer(t, acctadmintest.WithClock(func() time.Time { return now }), acctadmintest.WithLocation(time.UTC))
	m := do(t, srv, http.MethodGet, "/callbacks", nil).JSON(t)
	require.Equal(t, "2024-12-31 23:30:00 +0000", m["timestamp"])
	srv2 := newServer(t, acctadmintest.WithClock(func() time.Time { return now }))
	m = do(t, srv2, http.MethodGet, "/callbacks", nil).JSON(t)
	require.Equal(t, "2024-12-31 16:30:00 -0700", m["timestamp"], "DefaultLocation is -07:00")
}

func TestWithLatency(t *testing.T) {
	srv := newServer(t, acctadmintest.WithLatency(80*time.Millisecond))
	t0 := time.Now()
	requireOK(t, do(t, srv, http.MethodGet, "/callbacks", nil), "true")
	require.GreaterOrEqual(t, time.Since(t0), 80*time.Millisecond)
}

func TestConnectionsCounted(t *testing.T) {
	srv := newServer(t)
	fresh := freshClient(t)
	for i := 0; i < 3; i++ {
		resp, _, err := send(t, srv, fresh, http.MethodGet, "/callbacks", nil)
		require.NoError(t, err)
		require.Equal(t, 200, resp.StatusCode)
	}
	require.Equal(t, 3, srv.ConnectionsOpened())

	reuse := srv.Client()
	for i := 0; i < 5; i++ {
		resp, _, err := send(t, srv, reuse, http.MethodGet, "/callbacks", nil)
		require.NoError(t, err)
		require.Equal(t, 200, resp.StatusCode)
	}
	require.Equal(t, 4, srv.ConnectionsOpened(), "keep-alive reuses one connection")

	// A dropped connection costs the client a new one.
	srv.InjectFault(acctadmintest.Fault{DropConnection: true, Count: 1, Method: http.MethodPost})
	_, _, err := send(t, srv, reuse, http.MethodPost, "/callbacks", []byte(`{"url":"http://127.0.0.1:1/"}`))
	require.Error(t, err)
	resp, _, err := send(t, srv, reuse, http.MethodGet, "/callbacks", nil)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	require.Equal(t, 5, srv.ConnectionsOpened())
}

func TestCloseEndsSlowRequests(t *testing.T) {
	srv := acctadmintest.NewServer()
	srv.InjectFault(acctadmintest.Fault{Latency: time.Minute})
	done := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/callbacks", nil)
		resp, err := srv.Client().Do(req)
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	require.Eventually(t, func() bool { return srv.TotalRequests() == 1 }, 5*time.Second, time.Millisecond)
	t0 := time.Now()
	srv.Close()
	require.Less(t, time.Since(t0), 3*time.Second)
	require.Equal(t, http.StatusServiceUnavailable, <-done)
}

func TestCloseClientConnections(t *testing.T) {
	srv := newServer(t)
	requireOK(t, do(t, srv, http.MethodGet, "/callbacks", nil), "true")
	require.Equal(t, 1, srv.ConnectionsOpened())
	srv.CloseClientConnections()
	requireOK(t, do(t, srv, http.MethodGet, "/callbacks", nil), "true")
	require.Equal(t, 2, srv.ConnectionsOpened())
}
