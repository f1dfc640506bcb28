package acctadmin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/goleak"
)

// numbered returns n services whose ids are derived from their index, so a
// test can tell them apart and check their order.
func numberedID(i int) uuid.UUID {
	return uuid.NewSHA1(uuid.NameSpaceOID, []byte(strconv.Itoa(i)))
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

func TestAllReadsEveryPageInOrder(t *testing.T) {
	srv := newAPIServer(t, pagedServices(250, 0))
	c := newTestClient(t, srv)
	checkServicesInOrder(t, c.Services.All(context.Background(), nil), 250)
	// The endpoint's maximum page size, and a short page ends the listing.
	checkPagesAsked(t, srv, "limit=100", "limit=100&offset=100", "limit=100&offset=200")
}

// checkPagesAsked checks that the queries srv received are want, in any
// order (pages read ahead are asked for at once), plus at most
// maxReadAhead-1 pages past the end of the listing, asked for while the
// loop was faster than the API: each of those must be a later page of the
// same listing.
func checkPagesAsked(t *testing.T, srv *apiServer, want ...string) {
	t.Helper()
	offsetOf := func(q string) (int, string) {
		v, err := url.ParseQuery(q)
		if err != nil {
			t.Fatalf("query %q: %v", q, err)
		}
		off, _ := strconv.Atoi(v.Get("offset"))
		v.Del("offset")
		return off, v.Encode()
	}
	pending := map[string]int{}
	last, rest := -1, ""
	for _, q := range want {
		pending[q]++
		off, r := offsetOf(q)
		last, rest = max(last, off), r
	}
	var extra []string
	for _, r := range srv.requests() {
		if pending[r.RawQuery] > 0 {
			pending[r.RawQuery]--
			continue
		}
		extra = append(extra, r.RawQuery)
	}
	for q, n := range pending {
		if n > 0 {
			t.Fatalf("query %q never sent; got %d requests", q, srv.count())
		}
	}
	if len(extra) > maxReadAhead-1 {
		t.Fatalf("%d requests past the end: %q", len(extra), extra)
	}
	for _, q := range extra {
		if off, r := offsetOf(q); off <= last || r != rest {
			t.Fatalf("extra query %q is not a page past the end (last %d, %q)", q, last, rest)
		}
	}
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

func TestAllStopsWhenTheAPIIgnoresPaging(t *testing.T) {
	cases := map[string]struct {
		total   int
		wantErr error
	}{
		// Longer than the page asked for: the whole listing, at once.
		"ignores limit and offset": {150, nil},
		// The same full page again and again: the rest is out of reach.
		"ignores offset only": {100, ErrPagingIgnored},
	}
	for name, tc := range cases {
		total := tc.total
		t.Run(name, func(t *testing.T) {
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				items := make([]string, total)
				for i := range items {
					items[i] = serviceJSON(i)
				}
				ok("["+strings.Join(items, ",")+"]")(w, r)
			})
			c := newTestClient(t, srv)
			seen := map[uuid.UUID]int{}
			var errs []error
			for s, err := range c.Services.All(context.Background(), nil) {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				seen[s.ID]++
			}
			if tc.wantErr == nil && len(errs) > 0 || tc.wantErr != nil && (len(errs) != 1 || !errors.Is(errs[0], tc.wantErr)) {
				t.Fatalf("errors %v, want %v", errs, tc.wantErr)
			}
			// The page three times running (ignoredAfter), and the pages
			// read ahead of the third.
			if len(seen) != total || srv.count() > ignoredAfter+maxReadAhead-1 {
				t.Fatalf("saw %d distinct services in %d requests, want %d", len(seen), srv.count(), total)
			}
			for id, n := range seen {
				if n != 1 {
					t.Fatalf("%s yielded %d times", id, n)
				}
			}
		})
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
			b.ReportMetric(float64((services+maxServicesLimit-1)/maxServicesLimit+1), "minimum/op")
		})
	}
}

func TestWalksOnOneClientShareWhatItDownloads(t *testing.T) {
	// Two loops over the unread listing on one Client at once: one
	// downloads each document it is given, the other reads only. The
	// reader's rows that the downloader takes out are downloads of the
	// same Client, so the reader takes them for its own doing; each loop
	// hands out no document twice, the downloader every one, and once
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
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("errors %v", errs)
	}
	checkOnce(t, "the downloading loop", downloaded, s.required())
	for id, n := range read {
		if n != 1 {
			t.Fatalf("the reading loop was given %s %d times", id, n)
		}
	}
	if n := c.watch().n.Load(); n != 0 {
		t.Fatalf("%d walks still watched after both loops ended", n)
	}
}

func TestAWalkForgetsWhatItWatchedWhenTheLoopBreaks(t *testing.T) {
	s := newGenServer(50)
	c := genClient(t, s)
	for range c.Documents.All(context.Background(), nil) {
		if n := c.watch().n.Load(); n != 1 {
			t.Fatalf("%d walks watched during the loop, want 1", n)
		}
		break
	}
	if n := c.watch().n.Load(); n != 0 {
		t.Fatalf("%d walks watched after the loop broke, want 0", n)
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
