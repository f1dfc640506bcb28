package acctadmin_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	. "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// Paging on the fake API: All and Pull over the unread mail, whose
// listing shrinks as the fake marks each downloaded document read (for
// Pull, behind random delays).

// jitter delays every request to h by a random time up to max.
func jitter(h http.Handler, max time.Duration, seed uint64) http.Handler {
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(seed, seed^0xdead))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		d := time.Duration(rng.Int64N(int64(max) + 1))
		mu.Unlock()
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
		h.ServeHTTP(w, r)
	})
}

// fakeMail starts the fake API with n unread documents (and a few read
// ones), behind random delays; it returns a client and the unread ids.
func fakeMail(t *testing.T, n int, seed uint64, maxDelay time.Duration) (*acctadmintest.Fake, *Client, []uuid.UUID) {
	t.Helper()
	f := acctadmintest.NewFake(acctadmintest.WithSeed(int64(seed)), acctadmintest.WithStrictSigning())
	srv := httptest.NewServer(jitter(f, maxDelay, seed))
	t.Cleanup(func() { srv.Close(); f.Close() })
	co := f.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})
	start := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	var ids []uuid.UUID
	for i := range n + 5 {
		status := acctadmintest.DocumentUnread
		if i%(n/5+1) == 3 {
			status = acctadmintest.DocumentRead
		}
		d := f.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, Status: status, PDFSize: int64(500 + i),
			CreatedAt: start.Add(time.Duration(i) * time.Minute)})
		if status == acctadmintest.DocumentUnread {
			ids = append(ids, d.ID)
		}
	}
	c, err := NewClient(f.AccessKey, f.SecretKey, WithBaseURL(srv.URL), WithRetryWait(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return f, c, ids
}

func TestPullOnTheFakeForEveryWorkerCount(t *testing.T) {
	for workers := 1; workers <= maxPullWorkers; workers++ {
		seed := uint64(7000 + workers)
		f, c, ids := fakeMail(t, 45+workers, seed, 3*time.Millisecond)
		rec := newPullRecorder()
		limit := []int{5, 16, 0}[workers%3]
		err := c.Documents.Pull(context.Background(), &PullParams{DocumentListParams: DocumentListParams{Limit: limit}, Workers: workers}, rec.fn)
		if err != nil {
			t.Fatalf("workers=%d: %v", workers, err)
		}
		checkOnce(t, fmt.Sprintf("workers=%d", workers), rec.counts(), ids)
		if n := f.RequestCount(http.MethodGet, "/documents/:id/download"); n != len(ids) {
			t.Fatalf("workers=%d: %d downloads for %d documents", workers, n, len(ids))
		}
		for _, d := range f.Documents() {
			if d.Status != acctadmintest.DocumentRead {
				t.Fatalf("workers=%d: document %s left %s", workers, d.ID, d.Status)
			}
		}
	}
}

func TestPullFromSeveralGoroutines(t *testing.T) {
	// Four pulls at once on one client, each over its own part of the
	// unread listing (by creation time): each gets its own documents, once.
	f, c, ids := fakeMail(t, 120, 42, 2*time.Millisecond)
	docs := f.Documents()
	created := map[uuid.UUID]time.Time{}
	for _, d := range docs {
		created[d.ID] = d.CreatedAt
	}
	start := docs[0].CreatedAt
	var wg sync.WaitGroup
	recs := make([]*pullRecorder, 4)
	errs := make([]error, 4)
	for g := range 4 {
		recs[g] = newPullRecorder()
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := &PullParams{DocumentListParams: DocumentListParams{
				Limit: 9,
				Start: start.Add(time.Duration(g*32) * time.Minute),
				Stop:  start.Add(time.Duration(g*32+31) * time.Minute),
			}, Workers: 3 + g}
			errs[g] = c.Documents.Pull(context.Background(), p, recs[g].fn)
		}()
	}
	wg.Wait()
	all := map[uuid.UUID]int{}
	for g := range 4 {
		if errs[g] != nil {
			t.Fatalf("pull %d: %v", g, errs[g])
		}
		for id, n := range recs[g].counts() {
			all[id] += n
			at := created[id].Sub(start)
			if at < time.Duration(g*32)*time.Minute || at > time.Duration(g*32+31)*time.Minute {
				t.Fatalf("pull %d got document %s created %v after the first", g, id, at)
			}
		}
	}
	checkOnce(t, "four pulls", all, ids)
}

func TestFakeUnreadMailDrainedExactlyOnce(t *testing.T) {
	srv, c := fakeClient(t)
	acme := srv.Companies()[0]
	for i := 0; i < 400; i++ {
		srv.AddDocument(acctadmintest.DocumentInput{CompanyID: acme.ID, Title: "letter", Pages: 1})
	}
	var unread int
	locked := map[uuid.UUID]bool{}
	for _, d := range srv.Documents() {
		if d.Status == "unread" {
			unread++
		}
		locked[d.ID] = d.PaymentLocked
	}
	ctx := context.Background()
	seen := map[uuid.UUID]int{}
	for d, err := range c.Documents.All(ctx, &DocumentListParams{Limit: 50}) {
		if err != nil {
			t.Fatal(err)
		}
		seen[d.ID]++
		f, err := c.Documents.Download(ctx, d.ID)
		if locked[d.ID] {
			// Payment-locked: refused, and it stays in the listing,
			// which All still walks to its end.
			if !errors.Is(err, ErrPaymentRequired) {
				t.Fatalf("download of locked %s: %v, want ErrPaymentRequired", d.ID, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if len(seen) != unread {
		t.Fatalf("visited %d documents, %d were unread", len(seen), unread)
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("%s visited %d times", id, n)
		}
	}
	for _, d := range srv.Documents() {
		if d.Status != "read" && !d.PaymentLocked {
			t.Fatalf("%s is still %s", d.ID, d.Status)
		}
	}
}
