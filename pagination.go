package acctadmin

import (
	"context"
	"fmt"
	"io"
	"iter"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"
)

// The API pages its listings by limit and offset and says nothing of
// totals, so a page shorter than the page size is the last one.
//
// Every All method is one call of paginate, which has two strategies:
//
//   - Stable listings (the loop's own calls cannot change them) are read
//     ahead: while the caller works through page k, page k+1 is already on
//     its way, so N pages cost about N round trips of wall time rather
//     than N round trips plus the caller's work; when the loop is faster
//     than the API, more pages are asked for at once (up to maxReadAhead).
//
//   - Shrinking listings (unread documents: downloading one marks it read
//     and takes it out of the listing) cannot be read ahead, since a page's
//     offset must be chosen after the loop body has run. Each request is
//     re-anchored at the number of already-yielded items that the previous
//     answer showed still present, and ids already yielded are skipped.
//     When the loop removes every item this costs nothing extra; when it
//     removes none it costs one extra request per page; in every case each
//     item present throughout is yielded exactly once.
//
// Breaking out of the loop, or cancelling the context, stops the fetcher;
// no goroutine outlives the loop. An error is yielded once and ends it.
// Both strategies end with ErrPagingIgnored when a later offset brings back
// what was already yielded, and take a page longer than asked for as the
// whole listing.

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
	// unpaged marks a listing whose paging the API does not document: a
	// full page repeated means the API sent the whole listing at once, and
	// ends it quietly rather than with ErrPagingIgnored.
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

type page[T any] struct {
	items []T
	err   error
}

// maxReadAhead bounds how far a stable listing reads ahead of the loop:
// at most this many pages are requested and not yet handed to the loop
// (in flight, or arrived and waiting), besides the page the loop is on.
const maxReadAhead = 4

// ahead reads a stable listing ahead of the caller. It starts one page
// ahead; each time the loop gets to a page that has not arrived yet (the
// loop is faster than the API), it asks for one more page at once, up to
// maxReadAhead. Pages are handed to the loop in order, whatever order they
// arrive in. Reading ahead costs at most maxReadAhead-1 requests past the
// end of the listing. Those are let finish while the loop works through the
// last page (every request sent gets its answer); breaking out of the
// loop, or an error, cancels whatever is still in flight.
func (l *listing[T]) ahead(ctx context.Context, yield func(T, error) bool) {
	ctx, cancel := context.WithCancel(ctx)
	var queue []chan page[T] // pages asked for and not yet taken, in order
	defer func() {
		cancel()
		for _, ch := range queue {
			<-ch // every fetcher ends with the loop
		}
	}()
	next := l.offset // the offset of the next page to ask for
	start := func() {
		ch := make(chan page[T], 1)
		go func(offset int) {
			items, err := l.fetch(ctx, l.limit, offset)
			ch <- page[T]{items, err}
		}(next)
		next += l.limit
		queue = append(queue, ch)
	}
	// end lets the pages asked for past the end of the listing finish.
	end := func() {
		for _, ch := range queue {
			<-ch
		}
		queue = nil
	}
	var zero T
	var prev []T
	depth := 1
	start()
	for taken := 0; len(queue) > 0; taken++ {
		var p page[T]
		select {
		case p = <-queue[0]:
		default:
			// The loop waits for the API: read further ahead. (The first
			// page is always waited for; it says nothing of the loop.)
			if taken > 0 && depth < maxReadAhead {
				depth++
				for len(queue) < depth {
					start()
				}
			}
			p = <-queue[0]
		}
		queue = queue[1:]
		if p.err != nil {
			yield(zero, p.err)
			return
		}
		if len(p.items) == l.limit && len(prev) == l.limit && l.samePage(prev, p.items) {
			// A full page again, for a later offset: the API ignores the
			// offset, and the rest of the listing is out of reach.
			if !l.unpaged {
				yield(zero, ErrPagingIgnored)
				return
			}
			end()
			return
		}
		// A short page is the last one; so is a page longer than asked
		// for, which means the API ignored the limit and sent everything.
		if len(p.items) == l.limit {
			for len(queue) < depth {
				start()
			}
		}
		for _, item := range p.items {
			if !yield(item, nil) {
				return
			}
		}
		if len(p.items) != l.limit {
			end()
			return
		}
		prev = p.items
	}
}

// samePage reports whether page b repeats page a: they agree on the first
// item of b that has an id, or, when no item has one, on everything.
func (l *listing[T]) samePage(a, b []T) bool {
	if l.id == nil {
		return false
	}
	for i, item := range b {
		if id := l.id(item); id != uuid.Nil {
			return i < len(a) && l.id(a[i]) == id
		}
	}
	return reflect.DeepEqual(a, b)
}

