package acctadmin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acctadmin/acctadmin-go/internal/paging"
	"github.com/google/uuid"
	"go.uber.org/goleak"
)

// Hostile paging: APIs that ignore limit or offset, and records without an
// id. Every loop must end within a few requests and yield what List would.

// unreadJSON is an unread document numbered i.
func unreadJSON(i int) string {
	return fmt.Sprintf(`{"id":"%s","status":"unread","title":"letter %d"}`, numberedID(i), i)
}

// fixedPage answers every request with the same n items, whatever limit
// and offset ask for.
func fixedPage(n int, item func(i int) string) http.HandlerFunc {
	items := make([]string, n)
	for i := range items {
		items[i] = item(i)
	}
	return ok("[" + strings.Join(items, ",") + "]")
}

// Regression tests beside TestPagingOnGeneratedServers: each server
// behaviour and each consumer that broke a promise of paging or Pull, by
// hand.

// genClient is a client whose requests s answers in process.
func genClient(t testing.TB, s http.RoundTripper, opts ...Option) *Client {
	t.Helper()
	opts = append([]Option{WithBaseURL("http://api.test"), WithHTTPClient(&http.Client{Transport: s}), WithMaxRetries(0)}, opts...)
	c, err := NewClient(testAccessKey, testSecretKey, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newGenServer is a server of the generated family with n unread
// documents and no misbehaviour; the caller sets what it wants.
func newGenServer(n int) *genServer {
	s := &genServer{rng: &genRand{s: 7}, byID: map[uuid.UUID]*genDoc{}, gets: map[uuid.UUID]int{}}
	for i := range n {
		d := &genDoc{id: numberedID(i), title: "letter " + strconv.Itoa(i), readAt: -1, initial: true}
		s.docs = append(s.docs, d)
		s.byID[d.id] = d
	}
	s.initial = n
	return s
}

// pullAll pulls every document of s with workers at a time, pages of
// limit, and returns what fn was given.
func pullAll(t *testing.T, c *Client, limit, workers int) (map[uuid.UUID]int, error) {
	t.Helper()
	rec := newPullRecorder()
	err := c.Documents.Pull(context.Background(), &PullParams{DocumentListParams: DocumentListParams{Limit: limit}, Workers: workers}, rec.fn)
	return rec.counts(), err
}

// drain reads every unread document of c, as how says: "pull" with
// Pull (workers at a time), else with All and a Download in the loop.
func drain(t *testing.T, c *Client, how string, limit, workers int) (map[uuid.UUID]int, error) {
	t.Helper()
	if how == "pull" {
		return pullAll(t, c, limit, workers)
	}
	return allDownloading(t, c, limit)
}

// allDownloading reads the unread listing with All, downloading each
// document in the loop body, as the README shows.
func allDownloading(t *testing.T, c *Client, limit int) (map[uuid.UUID]int, error) {
	t.Helper()
	got := map[uuid.UUID]int{}
	for d, err := range c.Documents.All(context.Background(), &DocumentListParams{Limit: limit}) {
		if err != nil {
			return got, err
		}
		f, err := c.Documents.Download(context.Background(), d.ID)
		if err != nil {
			return got, err
		}
		_, err = io.ReadAll(f)
		f.Close()
		if err != nil {
			return got, err
		}
		got[d.ID]++
	}
	return got, nil
}

func TestPagingOnACappedServer(t *testing.T) {
	// The server gives 50 rows when 200 are asked for: a short page is not
	// the end. (Pull returned nil after 50 of 230 documents, All ended at
	// 50.)
	for _, how := range []string{"pull", "all"} {
		s := newGenServer(230)
		s.cap = 50
		c := genClient(t, s)
		got, err := drain(t, c, how, 200, 8)
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		checkOnce(t, how, got, s.required())
	}
	// A stable listing, read ahead, from a server that caps at 7 what is
	// asked for by 20: every service, in order.
	var asked atomic.Int32
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		q := r.URL.Query()
		offset, _ := strconv.Atoi(q.Get("offset"))
		var items []string
		for i := offset; i < 45 && i < offset+7; i++ {
			items = append(items, serviceJSON(i))
		}
		ok("["+strings.Join(items, ",")+"]")(w, r)
	})
	checkServicesInOrder(t, newTestClient(t, srv).Services.All(context.Background(), &ServiceListParams{Limit: 20}), 45)
}

func TestPagingOnAListingThatTrailsItsReadMarks(t *testing.T) {
	// The unread listing comes from a replica a refresh or two behind the
	// read marks: a downloaded document stays listed for a while, then
	// vanishes from under the offset. (Pull handed over 466 to 510 of 800
	// and returned nil; All with Download, 400 of 600.)
	for _, how := range []string{"pull", "all"} {
		for lag := 1; lag <= 3; lag++ {
			s := newGenServer(300)
			s.lag = lag
			c := genClient(t, s)
			got, err := drain(t, c, how, 20, 6)
			if err != nil {
				t.Fatalf("%s, lag %d: %v", how, lag, err)
			}
			checkOnce(t, fmt.Sprintf("%s, lag %d", how, lag), got, s.required())
		}
	}
}

func TestPagingOnAListingThatShowsEachRowTwice(t *testing.T) {
	// Each row listed twice, right after itself: the offset is honoured,
	// so no ErrPagingIgnored. (Pull stopped at 100 of 500 with it.)
	for _, how := range []string{"pull", "all"} {
		s := newGenServer(500)
		for _, d := range s.docs {
			d.dup = true
		}
		c := genClient(t, s)
		got, err := drain(t, c, how, 20, 4)
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		checkOnce(t, how, got, s.required())
	}
}

func TestPagingOnPagesOfOneRowListedTwice(t *testing.T) {
	// Pages of one row, each row listed twice: the same page comes back
	// at two offsets running, which an API that ignores the offset does
	// too; the third offset tells them apart, so no ErrPagingIgnored.
	for _, how := range []string{"pull", "all"} {
		s := newGenServer(12)
		for _, d := range s.docs {
			d.dup = true
		}
		c := genClient(t, s)
		var got map[uuid.UUID]int
		var err error
		if how == "pull" {
			got, err = pullAll(t, c, 1, 1)
		} else {
			var errs []error
			var docs []Document
			docs, errs = collectSeq(c.Documents.All(context.Background(), &DocumentListParams{Limit: 1}))
			got = map[uuid.UUID]int{}
			for _, d := range docs {
				got[d.ID]++
			}
			err = errors.Join(errs...)
		}
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		checkOnce(t, how, got, s.required())
	}
}

func TestPagingOnPagesLongerThanTheLimitThatAreNotTheWholeListing(t *testing.T) {
	// 30 unread documents, pages of 10, each answer opening with the
	// listing's first row: 11 rows, longer than the limit, yet not the
	// rest of the listing. All and Pull hand over all 30, once each.
	// (All yielded the first 10 and ended without an error.)
	for _, how := range []string{"all reading", "all", "pull"} {
		s := newGenServer(30)
		s.padFirst = true
		c := genClient(t, s)
		var got map[uuid.UUID]int
		var err error
		if how == "all reading" {
			docs, errs := collectSeq(c.Documents.All(context.Background(), &DocumentListParams{Limit: 10}))
			got, err = map[uuid.UUID]int{}, errors.Join(errs...)
			for _, d := range docs {
				got[d.ID]++
			}
		} else {
			got, err = drain(t, c, how, 10, 4)
		}
		if err != nil {
			t.Fatalf("%s: %v after %d documents", how, err, len(got))
		}
		checkOnce(t, how, got, s.required())
	}
	// A stable listing (the read documents, read ahead) cannot tell the
	// padding from the rows: it yields every row, or ends with an error
	// that says the API does not page as asked, never quietly short.
	s := newGenServer(30)
	s.padFirst = true
	c := genClient(t, s)
	docs, errs := collectSeq(c.Documents.All(context.Background(), &DocumentListParams{Limit: 10, Status: DocumentRead}))
	got := map[uuid.UUID]int{}
	for _, d := range docs {
		got[d.ID]++
	}
	switch {
	case len(errs) == 0 && len(got) != 30:
		t.Fatalf("the read listing ended without an error after %d of 30 documents", len(got))
	case len(errs) > 1:
		t.Fatalf("%d errors: %v", len(errs), errs)
	case len(errs) == 1 && !errors.Is(errs[0], ErrPagingIgnored):
		t.Fatalf("the read listing ended with %v, want ErrPagingIgnored", errs[0])
	case len(errs) == 1 && !strings.Contains(errs[0].Error(), "longer than the limit"):
		t.Fatalf("the error %q does not say the page was longer than the limit", errs[0])
	}
}

