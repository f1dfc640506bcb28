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
	"testing"

	"github.com/google/uuid"
	"pgregory.net/rapid"
)

// Stable listings (services, resources, compliance events, invoices, read
// documents: the loop's own calls cannot change them), proven on
// generated servers, as TestPagingOnGeneratedServers does for the unread
// listing.
//
// TestStableListingsOnGeneratedServers draws a services API from a family
// of servers and a consumer of Services.All (or of Invoices.All, whose
// paging the API does not document), and checks: a loop that runs to the
// end without an error was handed the listing as the server lists it,
// every row there from the start, in order, then a prefix of the rows
// added while it ran, nothing twice that the server did not list twice;
// a loop that breaks, is cancelled or meets an error was handed a prefix
// of it; ErrPagingIgnored comes only from a server that ignores the
// offset, only when its first page is exactly as long as the limit, and
// never from Invoices.All (it takes that page for the whole listing);
// when the loop returns, no request of it is still in flight; and the
// requests stay within costBound (pages + 2 on a well-behaved server).
//
// The family: pages capped below the limit asked (by a server that
// honours the offset; see TestPagingOnGeneratedServers for why the family
// leaves the pair out); the limit, the offset, or both ignored; rows listed
// twice, next to each other or a row or two apart; pages that open with
// the listing's first row besides the rows asked for; rows added at the end
// while the loop runs, up to 20 (by a server that honours the offset: one
// that ignores it and grows answers a longer first page at every offset,
// which no client can tell from a listing that repeats its rows; and a
// listing that grows for ever, by a page or more per request, is read for
// ever, as a listing that long would be); answers that
// arrive out of order (the read-ahead's requests run concurrently and the
// server yields at random inside them); a 503 on a request, not retried.
// The consumers: a loop to the end, fast or slow (it yields between rows,
// so the read-ahead deepens), a break, a cancel, and any page size.

// stableServer is one server of the family.
type stableServer struct {
	cap          int  // the most rows a page holds; 0 for no cap
	ignoreOffset bool // every answer starts at the first row
	ignoreLimit  bool // every answer runs to the end
	// padFirst opens every answer with the listing's first row, besides
	// the rows asked for: a full page is longer than the limit, and is not
	// the rest of the listing.
	padFirst bool
	addEvery int // a row is added at the end every addEvery requests; 0 never
	addMax   int // the most rows added in all
	failAt   int // the failAt-th request answers 503; 0 never
	yields   int // the most times a request yields before it is answered

	mu       sync.Mutex
	rng      *genRand
	rows     []uuid.UUID // the listing as the server lists it, repeats included
	initial  int         // rows there from the start
	requests int
	inFlight int
	firstN   int  // rows in the answer to the first request
	repeats  bool // some row is listed twice
}

func drawStableServer(t *rapid.T) *stableServer {
	s := &stableServer{rng: &genRand{s: rapid.Uint64Min(1).Draw(t, "seed")}}
	switch rapid.IntRange(0, 5).Draw(t, "paging") {
	case 0:
		s.ignoreOffset = true
	case 1:
		s.ignoreLimit = true
	case 2:
		// The whole listing in every answer, longer than the limit or not.
		s.ignoreOffset, s.ignoreLimit = true, true
	}
	if !s.ignoreOffset {
		if rapid.Bool().Draw(t, "capped") {
			s.cap = rapid.IntRange(1, 9).Draw(t, "cap")
		}
		if rapid.Bool().Draw(t, "grows") {
			s.addEvery = rapid.IntRange(1, 4).Draw(t, "addEvery")
			s.addMax = rapid.IntRange(1, 20).Draw(t, "addMax")
		}
	}
	if rapid.IntRange(0, 4).Draw(t, "failing") == 0 {
		s.failAt = rapid.IntRange(1, 12).Draw(t, "failAt")
	}
	s.yields = rapid.IntRange(0, 8).Draw(t, "yields")
	n := rapid.IntRange(0, 80).Draw(t, "rows")
	dups := rapid.IntRange(0, 3).Draw(t, "dupRate")
	gap := rapid.IntRange(0, 2).Draw(t, "dupGap")
	// A server that pads its pages with the listing's first row (see
	// TestPagingOnGeneratedServers for why not one that lists a row twice).
	if !s.ignoreOffset && !s.ignoreLimit && s.cap == 0 && dups == 0 {
		s.padFirst = rapid.IntRange(0, 3).Draw(t, "padFirst") == 0
	}
	// A row listed twice shows its second row gap rows after its first.
	twice := make([]bool, n)
	for i := range n {
		twice[i] = dups > 0 && s.rng.intn(dups+1) == 0
		s.repeats = s.repeats || twice[i]
	}
	for i := range n {
		s.rows = append(s.rows, numberedID(i))
		if j := i - gap; j >= 0 && twice[j] {
			s.rows = append(s.rows, numberedID(j))
		}
	}
	for j := max(n-gap, 0); j < n; j++ {
		if twice[j] {
			s.rows = append(s.rows, numberedID(j))
		}
	}
	return s
}

