package redisreplay_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/acctadmin/acctadmin-go/internal/redisserver"
	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/acctadmin/acctadmin-go/webhook/redisreplay"
)

// BenchmarkCallbacks measures verified callbacks per second: Verify alone
// (no replay cache), and Handler serving a request (without the network
// between sender and receiver) with the memory cache and with the Redis
// cache over loopback. Each iteration is a distinct event, so that every
// one is claimed, processed and committed; the last case delivers one
// event processed before, again and again. The Redis cases count their
// round trips.
func BenchmarkCallbacks(b *testing.B) {
	tokens := func(b *testing.B) []string {
		b.Helper()
		out := make([]string, b.N)
		for i := range out {
			out[i] = sign(b, event())
		}
		return out
	}
	handle := func(context.Context, *webhook.Event) error { return nil }
	serve := func(b *testing.B, cache webhook.ReplayCache) {
		v, err := webhook.NewVerifier(testSecret, webhook.WithReplayCache(cache))
		if err != nil {
			b.Fatal(err)
		}
		h := v.Handler(handle)
		toks := tokens(b)
		b.ReportAllocs()
		b.ResetTimer()
		for _, tok := range toks {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/callbacks", strings.NewReader(tok)))
			if w.Code != http.StatusOK {
				b.Fatalf("answered %d", w.Code)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "callbacks/s")
	}

	b.Run("Verify", func(b *testing.B) {
		v, err := webhook.NewVerifier(testSecret)
		if err != nil {
			b.Fatal(err)
		}
		toks := tokens(b)
		b.ReportAllocs()
		b.ResetTimer()
		for _, tok := range toks {
			if _, err := v.Verify(tok); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "callbacks/s")
	})
	b.Run("Handler/memory", func(b *testing.B) {
		serve(b, webhook.NewMemoryReplayCache(b.N+1, 0))
	})
	b.Run("Handler/redis", func(b *testing.B) {
		srv := redisserver.Start(b)
		rdb := newClient(b, srv)
		var trips roundTrips
		rdb.AddHook(&trips)
		serve(b, redisreplay.New(rdb))
		b.ReportMetric(float64(trips.n.Load())/float64(b.N), "roundtrips/op")
	})
	// A duplicate of an event processed before: one round trip, no call.
	b.Run("Handler/redis-duplicate", func(b *testing.B) {
		srv := redisserver.Start(b)
		rdb := newClient(b, srv)
		var trips roundTrips
		rdb.AddHook(&trips)
		v, err := webhook.NewVerifier(testSecret, webhook.WithReplayCache(redisreplay.New(rdb)))
		if err != nil {
			b.Fatal(err)
		}
		h := v.Handler(handle)
		tok := sign(b, event())
		if code := serveToken(h, tok); code != http.StatusOK {
			b.Fatalf("answered %d", code)
		}
		trips.n.Store(0)
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if code := serveToken(h, tok); code != http.StatusOK {
				b.Fatalf("answered %d", code)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "callbacks/s")
		b.ReportMetric(float64(trips.n.Load())/float64(b.N), "roundtrips/op")
	})
}