func TestPagingGivesUpOnAListingThatNeverSettles(t *testing.T) {
	// Others read or add a document at every other listing request (All
	// reads only): no two walks see the same rows,
	// so after 10 walks All ends with an error rather than run on or
	// return as if it had everything. (A listing that grows by a document
	// at every request, forever, is never read to its end.)
	s := newGenServer(30)
	s.othersEvery = 2
	c := genClient(t, s)
	got, errs := collectSeq(c.Documents.All(context.Background(), &DocumentListParams{Limit: 8}))
	if len(errs) != 1 || !errors.Is(errs[0], ErrListingUnsettled) {
		t.Fatalf("errors %v after %d listing requests", errs, s.lists)
	}
	seen := map[uuid.UUID]int{}
	for _, d := range got {
		seen[d.ID]++
	}
	for _, id := range s.required() {
		if seen[id] != 1 {
			t.Fatalf("document %s yielded %d times", id, seen[id])
		}
	}
	// Each walk reads the listing to its end: about 30/8 pages and more.
	if s.lists < 10*4 || s.lists > 10*60 {
		t.Fatalf("%d listing requests for 10 walks", s.lists)
	}
}

func TestPullNamesItsUnfinishedDocumentsInListingOrder(t *testing.T) {
	// The first eight documents fail together, in the reverse of their
	// listing order: Unfinished still lists them in listing order.
	m := newPostRoom(30, 14, 0)
	srv := newAPIServer(t, m.ServeHTTP)
	c := newTestClient(t, srv)
	const n = 8
	place := map[uuid.UUID]int{}
	for i, id := range m.ids {
		place[id] = i
	}
	var entered sync.WaitGroup
	entered.Add(n)
	var done [n + 1]chan struct{}
	for i := range done {
		done[i] = make(chan struct{})
	}
	close(done[n])
	err := c.Documents.Pull(context.Background(), &PullParams{DocumentListParams: DocumentListParams{Limit: 30}, Workers: n},
		func(ctx context.Context, d Document, f *File) error {
			i := place[d.ID]
			if i >= n {
				return nil // not reached: the pull stops at the first error
			}
			entered.Done()
			entered.Wait() // all eight are in fn
			<-done[i+1]    // the later ones fail first
			defer close(done[i])
			return fmt.Errorf("document %d: %w", i, errShredder)
		})
	var pe *PullError
	if !errors.As(err, &pe) || !errors.Is(err, errShredder) {
		t.Fatalf("got %v", err)
	}
	if i, ok := place[pe.Document]; !ok || i >= n {
		t.Fatalf("first failure %s, want one of the eight", pe.Document)
	}
	if len(pe.Unfinished) != n {
		t.Fatalf("Unfinished %v", pe.Unfinished)
	}
	for i, id := range pe.Unfinished {
		if id != m.ids[i] {
			t.Fatalf("Unfinished[%d] is document %d, want %d (listing order)", i, place[id], i)
		}
	}
}

func TestPullKeepsOutWhatSkipSays(t *testing.T) {
	// Skip keeps out every third document: those are never downloaded,
	// never handed to fn, not unfinished, and counted; the pull ends
	// although they stay in the unread listing.
	m := newPostRoom(60, 15, 0)
	srv := newAPIServer(t, m.ServeHTTP)
	c := newTestClient(t, srv)
	keep := map[uuid.UUID]bool{}
	var want []uuid.UUID
	for i, id := range m.ids {
		if i%3 == 0 {
			keep[id] = true
		} else {
			want = append(want, id)
		}
	}
	rec := newPullRecorder()
	var kept []uuid.UUID
	var last PullProgress
	err := c.Documents.Pull(context.Background(), &PullParams{DocumentListParams: DocumentListParams{Limit: 7}, Workers: 3,
		Skip: func(d Document) bool { return keep[d.ID] },
		OnProgress: func(p PullProgress) {
			if p.KeptOut > last.KeptOut {
				kept = append(kept, p.Document.ID)
			}
			last = p
		}}, rec.fn)
	if err != nil {
		t.Fatal(err)
	}
	checkOnce(t, "fn", rec.counts(), want)
	checkOnce(t, "downloads", m.downloaded(), want)
	if last.KeptOut != 20 || len(kept) != 20 || last.Done != 40 {
		t.Fatalf("last progress %+v, %d kept-out calls", last, len(kept))
	}
	for _, id := range kept {
		if !keep[id] {
			t.Fatalf("document %s reported kept out", id)
		}
	}
	// An error after some are kept out: they are not unfinished.
	m = newPostRoom(40, 16, 0)
	srv = newAPIServer(t, m.ServeHTTP)
	c = newTestClient(t, srv)
	err = c.Documents.Pull(context.Background(), &PullParams{DocumentListParams: DocumentListParams{Limit: 40}, Workers: 1,
		Skip: func(d Document) bool { return d.ID != m.ids[5] }},
		func(ctx context.Context, d Document, f *File) error { return errShredder })
	var pe *PullError
	if !errors.As(err, &pe) || len(pe.Unfinished) != 1 || pe.Unfinished[0] != m.ids[5] {
		t.Fatalf("got %v (%+v)", err, pe)
	}
}

func TestPullStopsWhenFnCallsGoexit(t *testing.T) {
	// What t.Fatal does inside fn: the worker's goroutine ends. Pull ends
	// with an error naming that document, and leaves nothing running.
	before := goleak.IgnoreCurrent()
	m := newPostRoom(50, 17, 0)
	srv := newAPIServer(t, m.ServeHTTP)
	c := newTestClient(t, srv)
	var calls atomic.Int32
	err := c.Documents.Pull(context.Background(), &PullParams{DocumentListParams: DocumentListParams{Limit: 10}, Workers: 4},
		func(ctx context.Context, d Document, f *File) error {
			if calls.Add(1) == 7 {
				runtime.Goexit()
			}
			return nil
		})
	var pe *PullError
	if !errors.As(err, &pe) || !errors.Is(err, errGoexit) || pe.Document == uuid.Nil || len(pe.Unfinished) != 1 || pe.Unfinished[0] != pe.Document {
		t.Fatalf("got %v (%+v)", err, pe)
	}
	noLeaks(t, before, srv, c)
}

// panicHook is a hook that panics on its nth call.
func panicHook(n int32, value string) func(ctx context.Context, c CallInfo) context.Context {
	var calls atomic.Int32
	return func(ctx context.Context, c CallInfo) context.Context {
		if calls.Add(1) == n {
			panic(value)
		}
		return ctx
	}
}

