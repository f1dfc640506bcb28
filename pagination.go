package acctadmin

import (
	"cmp"
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

// listing describes one All call.
type listing[T any] struct {
	invalid error // yielded instead of fetching
	limit   int   // the page size asked for; 0 for max
	max     int   // the endpoint's largest page
	offset  int   // where to start
	fetch   func(ctx context.Context, limit, offset int) ([]T, error)
	id      func(T) uuid.UUID // tells rows apart; rows without an id, by content
	shrinks bool              // the loop's downloads take rows out of it
	watch   *downloadWatch    // what the loop of a shrinking listing downloaded
	unpaged bool              // the API does not document its paging: a full page repeated is the whole listing
}

// pageParams is a listing's params struct: it checks itself, and hands
// out its paging fields so that a copy of it can ask for any page.
type pageParams[P any] interface {
	*P
	validate() error
	paging() (limit, offset *int)
}

// listingOf describes the All of a listing whose pages come from list,
// called with a copy of p (nil: the zero params) at each page's limit and
// offset; max is the endpoint's largest page.
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

// paginate is the loop of every All method: a stable listing is read
// ahead; the unread documents, which the loop shrinks, are walked (package
// internal/paging), as is Pull's listing. The rules: the package doc.
func paginate[T any](ctx context.Context, l listing[T]) iter.Seq2[T, error] {
	l.limit = cmp.Or(l.limit, l.max)
	return func(yield func(T, error) bool) {
		var zero T
		switch {
		case l.invalid != nil:
			yield(zero, l.invalid)
		case ctx == nil:
			yield(zero, nilContext())
		case l.shrinks && l.id != nil:
			l.shrinking(ctx, yield)
		default:
			l.ahead(ctx, yield)
		}
	}
}

// ending is how a function the SDK ran for its caller ended when it did
// not return: by a panic (with value, never nil), or by runtime.Goexit.
type ending struct {
	value  any
	goexit bool
}

// errGoexit stands for a runtime.Goexit on a goroutine of the SDK, which
// can only be reported, not raised again.
var errGoexit = errors.New("acctadmin: runtime.Goexit called on a goroutine of the SDK")

// guard runs f, then done with how f ended, even when f panics (stopped
// there, to be raised again on the caller's goroutine) or Goexits.
func guard(f func(), done func(ending)) {
	var e ending
	returned := false
	defer func() {
		if !returned {
			e.value = recover() // nil only for a Goexit: panic(nil) recovers a *runtime.PanicNilError
			e.goexit = e.value == nil
		}
		done(e)
	}()
	f()
	returned = true
}

// raise raises a panic again on the calling goroutine; a Goexit is errGoexit.
func (e ending) raise() error {
	if e.value != nil {
		panic(e.value)
	}
	if e.goexit {
		return errGoexit
	}
	return nil
}

// responseInto is the *Response the caller asked WithResponseInto to fill.
func responseInto(ctx context.Context) *Response {
	dst, _ := ctx.Value(responseKey{}).(*Response)
	return dst
}

// page is a page read ahead.
type page[T any] struct {
	items []T
	err   error
	end   ending
	resp  *Response // the answer's metadata, when the caller asked for it
}

// maxReadAhead bounds the pages a stable listing asks for and has not
// handed to the loop yet, besides the page the loop is on.
const maxReadAhead = 2

const ignoredAfter = paging.IgnoredAfter // the read-ahead's rule is the walk's

// ahead reads a stable listing ahead of the loop. Each page gets its own
// *Response, copied into the caller's as the loop takes the page.
func (l *listing[T]) ahead(ctx context.Context, yield func(T, error) bool) {
	into := responseInto(ctx)
	ctx, cancel := context.WithCancel(ctx)
	r := &aheadReader[T]{l: l, ctx: ctx, into: into, want: l.offset, next: l.offset, stride: l.limit, depth: 1}
	defer func() {
		cancel()
		r.fetching.Wait() // every fetcher ends with the loop
	}()
	var zero T
	for {
		p := r.take()
		if p.err != nil {
			yield(zero, p.err)
			return
		}
		repeated := r.prev != nil && len(p.items) > 0 && paging.SamePage(l.id, r.prev, p.items)
		stop, err := r.check(p.items, repeated)
		if err != nil {
			yield(zero, err)
			return
		}
		if stop {
			break
		}
		last := r.plan(p.items)
		if repeated {
			r.held++
		} else if !r.hand(p.items, yield) {
			return
		}
		if last {
			break
		}
		r.prev = p.items
	}
	r.fetching.Wait() // a quiet end: the pages asked for past it finish
}

// aheadReader is the state of one read-ahead.
type aheadReader[T any] struct {
	l        *listing[T]
	ctx      context.Context
	into     *Response      // the caller's, when it asked WithResponseInto
	queue    []chan page[T] // pages asked for and not yet taken, in order
	fetching sync.WaitGroup // the pages asked for, taken or not
	want     int            // the offset of the next row the loop needs
	next     int            // the offset of the next page to ask for
	stride   int            // the rows a page brings: the limit, or the server's cap
	depth    int            // how many pages to keep asked for ahead of the loop
	prev     []T            // the page before
	held     int            // the times it came back since, held until the offset is seen honoured
}

// fill asks for the pages from next on until depth of them are asked for.
func (r *aheadReader[T]) fill() {
	for len(r.queue) < r.depth {
		ch := make(chan page[T], 1)
		r.fetching.Add(1)
		go func(offset int) {
			defer r.fetching.Done()
			r.l.fetchAhead(r.ctx, r.into != nil, r.l.limit, offset, ch)
		}(r.next)
		r.next += r.stride
		r.queue = append(r.queue, ch)
	}
}

// take waits for the next page. A loop that has to wait for it, after a
// full page (a short one makes the end likely), reads further ahead.
func (r *aheadReader[T]) take() page[T] {
	r.fill()
	var p page[T]
	select {
	case p = <-r.queue[0]:
	default:
		if len(r.prev) >= r.l.limit && r.depth < maxReadAhead {
			r.depth++
			r.fill()
		}
		p = <-r.queue[0]
	}
	r.queue = r.queue[1:]
	if err := p.end.raise(); err != nil {
		p.err = err
	}
	if r.into != nil {
		*r.into = *p.resp
	}
	return p
}

// check says whether the page items (repeated: the page before again)
// ends the listing before it is handed out, and with which error.
func (r *aheadReader[T]) check(items []T, repeated bool) (stop bool, err error) {
	l, n := r.l, len(items)
	if len(r.prev) > l.limit && n > 0 {
		// The page before, longer than asked and showing a row twice, was
		// taken for the rest of the listing: the same page again is the
		// whole listing; rows of it again, an offset that skipped rows.
		if repeated {
			return true, nil
		}
		if paging.Overlaps(l.id, r.prev, items) {
			return true, errLongPageNotWhole
		}
	}
	if repeated && r.held+2 >= ignoredAfter {
		// The API ignores the offset: a full page leaves the rest out of
		// reach; a shorter one was the whole listing.
		if n >= l.limit && !l.unpaged {
			return true, ErrPagingIgnored
		}
		return true, nil
	}
	return false, nil
}

// plan asks for the pages past items, and says whether it is the last.
func (r *aheadReader[T]) plan(items []T) (last bool) {
	l, n := r.l, len(items)
	r.want += n
	long := n > l.limit
	last = n == 0 || n < len(r.prev) || long && !paging.HoldsRowTwice(l.id, items)
	switch {
	case last:
		return true
	case long:
		r.queue = nil // their answers are not needed
		r.next, r.depth = r.want, 1
	case n != r.stride:
		// A short page: the pages read ahead assumed longer ones.
		r.queue = nil
		r.next, r.stride, r.depth = r.want, n, 1
	}
	r.fill()
	return false
}

// hand yields the page before once for each time it was held, then items.
func (r *aheadReader[T]) hand(items []T, yield func(T, error) bool) bool {
	for ; r.held >= 0; r.held-- {
		page := items
		if r.held > 0 {
			page = r.prev
		}
		for _, item := range page {
			if !yield(item, nil) {
				return false
			}
		}
	}
	r.held = 0
	return true
}

// fetchAhead reads a page into ch, with its own *Response when meta is set.
func (l *listing[T]) fetchAhead(ctx context.Context, meta bool, limit, offset int, ch chan<- page[T]) {
	var p page[T]
	if meta {
		p.resp = new(Response)
		ctx = context.WithValue(ctx, responseKey{}, p.resp)
	}
	guard(func() { p.items, p.err = l.fetch(ctx, limit, offset) }, func(e ending) {
		p.end = e
		ch <- p
	})
}

// errLongPageNotWhole ends a listing whose page longer than the limit was
// followed by rows of it again.
var errLongPageNotWhole = fmt.Errorf("acctadmin: the API sent a page longer than the limit, then rows of it again past it: %w", ErrPagingIgnored)

// stepErrs are the errors a walk's last step ends the listing with.
var stepErrs = map[paging.Step]error{paging.StepIgnored: ErrPagingIgnored, paging.StepUnsettled: ErrListingUnsettled}

// shrinking walks a listing that the loop shrinks, told by the client's
// downloadWatch what became of each row.
func (l *listing[T]) shrinking(ctx context.Context, yield func(T, error) bool) {
	var zero T
	watch := l.watch.start()
	defer watch.end()
	pl := paging.Listing[T]{Limit: l.limit, Max: l.max, Start: l.offset, ID: l.id, Shrinks: true, Loop: true, ConsumerUnknown: watch == nil}
	if watch != nil {
		pl.StatusOf = watch.status
	}
	w := paging.NewWalk(pl)
	for {
		offset, limit := w.Request()
		items, err := l.fetch(ctx, limit, offset)
		if err != nil {
			yield(zero, err)
			return
		}
		out, _, step := w.Answer(items)
		for _, item := range out {
			if !yield(item, nil) {
				return
			}
		}
		if step != paging.StepOn {
			if err := stepErrs[step]; err != nil {
				yield(zero, err)
			}
			return
		}
	}
}

// A downloadWatch tells the walks over the unread listing what became of
// the downloads made through their client while they run: those count as
// their loop's doing.
type downloadWatch struct {
	mu    sync.Mutex
	walks int // the walks running
	// ids is what the downloads did to their rows while walks run:
	// RowUnknown while one is asked for or failed, RowGone once a file
	// came back (the API marked the document read), which nothing later
	// replaces.
	ids map[uuid.UUID]paging.RowStatus
}

// start registers a walk; it returns nil when there is no watch.
func (d *downloadWatch) start() *downloadWatch {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	d.walks++
	if d.ids == nil {
		d.ids = make(map[uuid.UUID]paging.RowStatus)
	}
	d.mu.Unlock()
	return d
}

// end forgets a walk, and the downloads once no walk runs.
func (d *downloadWatch) end() {
	if d == nil {
		return
	}
	d.mu.Lock()
	d.walks--
	if d.walks == 0 {
		d.ids = nil
	}
	d.mu.Unlock()
}

// note tells the walks what became of a download of id.
func (d *downloadWatch) note(id uuid.UUID, s paging.RowStatus) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.walks > 0 && d.ids[id] != paging.RowGone {
		d.ids[id] = s
	}
}

