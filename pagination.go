package acctadmin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/acctadmin/acctadmin-go/internal/paging"
	"github.com/google/uuid"
)

// The API pages its listings by limit and offset and says nothing of
// totals. Servers do not all keep to that: some cap a page below the limit
// asked for, some list a row twice, some serve the unread listing from a
// replica that trails the read marks, and some ignore limit or offset. So
// a page shorter than the limit is not taken for the last one: a listing
// ends with an empty page, or a page shorter than one before it, or a
// page longer than asked for that shows each row once: the rest of the
// listing, the limit being ignored. A longer page that shows a row twice
// may be a page the API added rows to (a copy of the first row, say): the
// page past it tells. When that page repeats its rows, a stable listing
// ends with an error matching ErrPagingIgnored; a walk reads on, as far
// as the limit into each such page.
//
// Every All method is one call of paginate, which has two strategies:
//
//   - Stable listings (the loop's own calls cannot change them) are read
//     ahead: while the caller works through page k, page k+1 is already on
//     its way, so N pages cost about N round trips of wall time rather
//     than N round trips plus the caller's work; when the loop is faster
//     than the API, more pages are asked for at once (up to maxReadAhead).
//     Each page is asked for at the offset the rows before it reached, so
//     a short page (a server that caps its pages) drops the pages read
//     ahead of it and reads on from where it ended.
//
//   - Shrinking listings (unread documents: downloading one marks it read
//     and takes it out of the listing) are walked (see package
//     internal/paging), one request at a time, each anchored past the rows
//     that can no longer leave the listing; a walk is followed by another
//     only when an answer showed that someone else changed the listing.
//
// Breaking out of the loop, or cancelling the context, stops the fetcher;
// no goroutine outlives the loop. An error is yielded once and ends it. A
// panic on a goroutine the engine started (a hook called while a page is
// read ahead) is raised again on the loop's goroutine.
//
// An API that ignores the offset answers every offset with the same rows.
// A page is taken for that only when it comes back ignoredAfter times
// running at later offsets (a listing may repeat a row, so twice proves
// nothing); then a full page ends the listing with ErrPagingIgnored (the
// rest is out of reach), and a shorter one ends it quietly (the API sent
// its whole listing, and would send it again). Rows without an id are told
// apart by their content.

// fetchPage reads one page of a listing.
type fetchPage[T any] func(ctx context.Context, limit, offset int) ([]T, error)

// listing describes one All call.
type listing[T any] struct {
	invalid error // a validation error to yield instead of fetching
	limit   int   // the page size asked for; 0 for the endpoint's maximum
	max     int   // the endpoint's maximum page size
	offset  int   // where to start
	fetch   fetchPage[T]
	// id identifies an item. It lets the engine notice an API that ignores
	// limit or offset (a page that repeats the one before ends the listing)
	// and, for a shrinking listing, skip what was already yielded.
	id func(T) uuid.UUID
	// shrinks marks a listing that the loop's own calls can shrink.
	shrinks bool
	// watch, for a shrinking listing, is the client's downloadWatch: All
	// learns from it what its loop downloaded.
	watch *downloadWatch
	// unpaged marks a listing whose paging the API does not document: a
	// full page repeated means the API sent the whole listing at once, and
	// ends it quietly rather than with ErrPagingIgnored. A short page does
	// not end it, as it does not end any listing (a server that caps its
	// pages sends one).
	unpaged bool
}

// pageParams is the params struct of a listing: it checks itself and hands
// out its paging fields, so that a copy of it can ask for any page.
type pageParams[P any] interface {
	*P
	validate() error
	paging() (limit, offset *int)
}

// listingOf describes the All of a listing whose pages come from list,
// called with a copy of p (nil is the zero params) at each page's limit and
// offset; max is the endpoint's largest page and id tells records apart.
func listingOf[T, P any, PP pageParams[P]](p PP, max int, list func(context.Context, PP) ([]T, error), id func(T) uuid.UUID) listing[T] {
	if p == nil {
		p = new(P)
	}
	limit, offset := p.paging()
	return listing[T]{
		invalid: p.validate(), limit: *limit, max: max, offset: *offset, id: id,
		fetch: func(ctx context.Context, limit, offset int) ([]T, error) {
			q := *p
			ql, qo := PP(&q).paging()
			*ql, *qo = limit, offset
			return list(ctx, &q)
		},
	}
}