// recovered runs f and returns what it panicked with, if anything.
func recovered(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

func TestAPanicInAHookReachesTheCaller(t *testing.T) {
	// A hook that panics on a goroutine the SDK started (a page read
	// ahead, a Pull worker or listing request) is raised again on the
	// caller's goroutine, after everything stopped. (It killed the
	// process.)
	before := goleak.IgnoreCurrent()
	srv := newAPIServer(t, pagedServices(100, 0))
	c := newTestClient(t, srv, WithHooks(Hooks{CallStart: panicHook(3, "hook broke on page three")}))
	got := recovered(func() {
		for _, err := range c.Services.All(context.Background(), &ServiceListParams{Limit: 10}) {
			if err != nil {
				t.Error(err)
			}
		}
	})
	if got != "hook broke on page three" {
		t.Fatalf("All: recovered %v", got)
	}
	noLeaks(t, before, srv, c)

	for _, at := range []struct {
		name string
		n    int32
	}{{"listing request", 1}, {"download", 4}} {
		before := goleak.IgnoreCurrent()
		m := newPostRoom(40, 18, 0)
		srv := newAPIServer(t, m.ServeHTTP)
		c := newTestClient(t, srv, WithHooks(Hooks{CallStart: panicHook(at.n, "hook broke")}))
		got := recovered(func() {
			_ = c.Documents.Pull(context.Background(), &PullParams{DocumentListParams: DocumentListParams{Limit: 10}}, newPullRecorder().fn)
		})
		if got != "hook broke" {
			t.Fatalf("Pull, in a %s: recovered %v", at.name, got)
		}
		noLeaks(t, before, srv, c)
	}
}

func TestWithResponseIntoIsRaceFreeWithAllAndPull(t *testing.T) {
	// Under -race: pages read ahead and Pull's workers each answer, and
	// only the caller's goroutine writes the *Response.
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req-"+r.URL.Query().Get("offset"))
		pagedServices(95, 0)(w, r)
	})
	c := newTestClient(t, srv)
	var meta Response
	ctx := WithResponseInto(context.Background(), &meta)
	n := 0
	for s, err := range c.Services.All(ctx, &ServiceListParams{Limit: 10}) {
		if err != nil {
			t.Fatal(err)
		}
		// The loop reads it: the answer of the page this item is on.
		if want := "req-" + strconv.Itoa(n/10*10); n%10 == 0 && n > 0 && meta.RequestID != want {
			t.Fatalf("item %d (%s): request id %q, want %q", n, s.ID, meta.RequestID, want)
		}
		n++
	}
	if n != 95 {
		t.Fatalf("%d services", n)
	}

	m := newPostRoom(60, 19, 0)
	srv2 := newAPIServer(t, m.ServeHTTP)
	c2 := newTestClient(t, srv2)
	var pmeta Response
	if err := c2.Documents.Pull(WithResponseInto(context.Background(), &pmeta), &PullParams{DocumentListParams: DocumentListParams{Limit: 7}, Workers: 8},
		newPullRecorder().fn); err != nil {
		t.Fatal(err)
	}
	if pmeta.StatusCode != http.StatusOK || pmeta.Attempts != 1 {
		t.Fatalf("Pull filled %+v", pmeta)
	}
}

func TestAFileEndsItsCallWhenClosed(t *testing.T) {
	// AttemptEnd and CallEnd of a download run when the file is closed,
	// not when its headers arrive; a file cut short ends them with its
	// error, a *TransportError that names the document.
	id := numberedID(3)
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		if strings.Contains(r.URL.Path, numberedID(4).String()) {
			w.Header().Set("Content-Length", "1000")
			io.WriteString(w, "%PDF-1.4 cut")
			return // the connection ends 988 bytes short
		}
		io.WriteString(w, "%PDF-1.4 whole")
	})
	var mu sync.Mutex
	var events []string
	note := func(s string) {
		mu.Lock()
		events = append(events, s)
		mu.Unlock()
	}
	c := newTestClient(t, srv, WithHooks(Hooks{
		AttemptEnd: func(_ context.Context, a AttemptInfo) { note(fmt.Sprintf("attempt end %v", a.Err != nil)) },
		CallEnd:    func(_ context.Context, ci CallInfo) { note(fmt.Sprintf("call end %v", ci.Err != nil)) },
	}))
	var meta Response
	f, err := c.Documents.Download(WithResponseInto(context.Background(), &meta), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 0 || meta.StatusCode != http.StatusOK {
		t.Fatalf("before reading: events %q, metadata %+v", events, meta)
	}
	b, err := io.ReadAll(f)
	if err != nil || string(b) != "%PDF-1.4 whole" || len(events) != 0 {
		t.Fatalf("read %q, %v; events %q", b, err, events)
	}
	f.Close()
	f.Close()
	if strings.Join(events, ";") != "attempt end false;call end false" {
		t.Fatalf("events %q", events)
	}

	events = nil
	cut := numberedID(4)
	f, err = c.Documents.Download(context.Background(), cut)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(f)
	var te *TransportError
	if !errors.As(err, &te) || !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(te.Path, cut.String()) || !strings.Contains(err.Error(), cut.String()) {
		t.Fatalf("cut short: %v (%T)", err, err)
	}
	f.Close()
	if strings.Join(events, ";") != "attempt end true;call end true" {
		t.Fatalf("events %q", events)
	}
}

// memRoom is a documents API in process that allocates nothing per
// document while it runs: its listing and read marks are made up front.
type memRoom struct {
	mu    sync.Mutex
	ids   []uuid.UUID
	index map[uuid.UUID]int
	read  []bool
	first int // the first unread document
}

func (m *memRoom) RoundTrip(r *http.Request) (*http.Response, error) {
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Request: r, ProtoMajor: 1, ProtoMinor: 1}
	m.mu.Lock()
	defer m.mu.Unlock()
	if r.URL.Path == "/documents" {
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		var b strings.Builder
		b.WriteString(`{"success":true,"result":[`)
		n := 0
		for i := m.first; i < len(m.ids) && n < offset+limit; i++ {
			if m.read[i] {
				continue
			}
			if n >= offset {
				if n > offset {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `{"id":"%s","title":"letter","status":"unread","type":"Regular Mail","company_name":"Acme Widgets LLC","jurisdiction":"Utah"}`, m.ids[i])
			}
			n++
		}
		b.WriteString(`]}`)
		resp.Header.Set("Content-Type", "application/json")
		resp.Body = io.NopCloser(strings.NewReader(b.String()))
		return resp, nil
	}
	id := uuid.MustParse(strings.Split(r.URL.Path, "/")[2])
	i := m.index[id]
	m.read[i] = true
	for m.first < len(m.read) && m.read[m.first] {
		m.first++
	}
	resp.Header.Set("Content-Type", "application/pdf")
	resp.Body = io.NopCloser(strings.NewReader("%PDF-1.4"))
	return resp, nil
}