// status says what the downloads of id did to its row so far: a row
// never downloaded stays.
func (d *downloadWatch) status(id uuid.UUID) paging.RowStatus {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s, ok := d.ids[id]; ok {
		return s
	}
	return paging.RowStays
}

// A puller drains the documents listing for Documents.Pull: workers
// download each document and hand it to fn, while a walk reads the listing
// under them. Only the goroutine that called Pull touches it; the workers
// and the listing requests send it events.
type puller struct {
	s          *DocumentsClient
	params     *PullParams // Workers, Skip, Before, OnProgress
	fn         func(context.Context, Document, *File) error
	l          listing[Document]
	walk       *paging.Walk[Document]
	ctx        context.Context // the workers'
	lctx       context.Context // the listing requests', cancelled when the pull stops
	cancelList context.CancelFunc
	into, last *Response // the caller's *Response, and the last listing answer's

	jobs    chan *pullJob
	events  chan pullEvent
	answers chan page[Document]
	wg      sync.WaitGroup

	pending     []*pullJob // listed, not handed to a worker yet
	handed      int        // documents handed to a worker
	inFlight    int        // handed to a worker and not done with
	listing     bool       // a listing request is out
	listed      bool       // the walk is over
	waiting     bool       // the last answer could not move on: wait for a download
	openedSince int        // downloads answered since the last listing request
	failed      []*pullJob
	tally       PullProgress

	stopping bool
	ended    error     // why the walk ended early, once what it gave is done
	err      error     // the first error
	errItem  uuid.UUID // the document it is about
	errEarly bool      // that document was never opened: Before failed
	end      ending    // the first panic, raised once every goroutine is done
}