// shrinking reads a listing that the loop body may shrink by removing the
// items it is given.
//
// Records without an id cannot be told apart, so they are never taken for
// ones already yielded; since nothing can remove them, the id-less items an
// answer yields come back in the next answer, ahead of anything new, and
// are skipped there by count. The offset can never pass more items than
// were yielded; when it would (the API answers a later offset with items
// already yielded, that is, it ignores the offset), the loop ends with
// ErrPagingIgnored.
func (l *listing[T]) shrinking(ctx context.Context, yield func(T, error) bool) {
	var zero T
	seen := make(map[uuid.UUID]struct{})
	idless := 0     // id-less items yielded
	lastIdless := 0 // id-less items the previous answer yielded
	offset := l.offset
	for {
		items, err := l.fetch(ctx, l.limit, offset)
		if err != nil {
			yield(zero, err)
			return
		}
		present, skip, fresh := 0, lastIdless, 0
		for _, item := range items {
			if id := l.id(item); id == uuid.Nil {
				if skip > 0 {
					skip--
					present++
					continue
				}
				fresh++
			} else if _, ok := seen[id]; ok {
				present++
				continue
			} else {
				seen[id] = struct{}{}
			}
			if !yield(item, nil) {
				return
			}
		}
		idless += fresh
		lastIdless = fresh
		if len(items) != l.limit {
			return
		}
		offset += present
		if offset-l.offset > len(seen)+idless {
			yield(zero, ErrPagingIgnored)
			return
		}
	}
}

// A pull drains a listing the way Documents.Pull does: a pool of workers
// opens each item (a download, which takes it out of a shrinking listing)
// and hands it to the caller's function, while the listing is read under
// them. Unlike a worker pool fed from All, the pull knows which downloads
// are in flight when it asks for the next page, so it never anchors a
// request on an item that may still vanish.
//
// The offset of each listing request counts only items that cannot vanish
// any more: items whose download had answered before the request was sent
// and that the answer still lists (a listing that does not shrink, as the
// read documents), and items without an id (nothing can download them).
// They are counted while they form an unbroken run from the previous
// offset, so the offset never passes an item that was not handed out yet.
// Items already handed out are recognised by id and not handed out again.
// A request that cannot move forward (a full page of items handed out and
// still in flight) waits for a download to answer first, so the pull never
// asks for the same page twice in a row for nothing.

// The number of workers of a pull: the default, and the most it may have.
const (
	defaultPullWorkers = 4
	maxPullWorkers     = 32
)

// pullTally is the running count of a pull.
type pullTally struct {
	done, failed, skipped int
	bytes                 int64
}

// pullRun is one pull.
type pullRun[T any] struct {
	l       listing[T]
	workers int // 0 for defaultPullWorkers
	open    func(context.Context, T) (*File, error)
	fn      func(context.Context, T, *File) error
	// report, when set, is told of each item handed out once it is done
	// with; it is called by the pull's own goroutine, one call at a time.
	report func(item T, err error, t pullTally)
}

// pullState is where an item handed out stands.
type pullState int

const (
	pullPending  pullState = iota // listed, not given to a worker yet
	pullStarted                   // its download was asked for
	pullOpened                    // its download answered (it stays listed or not for good)
	pullFinished                  // fn returned nil
	pullFailed                    // the download or fn failed
)

type pullItem[T any] struct {
	item  T // until it is done with; then only its id and state are kept
	id    uuid.UUID
	state pullState
	// openedAt is the number of listing requests sent when its download
	// answered: the answers to later requests show whether it stays.
	openedAt int
	// seq orders the items by when they were handed to a worker.
	seq int
}

// pullEvent is what a worker tells the pull: a download answered (opened)
// or an item is done with.
type pullEvent[T any] struct {
	it       *pullItem[T]
	opened   bool // the download answered; another event follows if it succeeded
	err      error
	bytes    int64
	panicked bool
	panicVal any
}