func paginate[T any](ctx context.Context, l listing[T]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		if l.invalid != nil {
			yield(zero, l.invalid)
			return
		}
		if ctx == nil {
			yield(zero, nilContext())
			return
		}
		if l.limit == 0 {
			l.limit = l.max
		}
		if l.shrinks && l.id != nil {
			l.shrinking(ctx, yield)
		} else {
			l.ahead(ctx, yield)
		}
	}
}

// ending is how a function that the SDK ran for its caller ended, when it
// did not return: by a panic, or by runtime.Goexit.
type ending struct {
	panicked bool
	value    any  // the panic's value
	goexit   bool // it called runtime.Goexit
}

// errGoexit stands for a runtime.Goexit on a goroutine of the SDK, which
// can only be reported, not raised again.
var errGoexit = errors.New("acctadmin: runtime.Goexit called on a goroutine of the SDK")

// guard runs f, then done with how f ended. done runs even when f panics
// (the panic is stopped there, to be raised again on the caller's
// goroutine) or calls runtime.Goexit (the goroutine then ends after done):
// a goroutine the SDK starts always says how it ended.
func guard(f func(), done func(ending)) {
	var e ending
	returned := false
	defer func() {
		if !returned {
			if v := recover(); v != nil {
				e.panicked, e.value = true, v
			} else {
				e.goexit = true
			}
		}
		done(e)
	}()
	f()
	returned = true
}

// raise raises a panic again on the calling goroutine, and turns a Goexit
// into errGoexit.
func (e ending) raise() error {
	if e.panicked {
		panic(e.value)
	}
	if e.goexit {
		return errGoexit
	}
	return nil
}

// responseInto is the *Response a caller asked WithResponseInto to fill,
// or nil.
func responseInto(ctx context.Context) *Response {
	dst, _ := ctx.Value(responseKey{}).(*Response)
	return dst
}

// page is a page read ahead.
type page[T any] struct {
	offset int
	items  []T
	err    error
	end    ending
	resp   *Response // the answer's metadata, when the caller asked for it
}

// maxReadAhead bounds how far a stable listing reads ahead of the loop:
// at most this many pages are requested and not yet handed to the loop
// (in flight, or arrived and waiting), besides the page the loop is on.
// It is also what reading ahead may cost past the end of a listing: the
// empty page (or the short last one) and one page more.
const maxReadAhead = 2

// ignoredAfter is how many times running a page must be answered, at
// later offsets, before the API is taken to ignore the offset.
const ignoredAfter = paging.IgnoredAfter

// maxPasses bounds the passes of a walk over a shrinking listing.
const maxPasses = paging.MaxPasses

// pageAhead is a page asked for and not yet taken.
type pageAhead[T any] struct {
	ch     chan page[T]
	cancel context.CancelFunc
}

// ahead reads a stable listing ahead of the caller. It starts one page
// ahead; each time the loop gets to a page that has not arrived yet (the
// loop is faster than the API), it asks for one more page at once, up to
// maxReadAhead. Pages are handed to the loop in order, whatever order they
// arrive in. A page that comes back shorter than the pages before it (a
// server that caps its pages, or the end) moves the rows on by less than
// the pages read ahead assumed: those are dropped, and reading goes on
// from where that page ended, one page ahead. The pages dropped, and those
// asked for past the end of the listing, are let finish while the loop
// works (every request sent gets its answer); breaking out of the loop, or
// an error, cancels whatever is still in flight.
//
// Each page's request gets its own *Response when the caller asked for
// one with WithResponseInto; the loop's goroutine copies it into the
// caller's as it takes the page, so nothing is written from two
// goroutines.
func (l *listing[T]) ahead(ctx context.Context, yield func(T, error) bool) {
	into := responseInto(ctx)
	ctx, cancel := context.WithCancel(ctx)
	r := &aheadReader[T]{l: l, ctx: ctx, into: into, want: l.offset, next: l.offset, stride: l.limit, depth: 1}
	defer func() {
		cancel()
		r.drop()
		r.wait() // every fetcher ends with the loop
	}()
	var zero T
	for taken := 0; ; taken++ {
		p := r.take(taken)
		if p.err != nil {
			yield(zero, p.err)
			return
		}
		n := len(p.items)
		repeated := r.prev != nil && n > 0 && paging.SamePage(l.id, r.prev, p.items)
		if stop, err := r.check(p.items, repeated); stop {
			if err != nil {
				yield(zero, err)
				return
			}
			r.drop()
			r.wait() // a quiet end: the pages asked for past it finish
			return
		}
		last := r.plan(p.items)
		if !r.hand(p.items, repeated, yield) {
			return
		}
		if last {
			r.wait() // the pages asked for past the end finish
			return
		}
		r.prev, r.short = p.items, n < l.limit
	}
}

