package acctadmin_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"golang.org/x/time/rate"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/mailroom"
	"github.com/acctadmin/acctadmin-go/webhook"
)

// The rate budget on a fake that enforces one, as the real API does: a
// Pull of 1,000 documents on 8 workers, on a fake that allows rlPerSecond
// requests a second, with the client's *rate.Limiter set to the same
// rate.
const (
	rlPerSecond = 250
	rlBurst     = 5
	rlDocuments = 1000
	rlWorkers   = 8
)

// rlMail starts a fake limited to perSecond requests a second (0: no
// limit) with n unread documents, and returns it and their ids.
func rlMail(t *testing.T, n, perSecond int) (*acctadmintest.Server, []uuid.UUID) {
	t.Helper()
	srv := acctadmintest.NewServer(acctadmintest.WithSeed(9), acctadmintest.WithStrictSigning(),
		acctadmintest.WithRateLimit(perSecond))
	t.Cleanup(srv.Close)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})
	start := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	ids := make([]uuid.UUID, 0, n)
	for i := range n {
		d := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, PDFSize: 300,
			CreatedAt: start.Add(time.Duration(i) * time.Second)})
		ids = append(ids, d.ID)
	}
	return srv, ids
}

// statuses counts the fake's answers by status.
func statuses(srv *acctadmintest.Server) map[int]int {
	n := map[int]int{}
	for _, r := range srv.Requests() {
		n[r.Status]++
	}
	return n
}

// With the client's limiter at the fake's rate, the Pull gets no 429 at
// all, downloads every document once, and takes no more than 15% over
// the time the rate allows for the requests it made.
func TestRateLimitedPullGetsNo429(t *testing.T) {
	srv, ids := rlMail(t, rlDocuments, rlPerSecond)
	lim := rate.NewLimiter(rlPerSecond, rlBurst)
	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL), acctadmin.WithRateLimit(lim))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	rec := newPullRecorder()
	start := time.Now()
	err = c.Documents.Pull(context.Background(), &acctadmin.PullParams{Workers: rlWorkers}, rec.fn)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	checkOnce(t, "rate-limited Pull", rec.counts(), ids)
	got := statuses(srv)
	requests := srv.TotalRequests()
	allowed := time.Duration(float64(requests-rlBurst) / rlPerSecond * float64(time.Second))
	t.Logf("%d requests (%d downloads, %d listing) in %s; the rate allows them in %s (%.3f of it); answers %v",
		requests, srv.RequestCount(http.MethodGet, "/documents/:id/download"), srv.RequestCount(http.MethodGet, "/documents"),
		elapsed.Round(time.Millisecond), allowed.Round(time.Millisecond), float64(elapsed)/float64(allowed), got)
	if got[http.StatusTooManyRequests] != 0 {
		t.Fatalf("%d answers 429 (of %v)", got[http.StatusTooManyRequests], got)
	}
	if got[http.StatusOK] != requests {
		t.Fatalf("answers %v, want %d 200s", got, requests)
	}
	if elapsed < allowed {
		t.Fatalf("%d requests in %s, faster than %d a second allows (%s): the limiter was not waited", requests, elapsed, rlPerSecond, allowed)
	}
	if limit := allowed * 115 / 100; elapsed > limit {
		t.Fatalf("%d requests in %s, over 115%% of the %s the rate allows", requests, elapsed, allowed)
	}
}

// The same Pull without the limiter runs into the fake's limit: the test
// above is against a server that refuses what goes over.
func TestUnlimitedPullIsRefused(t *testing.T) {
	srv, _ := rlMail(t, 2*rlPerSecond, rlPerSecond)
	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL), acctadmin.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	err = c.Documents.Pull(context.Background(), &acctadmin.PullParams{Workers: rlWorkers}, newPullRecorder().fn)
	if !errors.Is(err, acctadmin.ErrRateLimited) {
		t.Fatalf("err = %v, want ErrRateLimited", err)
	}
	if n := statuses(srv)[http.StatusTooManyRequests]; n == 0 {
		t.Fatal("no 429 from the fake")
	}
}

