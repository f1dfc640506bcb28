package acctadmin

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"iter"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

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
//     and takes it out of the listing) are walked (see walk), one request
//     at a time, each anchored past the rows that can no longer leave the
//     listing; a walk is followed by another only when an answer showed
//     that someone else changed the listing (see trust).
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
// later offsets, before the API is taken to ignore the offset. A listing
// may show a row twice, so two equal pages in a row can be honest.
const ignoredAfter = 3

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
	var queue []pageAhead[T] // pages asked for and not yet taken, in order
	var stale []pageAhead[T] // pages dropped, their answers not needed
	// drop forgets the pages asked for; they are let finish (wait).
	drop := func() {
		stale = append(stale, queue...)
		queue = nil
	}
	wait := func() {
		for _, p := range stale {
			<-p.ch
			p.cancel()
		}
		stale = nil
	}
	defer func() {
		cancel()
		drop()
		wait() // every fetcher ends with the loop
	}()
	want := l.offset  // the offset of the next row the loop needs
	next := l.offset  // the offset of the next page to ask for
	stride := l.limit // the rows a page brings: the limit, or the server's cap
	start := func() {
		pctx, pcancel := context.WithCancel(ctx)
		p := pageAhead[T]{ch: make(chan page[T], 1), cancel: pcancel}
		go l.fetchAhead(pctx, into != nil, next, p.ch)
		next += stride
		queue = append(queue, p)
	}
	var zero T
	var prev []T   // the page before
	short := false // it was shorter than the limit: the end is likely, so do not read deeper
	var held [][]T // pages equal to the one before, not yielded until the offset is seen honoured
	depth := 1
	for taken := 0; ; taken++ {
		if len(queue) == 0 {
			start()
		}
		var p page[T]
		select {
		case p = <-queue[0].ch:
		default:
			// The loop waits for the API: read further ahead. (The first
			// page is always waited for; it says nothing of the loop.)
			if taken > 0 && !short && depth < maxReadAhead {
				depth++
				for len(queue) < depth {
					start()
				}
			}
			p = <-queue[0].ch
		}
		queue[0].cancel()
		queue = queue[1:]
		if err := p.end.raise(); err != nil {
			p.err = err
		}
		if into != nil {
			*into = *p.resp
		}
		if p.err != nil {
			yield(zero, p.err)
			return
		}
		n := len(p.items)
		repeated := prev != nil && n > 0 && l.samePage(prev, p.items)
		if len(prev) > l.limit && n > 0 {
			// The page before was longer than asked for, and showed a row
			// twice: the rest of the listing (the API ignored the limit),
			// unless this page shows otherwise. The same page again is
			// the whole listing again (the offset ignored too); rows of it
			// again mean it was not the rest of the listing, and the
			// offset past it skipped rows no request can reach.
			if repeated {
				drop()
				wait()
				return
			}
			if l.overlaps(prev, p.items) {
				yield(zero, errLongPageNotWhole)
				return
			}
		}
		if repeated && len(held)+2 >= ignoredAfter {
			// The same page again and again: the API ignores the offset.
			// A full page leaves the rest of the listing out of reach; a
			// shorter one was the whole listing.
			if n >= l.limit && !l.unpaged {
				yield(zero, ErrPagingIgnored)
				return
			}
			drop()
			wait()
			return
		}
		want += n
		// The end: an empty page; a page shorter than the one before (a
		// server that caps its pages makes them all as long, but the
		// last); or a page longer than asked for that holds each row once
		// (the API ignored the limit and sent the rest of the listing). A
		// short page is not the end, even of a listing the API does not
		// page: a server that caps its pages sends one too, and the next
		// page tells. A longer page that shows a row twice may be a page
		// the API added rows to: the page past it tells.
		long := n > l.limit
		last := n == 0 || n < len(prev) || long && !l.holdsRowTwice(p.items)
		switch {
		case last:
			drop()
		case long:
			drop()
			next, depth = want, 1
		case n != stride:
			// A short page: the pages read ahead assumed longer ones.
			drop()
			next, stride, depth = want, n, 1
		}
		if !last {
			for len(queue) < depth {
				start()
			}
		}
		if repeated {
			held = append(held, p.items)
		} else {
			// Pages held back and then a different page (or the end):
			// the API honours the offset, and those rows are the listing's.
			for _, h := range append(held, p.items) {
				for _, item := range h {
					if !yield(item, nil) {
						return
					}
				}
			}
			held = nil
		}
		if last {
			wait() // the pages asked for past the end finish
			return
		}
		prev, short = p.items, n < l.limit
	}
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