// aheadReader is the state of one read-ahead (see ahead).
type aheadReader[T any] struct {
	l      *listing[T]
	ctx    context.Context
	into   *Response      // the caller's, when it asked WithResponseInto
	queue  []pageAhead[T] // pages asked for and not yet taken, in order
	stale  []pageAhead[T] // pages dropped, their answers not needed
	want   int            // the offset of the next row the loop needs
	next   int            // the offset of the next page to ask for
	stride int            // the rows a page brings: the limit, or the server's cap
	depth  int            // how many pages to keep asked for ahead of the loop
	prev   []T            // the page before
	short  bool           // it was shorter than the limit: the end is likely, so do not read deeper
	held   [][]T          // pages equal to the one before, not yielded until the offset is seen honoured
}

// start asks for the page at next.
func (r *aheadReader[T]) start() {
	pctx, pcancel := context.WithCancel(r.ctx)
	p := pageAhead[T]{ch: make(chan page[T], 1), cancel: pcancel}
	go r.l.fetchAhead(pctx, r.into != nil, r.next, p.ch)
	r.next += r.stride
	r.queue = append(r.queue, p)
}

// fill asks for pages until depth of them are asked for.
func (r *aheadReader[T]) fill() {
	for len(r.queue) < r.depth {
		r.start()
	}
}

// drop forgets the pages asked for; they are let finish (wait).
func (r *aheadReader[T]) drop() {
	r.stale = append(r.stale, r.queue...)
	r.queue = nil
}

// wait waits for the pages dropped.
func (r *aheadReader[T]) wait() {
	for _, p := range r.stale {
		<-p.ch
		p.cancel()
	}
	r.stale = nil
}

// take waits for the next page, the taken-th, and hands over its answer's
// metadata when the caller asked for it. A loop that has to wait for the
// API makes the reader read further ahead. (The first page is always
// waited for; it says nothing of the loop.)
func (r *aheadReader[T]) take(taken int) page[T] {
	if len(r.queue) == 0 {
		r.start()
	}
	var p page[T]
	select {
	case p = <-r.queue[0].ch:
	default:
		if taken > 0 && !r.short && r.depth < maxReadAhead {
			r.depth++
			r.fill()
		}
		p = <-r.queue[0].ch
	}
	r.queue[0].cancel()
	r.queue = r.queue[1:]
	if err := p.end.raise(); err != nil {
		p.err = err
	}
	if r.into != nil {
		*r.into = *p.resp
	}
	return p
}

// check says whether the page items ends the listing before it is handed
// out, and with which error: repeated says it is the page before again.
func (r *aheadReader[T]) check(items []T, repeated bool) (stop bool, err error) {
	l, n := r.l, len(items)
	if len(r.prev) > l.limit && n > 0 {
		// The page before was longer than asked for, and showed a row
		// twice: the rest of the listing (the API ignored the limit),
		// unless this page shows otherwise. The same page again is the
		// whole listing again (the offset ignored too); rows of it again
		// mean it was not the rest of the listing, and the offset past
		// it skipped rows no request can reach.
		if repeated {
			return true, nil
		}
		if paging.Overlaps(l.id, r.prev, items) {
			return true, errLongPageNotWhole
		}
	}
	if repeated && len(r.held)+2 >= ignoredAfter {
		// The same page again and again: the API ignores the offset. A
		// full page leaves the rest of the listing out of reach; a
		// shorter one was the whole listing.
		if n >= l.limit && !l.unpaged {
			return true, ErrPagingIgnored
		}
		return true, nil
	}
	return false, nil
}

// plan asks for the pages past items, the page the loop is given, and
// says whether it is the last.
func (r *aheadReader[T]) plan(items []T) (last bool) {
	l, n := r.l, len(items)
	r.want += n
	// The end: an empty page; a page shorter than the one before (a
	// server that caps its pages makes them all as long, but the last);
	// or a page longer than asked for that holds each row once (the API
	// ignored the limit and sent the rest of the listing). A short page
	// is not the end, even of a listing the API does not page: a server
	// that caps its pages sends one too, and the next page tells. A
	// longer page that shows a row twice may be a page the API added rows
	// to: the page past it tells.
	long := n > l.limit
	last = n == 0 || n < len(r.prev) || long && !paging.HoldsRowTwice(l.id, items)
	switch {
	case last:
		r.drop()
		return true
	case long:
		r.drop()
		r.next, r.depth = r.want, 1
	case n != r.stride:
		// A short page: the pages read ahead assumed longer ones.
		r.drop()
		r.next, r.stride, r.depth = r.want, n, 1
	}
	r.fill()
	return false
}