// pullHeldPerDocument pulls n documents and returns the bytes of heap
// that Pull holds per document once it has handed out the last one.
func pullHeldPerDocument(t testing.TB, n int) float64 {
	m := &memRoom{index: make(map[uuid.UUID]int, n), read: make([]bool, n)}
	for i := range n {
		id := numberedID(i)
		m.ids = append(m.ids, id)
		m.index[id] = i
	}
	c := genClient(t, m)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	var held uint64
	err := c.Documents.Pull(context.Background(), &PullParams{Workers: 4, OnProgress: func(p PullProgress) {
		if p.Done == n {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			held = ms.HeapAlloc - min(before, ms.HeapAlloc)
		}
	}}, func(ctx context.Context, d Document, f *File) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return float64(held) / float64(n)
}

func TestPullHoldsLittleMoreThanTheIDOfEachDocument(t *testing.T) {
	// Pull keeps the id of every document it handed out (16 bytes, and
	// the map's own), not the document: about 40 bytes each, where it
	// held about 275. The figure is in BENCHMARKS.md.
	const n = 20000
	per := pullHeldPerDocument(t, n)
	t.Logf("Pull holds %.0f bytes per document after %d documents", per, n)
	if per > 100 {
		t.Fatalf("Pull holds %.0f bytes per document after %d documents, want under 100", per, n)
	}
}

// numbered returns n services whose ids are derived from their index, so a
// test can tell them apart and check their order.
// A server that ignores the paging: every offset answers the same full
// page (the rest of the listing is out of reach, and the caller hears of it
// once, as ErrPagingIgnored), or every answer holds more than was asked for
// (the whole listing at once, which ends well). Every engine (the stable
// read-ahead, the unread walk, Pull) yields each record once, records
// without an id too, and ends within a bound of requests. The server
// refuses after 50 requests, so a loop that would not end fails instead of
// hanging.
func TestListingsWhenTheAPIIgnoresPaging(t *testing.T) {
	idless := func(i int) string { return fmt.Sprintf(`{"id":null,"title":"no id %d","name":"no id %d"}`, i, i) }
	type read func(ctx context.Context, c *Client) (keys []string, errs []error)
	services := func(ctx context.Context, c *Client) ([]string, []error) {
		got, errs := collectSeq(c.Services.All(ctx, nil))
		keys := make([]string, len(got))
		for i, s := range got {
			keys[i] = s.ID.String()
		}
		return keys, errs
	}
	unread := func(limit int) read {
		return func(ctx context.Context, c *Client) ([]string, []error) {
			got, errs := collectSeq(c.Documents.All(ctx, &DocumentListParams{Limit: limit}))
			keys := make([]string, len(got))
			for i, d := range got {
				keys[i] = d.ID.String()
				if d.ID == uuid.Nil {
					keys[i] = d.Title
				}
			}
			return keys, errs
		}
	}
	resources := func(ctx context.Context, c *Client) ([]string, []error) {
		got, errs := collectSeq(c.Resources.All(ctx, &ResourceListParams{Limit: 5}))
		keys := make([]string, len(got))
		for i, r := range got {
			keys[i] = r.Name
		}
		return keys, errs
	}
	pull := func(ctx context.Context, c *Client) ([]string, []error) {
		rec := newPullRecorder()
		err := c.Documents.Pull(ctx, &PullParams{DocumentListParams: DocumentListParams{Limit: 10, Status: DocumentRead}, Workers: 3}, rec.fn)
		var keys []string
		for id, n := range rec.counts() {
			for range n {
				keys = append(keys, id.String())
			}
		}
		slices.Sort(keys)
		var errs []error
		if err != nil {
			errs = append(errs, err)
		}
		return keys, errs
	}
	for _, tc := range []struct {
		name    string
		page    http.HandlerFunc // the answer to every listing request
		read    read
		want    []string // the keys yielded, in order (sorted for Pull)
		wantErr error
		maxReqs int // listing requests
	}{
		{"services, offset ignored", fixedPage(100, serviceJSON), services, recordIDs(100, serviceJSON), ErrPagingIgnored, ignoredAfter + maxReadAhead - 1},
		{"services, limit and offset ignored", fixedPage(150, serviceJSON), services, recordIDs(150, serviceJSON), nil, ignoredAfter + maxReadAhead - 1},
		{"resources without an id, offset ignored", fixedPage(5, idless), resources, numbered(5, "no id %d"), ErrPagingIgnored, 4 + maxReadAhead},
		// The walk downloads nothing, so the listing never shrinks: the
		// page, again to pass over it, and at two later offsets.
		{"unread documents, offset ignored", fixedPage(50, unreadJSON), unread(50), recordIDs(50, unreadJSON), ErrPagingIgnored, 4},
		{"unread documents, limit and offset ignored", fixedPage(70, unreadJSON), unread(50), recordIDs(70, unreadJSON), nil, 4},
		{"unread documents without an id, offset ignored", fixedPage(5, idless), unread(5), numbered(5, "no id %d"), ErrPagingIgnored, 4 + maxReadAhead},
		// A request follows the first one only after a download answered
		// (10 of them) or after an answer that moved the offset on, and
		// the third answer in a row at a later offset ends it.
		{"Pull of read documents, offset ignored", fixedPage(10, unreadJSON), pull, sortedStrings(recordIDs(10, unreadJSON)), ErrPagingIgnored, 14},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lists atomic.Int32
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				switch {
				case strings.HasSuffix(r.URL.Path, "/download"):
					w.Header().Set("Content-Type", "application/pdf")
					_, _ = io.WriteString(w, "%PDF-1.4")
				case lists.Add(1) > 50:
					writeJSON(w, http.StatusForbidden, `{"message":"enough"}`)
				default:
					tc.page(w, r)
				}
			})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			got, errs := tc.read(ctx, newTestClient(t, srv))
			if !slices.Equal(got, tc.want) {
				t.Errorf("yielded %d records %.3q..., want %d %.3q...", len(got), got, len(tc.want), tc.want)
			}
			switch {
			case tc.wantErr == nil && len(errs) != 0:
				t.Errorf("errors %v, want none", errs)
			case tc.wantErr != nil && (len(errs) != 1 || !errors.Is(errs[0], tc.wantErr)):
				t.Errorf("errors %v, want %v once", errs, tc.wantErr)
			}
			if n := int(lists.Load()); n > tc.maxReqs {
				t.Errorf("%d listing requests, want at most %d", n, tc.maxReqs)
			}
		})
	}
}