// The number of workers of a pull: the default, and the most it may have.
const (
	defaultPullWorkers = 4
	maxPullWorkers     = 32
)

// pullJob is a document given to a worker.
type pullJob struct {
	doc    Document
	seq    int  // the order in which documents were handed out: the listing's
	opened bool // its download answered (or it ended without one)
}

// pullEvent is what a worker tells the pull: a download answered, or (done)
// a document is done with.
type pullEvent struct {
	job      *pullJob
	done     bool
	err      error
	bytes    int64
	end      ending
	declined bool   // Before left it alone
	opened   bool   // its download was asked for
	locked   bool   // refused as payment-locked
	where    string // the step a panic or Goexit came from
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

// run checks the params and drains the listing.
func (p *puller) run(ctx context.Context) error {
	workers := cmp.Or(p.params.Workers, defaultPullWorkers)
	switch {
	case ctx == nil:
		return nilContext()
	case workers < 0 || workers > maxPullWorkers:
		return invalid("workers", "must be 0 to %d, got %d", maxPullWorkers, workers)
	case p.fn == nil:
		return invalid("fn", "is required")
	case p.l.invalid != nil:
		return p.l.invalid
	}
	l := &p.l
	p.walk = paging.NewWalk(paging.Listing[Document]{Limit: cmp.Or(l.limit, l.max), Max: l.max, Start: l.offset, ID: l.id, Shrinks: l.shrinks})
	p.ctx, p.into = ctx, responseInto(ctx)
	if p.into != nil { // only the pull's own goroutine fills it
		p.ctx = context.WithValue(ctx, responseKey{}, (*Response)(nil))
	}
	p.lctx, p.cancelList = context.WithCancel(ctx)
	defer p.cancelList()
	return p.drain(workers)
}

// drain runs the pull to its end.
func (p *puller) drain(workers int) error {
	p.jobs = make(chan *pullJob)
	p.events = make(chan pullEvent, 2*workers)
	p.answers = make(chan page[Document], 1)
	for range workers {
		p.wg.Add(1)
		go p.work()
	}
	ctxDone := p.ctx.Done()
	for {
		if p.mayList(workers) {
			offset, limit := p.walk.Request()
			p.listing, p.openedSince = true, 0
			go p.l.fetchAhead(p.lctx, p.into != nil, limit, offset, p.answers)
		}
		if p.over() {
			break
		}
		var next chan<- *pullJob
		var job *pullJob
		if !p.stopping && len(p.pending) > 0 {
			next, job = p.jobs, p.pending[0]
		}
		if p.stopping {
			ctxDone = nil
		}
		select {
		case next <- job:
			p.pending[0] = nil
			p.pending = p.pending[1:]
			job.seq = p.handed
			p.handed++
			p.inFlight++
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
// time, not past the end, not while more documents wait than workers, and
// not again for nothing while the last answer waits for a download.
func (p *puller) mayList(workers int) bool {
	return !p.stopping && !p.listing && !p.listed && len(p.pending) <= workers &&
		(!p.waiting || p.inFlight+len(p.pending) == 0) && p.walk.RoomForAPage()
}

// over decides whether the pull is done.
func (p *puller) over() bool {
	return !p.listing && p.inFlight == 0 && (p.stopping || p.listed && len(p.pending) == 0)
}

// answered takes in a listing answer: each new document is kept out, or
// waits for a worker.
func (p *puller) answered(a page[Document]) {
	p.listing, p.last = false, a.resp
	if a.end.value != nil || a.end.goexit {
		p.abnormal(a.end, "a listing request", uuid.Nil)
		return
	}
	if a.err != nil {
		p.stop(a.err, uuid.Nil)
		return
	}
	out, moved, step := p.walk.Answer(a.items)
	for _, d := range out {
		if p.keepOut(d) {
			p.walk.MarkStatus(d.ID, paging.RowStays)
			p.tally.KeptOut++
			p.report(d, nil)
		} else {
			p.pending = append(p.pending, &pullJob{doc: d})
		}
	}
	p.tally.Skipped = p.walk.IDlessPassed()
	p.waiting = !moved && p.openedSince == 0
	if step != paging.StepOn {
		// What the listing gave is still handed out first.
		p.listed, p.ended = true, stepErrs[step]
	}
}

// keepOut asks Skip about d; a panic in it stops the pull.
func (p *puller) keepOut(d Document) (out bool) {
	if p.params.Skip == nil || p.stopping {
		return false
	}
	defer func() {
		if v := recover(); v != nil {
			p.abnormal(ending{value: v}, "Skip", uuid.Nil)
			out = true
		}
	}()
	return p.params.Skip(d)
}

// workerSaid takes in what a worker says.
func (p *puller) workerSaid(ev pullEvent) {
	j := ev.job
	if !j.opened { // from the next request on, the listing shows whether it stays
		j.opened = true
		p.walk.MarkStatus(j.doc.ID, rowStatusAfter(ev))
		p.openedSince++
		p.waiting = false
	}
	if !ev.done {
		return
	}
	p.inFlight--
	p.tally.Bytes += ev.bytes
	err := ev.err
	broke := ev.end.value != nil || ev.end.goexit
	switch {
	case ev.declined:
		p.tally.KeptOut++
	case ev.locked && !broke:
		p.tally.Locked++
	case broke || err != nil:
		if broke {
			err = p.abnormal(ev.end, ev.where, j.doc.ID)
		}
		p.tally.Failed++
		if ev.opened {
			p.failed = append(p.failed, j)
		}
		if p.err == nil {
			p.errEarly = !ev.opened
		}
		p.stop(err, j.doc.ID)
	default:
		p.tally.Done++
	}
	p.report(j.doc, err)
}

// rowStatusAfter is what ev, the first event of a job, says of its row.
func rowStatusAfter(ev pullEvent) paging.RowStatus {
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

// abnormal stops the pull on a panic or a Goexit in where; a panic is
// raised again once the pull is over.
func (p *puller) abnormal(e ending, where string, id uuid.UUID) error {
	err := fmt.Errorf("acctadmin: pull: panic in %s: %v", where, e.value)
	switch {
	case e.goexit:
		err = fmt.Errorf("%w (in %s)", errGoexit, where)
	case p.end.value == nil:
		p.end = e
	}
	p.stop(err, id)
	return err
}

// stop records the first error and stops starting anything new.
func (p *puller) stop(err error, id uuid.UUID) {
	if p.err == nil {
		p.err, p.errItem = err, id
	}
	p.stopping = true
	p.cancelList()
}

// report tells OnProgress; a panic in it stops the pull, and it is not
// called again.
func (p *puller) report(d Document, err error) {
	on := p.params.OnProgress
	if on == nil {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			p.params.OnProgress = nil
			p.abnormal(ending{value: v}, "OnProgress", uuid.Nil)
		}
	}()
	t := p.tally
	t.Document, t.Err = d, err
	on(t)
}

// result is what Pull returns once all its goroutines are done.
func (p *puller) result() error {
	if p.into != nil && p.last != nil {
		*p.into = *p.last
	}
	if p.end.value != nil {
		panic(p.end.value)
	}
	err := cmp.Or(p.err, p.ended)
	if err == nil {
		return nil
	}
	// The unfinished, in the order they were handed out: the listing's.
	slices.SortFunc(p.failed, func(a, b *pullJob) int { return a.seq - b.seq })
	pe := &PullError{Err: err, Document: p.errItem, Done: p.tally.Done, early: p.errEarly}
	for _, j := range p.failed {
		pe.Unfinished = append(pe.Unfinished, j.doc.ID)
	}
	return pe
}

// work is a worker; after a Goexit it ends.
func (p *puller) work() {
	defer p.wg.Done()
	for j := range p.jobs {
		p.serve(j)
	}
}

// serve runs Before on j's document, downloads it, hands it to fn and
// closes it, telling the pull at each step however it ends.
func (p *puller) serve(j *pullJob) {
	fin := pullEvent{job: j, done: true, where: "Before"}
	var f *File
	var body *countingBody
	guard(func() {
		if p.params.Before != nil {
			if err := p.params.Before(p.ctx, j.doc); err != nil {
				fin.declined = errors.Is(err, ErrSkipDocument)
				if !fin.declined {
					fin.err = err
				}
				return
			}
		}
		fin.opened, fin.where = true, "fn"
		var err error
		f, err = p.s.Download(p.ctx, j.doc.ID)
		locked := errors.Is(err, ErrPaymentRequired)
		p.events <- pullEvent{job: j, err: err, locked: locked}
		if err != nil {
			fin.err, fin.locked = err, locked
			return
		}
		body = &countingBody{ReadCloser: f.Body}
		f.Body = body
		fin.err = p.fn(p.ctx, j.doc, f)
	}, func(e ending) {
		if f != nil {
			var c ending
			guard(func() { f.Close() }, func(e ending) { c = e })
			if e.value == nil && !e.goexit {
				e = c
			}
			fin.bytes = body.n.Load()
		}
		fin.end = e
		p.events <- fin
	})
}