// hand yields the rows of items, after the pages held back before it,
// unless it repeats the page before: it is held back too, until the API
// is seen to honour the offset. It reports false when the loop stopped.
func (r *aheadReader[T]) hand(items []T, repeated bool, yield func(T, error) bool) bool {
	if repeated {
		r.held = append(r.held, items)
		return true
	}
	for _, h := range append(r.held, items) {
		for _, item := range h {
			if !yield(item, nil) {
				return false
			}
		}
	}
	r.held = nil
	return true
}

// fetchAhead reads the page at offset into ch, with its own *Response
// when meta is set.
func (l *listing[T]) fetchAhead(ctx context.Context, meta bool, offset int, ch chan<- page[T]) {
	p := page[T]{offset: offset}
	if meta {
		p.resp = new(Response)
		ctx = context.WithValue(ctx, responseKey{}, p.resp)
	}
	guard(func() { p.items, p.err = l.fetch(ctx, l.limit, offset) }, func(e ending) {
		p.end = e
		ch <- p
	})
}

// errLongPageNotWhole ends a listing whose page longer than the limit was
// followed by rows of it again: the API neither keeps to the limit nor
// sends the rest of the listing, so the offset past that page may have
// skipped rows. It matches ErrPagingIgnored.
var errLongPageNotWhole error = pagingError("acctadmin: the API sent a page longer than the limit, then rows of it again past it: it does not page as asked, and the rest of the listing cannot be reached")

// pagingError is an error of a listing that the API does not page as
// asked; it matches ErrPagingIgnored.
type pagingError string

func (e pagingError) Error() string { return string(e) }

// Is reports whether target is ErrPagingIgnored.
func (e pagingError) Is(target error) bool { return target == ErrPagingIgnored }

// shrinking reads a listing that the loop body may shrink by removing the
// items it is given (All over the unread documents, downloading each). It
// is a walk (see package internal/paging) whose consumer is the loop body: an item yielded
// from an answer has been dealt with before the next request is sent.
// Items without an id are yielded the first time the walk passes over
// them.
func (l *listing[T]) shrinking(ctx context.Context, yield func(T, error) bool) {
	var zero T
	seen := l.watch.start()
	defer l.watch.end(seen)
	pl := paging.Listing[T]{Limit: l.limit, Max: l.max, Start: l.offset, ID: l.id, Unpaged: l.unpaged, Shrinks: true, YieldsIDless: true}
	if seen != nil {
		pl.StatusOf = seen.status
	} else {
		pl.ConsumerUnknown = true // nothing tells what the loop did: confirm every pass
	}
	w := paging.NewWalk(pl)
	for {
		seq, offset, limit := w.Request()
		items, err := l.fetch(ctx, limit, offset)
		if err != nil {
			yield(zero, err)
			return
		}
		out, _, step := w.Answer(seq, offset, items)
		for _, item := range out {
			if id := l.id(item); id != uuid.Nil {
				w.MarkHandled(id, int32(seq)) // dealt with before the next request
				if seen != nil {
					seen.add(id)
				}
			}
			if !yield(item, nil) {
				return
			}
		}
		if err := stepErr(step); err != nil || step == paging.StepDone {
			if err != nil {
				yield(zero, err)
			}
			return
		}
	}
}

// stepErr is the error a walk's step ends the listing with, if any.
func stepErr(s paging.Step) error {
	switch s {
	case paging.StepIgnored:
		return ErrPagingIgnored
	case paging.StepUnsettled:
		return ErrListingUnsettled
	}
	return nil
}

// A pull drains a listing the way Documents.Pull does: a pool of workers
// opens each item (a download, which takes it out of a shrinking listing)
// and hands it to the caller's function, while a walk (see package internal/paging) reads the
// listing under them. Unlike a worker pool fed from All, the pull knows
// which downloads are in flight when it asks for the next page: an item
// counts as gone for good only once its download has answered, so the
// walk never anchors a request on an item that may still vanish. A
// request that cannot move forward (its first row's download has not
// answered yet) waits for a download to answer first, so the pull never
// asks for the same page twice in a row for nothing.

// The number of workers of a pull: the default, and the most it may have.
const (
	defaultPullWorkers = 4
	maxPullWorkers     = 32
)

// pullTally is the running count of a pull.
type pullTally struct {
	done, failed, skipped, keptOut, locked int
	bytes                                  int64
}