// Records without an id (null or absent) are yielded, once each and in
// order, by List, the read-ahead and the unread walk, on one page or over
// several; Pull passes over the documents without an id (nothing can take
// them out of the unread listing) and counts them as skipped, also when
// they fill whole pages, so that they look like a repeated page; All over
// what is left yields them once each.
func TestRecordsWithoutAnID(t *testing.T) {
	alternate := func(format string) func(int) string {
		return func(i int) string {
			if i%2 == 0 {
				return fmt.Sprintf(`{"name":"`+format+`","title":"`+format+`","kind":"url"}`, i, i)
			}
			return fmt.Sprintf(`{"id":"%s","name":"`+format+`","title":"`+format+`","kind":"url"}`, indexID(i), i, i)
		}
	}
	resourceNames := func(rs []Resource) []string {
		out := make([]string, len(rs))
		for i, r := range rs {
			out[i] = r.Name
		}
		return out
	}
	titles := func(ds []Document) []string {
		out := make([]string, len(ds))
		for i, d := range ds {
			out[i] = d.Title
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		read    func(ctx context.Context, c *Client) ([]string, []error)
		want    []string
	}{
		{"resources, List", ok(`[{"id":null,"name":"Form A","kind":"url"},{"name":"Form B","kind":"url"}]`),
			func(ctx context.Context, c *Client) ([]string, []error) {
				rs, err := c.Resources.List(ctx, nil)
				return resourceNames(rs), nonNil(err)
			}, []string{"Form A", "Form B"}},
		{"resources, All", ok(`[{"id":null,"name":"Form A","kind":"url"},{"name":"Form B","kind":"url"}]`),
			func(ctx context.Context, c *Client) ([]string, []error) {
				rs, errs := collectSeq(c.Resources.All(ctx, nil))
				return resourceNames(rs), errs
			}, []string{"Form A", "Form B"}},
		{"resources over several pages", offsetPager(7, alternate("Form %d")),
			func(ctx context.Context, c *Client) ([]string, []error) {
				rs, errs := collectSeq(c.Resources.All(ctx, &ResourceListParams{Limit: 2}))
				return resourceNames(rs), errs
			}, numbered(7, "Form %d")},
		{"unread documents", ok(`[{"id":null,"title":"a"},{"title":"b"},{"id":null,"title":"c"}]`),
			func(ctx context.Context, c *Client) ([]string, []error) {
				ds, errs := collectSeq(c.Documents.All(ctx, nil))
				return titles(ds), errs
			}, []string{"a", "b", "c"}},
		// The loop downloads nothing.
		{"unread documents over several pages", offsetPager(5, alternate("doc %d")),
			func(ctx context.Context, c *Client) ([]string, []error) {
				ds, errs := collectSeq(c.Documents.All(ctx, &DocumentListParams{Limit: 2}))
				return titles(ds), errs
			}, numbered(5, "doc %d")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			got, errs := tc.read(ctx, newTestClient(t, newAPIServer(t, tc.handler)))
			if len(errs) != 0 || !slices.Equal(got, tc.want) {
				t.Fatalf("yielded %q, errors %v; want %q", got, errs, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name         string
		idless, docs int
		seed         uint64
		latency      time.Duration
		limit        int
	}{
		// Two heading the unread listing.
		{"two", 2, 7, 8, time.Millisecond, 4},
		// Twelve, three full pages of them: different documents, so no
		// ErrPagingIgnored, and every document after them is reached.
		{"three full pages", 12, 9, 13, 0, 4},
	} {
		t.Run("Pull, "+tc.name, func(t *testing.T) {
			m := newPostRoom(tc.docs, tc.seed, tc.latency)
			m.idless = tc.idless
			c := newTestClient(t, newAPIServer(t, m.ServeHTTP))
			rec := newPullRecorder()
			var last PullProgress
			err := c.Documents.Pull(context.Background(), &PullParams{DocumentListParams: DocumentListParams{Limit: tc.limit}, Workers: 2,
				OnProgress: func(p PullProgress) { last = p }}, rec.fn)
			if err != nil {
				t.Fatal(err)
			}
			checkOnce(t, "Pull", rec.counts(), m.ids)
			if last.Skipped != tc.idless || last.Done != tc.docs {
				t.Fatalf("last progress %+v, want %d skipped and %d done", last, tc.idless, tc.docs)
			}
			// All over the same listing (now all read but those without an
			// id), reading only: those once each, in order.
			got, errs := collectSeq(c.Documents.All(context.Background(), &DocumentListParams{Limit: tc.limit}))
			if len(errs) != 0 || !slices.Equal(titles(got), numbered(tc.idless, "no id %d")) {
				t.Fatalf("All yielded %q, errors %v", titles(got), errs)
			}
		})
	}
}

func serviceJSON(i int) string {
	return fmt.Sprintf(`{"id":"%s","created_at":"2024-05-01 10:00:00 -0600","status":"active","type":"registered-agent","jurisdiction":"Utah","company":"Co %d"}`, numberedID(i), i)
}

// pagedServices answers GET /services from a list of total services,
// honouring limit and offset like the API, after an optional delay.
func pagedServices(total int, delay time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		if limit == 0 {
			limit = 50
		}
		items := make([]string, 0, limit)
		for i := offset; i < total && i < offset+limit; i++ {
			items = append(items, serviceJSON(i))
		}
		ok("["+strings.Join(items, ",")+"]")(w, r)
	}
}

func TestAllLeavesTheCallersParamsAlone(t *testing.T) {
	// All asks for each page with a copy of the caller's params: the
	// caller's own Limit and Offset stay as given while the loop runs (the
	// pages read ahead are asked for on other goroutines: under -race, a
	// write to the caller's params from them is a data race), and after
	// it, so the same params start the same listing again.
	srv := newAPIServer(t, pagedServices(95, 0))
	c := newTestClient(t, srv)
	p := &ServiceListParams{Limit: 10, Offset: 5, Company: "Co"}
	want := *p
	for run := range 2 {
		n := 0
		for svc, err := range c.Services.All(context.Background(), p) {
			if err != nil {
				t.Fatal(err)
			}
			if svc.ID != numberedID(5+n) {
				t.Fatalf("run %d: service %d is %s, want %s", run, n, svc.ID, numberedID(5+n))
			}
			n++
			if *p != want {
				t.Fatalf("run %d, after %d services: the params are %+v, want %+v", run, n, *p, want)
			}
			runtime.Gosched() // a slow loop: the read-ahead deepens
		}
		if n != 90 || *p != want {
			t.Fatalf("run %d: %d services, params %+v after the loop, want 90 and %+v", run, n, *p, want)
		}
	}
	// The unread walk too.
	s := newGenServer(25)
	dc := genClient(t, s)
	dp := &DocumentListParams{Limit: 4}
	docs, errs := collectSeq(dc.Documents.All(context.Background(), dp))
	if len(errs) != 0 || len(docs) != 25 || *dp != (DocumentListParams{Limit: 4}) {
		t.Fatalf("%d documents, errors %v, params %+v after the loop", len(docs), errs, *dp)
	}
}

func TestAllReadsEveryPageInOrder(t *testing.T) {
	srv := newAPIServer(t, pagedServices(250, 0))
	c := newTestClient(t, srv)
	checkServicesInOrder(t, c.Services.All(context.Background(), nil), 250)
	// The endpoint's maximum page size, and a short page ends the listing.
	checkPagesAsked(t, srv, "limit=100", "limit=100&offset=100", "limit=100&offset=200")
}

// checkServicesInOrder reads seq whole and checks that it yields the
// services numbered 0 to want-1, in order, and no error.
func checkServicesInOrder(t *testing.T, seq iter.Seq2[Service, error], want int) {
	t.Helper()
	var got []uuid.UUID
	for s, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s.ID)
	}
	if len(got) != want {
		t.Fatalf("got %d services, want %d", len(got), want)
	}
	for i, id := range got {
		if id != numberedID(i) {
			t.Fatalf("item %d is %s, want %s", i, id, numberedID(i))
		}
	}
}

func TestAllHonoursLimitOffsetAndFilters(t *testing.T) {
	srv := newAPIServer(t, pagedServices(30, 0))
	c := newTestClient(t, srv)
	n := 0
	for _, err := range c.Services.All(context.Background(), &ServiceListParams{Limit: 10, Offset: 5, Company: "Acme"}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 25 {
		t.Fatalf("got %d services, want 25", n)
	}
	checkPagesAsked(t, srv, "limit=10&offset=5&company=Acme", "limit=10&offset=15&company=Acme", "limit=10&offset=25&company=Acme")
}

func TestAllEmptyListingAndExactMultiple(t *testing.T) {
	for _, total := range []int{0, 200} {
		srv := newAPIServer(t, pagedServices(total, 0))
		c := newTestClient(t, srv)
		n := 0
		for _, err := range c.Services.All(context.Background(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		// An exact multiple of the page size costs one more (empty) page.
		if n != total || srv.count() < total/100+1 || srv.count() > total/100+maxReadAhead {
			t.Fatalf("total %d: got %d items in %d requests", total, n, srv.count())
		}
	}
}

func TestAllYieldsValidationErrorOnceWithoutRequests(t *testing.T) {
	srv := newAPIServer(t, pagedServices(10, 0))
	c := newTestClient(t, srv)
	calls := 0
	for _, err := range c.Services.All(context.Background(), &ServiceListParams{Limit: 101}) {
		calls++
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != "limit" {
			t.Fatalf("got %v", err)
		}
	}
	if calls != 1 || srv.count() != 0 {
		t.Fatalf("yielded %d times, %d requests", calls, srv.count())
	}
}

func TestAllYieldsAPIErrorOnceAndStops(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("offset") == "100" {
			writeJSON(w, http.StatusForbidden, `{"message":"no access to page two"}`)
			return
		}
		pagedServices(1000, 0)(w, r)
	})
	c := newTestClient(t, srv)
	items, errs := 0, 0
	for _, err := range c.Services.All(context.Background(), nil) {
		if err != nil {
			errs++
			if !errors.Is(err, ErrForbidden) {
				t.Fatalf("got %v", err)
			}
			continue
		}
		items++
	}
	// Pages read ahead of the failed one may have been asked for; none of
	// their items is yielded after the error.
	if items != 100 || errs != 1 || srv.count() > 1+maxReadAhead {
		t.Fatalf("items %d, errors %d, requests %d", items, errs, srv.count())
	}
}

func TestAllPrefetchesTheNextPage(t *testing.T) {
	// While the loop works on page one, page two is already requested: the
	// server sees the second request before the loop has finished the
	// first page.
	var mu sync.Mutex
	var secondAt time.Time
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.RawQuery, "offset=100") {
			mu.Lock()
			secondAt = time.Now()
			mu.Unlock()
		}
		pagedServices(150, 0)(w, r)
	})
	c := newTestClient(t, srv)
	var firstPageDone time.Time
	i := 0
	for _, err := range c.Services.All(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		i++
		if i <= 100 {
			time.Sleep(200 * time.Microsecond)
		}
		if i == 100 {
			firstPageDone = time.Now()
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if secondAt.IsZero() || !secondAt.Before(firstPageDone) {
		t.Fatalf("page two was requested at %v, after the loop finished page one at %v", secondAt, firstPageDone)
	}
}

func TestAllBreakStopsTheFetcher(t *testing.T) {
	before := goleak.IgnoreCurrent()
	srv := newAPIServer(t, pagedServices(10000, 20*time.Millisecond))
	c := newTestClient(t, srv)
	n := 0
	for _, err := range c.Services.All(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n == 150 {
			break // in the middle of page two, page three is in flight
		}
	}
	// Only pages one to three were ever asked for, and nothing runs on.
	if srv.count() > 3 {
		t.Fatalf("%d requests after breaking on page two", srv.count())
	}
	noLeaks(t, before, srv, c)
}

func TestAllStopsWhenTheContextIsCancelled(t *testing.T) {
	before := goleak.IgnoreCurrent()
	srv := newAPIServer(t, pagedServices(10000, 5*time.Millisecond))
	c := newTestClient(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n, errs := 0, 0
	for _, err := range c.Services.All(ctx, nil) {
		if err != nil {
			errs++
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("got %v", err)
			}
			continue
		}
		n++
		if n == 120 {
			cancel()
		}
	}
	if errs != 1 || n < 120 || n > 300 {
		t.Fatalf("items %d, errors %d", n, errs)
	}
	noLeaks(t, before, srv, c)
}

func TestShrinkingListingCostsWhenNothingIsRemoved(t *testing.T) {
	// A listing the loop may shrink, over which the loop removes nothing,
	// and no client to say so (the careful walk, as when an answer shows
	// someone else changed the listing): every item once, at one extra
	// request per page.
	srv := newAPIServer(t, pagedServices(120, 0))
	c := newTestClient(t, srv)
	l := listing[Service]{
		max: 50,
		fetch: func(ctx context.Context, limit, offset int) ([]Service, error) {
			return c.Services.List(ctx, &ServiceListParams{Limit: limit, Offset: offset})
		},
		id:      func(s Service) uuid.UUID { return s.ID },
		shrinks: true,
	}
	seen := map[uuid.UUID]int{}
	for s, err := range paginate(context.Background(), l) {
		if err != nil {
			t.Fatal(err)
		}
		seen[s.ID]++
	}
	if len(seen) != 120 {
		t.Fatalf("saw %d distinct items", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("%s seen %d times", id, n)
		}
	}
	// Pages at offsets 0, 0, 50, 50, 100 (short) and 100 (gone over, and
	// shorter than the others: the end): six requests for three pages;
	// then, since the listing did not end empty, a second pass (0, 50,
	// 100) that goes over the same rows and so shows that the first
	// missed none.
	if srv.count() != 9 {
		t.Fatalf("%d requests, want 9", srv.count())
	}
}

// flightCounter wraps a handler and records the most requests it had in
// progress at once.
type flightCounter struct {
	h        http.HandlerFunc
	now, top atomic.Int32
}

func (f *flightCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.now.Add(1)
	defer f.now.Add(-1)
	for {
		top := f.top.Load()
		if n <= top || f.top.CompareAndSwap(top, n) {
			break
		}
	}
	f.h(w, r)
}

func TestAllReadsAheadAsDeepAsTheLoopNeeds(t *testing.T) {
	// A loop much faster than the API: more pages are asked for at once,
	// never more than maxReadAhead, and the items still come in order.
	fc := &flightCounter{h: pagedServices(300, 15*time.Millisecond)}
	srv := newAPIServer(t, fc.ServeHTTP)
	c := newTestClient(t, srv)
	checkServicesInOrder(t, c.Services.All(context.Background(), &ServiceListParams{Limit: 10}), 300)
	if top := fc.top.Load(); top < 2 || top > maxReadAhead {
		t.Fatalf("%d requests in flight at once, want 2 to %d", top, maxReadAhead)
	}
	// 31 pages (the last one empty), and at most maxReadAhead-1 past it.
	if n := srv.count(); n < 31 || n > 30+maxReadAhead {
		t.Fatalf("%d requests", n)
	}
}

func TestAllReadsOnePageAheadOfABusyLoop(t *testing.T) {
	// A loop slower than the API never waits, so no more than one page
	// is asked for ahead of it.
	fc := &flightCounter{h: pagedServices(40, 0)}
	srv := newAPIServer(t, fc.ServeHTTP)
	c := newTestClient(t, srv)
	n := 0
	for _, err := range c.Services.All(context.Background(), &ServiceListParams{Limit: 10}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		time.Sleep(10 * time.Millisecond) // 100 ms a page; the API answers at once
	}
	if n != 40 || fc.top.Load() != 1 || srv.count() != 5 {
		t.Fatalf("%d items, %d requests, %d at once", n, srv.count(), fc.top.Load())
	}
}

func TestAllStopsItsReadersWhereverTheLoopEnds(t *testing.T) {
	// Break, or cancel the context, at every item of a listing read
	// ahead: nothing runs on, a cancel ends the loop with one error (after
	// what is left of the page in hand), and no request is left in flight.
	const total, limit = 23, 4
	for at := 0; at <= total; at++ {
		for _, how := range []string{"break", "cancel"} {
			before := goleak.IgnoreCurrent()
			fc := &flightCounter{h: pagedServices(total, time.Duration(at%3)*time.Millisecond)}
			srv := newAPIServer(t, fc.ServeHTTP)
			c := newTestClient(t, srv)
			ctx, cancel := context.WithCancel(context.Background())
			n, errs := 0, 0
			for s, err := range c.Services.All(ctx, &ServiceListParams{Limit: limit}) {
				if err != nil {
					errs++
					if !errors.Is(err, context.Canceled) {
						t.Fatalf("%s at %d: %v", how, at, err)
					}
					continue
				}
				if s.ID != numberedID(n) {
					t.Fatalf("%s at %d: item %d is %s", how, at, n, s.ID)
				}
				n++
				if n == at {
					if how == "break" {
						break
					}
					cancel()
				}
			}
			cancel()
			switch {
			case how == "break" && at > 0 && n != at,
				how == "break" && errs != 0,
				how == "cancel" && at > 0 && at < total && (errs > 1 || n < at),
				at == 0 && n != total:
				t.Fatalf("%s at %d: %d items, %d errors", how, at, n, errs)
			}
			noLeaks(t, before, srv, c)
			if fc.now.Load() != 0 {
				t.Fatalf("%s at %d: %d requests still in progress", how, at, fc.now.Load())
			}
		}
	}
}

// wholeListingEveryTime is a documents API that ignores limit and offset:
// every listing request is answered with all n documents, and a download
// leaves the document listed (the listing never shrinks).
func wholeListingEveryTime(n int) http.HandlerFunc {
	list := fixedPage(n, unreadJSON)
	return func(w http.ResponseWriter, r *http.Request) {
		if id, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/documents/"), "/download"); ok {
			w.Header().Set("Content-Type", "application/pdf")
			fmt.Fprint(w, postPDF(uuid.MustParse(id)))
			return
		}
		list(w, r)
	}
}

