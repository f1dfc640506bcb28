package acctadmin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"go.uber.org/goleak"
)

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

func TestPagingOverFullPagesOfDocumentsWithoutAnID(t *testing.T) {
	// Twelve documents without an id head the listing, three full pages
	// of them: different documents, so no ErrPagingIgnored, and every
	// document after them is reached.
	m := newPostRoom(9, 13, 0)
	m.idless = 12
	srv := newAPIServer(t, m.ServeHTTP)
	c := newTestClient(t, srv)
	rec := newPullRecorder()
	var last PullProgress
	err := c.Documents.Pull(context.Background(), &PullParams{DocumentListParams: DocumentListParams{Limit: 4}, Workers: 2,
		OnProgress: func(p PullProgress) { last = p }}, rec.fn)
	if err != nil {
		t.Fatal(err)
	}
	checkOnce(t, "Pull", rec.counts(), m.ids)
	if last.Skipped != 12 || last.Done != 9 {
		t.Fatalf("last progress %+v, want 12 skipped and 9 done", last)
	}
	// All over the same listing (now all read but the twelve), reading
	// only: the twelve once each, in order.
	got, errs := collectSeq(c.Documents.All(context.Background(), &DocumentListParams{Limit: 4}))
	if len(errs) != 0 || len(got) != 12 {
		t.Fatalf("All yielded %d documents, errors %v", len(got), errs)
	}
	for i, d := range got {
		if d.Title != fmt.Sprintf("no id %d", i) {
			t.Fatalf("document %d is %q", i, d.Title)
		}
	}
}

func TestAllEndsWhenTheAPIIgnoresTheOffsetOfRecordsWithoutAnID(t *testing.T) {
	// A full page of records without an id, whatever the offset: the
	// loop ends with ErrPagingIgnored after yielding them once, for the
	// unread documents (walked) and for resources (read ahead). The
	// server refuses after 50 requests, so a loop that would not end
	// fails instead of hanging.
	idless := func(i int) string { return fmt.Sprintf(`{"id":null,"title":"no id %d","name":"no id %d"}`, i, i) }
	cases := map[string]func(c *Client) ([]string, []error){
		"unread documents": func(c *Client) ([]string, []error) {
			got, errs := collectSeq(c.Documents.All(context.Background(), &DocumentListParams{Limit: 5}))
			var titles []string
			for _, d := range got {
				titles = append(titles, d.Title)
			}
			return titles, errs
		},
		"resources": func(c *Client) ([]string, []error) {
			got, errs := collectSeq(c.Resources.All(context.Background(), &ResourceListParams{Limit: 5}))
			var names []string
			for _, r := range got {
				names = append(names, r.Name)
			}
			return names, errs
		},
	}
	for name, read := range cases {
		t.Run(name, func(t *testing.T) {
			var n atomic.Int32
			page := fixedPage(5, idless)
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				if n.Add(1) > 50 {
					writeJSON(w, http.StatusForbidden, `{"message":"enough"}`)
					return
				}
				page(w, r)
			})
			got, errs := read(newTestClient(t, srv))
			if len(errs) != 1 || !errors.Is(errs[0], ErrPagingIgnored) {
				t.Fatalf("errors %v after %d requests, want ErrPagingIgnored", errs, n.Load())
			}
			if len(got) != 5 || got[0] != "no id 0" || got[4] != "no id 4" {
				t.Fatalf("yielded %q", got)
			}
			if n.Load() > 4+maxReadAhead {
				t.Fatalf("%d requests", n.Load())
			}
		})
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