// pullRun is one pull.
type pullRun[T any] struct {
	l       listing[T]
	workers int // 0 for defaultPullWorkers
	open    func(context.Context, T) (*File, error)
	fn      func(context.Context, T, *File) error
	// skip, when set, keeps an item out: it is not opened.
	skip func(T) bool
	// before, when set, runs on the worker before the item is opened: an
	// error matching ErrSkipDocument leaves the item alone (it is not
	// opened, and counts as kept out); any other stops the pull, and the
	// item, never opened, is not unfinished.
	before func(context.Context, T) error
	// report, when set, is told of each item handed out once it is done
	// with, and of each item kept out; it is called by the pull's own
	// goroutine, one call at a time.
	report func(item T, err error, t pullTally)
}

// pullJob is an item given to a worker.
type pullJob[T any] struct {
	item   T
	id     uuid.UUID
	seq    int  // the order in which items were handed out: the listing's
	opened bool // its download answered (or it ended without one)
}

// pullEvent is what a worker tells the pull: a download answered, or an
// item is done with (every job gets one of each, the first maybe not when
// the download ended abnormally).
type pullEvent[T any] struct {
	job   *pullJob[T]
	done  bool
	err   error
	bytes int64
	end   ending // how the worker's call ended, for a done event
	// For a done event: declined says that before left the item alone;
	// opened that its download was asked for (so, unless fn returned nil,
	// it is unfinished); where names the step a panic or Goexit came from.
	declined, opened bool
	where            string
	// locked says that the download was refused as payment-locked
	// (ErrPaymentRequired): the item stays in the listing, and the pull
	// goes on without it.
	locked bool
}

// pullAnswer is the answer to one listing request.
type pullAnswer[T any] struct {
	seq, offset int
	items       []T
	err         error
	end         ending
	resp        *Response
}