func TestPagingTakesAPageLongerThanTheLimitForTheWholeListing(t *testing.T) {
	// 1,000 documents in every answer, whatever limit (200) and offset
	// ask: the whole listing, which Pull and All hand over once each,
	// and then end without an error, however often the long page comes
	// back while downloads are in flight.
	want := make([]uuid.UUID, 1000)
	for i := range want {
		want[i] = numberedID(i)
	}
	for _, workers := range []int{1, 8} {
		t.Run(fmt.Sprintf("Pull with %d workers", workers), func(t *testing.T) {
			srv := newAPIServer(t, wholeListingEveryTime(1000))
			c := newTestClient(t, srv)
			for run := range 2 {
				rec := newPullRecorder()
				if err := c.Documents.Pull(context.Background(), &PullParams{Workers: workers}, rec.fn); err != nil {
					t.Fatalf("run %d: %v", run, err)
				}
				checkOnce(t, "fn", rec.counts(), want)
			}
		})
	}
	for _, status := range []DocumentStatus{DocumentUnread, DocumentRead} {
		t.Run("All over the "+string(status)+" listing", func(t *testing.T) {
			srv := newAPIServer(t, wholeListingEveryTime(1000))
			c := newTestClient(t, srv)
			got := map[uuid.UUID]int{}
			for d, err := range c.Documents.All(context.Background(), &DocumentListParams{Status: status}) {
				if err != nil {
					t.Fatalf("after %d documents: %v", len(got), err)
				}
				got[d.ID]++
				if status == DocumentUnread && len(got)%100 == 0 {
					f, err := c.Documents.Download(context.Background(), d.ID)
					if err != nil {
						t.Fatal(err)
					}
					f.Close()
				}
			}
			checkOnce(t, "All", got, want)
		})
	}
}

// listingCost is one shape of listing whose requests are counted on a
// well-behaved server.
type listingCost struct {
	name    string
	records int
	pages   int // pages of the listing at its page size
	// bound is the most listing requests it may cost, exact when it is
	// also the least it can cost.
	bound int
	exact bool
	run   func(t *testing.T, records int) int // the listing requests it cost
}

// listingCosts is the table of what each listing shape costs on a server
// that pages honestly and changes only by the caller's own downloads,
// each answered at once: All (reading only, or downloading each
// document) at most pages + 1, Pull and the read-ahead of the stable
// listings at most pages + 2. The page size is the endpoint's maximum
// (200 documents, 100 services).
func listingCosts() []listingCost {
	var rows []listingCost
	for _, n := range []int{1, 120, 1000} {
		p := max(1, (n+199)/200)
		rows = append(rows, listingCost{name: "All reading only", records: n, pages: p, bound: p + 1, exact: true, run: costAll(false)})
	}
	// A listing of one row, read only, pays one more: an answer of one
	// row cannot tell it from a server that caps its pages at one row, so
	// the walk looks past the row, then checks it is still there (no two
	// requests can do both: see trust).
	rows[0].bound = 3
	for _, n := range []int{1, 120, 1000, 1100} {
		p := max(1, (n+199)/200)
		rows = append(rows, listingCost{name: "All downloading each", records: n, pages: p, bound: p + 1, exact: n%200 == 0, run: costAll(true)})
	}
	for _, n := range []int{49, 200, 1000} {
		p := max(1, (n+199)/200)
		rows = append(rows, listingCost{name: "Pull, 8 workers", records: n, pages: p, bound: p + 2, run: costPull})
	}
	for _, n := range []int{1000, 1050} {
		p := (n + 99) / 100
		rows = append(rows, listingCost{name: "Services.All (read ahead)", records: n, pages: p, bound: p + 2, run: costServices})
	}
	return rows
}