// overlaps reports whether page b holds a row of page a: rows with an id
// compared by id, rows without one by their content.
func (l *listing[T]) overlaps(a, b []T) bool {
	ids := make(map[uuid.UUID]bool, len(a))
	var idless []T
	for _, item := range a {
		if id := l.rowID(item); id != uuid.Nil {
			ids[id] = true
		} else {
			idless = append(idless, item)
		}
	}
	for _, item := range b {
		if id := l.rowID(item); id != uuid.Nil {
			if ids[id] {
				return true
			}
			continue
		}
		for _, x := range idless {
			if reflect.DeepEqual(x, item) {
				return true
			}
		}
	}
	return false
}

// holdsRowTwice reports whether page shows a row twice: rows with an id
// compared by id, rows without one by their content.
func (l *listing[T]) holdsRowTwice(page []T) bool {
	ids := make(map[uuid.UUID]bool, len(page))
	var idless []T
	for _, item := range page {
		id := l.rowID(item)
		if id != uuid.Nil {
			if ids[id] {
				return true
			}
			ids[id] = true
			continue
		}
		for _, x := range idless {
			if reflect.DeepEqual(x, item) {
				return true
			}
		}
		idless = append(idless, item)
	}
	return false
}

// rowID is item's id, or uuid.Nil for a listing whose rows have none.
func (l *listing[T]) rowID(item T) uuid.UUID {
	if l.id == nil {
		return uuid.Nil
	}
	return l.id(item)
}