// countingBody counts the bytes read through it.
type countingBody struct {
	io.ReadCloser
	n atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// run drains the listing. It returns nil when every item listed was handed
// to fn and fn returned nil for each, a *ValidationError when the pull's
// parameters are bad (before anything is sent), or a *PullError.
func (r *pullRun[T]) run(ctx context.Context) error {
	l := &r.l
	switch {
	case ctx == nil:
		return nilContext()
	case r.workers < 0 || r.workers > maxPullWorkers:
		return invalid("workers", "must be 0 to %d, got %d", maxPullWorkers, r.workers)
	case r.fn == nil:
		return invalid("fn", "is required")
	case l.invalid != nil:
		return l.invalid
	}
	if r.workers == 0 {
		r.workers = defaultPullWorkers
	}
	if l.limit == 0 {
		l.limit = l.max
	}
	// The pull knows what became of each download: the walk goes by what
	// it is told (MarkStatus).
	pl := paging.Listing[T]{Limit: l.limit, Max: l.max, Start: l.offset, ID: l.id, Unpaged: l.unpaged, Shrinks: l.shrinks}
	p := &puller[T]{r: r, walk: paging.NewWalk(pl), into: responseInto(ctx), ctx: ctx}
	if p.into != nil {
		// Only the pull's own goroutine fills the caller's *Response.
		p.ctx = context.WithValue(ctx, responseKey{}, (*Response)(nil))
	}
	p.lctx, p.cancelList = context.WithCancel(ctx)
	defer p.cancelList()
	return p.drain()
}

// puller is the state of one pull, kept by the goroutine that called
// Pull; the workers and the listing requests only send it events.
type puller[T any] struct {
	r    *pullRun[T]
	walk *paging.Walk[T]
	ctx  context.Context // the workers'
	// lctx is the listing requests', cancelled when the pull stops.
	lctx       context.Context
	cancelList context.CancelFunc
	into, last *Response // the caller's *Response, and the last listing answer's

	jobs    chan *pullJob[T]
	events  chan pullEvent[T]
	answers chan pullAnswer[T]
	wg      sync.WaitGroup

	pending     []*pullJob[T] // listed, not handed to a worker yet
	handed      int           // items handed to a worker
	inFlight    int           // handed to a worker and not done with
	listing     bool          // a listing request is out
	listed      bool          // the walk is over
	waiting     bool          // the last answer could not move on: wait for a download
	openedSince int           // downloads answered since the last listing request
	failed      []*pullJob[T]
	tally       pullTally

	stopping bool
	ended    error     // why the walk ended early, once what it gave is done
	err      error     // the first error
	errItem  uuid.UUID // the item it is about
	errEarly bool      // the item was never opened: its before step failed
	end      ending    // the first panic, raised once every goroutine is done
}

// drain runs the pull to its end and says how it went.
func (p *puller[T]) drain() error {
	p.jobs = make(chan *pullJob[T])
	p.events = make(chan pullEvent[T], 2*p.r.workers)
	p.answers = make(chan pullAnswer[T], 1)
	for range p.r.workers {
		p.wg.Add(1)
		go p.work()
	}
	ctxDone := p.ctx.Done()
	for {
		if p.mayList() {
			p.list()
		}
		if p.over() {
			break
		}
		var next chan<- *pullJob[T]
		var job *pullJob[T]
		if !p.stopping && len(p.pending) > 0 {
			next, job = p.jobs, p.pending[0]
		}
		if p.stopping {
			ctxDone = nil
		}
		select {
		case next <- job:
			p.handOut()
		case ev := <-p.events:
			p.workerSaid(ev)
		case a := <-p.answers:
			p.answered(a)
		case <-ctxDone:
			p.stop(p.ctx.Err(), uuid.Nil)
		}
	}
	close(p.jobs)
	p.wg.Wait()
	return p.result()
}

// mayList decides whether to ask for the next page now: one request at a
// time, not past the end, not while more items wait for a worker than
// there are workers, and not again for nothing while the first row of the
// last answer still waits for its download (unless nothing is left to
// answer, which the walk's bookkeeping rules out).
func (p *puller[T]) mayList() bool {
	return !p.stopping && !p.listing && !p.listed && len(p.pending) <= p.r.workers &&
		(!p.waiting || p.inFlight+len(p.pending) == 0) && p.walk.RoomForAPage()
}

// over decides whether the pull is done: nothing asked for is still out,
// and either it stopped or the walk is over and every item was dealt with.
func (p *puller[T]) over() bool {
	return !p.listing && p.inFlight == 0 && (p.stopping || p.listed && len(p.pending) == 0)
}

// list sends the next listing request.
func (p *puller[T]) list() {
	seq, offset, limit := p.walk.Request()
	p.listing, p.openedSince = true, 0
	go func() {
		a := pullAnswer[T]{seq: seq, offset: offset}
		ctx := p.lctx
		if p.into != nil {
			a.resp = new(Response)
			ctx = context.WithValue(ctx, responseKey{}, a.resp)
		}
		guard(func() { a.items, a.err = p.r.l.fetch(ctx, limit, offset) }, func(e ending) {
			a.end = e
			p.answers <- a
		})
	}()
}

// answered takes in a listing answer: new items wait for a worker (or are
// kept out), and the walk says what comes next.
func (p *puller[T]) answered(a pullAnswer[T]) {
	p.listing = false
	if a.resp != nil {
		p.last = a.resp
	}
	if a.end.panicked || a.end.goexit {
		p.abnormal(a.end, "a listing request", uuid.Nil)
		return
	}
	if a.err != nil {
		p.stop(a.err, uuid.Nil)
		return
	}
	out, moved, step := p.walk.Answer(a.seq, a.offset, a.items)
	for _, item := range out {
		p.admit(item)
	}
	p.tally.skipped = p.walk.IDlessPassed()
	p.waiting = !moved && p.openedSince == 0
	switch step {
	case paging.StepDone:
		p.listed = true
	case paging.StepIgnored, paging.StepUnsettled:
		// The listing can be read no further; what it gave is still
		// handed out, and the pull then ends with the reason.
		p.listed, p.ended = true, stepErr(step)
	}
}

// admit takes a new item: kept out, or queued for a worker.
func (p *puller[T]) admit(item T) {
	id := p.r.l.id(item)
	if p.keepOut(item) {
		p.walk.MarkStatus(id, 0, paging.RowStays) // it stays in the listing
		p.tally.keptOut++
		p.report(item, nil)
		return
	}
	p.pending = append(p.pending, &pullJob[T]{item: item, id: id})
}

// keepOut asks skip about item; a panic in it stops the pull and is
// raised again from Pull.
func (p *puller[T]) keepOut(item T) (out bool) {
	if p.r.skip == nil || p.stopping {
		return false
	}
	defer func() {
		if v := recover(); v != nil {
			p.abnormal(ending{panicked: true, value: v}, "Skip", uuid.Nil)
			out = true
		}
	}()
	return p.r.skip(item)
}

// handOut notes that the first pending item went to a worker.
func (p *puller[T]) handOut() {
	job := p.pending[0]
	p.pending[0] = nil
	p.pending = p.pending[1:]
	job.seq = p.handed
	p.handed++
	p.inFlight++
}

// workerSaid takes in what a worker says.
func (p *puller[T]) workerSaid(ev pullEvent[T]) {
	j := ev.job
	if !j.opened {
		// Its download answered (or ended without an answer): from the
		// next request on, the listing shows whether it stays.
		j.opened = true
		p.walk.MarkStatus(j.id, int32(p.walk.Sent()), rowStatusAfter(ev))
		p.openedSince++
		p.waiting = false
	}
	if !ev.done {
		return
	}
	p.inFlight--
	p.tally.bytes += ev.bytes
	var zero T
	if ev.declined {
		// Left alone by the before step: like an item Skip keeps out.
		p.tally.keptOut++
		p.report(j.item, nil)
		j.item = zero
		return
	}
	err := ev.err
	if ev.locked && !ev.end.panicked && !ev.end.goexit {
		p.tally.locked++
		p.report(j.item, err)
		j.item = zero
		return
	}
	if ev.end.panicked || ev.end.goexit {
		err = p.abnormal(ev.end, ev.where, j.id)
	}
	if err == nil {
		p.tally.done++
	} else {
		p.tally.failed++
		if ev.opened {
			p.failed = append(p.failed, j)
		}
		if p.err == nil {
			p.errEarly = !ev.opened
		}
		p.stop(err, j.id)
	}
	p.report(j.item, err)
	j.item = zero // the id is enough from now on
}

// rowStatusAfter is what ev, the first event of a job, says of its row.
func rowStatusAfter[T any](ev pullEvent[T]) paging.RowStatus {
	switch {
	case ev.done && !ev.opened:
		return paging.RowStays // never downloaded: left alone by before, or before failed
	case ev.locked:
		return paging.RowStays // refused as payment-locked: it stays unread
	case !ev.done && ev.err == nil:
		return paging.RowGone // the API marked it read as it answered
	}
	return paging.RowUnknown
}

// abnormal notes a panic or a Goexit where of a goroutine of the pull (or
// of Skip or OnProgress): the pull stops, and a panic is raised again once
// it is over.
func (p *puller[T]) abnormal(e ending, where string, id uuid.UUID) error {
	var err error
	if e.goexit {
		err = fmt.Errorf("%w (in %s)", errGoexit, where)
	} else {
		if !p.end.panicked {
			p.end = e
		}
		err = fmt.Errorf("acctadmin: pull: panic in %s: %v", where, e.value)
	}
	p.stop(err, id)
	return err
}

// stop records the first error and stops starting anything new.
func (p *puller[T]) stop(err error, id uuid.UUID) {
	if p.err == nil {
		p.err, p.errItem = err, id
	}
	if !p.stopping {
		p.stopping = true
		p.cancelList()
	}
}

// report tells OnProgress; a panic in it stops the pull, and it is not
// called again.
func (p *puller[T]) report(item T, err error) {
	if p.r.report == nil {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			p.r.report = nil
			p.abnormal(ending{panicked: true, value: v}, "OnProgress", uuid.Nil)
		}
	}()
	p.r.report(item, err, p.tally)
}