// costAll loops over Documents.All on a well-behaved server, downloading
// each document or not, and returns the listing requests.
func costAll(download bool) func(t *testing.T, n int) int {
	return func(t *testing.T, n int) int {
		s := newGenServer(n)
		c := genClient(t, s)
		got := map[uuid.UUID]int{}
		for d, err := range c.Documents.All(context.Background(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			got[d.ID]++
			if download {
				f, err := c.Documents.Download(context.Background(), d.ID)
				if err != nil {
					t.Fatal(err)
				}
				f.Close()
			}
		}
		checkOnce(t, "All", got, s.required())
		return s.lists
	}
}

func costPull(t *testing.T, n int) int {
	s := newGenServer(n)
	c := genClient(t, s)
	got, err := pullAll(t, c, 0, 8)
	if err != nil {
		t.Fatal(err)
	}
	checkOnce(t, "Pull", got, s.required())
	return s.lists
}

func costServices(t *testing.T, n int) int {
	srv := newAPIServer(t, offsetPager(n, func(i int) string { return fmt.Sprintf(`{"id":%q}`, indexID(i)) }))
	c := newTestClient(t, srv)
	got, errs := collectSeq(c.Services.All(context.Background(), nil))
	if len(errs) != 0 || len(got) != n {
		t.Fatalf("%d services, errors %v", len(got), errs)
	}
	return srv.count()
}

func TestListingCostOnAWellBehavedServer(t *testing.T) {
	for _, tc := range listingCosts() {
		t.Run(fmt.Sprintf("%s/%d", tc.name, tc.records), func(t *testing.T) {
			got := tc.run(t, tc.records)
			t.Logf("%d records, %d pages: %d listing requests (bound %d)", tc.records, tc.pages, got, tc.bound)
			if got > tc.bound || tc.exact && got != tc.bound {
				t.Fatalf("%d listing requests for %d records in %d pages, want at most %d (exactly: %v)", got, tc.records, tc.pages, tc.bound, tc.exact)
			}
		})
	}
}

// heldDownloads is a well-behaved server of n unread documents whose
// downloads answer late: the download of a document of the first held
// pages (of limit rows) waits until the listing was asked for again after
// the page that first held it, so those listing requests are sent while
// the rows of the page before are still downloading. (Pull asks for the
// page that tells the listing's end only once nothing is downloading, so
// the last pages cannot be held.)
type heldDownloads struct {
	s     *genServer
	limit int
	held  int
	row   map[uuid.UUID]int
	mu    sync.Mutex
	lists int
	more  chan struct{} // closed and replaced at each listing request
}

func newHeldDownloads(n, limit, held int) *heldDownloads {
	h := &heldDownloads{s: newGenServer(n), limit: limit, held: held, row: map[uuid.UUID]int{}, more: make(chan struct{})}
	for i, d := range h.s.docs {
		h.row[d.id] = i
	}
	return h
}

func (h *heldDownloads) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path == "/documents" {
		h.mu.Lock()
		h.lists++
		close(h.more)
		h.more = make(chan struct{})
		h.mu.Unlock()
		return h.s.RoundTrip(r)
	}
	id, _ := uuid.Parse(strings.Split(r.URL.Path, "/")[2])
	for {
		h.mu.Lock()
		lists, more := h.lists, h.more
		h.mu.Unlock()
		if page := h.row[id] / h.limit; page >= h.held || lists > page+1 {
			return h.s.RoundTrip(r)
		}
		select {
		case <-more:
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
}

func TestPullCostWhileRowsAreStillDownloading(t *testing.T) {
	// 200 unread documents, pages of 20, 32 workers, and the downloads of
	// each of the first 5 pages still under way when the next page is
	// asked for: each
	// request asks for the rows still downloading besides a page, so
	// every answer brings a page of new rows, and Pull costs pages + 2.
	// (Asked for a page alone, an answer brought only the rows still
	// downloading, and Pull asked again and again for nothing.)
	const n, limit = 200, 20
	h := newHeldDownloads(n, limit, 5)
	c := genClient(t, h)
	got, err := pullAll(t, c, limit, 32)
	if err != nil {
		t.Fatal(err)
	}
	checkOnce(t, "Pull", got, h.s.required())
	pages := n / limit
	if h.s.lists > pages+2 {
		t.Fatalf("%d listing requests for %d pages, want at most %d", h.s.lists, pages, pages+2)
	}
}

// listingServers are the servers BenchmarkListingRequests counts on: a
// well-behaved one and each misbehaviour of the generated families, over
// 1,000 unread documents.
var listingServers = []struct {
	name string
	set  func(*genServer)
}{
	{"well-behaved", func(*genServer) {}},
	{"pages capped at 50", func(s *genServer) { s.cap = 50 }},
	{"replica 2 refreshes behind", func(s *genServer) { s.lag = 2 }},
	{"others read and add every 3rd request", func(s *genServer) { s.othersEvery = 3 }},
	{"every 10th row listed twice", func(s *genServer) {
		for i, d := range s.docs {
			d.dup = i%10 == 0
		}
	}},
	{"offset ignored", func(s *genServer) { s.ignoreOffset = true }},
	{"limit and offset ignored", func(s *genServer) { s.ignoreOffset, s.ignoreLimit = true, true }},
}

// stableServers are the same for the stable listings, over 1,000
// services.
var stableServers = []struct {
	name string
	set  func(*stableServer)
}{
	{"well-behaved", func(*stableServer) {}},
	{"pages capped at 50", func(s *stableServer) { s.cap = 50 }},
	{"grows by a row every 3rd request, 20 in all", func(s *stableServer) { s.addEvery, s.addMax = 3, 20 }},
	{"every 10th row listed twice", func(s *stableServer) {
		var rows []uuid.UUID
		for i, id := range s.rows {
			rows = append(rows, id)
			if i%10 == 0 {
				rows = append(rows, id)
			}
		}
		s.rows = rows
	}},
	{"offset ignored", func(s *stableServer) { s.ignoreOffset = true }},
	{"limit and offset ignored", func(s *stableServer) { s.ignoreOffset, s.ignoreLimit = true, true }},
}

// BenchmarkListingRequests counts the listing requests of each listing
// shape (All reading only, All downloading each document, Pull with 8
// workers, the stable Services.All) on each server of listingServers and
// stableServers, at the endpoints' largest pages: requests/op against
// minimum/op, pages + 1. It measures no time.
func BenchmarkListingRequests(b *testing.B) {
	const docs, services = 1000, 1000
	shapes := []struct {
		name string
		run  func(c *Client) error
	}{
		{"All reading only", func(c *Client) error {
			for _, err := range c.Documents.All(context.Background(), nil) {
				if err != nil {
					return err
				}
			}
			return nil
		}},
		{"All downloading", func(c *Client) error {
			for d, err := range c.Documents.All(context.Background(), nil) {
				if err != nil {
					return err
				}
				f, err := c.Documents.Download(context.Background(), d.ID)
				if err != nil {
					return err
				}
				f.Close()
			}
			return nil
		}},
		{"Pull", func(c *Client) error {
			return c.Documents.Pull(context.Background(), &PullParams{Workers: 8}, func(ctx context.Context, d Document, f *File) error {
				_, err := io.Copy(io.Discard, f)
				return err
			})
		}},
	}
	for _, sh := range shapes {
		for _, sv := range listingServers {
			b.Run(sh.name+"/"+sv.name, func(b *testing.B) {
				lists := 0
				for range b.N {
					s := newGenServer(docs)
					sv.set(s)
					_ = sh.run(genClient(b, s)) // an error (ErrPagingIgnored) ends the count as well
					lists += s.lists
				}
				b.ReportMetric(float64(lists)/float64(b.N), "requests/op")
				b.ReportMetric(float64((docs+maxDocumentsLimit-1)/maxDocumentsLimit+1), "minimum/op")
			})
		}
	}
	for _, sv := range stableServers {
		b.Run("Services.All/"+sv.name, func(b *testing.B) {
			requests := 0
			for range b.N {
				s := &stableServer{rng: &genRand{s: 7}}
				for i := range services {
					s.rows = append(s.rows, numberedID(i))
				}
				sv.set(s)
				s.start()
				for _, err := range genClient(b, s).Services.All(context.Background(), nil) {
					if err != nil {
						break
					}
				}
				requests += s.requests
			}
			b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
			b.ReportMetric(float64((services+100-1)/100+1), "minimum/op")
		})
	}
}

func TestWalksOnOneClientShareWhatItDownloads(t *testing.T) {
	// Two loops over the unread listing on one Client at once: one
	// downloads each document it is given, the other reads only. The
	// reader's rows that the downloader takes out are downloads of the
	// same Client, so the reader takes them for its own doing; each loop
	// hands out no document twice, the downloader every one (the reader
	// ends well or with ErrListingUnsettled, see below), and once
	// both end the client watches for no walk (-race checks the sharing).
	s := newGenServer(300)
	c := genClient(t, s)
	var wg sync.WaitGroup
	var downloaded, read map[uuid.UUID]int
	var errs [2]error
	wg.Add(2)
	go func() {
		defer wg.Done()
		downloaded = map[uuid.UUID]int{}
		for d, err := range c.Documents.All(context.Background(), &DocumentListParams{Limit: 20}) {
			if err != nil {
				errs[0] = err
				return
			}
			downloaded[d.ID]++
			f, err := c.Documents.Download(context.Background(), d.ID)
			if err != nil {
				errs[0] = err
				return
			}
			f.Close()
		}
	}()
	go func() {
		defer wg.Done()
		read = map[uuid.UUID]int{}
		for d, err := range c.Documents.All(context.Background(), &DocumentListParams{Limit: 20}) {
			if err != nil {
				errs[1] = err
				return
			}
			read[d.ID]++
			runtime.Gosched()
		}
	}()
	wg.Wait()
	// The downloader's downloads of rows the reader has not reached yet
	// are, to the reader, the listing moving by someone else's doing: it
	// may walk it again, and end with ErrListingUnsettled if the listing
	// moved through 10 walks. It never hands a document out twice.
	if errs[0] != nil || errs[1] != nil && !errors.Is(errs[1], ErrListingUnsettled) {
		t.Fatalf("errors %v", errs)
	}
	checkOnce(t, "the downloading loop", downloaded, s.required())
	for id, n := range read {
		if n != 1 {
			t.Fatalf("the reading loop was given %s %d times", id, n)
		}
	}
	if n := watching(c.downloads); n != 0 {
		t.Fatalf("%d walks still watched after both loops ended", n)
	}
}

func TestAWalkForgetsWhatItWatchedWhenTheLoopBreaks(t *testing.T) {
	s := newGenServer(50)
	c := genClient(t, s)
	for d := range c.Documents.All(context.Background(), nil) {
		if n := watching(c.downloads); n != 1 {
			t.Fatalf("%d walks watched during the loop, want 1", n)
		}
		f, err := c.Documents.Download(context.Background(), d.ID)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if n := watchedDownloads(c.downloads); n != 1 {
			t.Fatalf("%d downloads watched during the loop, want 1", n)
		}
		break
	}
	if n := watching(c.downloads); n != 0 {
		t.Fatalf("%d walks watched after the loop broke, want 0", n)
	}
	if n := watchedDownloads(c.downloads); n != 0 {
		t.Fatalf("%d downloads still watched after the loop broke, want 0", n)
	}
}

func TestAllGoesOnPastDownloadsThatFailed(t *testing.T) {
	// The loop downloads each document and goes on when a download fails
	// (404 or 503: the document stays unread and listed; or cut short:
	// it was marked read). The walk cannot tell what became of those
	// rows, so it turns careful; it still yields each document once and
	// ends, well before the deadline.
	s := newGenServer(30)
	s.failEvery = 4
	c := genClient(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := map[uuid.UUID]int{}
	failed := 0
	for d, err := range c.Documents.All(ctx, &DocumentListParams{Limit: 5}) {
		if err != nil {
			t.Fatalf("after %d documents (%d downloads failed): %v", len(got), failed, err)
		}
		got[d.ID]++
		f, err := c.Documents.Download(ctx, d.ID)
		if err != nil {
			failed++
			continue
		}
		_, _ = io.Copy(io.Discard, f)
		f.Close()
	}
	checkOnce(t, "All", got, s.required())
	if failed == 0 {
		t.Fatal("no download failed")
	}
}

func TestAWalkChecksTheRowItLookedPast(t *testing.T) {
	// A server that caps its pages at one row, over two documents, the
	// first read by someone else right after the first answer. The loop
	// reads only. The first answer (one row) cannot tell the end of a
	// listing from a cap of one, so the walk looks past the row (and,
	// the second document having moved under it, finds nothing), then
	// asks for the row again: it is gone, the second document in its
	// place, so the walk goes on and yields it.
	ids := []uuid.UUID{numberedID(0), numberedID(1)}
	var mu sync.Mutex
	n := 0
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		if n == 2 {
			ids = ids[1:]
		}
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		var rows []string
		if offset < len(ids) {
			rows = append(rows, fmt.Sprintf(`{"id":%q,"status":"unread"}`, ids[offset]))
		}
		mu.Unlock()
		ok("["+strings.Join(rows, ",")+"]")(w, r)
	})
	c := newTestClient(t, srv)
	got, errs := collectSeq(c.Documents.All(context.Background(), nil))
	if len(errs) != 0 || len(got) != 2 || got[0].ID != numberedID(0) || got[1].ID != numberedID(1) {
		t.Fatalf("yielded %d documents, errors %v; want both documents", len(got), errs)
	}
}

// refusingDownloads answers every download with a 503 that leaves the
// document unread, and passes the listing requests to s.
type refusingDownloads struct{ s *genServer }

func (r refusingDownloads) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Path == "/documents" {
		return r.s.RoundTrip(req)
	}
	return &http.Response{StatusCode: http.StatusServiceUnavailable, Request: req,
		Header: http.Header{"Content-Type": {"application/json"}},
		Body:   io.NopCloser(strings.NewReader(`{"success":false,"message":"unavailable"}`))}, nil
}