// pullAnswer is the answer to one listing request.
type pullAnswer[T any] struct {
	seq, offset int
	items       []T
	err         error
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

// work is a worker: it opens each item it is given, hands it to fn and
// closes it, telling the pull at each step.
func (r *pullRun[T]) work(ctx context.Context, jobs <-chan *pullItem[T], events chan<- pullEvent[T]) {
	for it := range jobs {
		f, err := r.open(ctx, it.item)
		events <- pullEvent[T]{it: it, opened: true, err: err}
		if err != nil {
			continue
		}
		events <- r.call(ctx, it, f)
	}
}

// call hands the open file f of it to fn and closes it once fn returns,
// even by a panic, which is caught and passed to the pull.
func (r *pullRun[T]) call(ctx context.Context, it *pullItem[T], f *File) (ev pullEvent[T]) {
	body := &countingBody{ReadCloser: f.Body}
	f.Body = body
	ev.it = it
	defer func() {
		f.Close()
		ev.bytes = body.n.Load()
		if v := recover(); v != nil {
			ev.panicked, ev.panicVal = true, v
			ev.err = fmt.Errorf("acctadmin: pull: panic in fn: %v", v)
		}
	}()
	ev.err = r.fn(ctx, it.item, f)
	return ev
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
	lctx, cancelList := context.WithCancel(ctx)
	defer cancelList()

	jobs := make(chan *pullItem[T])
	events := make(chan pullEvent[T], 2*r.workers)
	answers := make(chan pullAnswer[T], 1)
	var wg sync.WaitGroup
	for range r.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.work(ctx, jobs, events)
		}()
	}

	var (
		known     = make(map[uuid.UUID]*pullItem[T]) // every item listed so far, by id
		pending   []*pullItem[T]                     // listed, not handed to a worker yet
		failed    []*pullItem[T]                     // whose download or fn failed
		nstarted  int                                // items handed to a worker
		inFlight  int                                // handed to a worker and not done with
		offset    = l.offset                         // where the next listing request starts
		idlessRun int                                // id-less items between l.offset and offset
		sent      int                                // listing requests sent
		listing   bool                               // a listing request is out
		listed    bool                               // the end of the listing was seen
		moved     = true                             // the last answer brought something
		openedNew int                                // downloads answered since the last request
		tally     pullTally
		firstErr  error
		firstItem uuid.UUID
		panicked  bool
		panicVal  any
		stopping  bool
		ctxDone   = ctx.Done()
	)
	stop := func(err error, id uuid.UUID) {
		if firstErr == nil {
			firstErr, firstItem = err, id
		}
		if !stopping {
			stopping = true
			cancelList()
			ctxDone = nil
		}
	}
	report := func(it *pullItem[T], err error) {
		if r.report == nil {
			return
		}
		defer func() {
			if v := recover(); v != nil {
				r.report = nil // it is not called again
				if !panicked {
					panicked, panicVal = true, v
				}
				stop(fmt.Errorf("acctadmin: pull: panic in OnProgress: %v", v), uuid.Nil)
			}
		}()
		r.report(it.item, err, tally)
	}
	// answer takes in a listing answer.
	answer := func(a pullAnswer[T]) {
		listing = false
		if a.err != nil {
			stop(a.err, uuid.Nil)
			return
		}
		run, inRun, fresh, idless, idlessInRun := 0, true, 0, 0, 0
		for _, item := range a.items {
			id := l.id(item)
			if id == uuid.Nil {
				// Nothing can download it, so it stays where it is.
				idless++
				if inRun {
					run++
					idlessInRun++
				}
				continue
			}
			it := known[id]
			if it == nil {
				it = &pullItem[T]{item: item, id: id}
				known[id] = it
				pending = append(pending, it)
				fresh++
				inRun = false
				continue
			}
			if inRun && it.state >= pullOpened && it.openedAt < a.seq {
				run++ // answered before this request, and still listed: it stays
			} else {
				inRun = false
			}
		}
		tally.skipped = max(tally.skipped, idlessRun+idless)
		idlessRun += idlessInRun
		offset = a.offset + run
		moved = fresh > 0 || run > 0
		if len(a.items) != l.limit {
			listed = true // a short page, or the API ignored the limit and sent all
			return
		}
		if offset-l.offset-idlessRun > len(known) {
			stop(ErrPagingIgnored, uuid.Nil)
		}
	}
	// event takes in what a worker says.
	event := func(ev pullEvent[T]) {
		it := ev.it
		if ev.opened {
			it.state, it.openedAt = pullOpened, sent
			openedNew++
			if ev.err == nil {
				return
			}
		}
		inFlight--
		tally.bytes += ev.bytes
		if ev.err == nil {
			it.state = pullFinished
			tally.done++
		} else {
			it.state = pullFailed
			tally.failed++
			failed = append(failed, it)
			if ev.panicked && !panicked {
				panicked, panicVal = true, ev.panicVal
			}
			stop(ev.err, it.id)
		}
		report(it, ev.err)
		var zero T
		it.item = zero // the id is enough from now on
	}

	for {
		if !stopping && !listing && !listed && len(pending) <= r.workers && (moved || openedNew > 0) {
			listing, moved, openedNew = true, false, 0
			sent++
			go func(seq, offset int) {
				items, err := l.fetch(lctx, l.limit, offset)
				answers <- pullAnswer[T]{seq: seq, offset: offset, items: items, err: err}
			}(sent, offset)
		}
		if !listing && inFlight == 0 && (stopping || len(pending) == 0) {
			if stopping || listed {
				break
			}
			// A full page of items already handed out, none of them in
			// flight any more, and still no way forward: the API repeats
			// itself whatever the offset.
			stop(ErrPagingIgnored, uuid.Nil)
			break
		}
		var next chan<- *pullItem[T]
		var job *pullItem[T]
		if !stopping && len(pending) > 0 {
			next, job = jobs, pending[0]
		}
		select {
		case next <- job:
			pending[0] = nil
			pending = pending[1:]
			job.state = pullStarted
			job.seq = nstarted
			nstarted++
			inFlight++
		case ev := <-events:
			event(ev)
		case a := <-answers:
			answer(a)
		case <-ctxDone:
			stop(ctx.Err(), uuid.Nil)
		}
	}
	close(jobs)
	wg.Wait()
	if panicked {
		panic(panicVal)
	}
	if firstErr == nil {
		return nil
	}
	// Every item handed out is done with by now: the unfinished are the
	// failed ones, in the order they were handed out.
	slices.SortFunc(failed, func(a, b *pullItem[T]) int { return a.seq - b.seq })
	pe := &PullError{Err: firstErr, Document: firstItem, Done: tally.done}
	for _, it := range failed {
		pe.Unfinished = append(pe.Unfinished, it.id)
	}
	return pe
}