// result is what Pull returns once every goroutine of it is done.
func (p *puller[T]) result() error {
	if p.into != nil && p.last != nil {
		*p.into = *p.last
	}
	if p.end.panicked {
		panic(p.end.value)
	}
	if p.err == nil {
		p.err = p.ended
	}
	if p.err == nil {
		return nil
	}
	// Every item handed out is done with by now: the unfinished are the
	// failed ones, in the order they were handed out, which is the
	// listing's.
	slices.SortFunc(p.failed, func(a, b *pullJob[T]) int { return a.seq - b.seq })
	pe := &PullError{Err: p.err, Document: p.errItem, Done: p.tally.done, early: p.errEarly}
	for _, j := range p.failed {
		pe.Unfinished = append(pe.Unfinished, j.id)
	}
	return pe
}

// work is a worker: it runs the before step of each item it is given,
// opens the item, hands it to fn and closes it, telling the pull at each
// step. A panic or a Goexit in the before step, the download (its hooks)
// or fn is caught and told; after a Goexit the worker ends.
func (p *puller[T]) work() {
	defer p.wg.Done()
	for j := range p.jobs {
		p.serve(j)
	}
}

// serve runs the before step of j's item, then opens it, hands it to fn
// and closes it, even when fn panics or calls runtime.Goexit.
func (p *puller[T]) serve(j *pullJob[T]) {
	fin := pullEvent[T]{job: j, done: true, where: "Before"}
	var f *File
	var body *countingBody
	guard(func() {
		if p.r.before != nil {
			if err := p.r.before(p.ctx, j.item); err != nil {
				fin.declined = errors.Is(err, ErrSkipDocument)
				if !fin.declined {
					fin.err = err
				}
				return
			}
		}
		fin.opened, fin.where = true, "fn"
		var err error
		f, err = p.r.open(p.ctx, j.item)
		locked := errors.Is(err, ErrPaymentRequired)
		p.events <- pullEvent[T]{job: j, err: err, locked: locked}
		if err != nil {
			fin.err, fin.locked = err, locked
			return
		}
		body = &countingBody{ReadCloser: f.Body}
		f.Body = body
		fin.err = p.r.fn(p.ctx, j.item, f)
	}, func(e ending) {
		if f != nil {
			if c := closeFile(f); !e.panicked && !e.goexit {
				e = c
			}
			fin.bytes = body.n.Load()
		}
		fin.end = e
		p.events <- fin
	})
}