func TestAllGoesOnPastADownloadThatFailed(t *testing.T) {
	// The first document's download fails (a 503: it stays unread), so
	// the walk cannot know whether its row stays; the loop reads the
	// other 399 without downloading them. The walk must not wait on that
	// row for ever: it turns careful, yields each document once and ends
	// before the deadline.
	s := newGenServer(400)
	c := genClient(t, refusingDownloads{s})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := map[uuid.UUID]int{}
	for d, err := range c.Documents.All(ctx, &DocumentListParams{Limit: 50}) {
		if err != nil {
			t.Fatalf("after %d documents: %v", len(got), err)
		}
		got[d.ID]++
		if len(got) == 1 {
			if _, err := c.Documents.Download(ctx, d.ID); err == nil {
				t.Fatal("a refused download succeeded")
			}
		}
	}
	checkOnce(t, "All", got, s.required())
}

// Pull's walk: a row whose download answered while a listing request was
// out may still show in that request's answer, and vanish after it. That
// answer does not pass over it, or the next request would start past a
// row not seen yet (the listing's next, moved up under the offset).
func TestPullWalkDoesNotPassARowDownloadedWhileItsRequestWasOut(t *testing.T) {
	docs := []Document{{ID: numberedID(0)}, {ID: numberedID(1)}, {ID: numberedID(2)}}
	w := paging.NewWalk(paging.Listing[Document]{Limit: 1, ID: func(d Document) uuid.UUID { return d.ID }, Shrinks: true, ConsumerUnknown: true})
	w.Request()
	if out, _, _ := w.Answer(docs[:1]); len(out) != 1 || out[0].ID != docs[0].ID {
		t.Fatalf("the first answer hands out %v, want the first document", out)
	}
	w.Request()
	w.MarkStatus(docs[0].ID, paging.RowGone) // its download answers while request 2 is out
	w.Answer(docs[:1])                       // answered before the download: still listed
	if offset, _ := w.Request(); offset != 0 {
		t.Fatalf("the third request starts at offset %d, want 0: past the second document, now first", offset)
	}
	out, _, _ := w.Answer(docs[1:2])
	if len(out) != 1 || out[0].ID != docs[1].ID {
		t.Fatalf("the third answer hands out %v, want the second document", out)
	}
}

// watching is how many walks d watches.
func watching(d *downloadWatch) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.walks
}

// watchedDownloads is how many documents' downloads d holds.
func watchedDownloads(d *downloadWatch) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.ids)
}
