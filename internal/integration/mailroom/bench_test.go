package mailroom_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/internal/redisserver"
	"github.com/acctadmin/acctadmin-go/mailroom"
	"github.com/google/uuid"
)

// benchLatency is added to every request of the fake in the benchmarks,
// about what a real API on the internet takes.
const benchLatency = 10 * time.Millisecond

// seedUnread adds n unread documents and returns their ids.
func seedUnread(w *world, n int) []uuid.UUID {
	ids := make([]uuid.UUID, n)
	for i := range ids {
		ids[i] = w.addDocument("Regular Mail").ID
	}
	return ids
}

func reportRate(b *testing.B, docs int, d time.Duration) {
	b.ReportMetric(float64(docs)/d.Seconds(), "docs/s")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkSaveUnread saves b.N unread documents of the fake (10 ms per
// request) into a folder: with Documents.Pull and the safe save
// (pull), with one room's Pull (room1), and with three rooms on one Redis
// pulling at once (room3). Every variant downloads 4 documents at a
// time per process.
func BenchmarkSaveUnread(b *testing.B) {
	b.Run("pull", func(b *testing.B) {
		w := newWorld(b, acctadmintest.WithLatency(benchLatency))
		seedUnread(w, b.N)
		store := mailroom.Dir(b.TempDir())
		ctx := context.Background()
		b.ResetTimer()
		start := time.Now()
		err := w.c.Documents.Pull(ctx, &acctadmin.PullParams{Workers: mailroom.DefaultWorkers},
			func(ctx context.Context, d acctadmin.Document, f *acctadmin.File) error {
				return store.Save(ctx, d, f)
			})
		elapsed := time.Since(start)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		reportRate(b, b.N, elapsed)
	})
	b.Run("room1", func(b *testing.B) {
		w := newWorld(b, acctadmintest.WithLatency(benchLatency))
		seedUnread(w, b.N)
		r := w.room(mailroom.Dir(b.TempDir()))
		b.ResetTimer()
		start := time.Now()
		err := r.Pull(context.Background())
		elapsed := time.Since(start)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if st := r.Stats(); st.Saved != int64(b.N) {
			b.Fatalf("saved %d of %d", st.Saved, b.N)
		}
		reportRate(b, b.N, elapsed)
	})
	b.Run("room3", func(b *testing.B) {
		srv := redisserver.Start(b)
		w := newWorld(b, acctadmintest.WithLatency(benchLatency))
		seedUnread(w, b.N)
		dir := b.TempDir()
		rooms := []*mailroom.Room{
			w.room(mailroom.Dir(dir), mailroom.WithRedis(redisClient(b, srv.Addr))),
			w.room(mailroom.Dir(dir), mailroom.WithRedis(redisClient(b, srv.Addr))),
			w.room(mailroom.Dir(dir), mailroom.WithRedis(redisClient(b, srv.Addr))),
		}
		b.ResetTimer()
		start := time.Now()
		var wg sync.WaitGroup
		errs := make([]error, len(rooms))
		for i, r := range rooms {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = r.Pull(context.Background())
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		b.StopTimer()
		var saved int64
		for i, r := range rooms {
			if errs[i] != nil {
				b.Fatal(errs[i])
			}
			saved += r.Stats().Saved
		}
		if saved != int64(b.N) {
			b.Fatalf("saved %d of %d", saved, b.N)
		}
		reportRate(b, b.N, elapsed)
	})
}

// BenchmarkCallbackToSaved measures, for b.N documents of the fake (10 ms
// per request), the time from a new-document callback's arrival to its
// answer, which the room gives once the document is saved (room),
// against a bare Documents.Download of a document read to its end
// (download). It reports the median and the 99th percentile.
func BenchmarkCallbackToSaved(b *testing.B) {
	b.Run("download", func(b *testing.B) {
		w := newWorld(b, acctadmintest.WithLatency(benchLatency))
		ids := seedUnread(w, b.N)
		ctx := context.Background()
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for _, id := range ids {
			start := time.Now()
			f, err := w.c.Documents.Download(ctx, id)
			if err != nil {
				b.Fatal(err)
			}
			_, err = io.Copy(io.Discard, f)
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		b.StopTimer()
		reportLatency(b, lat)
	})
	b.Run("room", func(b *testing.B) {
		w := newWorld(b, acctadmintest.WithLatency(benchLatency))
		ids := seedUnread(w, b.N)
		r := w.room(mailroom.Dir(b.TempDir()))
		srv := httptest.NewServer(r.Handler())
		defer srv.Close()
		bodies := make([][]byte, len(ids))
		for i, id := range ids {
			bodies[i] = []byte(`{"data":"` + w.token(id) + `"}`)
		}
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for _, body := range bodies {
			start := time.Now()
			resp, err := http.Post(srv.URL, "application/json", bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("callback answered %d", resp.StatusCode)
			}
			lat = append(lat, time.Since(start))
		}
		b.StopTimer()
		if st := r.Stats(); st.Saved != int64(b.N) {
			b.Fatalf("saved %d of %d", st.Saved, b.N)
		}
		reportLatency(b, lat)
	})
}

func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}