// start fixes the rows there from the start, once the draw is done.
func (s *stableServer) start() { s.initial = len(s.rows) }

func (s *stableServer) describe() string {
	return fmt.Sprintf("rows %d, cap %d, ignoreOffset %v, ignoreLimit %v, padFirst %v, addEvery %d, failAt %d",
		s.initial, s.cap, s.ignoreOffset, s.ignoreLimit, s.padFirst, s.addEvery, s.failAt)
}

// RoundTrip answers a request for a page of services, or of invoices
// (the same rows).
func (s *stableServer) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path != "/services" && r.URL.Path != "/invoices" {
		return nil, fmt.Errorf("unexpected request %s", r.URL.Path)
	}
	s.mu.Lock()
	s.inFlight++
	s.requests++
	seq := s.requests
	yields := s.rng.intn(s.yields + 1)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	// Let other requests overtake this one.
	for range yields {
		runtime.Gosched()
	}
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Request: r, ProtoMajor: 1, ProtoMinor: 1}
	if seq == s.failAt {
		resp.StatusCode = http.StatusServiceUnavailable
		resp.Body = io.NopCloser(strings.NewReader(`{"success":false,"message":"unavailable"}`))
		return resp, nil
	}
	resp.Body = io.NopCloser(strings.NewReader(s.page(seq, r.URL.Query())))
	return resp, nil
}