// closeFile closes f, catching a panic (of a hook called as the file
// closes).
func closeFile(f *File) (e ending) {
	defer func() {
		if v := recover(); v != nil {
			e = ending{panicked: true, value: v}
		}
	}()
	f.Close()
	return e
}

// A downloadWatch tells the walks over the unread listing which of the
// documents they handed out were downloaded through their client, so that
// a walk knows, without asking the API again, which rows its loop left in
// the listing (none downloaded: it stays) and which it took out (a
// download answered: the API marked it read). A walk registers the ids it
// hands out for as long as it runs (watching), and forgets them all when it
// ends: the memory is the walk's, one entry an id. A download of one of
// those ids through the same Client on any goroutine, while the walk runs,
// counts as the loop's own doing. A download through another Client, or
// anything else that reads a document, is someone else's doing: the walk
// sees it only in the answers, and pays for it there (see package internal/paging).
type downloadWatch struct {
	mu       sync.Mutex
	watching map[*watched]struct{}
	n        atomic.Int32 // len(watching), read without the lock
}

// watched is the ids one walk handed out, with what became of their
// downloads.
type watched struct {
	mu  sync.Mutex
	ids map[uuid.UUID]downloadState
}

// downloadState is what a watch saw of an id's downloads; a later state
// never replaces an answered download.
type downloadState uint8

const (
	downloadNone     downloadState = iota // never asked for
	downloadStarted                       // asked for, no answer yet
	downloadFailed                        // ended without a file: it may or may not be marked read
	downloadAnswered                      // a file came back: the API marked it read
)

// watch is c's downloadWatch (nil for a Client not made by NewClient,
// whose walks then learn nothing from it).
func (c *Client) watch() *downloadWatch {
	if c == nil || c.downloads == nil {
		return nil
	}
	return c.downloads()
}

// start registers a walk; its end forgets it.
func (d *downloadWatch) start() *watched {
	if d == nil {
		return nil
	}
	w := &watched{ids: make(map[uuid.UUID]downloadState)}
	d.mu.Lock()
	if d.watching == nil {
		d.watching = make(map[*watched]struct{})
	}
	d.watching[w] = struct{}{}
	d.n.Store(int32(len(d.watching)))
	d.mu.Unlock()
	return w
}

func (d *downloadWatch) end(w *watched) {
	if d == nil || w == nil {
		return
	}
	d.mu.Lock()
	delete(d.watching, w)
	d.n.Store(int32(len(d.watching)))
	d.mu.Unlock()
}

// note tells every walk that watches id what became of a download of it.
func (d *downloadWatch) note(id uuid.UUID, s downloadState) {
	if d == nil || d.n.Load() == 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for w := range d.watching {
		w.mu.Lock()
		if old, ok := w.ids[id]; ok && old != downloadAnswered {
			w.ids[id] = s
		}
		w.mu.Unlock()
	}
}

// add watches id from now on.
func (w *watched) add(id uuid.UUID) {
	w.mu.Lock()
	if _, ok := w.ids[id]; !ok {
		w.ids[id] = downloadNone
	}
	w.mu.Unlock()
}

// status says what the downloads of id, so far, did to its row: none, it
// stays; one answered, it is gone; one under way or failed, either.
func (w *watched) status(id uuid.UUID) paging.RowStatus {
	w.mu.Lock()
	s := w.ids[id]
	w.mu.Unlock()
	switch s {
	case downloadNone:
		return paging.RowStays
	case downloadAnswered:
		return paging.RowGone
	}
	return paging.RowUnknown
}