// A wait on a *rate.Limiter that the context ends, or that its deadline
// would outlast, sends nothing and returns the context's error.
func TestRateLimiterWaitEndedByContext(t *testing.T) {
	srv, _ := rlMail(t, 1, rlPerSecond)
	lim := rate.NewLimiter(rate.Every(time.Hour), 1)
	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL), acctadmin.WithRateLimit(lim))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	if _, err := c.Documents.List(context.Background(), nil); err != nil {
		t.Fatal(err) // the burst of one
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = c.Documents.List(ctx, nil)
	if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		t.Fatalf("a deadline before the next turn: err = %v (context: %v), want context.DeadlineExceeded at once", err, ctx.Err())
	}
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err = c.Documents.List(ctx, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err = %v, want context.Canceled", err)
	}
	if n := srv.TotalRequests(); n != 1 {
		t.Fatalf("%d requests, want only the first", n)
	}
}

// rlCounter is a RateLimiter that counts its waits and lets every one
// through.
type rlCounter struct{ n atomic.Int64 }

func (l *rlCounter) Wait(context.Context) error {
	l.n.Add(1)
	return nil
}

// Every request the client sends waits its turn: the pages All reads
// ahead, Pull's listing and downloads, and the mail room's registration
// of its callback, its downloads of the documents the callbacks announce
// and its pulls. The options of a call's context reach All's and Pull's
// requests too: a header set with CallHeader is on every one of them.
func TestRateLimitCoversEveryRequest(t *testing.T) {
	srv, _ := rlMail(t, 30, 0)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Beta LLC", HomeState: "Utah"})
	for range 12 {
		srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, Status: acctadmintest.DocumentRead})
	}
	lim := &rlCounter{}
	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL), acctadmin.WithRateLimit(lim))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	ctx := acctadmin.WithCallOptions(context.Background(), acctadmin.CallHeader("X-Job", "rl-7"))

	read := 0
	for _, err := range c.Documents.All(ctx, &acctadmin.DocumentListParams{Status: acctadmin.DocumentRead, Limit: 5}) {
		if err != nil {
			t.Fatal(err)
		}
		read++
	}
	if err := c.Documents.Pull(ctx, &acctadmin.PullParams{DocumentListParams: acctadmin.DocumentListParams{Limit: 7}, Workers: 4}, newPullRecorder().fn); err != nil {
		t.Fatal(err)
	}
	walks := srv.Requests()

	v, err := webhook.NewVerifier([]byte(srv.SecretKey), webhook.WithAccessKey(srv.AccessKey))
	if err != nil {
		t.Fatal(err)
	}
	room, err := mailroom.New(c, v, mailroom.Dir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	hook := httptest.NewServer(room.Handler())
	defer hook.Close()
	if _, err := c.Callbacks.Ensure(ctx, hook.URL); err != nil {
		t.Fatal(err)
	}
	srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, Type: "Annual Report"})
	if _, err := srv.WaitDeliveries(ctx, 1); err != nil {
		t.Fatal(err)
	}
	srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, Type: "Letter"})
	if err := room.Pull(ctx); err != nil {
		t.Fatal(err)
	}

	reqs := srv.Requests()
	if read != 12 || len(reqs) < 30+3+3+4 { // the downloads, the pages of both walks, the room's calls
		t.Fatalf("%d read documents, %d requests: the walk did not happen", read, len(reqs))
	}
	if int(lim.n.Load()) != len(reqs) {
		t.Fatalf("%d waits for %d requests (%v)", lim.n.Load(), len(reqs), srv.RequestCounts())
	}
	if n := srv.RequestCount(http.MethodPost, "/callbacks"); n != 1 || len(reqs) < len(walks)+4 {
		t.Fatalf("%d registrations, %d requests of the room: the room did not work", n, len(reqs)-len(walks))
	}
	for i, r := range walks {
		if got := r.Header.Values("X-Job"); len(got) != 1 || got[0] != "rl-7" {
			t.Fatalf("request %d (%s %s): X-Job %q, want [rl-7]", i, r.Method, r.Path, got)
		}
	}
	t.Logf("%d requests: %v", len(reqs), srv.RequestCounts())
}