// samePage reports whether page b repeats page a: the same rows in the
// same order, rows with an id compared by id and rows without one by
// their content.
func (l *listing[T]) samePage(a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		ia, ib := uuid.Nil, uuid.Nil
		if l.id != nil {
			ia, ib = l.id(a[i]), l.id(b[i])
		}
		if ia != ib || ia == uuid.Nil && !reflect.DeepEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// shrinking reads a listing that the loop body may shrink by removing the
// items it is given (All over the unread documents, downloading each). It
// is a walk (see walk) whose consumer is the loop body: an item yielded
// from an answer has been dealt with before the next request is sent.
// Items without an id are yielded the first time the walk passes over
// them.
func (l *listing[T]) shrinking(ctx context.Context, yield func(T, error) bool) {
	var zero T
	w := newWalk(l, true)
	w.idless = true
	seen := l.watch.start()
	defer l.watch.end(seen)
	if seen != nil {
		w.fate = seen.fate
	} else {
		w.careful = true // nothing tells what the loop did: confirm every pass
	}
	for {
		seq, offset, limit := w.request()
		items, err := l.fetch(ctx, limit, offset)
		if err != nil {
			yield(zero, err)
			return
		}
		out, _, step := w.take(seq, offset, items)
		for _, item := range out {
			if id := l.id(item); id != uuid.Nil {
				w.mark(id, int32(seq)) // dealt with before the next request
				if seen != nil {
					seen.add(id)
				}
			}
			if !yield(item, nil) {
				return
			}
		}
		if err := step.err(); err != nil || step == walkDone {
			if err != nil {
				yield(zero, err)
			}
			return
		}
	}
}

// maxPasses bounds the passes of a walk over a shrinking listing.
const maxPasses = 10

// walkStep is what an answer decided.
type walkStep int

const (
	walkOn        walkStep = iota // ask for the next page
	walkDone                      // every row was seen
	walkIgnored                   // the API ignores the offset and the rest is out of reach
	walkUnsettled                 // maxPasses passes, and the listing still moved
)

func (s walkStep) err() error {
	switch s {
	case walkIgnored:
		return ErrPagingIgnored
	case walkUnsettled:
		return ErrListingUnsettled
	}
	return nil
}

// A walk reads a listing that its consumer shrinks (downloading a
// document takes it out of the unread listing) and that others may change
// under it, and hands out each item with an id once. It is the paging of
// both All over a shrinking listing and Pull. Here is why it hands out
// every row that stays in the listing until it is reached, exactly once.
//
// Once: every id handed out is kept (in known, 20 bytes an id), and an id
// already known is never handed out again, however often the listing
// shows it.
//
// Every row: the offset of each request counts only rows that cannot
// leave the listing any more because of the consumer: rows without an id
// (nothing can download them), rows kept out on purpose, and rows whose
// download had answered before the request was sent (the listing the
// answer shows is past their leaving, so a row it still lists stays).
// They are counted while they form an unbroken run from the previous
// offset, so the offset never passes a row that was not yet handed out,
// or that may still vanish and pull unseen rows back under the offset. A
// row counted is a row passed over: the sequence of rows a pass goes over
// is the listing, as far as the walk could see it.
//
// That argument assumes the listing moves only by the consumer's own
// downloads, answered in order. It does not when the listing trails the
// read marks (a replica), when others read documents, or when the consumer
// downloads on other goroutines than the walk knows of (a worker pool fed
// from All): a row passed over may vanish later and move an unseen row
// under the offset. A pass can miss a row only that way, and the row that
// vanished is one it passed over. So a pass that ends (an empty page, or a
// short page gone over whole) is not the end of the walk: another pass
// follows, from the start, and the walk ends when two passes running go
// over the same rows in the same order (the same signature). Then no row
// passed over in the first of them vanished (it would be missing from the
// second), so that pass missed no row present while it ran; every document still unread
// then was handed out. An empty page at the start also ends the walk:
// every row that was listed has been handed out. The walk gives up after
// maxPasses passes (ErrListingUnsettled), and ends with ErrPagingIgnored when a
// full page comes back ignoredAfter times running at later offsets. A
// page longer than the limit that comes back at a later offset is the
// whole listing, never an ignored offset, however often it comes back: it
// is read again as downloads answer, and ends the pass once the walk goes
// over it; so is such a page at the listing's start that shows each row
// once. Another page longer than the limit is gone over as far as the
// limit only: it may be a page the API added rows to.
//
// All that costs a second pass over every listing, and most listings do
// not move but by the consumer's downloads. So a walk starts out trusting
// (see trust): it learns from the consumer which rows it left alone and
// which it took out (Pull knows its downloads; All asks its Client, see
// downloadWatch), starts each request past the rows known to stay, with
// the last of them asked for again, and checks in every answer that
// nothing but the consumer moved the listing. A pass that shows nothing
// else missed no row, and ends the walk. The first answer that shows
// another hand makes the walk careful, as above: the pass goes on, and
// two more passes must agree (the pass that began trusting does not
// confirm). A walk whose consumer's doings are unknown (nothing tells
// All, or the listing does not shrink) is careful from the start.
type walk[T any] struct {
	l *listing[T]
	// settle marks a walk whose consumer shrinks the listing: its end is
	// confirmed by passes. A walk over a listing that nothing shrinks
	// ends with its first pass.
	settle bool
	// idless hands out rows without an id the first time a pass goes over
	// them (All yields them; Pull cannot download them).
	idless bool
	offset int // where the next request starts
	sent   int // requests sent; numbers each request from 1
	// known is every id handed out, with the number of requests sent when
	// it could no longer leave the listing by the consumer's doing (its
	// download answered, or it was kept out), or -1 while it still may;
	// the fate bits say which (see markFate).
	known map[uuid.UUID]int32
	// The pass under way.
	passes   int          // passes ended
	sig      maphash.Hash // of the ids of the rows it passed over, in order
	idlessIn int          // rows without an id it passed over
	skipped  int          // the most rows without an id a pass passed over
	prevSig  uint64       // the signature of the pass before
	prevOK   bool         // and it may confirm the next (it was not tainted)
	tainted  bool         // the pass began trusting and turned careful
	// The last answer, where it was asked for, and how many times running
	// it came back at later offsets.
	last       []T
	lastOffset int
	lastRun    int // the rows it passed over
	repeats    int
	longest    int // the longest answer yet
	// idlessGiven is how many rows without an id were handed out: a pass
	// that goes over them again hands out only those past that count.
	idlessGiven int

	// The trusting walk (see trust); careful is set once an answer shows
	// the listing moved by someone else's doing, or when nothing tells
	// the walk what its consumer did.
	careful bool
	fate    func(uuid.UUID) rowFate // what the consumer did to a row handed out
	anchor  int                     // rows of the pass known to stay, before tail
	over    T                       // the last of them, asked for again as the overlap
	hasOver bool
	tail    []tailRow[T] // rows seen past anchor, in listing order
	ask     trustAsk     // the request out
	full    bool         // the last answer held all the rows asked for
	verify  bool         // a blind request found nothing: check the overlap is still there
}

// rowFate is what the consumer did to a row: left it in the listing, took
// it out, or either (a download under way or failed).
type rowFate uint8

const (
	rowUnsure rowFate = iota
	rowStays
	rowGoes
)

// tailRow is a row a trusting walk saw past its anchor and not yet passed.
type tailRow[T any] struct {
	item T
	id   uuid.UUID
}

// trustAsk is a trusting walk's request: where it starts, how many rows
// it asks for, and whether its first row is the overlap.
type trustAsk struct {
	offset, limit int
	over          bool
	blind         bool // past the anchor, without the overlap
}

// The fate bits of a known id's value (above any request count).
const (
	knownStays = 1 << 29
	knownGoes  = 1 << 30
)

// atOf is the request count of a known id's value.
func atOf(v int32) int { return int(v &^ (knownStays | knownGoes)) }

func newWalk[T any](l *listing[T], settle bool) *walk[T] {
	w := &walk[T]{l: l, settle: settle, offset: l.offset, anchor: l.offset, known: make(map[uuid.UUID]int32), careful: !settle}
	w.sig.SetSeed(maphash.MakeSeed())
	return w
}

// request numbers the next request and says where it starts and how many
// rows it asks for.
func (w *walk[T]) request() (seq, offset, limit int) {
	w.sent++
	if !w.careful {
		w.pass()
		if w.idless && len(w.tail) > 0 {
			// All: a row the loop was given and whose fate is not known
			// (its download failed, or runs elsewhere) may leave the
			// listing at any time: the walk cannot count on it.
			w.distrust()
		}
	}
	if w.careful {
		return w.sent, w.offset, w.l.limit
	}
	a := trustAsk{offset: w.anchor, limit: w.l.limit, over: w.hasOver}
	if a.over && !w.full && w.longest <= 1 && !w.verify {
		// Every answer held one row at most, the last one fewer than
		// asked: with the overlap, an answer of a server that caps its
		// pages at one row would hold the overlap alone, as the end of a
		// listing does. So look past it first, and check the overlap
		// after (see trust).
		a.over, a.blind = false, true
	}
	if a.over {
		a.offset--
		a.limit++
	}
	a.limit += len(w.tail)
	if w.l.max > 0 {
		a.limit = min(a.limit, w.l.max)
	}
	w.ask = a
	return w.sent, a.offset, a.limit
}

// rowFate is the fate of the row id; a row without an id stays.
func (w *walk[T]) rowFate(id uuid.UUID) rowFate {
	if id == uuid.Nil {
		return rowStays
	}
	return w.fate(id)
}

// pass passes over the tail's first rows whose fate is known: one that
// stays moves the anchor past it (and is the next overlap), one that is
// gone is no longer listed; it stops at the first row whose fate is not
// known yet.
func (w *walk[T]) pass() {
	n := 0
	for _, r := range w.tail {
		f := w.rowFate(r.id)
		if f == rowUnsure {
			break
		}
		n++
		if f == rowStays {
			w.anchor++
			w.over, w.hasOver = r.item, true
			w.sig.Write(r.id[:])
			if r.id == uuid.Nil {
				w.idlessIn++
			}
		}
	}
	clear(w.tail[:n])
	w.tail = w.tail[n:]
}

// backlog is how many tail rows would stay in the tail if the next
// request were sent now: a Pull asks for the next page once they fit in
// its answer beside a whole page.
func (w *walk[T]) backlog() int {
	for i, r := range w.tail {
		if w.rowFate(r.id) == rowUnsure {
			return len(w.tail) - i
		}
	}
	return 0
}

// roomy reports whether the next request, sent now, can bring a whole
// page of rows past the tail (always, for a careful walk).
func (w *walk[T]) roomy() bool {
	if w.careful {
		return true
	}
	b := w.backlog()
	return b == 0 || w.full && (w.l.max <= 0 || w.l.limit+1+b <= w.l.max)
}

// mark records that the item id can leave the listing by the consumer's
// doing until request at (exclusive), or, for -1, still may.
func (w *walk[T]) mark(id uuid.UUID, at int32) { w.known[id] = at }

// markFate records, besides at, what the consumer did to id's row.
func (w *walk[T]) markFate(id uuid.UUID, at int32, f rowFate) {
	switch f {
	case rowStays:
		at |= knownStays
	case rowGoes:
		at |= knownGoes
	}
	w.known[id] = at
}

// knownFate is the fate markFate recorded for id.
func (w *walk[T]) knownFate(id uuid.UUID) rowFate {
	v, ok := w.known[id]
	switch {
	case !ok || v < 0:
		return rowUnsure
	case v&knownStays != 0:
		return rowStays
	case v&knownGoes != 0:
		return rowGoes
	}
	return rowUnsure
}

// idlessSeen is how many rows without an id one pass went over, at most.
func (w *walk[T]) idlessSeen() int {
	n := w.idlessIn
	for _, r := range w.tail {
		if r.id == uuid.Nil {
			n++
		}
	}
	return max(w.skipped, n)
}

// take takes in the answer items to request seq, sent at offset. It
// returns the items to hand out, in order (the new ones, marked -1 until
// the consumer says otherwise), whether the walk moved (it passed rows or
// found new ones; when not, the first row is one whose download has not
// answered, and the next request should wait for it), and what comes next.
func (w *walk[T]) take(seq, offset int, items []T) (out []T, moved bool, step walkStep) {
	if !w.careful {
		if out, step, ok := w.trust(items); ok {
			return out, true, step
		}
		if w.sent == 1 {
			// The first answer already breaks the rules (a page longer
			// than asked, a row twice): the walk is careful from the
			// start, as if it never trusted.
			w.careful = true
			return w.takeCareful(seq, offset, items)
		}
		// The listing moved by someone else's doing: from here on the
		// walk is careful. The pass goes on from its anchor, this answer
		// unused, and its end is confirmed by two more passes.
		w.distrust()
		return nil, true, walkOn
	}
	return w.takeCareful(seq, offset, items)
}

// takeCareful is take for a careful walk.
func (w *walk[T]) takeCareful(seq, offset int, items []T) (out []T, moved bool, step walkStep) {
	if len(items) == 0 {
		if offset == w.l.offset {
			w.skipped = w.idlessSeen()
			return nil, false, walkDone // nothing listed: every row was handed out
		}
		return nil, false, w.endPass()
	}
	run, inRun, fresh := 0, true, 0
	// The rows without an id that this answer passes over, in the first
	// pass, and that the answer before did not show passed over already.
	var idless []T
	from := 0
	if w.last != nil && offset == w.lastOffset && w.l.samePage(w.last, items) {
		from = w.lastRun
	}
	// A page longer than the limit is the whole listing when it is the
	// listing's start and shows each row once (the API ignored the
	// limit), or when it comes back at a later offset (the API ignores
	// limit and offset). Else it may be a page the API added rows to: the
	// walk goes over the limit's rows of it, and the next request, past
	// them, tells.
	long := len(items) > w.l.limit
	whole := long && (offset == w.l.offset && !w.l.holdsRowTwice(items) ||
		w.last != nil && offset > w.lastOffset && w.l.samePage(w.last, items))
	for i, item := range items {
		if long && !whole && run == w.l.limit {
			inRun = false
		}
		id := w.l.id(item)
		at, known := w.known[id]
		switch {
		case id == uuid.Nil:
			// Nothing can download it, so it stays where it is.
			if !inRun {
				continue
			}
			run++
			w.idlessIn++
			w.sig.Write(id[:])
			if w.idless && w.passes == 0 && i >= from && w.idlessIn > w.idlessGiven+len(idless) {
				idless = append(idless, item)
			}
		case !known:
			w.known[id] = -1
			fresh++
			out = append(out, idless...)
			out = append(out, item)
			w.idlessGiven += len(idless)
			idless = idless[:0]
			inRun = false
		case inRun && at >= 0 && atOf(at) < seq:
			run++ // it stays: passed over
			w.sig.Write(id[:])
		default:
			inRun = false
		}
	}
	w.offset = offset + run
	moved = run > 0 || fresh > 0
	switch {
	case w.last != nil && offset > w.lastOffset && w.l.samePage(w.last, items):
		// The page before, again, at a later offset: what an API that
		// ignores the offset does (or a listing that repeats its rows,
		// for a time). Its rows without an id are taken for the same
		// rows again.
		w.repeats++
	case w.last == nil || offset != w.lastOffset:
		w.repeats = 1
		fallthrough
	default:
		out = append(out, idless...)
		w.idlessGiven += len(idless)
	}
	w.last, w.lastOffset, w.lastRun = items, offset, run
	shorter := len(items) < w.longest
	w.longest = max(w.longest, len(items))
	switch {
	case run == len(items) && (whole || shorter):
		// The walk went over the whole listing, sent in a page longer
		// than asked for, or over a page shorter than one it had
		// before (pages of a server that caps them are all as long, but
		// the last): the pass is over. (Waiting for an empty page instead
		// would never end on a listing that grows as fast as it is read.)
		return out, moved, w.endPass()
	case whole:
		// The whole listing, not gone over whole yet (downloads are in
		// flight). It comes back at every offset, but that is no ignored
		// offset: nothing lies beyond it. Read it again as downloads
		// answer, until the walk goes over it: not before one answers,
		// unless it brought new rows.
		return out, fresh > 0, walkOn
	case w.repeats >= ignoredAfter && len(items) >= w.l.limit && !w.l.unpaged:
		return out, moved, walkIgnored
	case w.repeats >= ignoredAfter:
		// The API ignores the offset and sent its whole listing in a
		// page shorter than the limit: the pass is over.
		return out, moved, w.endPass()
	}
	return out, moved, walkOn
}

// trust takes in an answer to a trusting walk's request, and reports
// false when it shows the listing moved by someone else's doing, taking
// nothing in. A trusting walk counts on what it knows of its consumer: a
// row it left alone stays, a row whose download answered is gone, so each
// request starts past the rows known to stay (pass), and the pass that
// ends is the walk's last. It checks in every answer what the pass's
// completeness rests on, and the first answer that breaks it makes the
// walk careful:
//
//   - the row before the request's offset (the overlap: the last row known
//     to stay, asked for again) is where it was: no row before it left
//     the listing (a row downloaded but still listed, as a replica that
//     trails the read marks shows, included), so no row the walk has not
//     seen moved under the offset;
//   - what comes after the rows seen past the offset is new: no id the
//     walk handed out, none twice (a row listed twice, or rows moved back
//     under the offset);
//   - the answer is no longer than asked for (a server that ignores the
//     limit often ignores the offset too, and the careful walk reads it
//     at less cost).
//
// Rows seen past the offset (whose fate was not known when it was asked
// for) that are missing left the listing, and are not counted; rows still
// listed after their download answered are not counted either, and if
// they leave later the overlap shows it. An answer of one row cannot tell
// the end of a listing from a server that caps its pages at one row, and
// with the overlap that row would be the overlap: while no answer held two
// rows, the walk looks past the overlap first (blind), and checks it
// after (verify).
//
// The pass ends with an empty answer at the listing's start, or an answer
// shorter than asked for and than one before it (of a server that caps
// its pages, too, only the last is shorter).
func (w *walk[T]) trust(items []T) (out []T, step walkStep, ok bool) {
	a := &w.ask
	n, i := len(items), 0
	if n > a.limit {
		return nil, walkOn, false // the limit ignored: the offset may be too
	}
	switch {
	case a.blind && (n > 0 || len(w.tail) > 0):
		return nil, walkOn, false // a server that caps its pages at one row
	case a.blind:
		w.verify = true // nothing past the anchor: if the overlap is still there, that is the end
		return nil, walkOn, true
	case w.verify:
		if n != 1 || !w.sameRow(items[0], w.over) || len(w.tail) > 0 {
			return nil, walkOn, false
		}
		w.skipped = w.idlessSeen()
		return nil, walkDone, true
	}
	if a.over {
		if n == 0 || !w.sameRow(items[0], w.over) {
			return nil, walkOn, false
		}
		i = 1
	}
	// The tail rows still listed come first, in order; a row missing
	// left the listing, and is no longer counted.
	j := i
	for _, r := range w.tail {
		if j < n && w.sameRow(items[j], r.item) {
			j++
		}
	}
	fresh := map[uuid.UUID]bool{}
	for _, item := range items[j:] {
		id := w.l.id(item)
		if id == uuid.Nil {
			continue
		}
		if _, known := w.known[id]; known || fresh[id] {
			return nil, walkOn, false // listed again
		}
		fresh[id] = true
	}
	longest := w.longest
	w.longest = max(w.longest, n)
	w.full = n == a.limit
	// What a careful walk would see repeated, if it comes to that.
	w.last, w.lastOffset, w.lastRun, w.repeats = items, a.offset, 0, 1
	keep := w.tail[:0]
	for _, r := range w.tail {
		if i < n && w.sameRow(items[i], r.item) {
			i++
			keep = append(keep, r)
			continue
		}
		if i == n && n == a.limit {
			keep = append(keep, r) // past the answer's end
		}
	}
	clear(w.tail[len(keep):])
	w.tail = keep
	for _, item := range items[i:] {
		id := w.l.id(item)
		w.tail = append(w.tail, tailRow[T]{item: item, id: id})
		if id != uuid.Nil {
			w.known[id] = -1
			out = append(out, item)
		} else if w.idless {
			out = append(out, item)
			w.idlessGiven++
		}
	}
	switch {
	case n == 0 && !a.over && len(w.tail) == 0:
		// Nothing listed from where the pass went on.
	case n < a.limit && n < longest:
	default:
		return out, walkOn, true
	}
	w.skipped = w.idlessSeen()
	return out, walkDone, true
}

// distrust makes the walk careful, from the pass under way on: its rows
// known to stay were passed over; the rows past them are asked for again.
func (w *walk[T]) distrust() {
	w.skipped = w.idlessSeen()
	w.careful, w.tainted = true, true
	w.offset = w.anchor
	clear(w.tail)
	w.tail = nil
	// Its requests ask for the limit again: what a longer request got
	// says nothing of where its listing ends.
	w.longest = min(w.longest, w.l.limit)
}

// sameRow reports whether a and b are the same row: the same id, or, for
// rows without one, the same content.
func (w *walk[T]) sameRow(a, b T) bool {
	ia, ib := w.l.id(a), w.l.id(b)
	return ia == ib && (ia != uuid.Nil || reflect.DeepEqual(a, b))
}

// endPass ends a pass, and says whether the walk is over.
func (w *walk[T]) endPass() walkStep {
	w.skipped = w.idlessSeen()
	if !w.settle {
		return walkDone
	}
	sig := w.sig.Sum64()
	if w.passes > 0 && w.prevOK && sig == w.prevSig {
		return walkDone
	}
	w.passes++
	if w.passes >= maxPasses {
		return walkUnsettled
	}
	w.prevSig, w.prevOK, w.tainted = sig, !w.tainted, false
	w.sig.Reset()
	w.idlessIn, w.last, w.repeats = 0, nil, 0
	w.offset = w.l.offset
	return walkOn
}

// A pull drains a listing the way Documents.Pull does: a pool of workers
// opens each item (a download, which takes it out of a shrinking listing)
// and hands it to the caller's function, while a walk (see walk) reads the
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
	p := &puller[T]{r: r, walk: newWalk(l, l.shrinks), into: responseInto(ctx), ctx: ctx}
	p.walk.fate = p.walk.knownFate // the pull knows what became of each download
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
	walk *walk[T]
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
			p.took(ev)
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
		(!p.waiting || p.inFlight+len(p.pending) == 0) && p.walk.roomy()
}