// page is the answer to request seq.
func (s *stableServer) page(seq int, q map[string][]string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.addEvery > 0 && seq%s.addEvery == 0 && len(s.rows) < s.initial+s.addMax {
		s.rows = append(s.rows, numberedID(10_000+len(s.rows)))
	}
	limit, _ := strconv.Atoi(first(q["limit"]))
	offset, _ := strconv.Atoi(first(q["offset"]))
	if s.ignoreOffset {
		offset = 0
	}
	size := limit
	if s.cap > 0 {
		size = min(size, s.cap)
	}
	offset = min(offset, len(s.rows))
	end := min(offset+size, len(s.rows))
	if s.ignoreLimit {
		end = len(s.rows)
	}
	if seq == 1 {
		s.firstN = end - offset
	}
	page := s.rows[offset:end]
	if s.padFirst && len(s.rows) > 0 {
		page = append([]uuid.UUID{s.rows[0]}, page...)
	}
	var b strings.Builder
	b.WriteString(`{"success":true,"result":[`)
	for i, id := range page {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%q,"status":"active"}`, id)
	}
	b.WriteString(`]}`)
	return b.String()
}

// stableConsumer is one consumer of the family.
type stableConsumer struct {
	// invoices reads Invoices.All, whose paging the API does not
	// document, rather than Services.All.
	invoices bool
	limit    int
	slow     bool // yields between rows
	breakAt  int  // breaks after this many rows; 0 never
	cancelAt int  // cancels the context after this many rows; 0 never
}

func drawStableConsumer(t *rapid.T) stableConsumer {
	c := stableConsumer{limit: rapid.SampledFrom([]int{1, 2, 3, 5, 8, 20, 100}).Draw(t, "limit")}
	c.invoices = rapid.IntRange(0, 3).Draw(t, "invoices") == 0
	c.slow = rapid.Bool().Draw(t, "slow")
	switch rapid.IntRange(0, 3).Draw(t, "stops") {
	case 0:
		c.breakAt = rapid.IntRange(1, 40).Draw(t, "breakAt")
	case 1:
		c.cancelAt = rapid.IntRange(1, 40).Draw(t, "cancelAt")
	}
	return c
}

// stableOutcome is what a consumer was handed and how it ended.
type stableOutcome struct {
	got      []uuid.UUID
	err      error
	inFlight int // requests in flight when the loop had returned
}

func (c stableConsumer) run(s *stableServer) stableOutcome {
	cl := newGenClient(s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var o stableOutcome
	ids := func(yield func(uuid.UUID, error) bool) {
		for svc, err := range cl.Services.All(ctx, &ServiceListParams{Limit: c.limit}) {
			if !yield(svc.ID, err) {
				return
			}
		}
	}
	if c.invoices {
		ids = func(yield func(uuid.UUID, error) bool) {
			for inv, err := range cl.Invoices.All(ctx, &InvoiceListParams{Limit: c.limit}) {
				if !yield(inv.ID, err) {
					return
				}
			}
		}
	}
	for id, err := range ids {
		if err != nil {
			o.err = err
			break
		}
		o.got = append(o.got, id)
		if c.slow {
			runtime.Gosched()
		}
		if len(o.got) == c.breakAt {
			break
		}
		if len(o.got) == c.cancelAt {
			cancel()
		}
	}
	s.mu.Lock()
	o.inFlight = s.inFlight
	s.mu.Unlock()
	return o
}

func (c stableConsumer) check(t *rapid.T, s *stableServer, o stableOutcome) {
	s.mu.Lock()
	rows := append([]uuid.UUID(nil), s.rows...)
	firstN := s.firstN
	s.mu.Unlock()
	if o.inFlight != 0 {
		t.Fatalf("%d requests still in flight after the loop returned", o.inFlight)
	}
	if s.padFirst {
		c.checkPadded(t, s, o)
		return
	}
	// Whatever happened, the rows handed out are the listing's, in order.
	if len(o.got) > len(rows) {
		t.Fatalf("handed %d rows of a listing of %d", len(o.got), len(rows))
	}
	for i, id := range o.got {
		if rows[i] != id {
			t.Fatalf("row %d is %s, want %s (handed %d rows)", i, id, rows[i], len(o.got))
		}
	}
	stoppedEarly := (c.breakAt > 0 && len(o.got) == c.breakAt) || (c.cancelAt > 0 && len(o.got) >= c.cancelAt)
	switch {
	case errors.Is(o.err, ErrPagingIgnored):
		// Only a full page of the limit's length, at every offset, is
		// taken for that: a longer one is the whole listing.
		if !s.ignoreOffset || firstN != c.limit || c.invoices {
			t.Fatalf("ErrPagingIgnored from a server that %s, first page %d rows of %d", s.describe(), firstN, c.limit)
		}
	case s.ignoreOffset && firstN == c.limit && s.initial > c.limit && !stoppedEarly && s.failAt == 0 && !c.invoices:
		// (Invoices, whose paging is not documented, take the repeated
		// page for the whole listing: checked below.)
		t.Fatalf("a server that ignores the offset, with rows out of reach, gave %v after %d rows", o.err, len(o.got))
	case o.err != nil:
		var ae *APIError
		switch {
		case errors.As(o.err, &ae) && ae.StatusCode == http.StatusServiceUnavailable && s.failAt > 0:
		case errors.Is(o.err, context.Canceled) && c.cancelAt > 0:
		default:
			t.Fatalf("unexpected error %v", o.err)
		}
	case !stoppedEarly:
		// Ran to the end: every row there from the start.
		if s.ignoreOffset {
			if want := min(firstN, len(rows)); len(o.got) != want {
				t.Fatalf("a server that ignores the offset: handed %d rows, want its %d once", len(o.got), want)
			}
			return
		}
		if len(o.got) < s.initial {
			t.Fatalf("handed %d rows of the %d there from the start", len(o.got), s.initial)
		}
	}
}

// checkPadded checks a consumer of a server that opens every page with
// the listing's first row: no client can tell those pages from the
// listing's rows, so the loop is handed every row there from the start,
// or meets an error that matches ErrPagingIgnored (a page longer than the
// limit, and rows of it again past it), never a quiet end short of them.
func (c stableConsumer) checkPadded(t *rapid.T, s *stableServer, o stableOutcome) {
	stoppedEarly := (c.breakAt > 0 && len(o.got) == c.breakAt) || (c.cancelAt > 0 && len(o.got) >= c.cancelAt)
	var ae *APIError
	switch {
	case errors.Is(o.err, ErrPagingIgnored):
		if !strings.Contains(o.err.Error(), "longer than the limit") {
			t.Fatalf("a padding server ended the loop with %v", o.err)
		}
	case errors.As(o.err, &ae) && ae.StatusCode == http.StatusServiceUnavailable && s.failAt > 0:
	case errors.Is(o.err, context.Canceled) && c.cancelAt > 0:
	case o.err != nil:
		t.Fatalf("unexpected error %v", o.err)
	case !stoppedEarly:
		got := map[uuid.UUID]bool{}
		for _, id := range o.got {
			got[id] = true
		}
		for _, id := range s.rows[:s.initial] {
			if !got[id] {
				t.Fatalf("a padding server: the loop ended without an error, and row %s was never handed (%d handed)", id, len(o.got))
			}
		}
	}
}

func TestStableListingsOnGeneratedServers(t *testing.T) {
	if !flagGiven("rapid.checks") {
		defer setFlag(t, "rapid.checks", strconv.Itoa(genChecks))()
	}
	rapid.Check(t, func(t *rapid.T) {
		s := drawStableServer(t)
		s.start()
		c := drawStableConsumer(t)
		c.check(t, s, runCase(t, s.describe, c, func() stableOutcome { return c.run(s) }))
		c.checkCost(t, s)
	})
}

// wellBehaved reports whether s pages honestly and does not change.
func (s *stableServer) wellBehaved() bool {
	return s.cap == 0 && !s.ignoreOffset && !s.ignoreLimit && !s.padFirst && s.addEvery == 0 && !s.repeats && s.failAt == 0
}

// costBound is the most requests c may cost on s: on a well-behaved
// server, pages + 2 (the read-ahead asks for at most one page past the
// empty one, or two past a short last page); on the others, the bound
// stated in RELIABILITY.md: a request for each page of the rows a page
// brings (the limit, or the server's cap), over every row listed at the
// end (repeats and additions included), one for each row added (a
// listing that grows as it is read is read until it stops), plus
// ignoredAfter (an ignored offset) and maxReadAhead (pages read ahead past
// the end).
func (c stableConsumer) costBound(s *stableServer) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wellBehaved() {
		return (s.initial+c.limit-1)/c.limit + 2
	}
	stride := c.limit
	if s.cap > 0 {
		stride = min(stride, s.cap)
	}
	return (len(s.rows)+stride-1)/stride + len(s.rows) - s.initial + ignoredAfter + maxReadAhead
}

// checkCost checks the requests c cost on s against costBound.
func (c stableConsumer) checkCost(t *rapid.T, s *stableServer) {
	b := c.costBound(s)
	s.mu.Lock()
	n := s.requests
	s.mu.Unlock()
	if n > b {
		t.Fatalf("%d requests, want at most %d (limit %d; %s)", n, b, c.limit, s.describe())
	}
}