// over decides whether the pull is done: nothing asked for is still out,
// and either it stopped or the walk is over and every item was dealt with.
func (p *puller[T]) over() bool {
	return !p.listing && p.inFlight == 0 && (p.stopping || p.listed && len(p.pending) == 0)
}

// list sends the next listing request.
func (p *puller[T]) list() {
	seq, offset, limit := p.walk.request()
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
	out, moved, step := p.walk.take(a.seq, a.offset, a.items)
	for _, item := range out {
		p.admit(item)
	}
	p.tally.skipped = p.walk.idlessSeen()
	p.waiting = !moved && p.openedSince == 0
	switch step {
	case walkDone:
		p.listed = true
	case walkIgnored, walkUnsettled:
		// The listing can be read no further; what it gave is still
		// handed out, and the pull then ends with the reason.
		p.listed, p.ended = true, step.err()
	}
}

// admit takes a new item: kept out, or queued for a worker.
func (p *puller[T]) admit(item T) {
	id := p.r.l.id(item)
	if p.keepOut(item) {
		p.walk.markFate(id, 0, rowStays) // it stays in the listing
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

// took takes in what a worker says.
func (p *puller[T]) took(ev pullEvent[T]) {
	j := ev.job
	if !j.opened {
		// Its download answered (or ended without an answer): from the
		// next request on, the listing shows whether it stays.
		j.opened = true
		f := rowUnsure
		switch {
		case ev.done && !ev.opened:
			f = rowStays // never downloaded: left alone by before, or before failed
		case ev.locked:
			f = rowStays // refused as payment-locked: it stays unread
		case !ev.done && ev.err == nil:
			f = rowGoes // the API marked it read as it answered
		}
		p.walk.markFate(j.id, int32(p.walk.sent), f)
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
// sees it only in the answers, and pays for it there (see walk).
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

// fate says what the downloads of id, so far, did to its row: none, it
// stays; one answered, it is gone; one under way or failed, either.
func (w *watched) fate(id uuid.UUID) rowFate {
	w.mu.Lock()
	s := w.ids[id]
	w.mu.Unlock()
	switch s {
	case downloadNone:
		return rowStays
	case downloadAnswered:
		return rowGoes
	}
	return rowUnsure
}
