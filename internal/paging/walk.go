package paging

import (
	"hash/maphash"
	"reflect"

	"github.com/google/uuid"
)

// MaxPasses bounds the passes of a walk over a shrinking listing.
const MaxPasses = 10

// IgnoredAfter is how many times running a page must be answered, at
// later offsets, before the API is taken to ignore the offset. A listing
// may show a row twice, so two equal pages in a row can be honest.
const IgnoredAfter = 3

// Step is what an answer decided.
type Step int

// The steps of a walk.
const (
	StepOn        Step = iota // ask for the next page
	StepDone                  // every row was seen
	StepIgnored               // the API ignores the offset and the rest is out of reach
	StepUnsettled             // MaxPasses passes, and the listing still moved
)

// Listing is what a walk knows of the listing it reads.
type Listing[T any] struct {
	Limit int // the page size asked for
	Max   int // the endpoint's largest page; 0 for none
	Start int // the offset the walk starts at
	// ID identifies a row; uuid.Nil for a row without a usable id.
	ID func(T) uuid.UUID
	// Unpaged marks a listing whose paging the API does not document: a
	// short page repeated is its whole listing, never an ignored offset.
	Unpaged bool
	// Shrinks marks a listing that the consumer shrinks: its end is
	// confirmed by passes. A walk over a listing that nothing shrinks
	// ends with its first pass, and is confirming from the start.
	Shrinks bool
	// Loop: the consumer is All's loop, which deals with every row handed
	// out before the next request, and is handed rows without an id too
	// (Pull cannot download them).
	Loop bool
	// StatusOf, when set, says what the consumer did to a row handed out
	// (All asks its Client); when nil, the walk goes by what MarkStatus
	// recorded (Pull knows its downloads).
	StatusOf func(uuid.UUID) RowStatus
	// ConsumerUnknown: nothing tells the walk what its consumer did, so
	// it confirms every pass from the start.
	ConsumerUnknown bool
}

// A Walk reads a listing (see the package doc). Its state:
type Walk[T any] struct {
	limit, max, start int
	id                func(T) uuid.UUID
	unpaged           bool
	shrinks           bool
	loop              bool
	statusOf          func(uuid.UUID) RowStatus

	offset int // where the next request of a confirming walk starts
	sent   int // requests sent; numbers each request from 1
	// handedOut is every id handed out, with the number of requests sent
	// when it could no longer leave the listing by the consumer's doing
	// (its download answered, or it was kept out), or -1 while it still
	// may; the status bits say which (see MarkStatus).
	handedOut map[uuid.UUID]int32
	// newRow is what a row handed out from the answer to the request out
	// is marked with: -1 until the consumer says, or, in a Loop, that
	// request's number.
	newRow int32

	// The pass under way.
	passes            int          // passes ended
	signature         maphash.Hash // of the ids of the rows it passed over, in order
	idlessPassed      int          // rows without an id it passed over
	idlessMost        int          // the most rows without an id a pass passed over
	prevSignature     uint64       // the signature of the pass before
	prevConfirms      bool         // and it may confirm the next (it did not begin counting)
	passBeganCounting bool         // the pass began counting and turned confirming
	// The last answer, where it was asked for, the rows it passed over,
	// and how many times running it came back at later offsets.
	lastAnswer    []T
	lastAnswerAt  int
	lastAnswerRun int
	answerRepeats int
	longestAnswer int // the longest answer yet
	// idlessGiven is how many rows without an id were handed out: a pass
	// that goes over them again hands out only those past that count.
	idlessGiven int

	// The counting walk (see answerCounting); confirming is set once an
	// answer shows the listing moved by someone else's doing, or when
	// nothing tells the walk what its consumer did.
	confirming     bool
	stayingEnd     int             // the offset past the rows of the pass known to stay
	lastStaying    T               // the last of them, asked for again as the overlap
	hasLastStaying bool            // a row of the pass is known to stay
	seen           []seenRow[T]    // rows seen past stayingEnd, in listing order
	asked          countingRequest // the request out
	lastFull       bool            // the last answer held all the rows asked for
	// checkLastStaying: a look past the last staying row found nothing;
	// the next request checks that row is still there.
	checkLastStaying bool
}

// RowStatus is what the consumer did to a row: left it in the listing,
// took it out, or either (a download under way or failed).
type RowStatus uint8

// The statuses of a row handed out.
const (
	RowUnknown RowStatus = iota
	RowStays
	RowGone
)

// seenRow is a row a counting walk saw past stayingEnd and not yet passed.
type seenRow[T any] struct {
	item T
	id   uuid.UUID
}

// countingRequest is a counting walk's request: where it starts, how
// many rows it asks for, and whether its first row is the overlap.
type countingRequest struct {
	offset, limit   int
	withLastStaying bool
	pastLastStaying bool // past stayingEnd, without the overlap
}

// The status bits of a handed-out id's value (above any request count).
const (
	statusStays = 1 << 29
	statusGone  = 1 << 30
)

// requestOf is the request count of a handed-out id's value.
func requestOf(v int32) int { return int(v &^ (statusStays | statusGone)) }

// NewWalk starts a walk over l.
func NewWalk[T any](l Listing[T]) *Walk[T] {
	w := &Walk[T]{
		limit: l.Limit, max: l.Max, start: l.Start, id: l.ID, unpaged: l.Unpaged,
		shrinks: l.Shrinks, loop: l.Loop, statusOf: l.StatusOf,
		offset: l.Start, stayingEnd: l.Start, handedOut: make(map[uuid.UUID]int32),
	}
	if w.statusOf == nil {
		w.statusOf = w.KnownStatus
	}
	w.confirming = !l.Shrinks || l.ConsumerUnknown
	w.signature.SetSeed(maphash.MakeSeed())
	return w
}

// Sent is how many requests the walk sent.
func (w *Walk[T]) Sent() int { return w.sent }

// SamePage reports whether page b repeats page a: the same rows in the
// same order, rows with an id compared by id and rows without one by
// their content. id may be nil: every row is compared by content.
func SamePage[T any](id func(T) uuid.UUID, a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		ia, ib := rowID(id, a[i]), rowID(id, b[i])
		if ia != ib || ia == uuid.Nil && !reflect.DeepEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// HoldsRowTwice reports whether page shows a row twice: rows with an id
// compared by id, rows without one by their content.
func HoldsRowTwice[T any](id func(T) uuid.UUID, page []T) bool {
	ids := make(map[uuid.UUID]bool, len(page))
	var idless []T
	for _, item := range page {
		if rid := rowID(id, item); rid != uuid.Nil {
			if ids[rid] {
				return true
			}
			ids[rid] = true
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

// Overlaps reports whether page b holds a row of page a: rows with an id
// compared by id, rows without one by their content.
func Overlaps[T any](id func(T) uuid.UUID, a, b []T) bool {
	ids := make(map[uuid.UUID]bool, len(a))
	var idless []T
	for _, item := range a {
		if rid := rowID(id, item); rid != uuid.Nil {
			ids[rid] = true
		} else {
			idless = append(idless, item)
		}
	}
	for _, item := range b {
		if rid := rowID(id, item); rid != uuid.Nil {
			if ids[rid] {
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

// rowID is item's id, or uuid.Nil when id is nil.
func rowID[T any](id func(T) uuid.UUID, item T) uuid.UUID {
	if id == nil {
		return uuid.Nil
	}
	return id(item)
}

// Request numbers the next request and says where it starts and how many
// rows it asks for.
func (w *Walk[T]) Request() (seq, offset, limit int) {
	w.sent++
	w.newRow = -1
	if w.loop {
		w.newRow = int32(w.sent)
	}
	if !w.confirming {
		w.passStaying()
		if w.loop && len(w.seen) > 0 {
			// All: a row the loop was given and whose status is not known
			// (its download failed, or runs elsewhere) may leave the
			// listing at any time: the walk cannot count on it.
			w.startConfirming()
		}
	}
	if w.confirming {
		return w.sent, w.offset, w.limit
	}
	a := countingRequest{offset: w.stayingEnd, limit: w.limit, withLastStaying: w.hasLastStaying}
	if a.withLastStaying && !w.lastFull && w.longestAnswer <= 1 && !w.checkLastStaying {
		// Every answer held one row at most, the last one fewer than
		// asked: with the overlap, an answer of a server that caps its
		// pages at one row would hold the overlap alone, as the end of a
		// listing does. So look past it first, and check the overlap
		// after (see answerCounting).
		a.withLastStaying, a.pastLastStaying = false, true
	}
	if a.withLastStaying {
		a.offset--
		a.limit++
	}
	a.limit += len(w.seen)
	if w.max > 0 {
		a.limit = min(a.limit, w.max)
	}
	w.asked = a
	return w.sent, a.offset, a.limit
}

// passStaying passes over the first seen rows whose status is known: one
// that stays moves stayingEnd past it (and is the next overlap), one that
// is gone is no longer listed; it stops at the first row whose status is
// not known yet.
func (w *Walk[T]) passStaying() {
	n := 0
	for _, r := range w.seen {
		f := RowStays // a row without an id stays
		if r.id != uuid.Nil {
			f = w.statusOf(r.id)
		}
		if f == RowUnknown {
			break
		}
		n++
		if f == RowStays {
			w.stayingEnd++
			w.lastStaying, w.hasLastStaying = r.item, true
			w.signature.Write(r.id[:])
			if r.id == uuid.Nil {
				w.idlessPassed++
			}
		}
	}
	clear(w.seen[:n])
	w.seen = w.seen[n:]
}

// awaitingStatus is how many seen rows would stay unpassed if the next
// request were sent now: a Pull asks for the next page once they fit in
// its answer beside a whole page.
func (w *Walk[T]) awaitingStatus() int {
	for i, r := range w.seen {
		if r.id != uuid.Nil && w.statusOf(r.id) == RowUnknown {
			return len(w.seen) - i
		}
	}
	return 0
}

// RoomForAPage reports whether the next request, sent now, can bring a
// whole page of rows past the rows still awaiting their status (always,
// for a confirming walk).
func (w *Walk[T]) RoomForAPage() bool {
	if w.confirming {
		return true
	}
	b := w.awaitingStatus()
	return b == 0 || w.lastFull && (w.max <= 0 || w.limit+1+b <= w.max)
}

// MarkStatus records, besides at, what the consumer did to id's row.
func (w *Walk[T]) MarkStatus(id uuid.UUID, at int32, f RowStatus) {
	switch f {
	case RowStays:
		at |= statusStays
	case RowGone:
		at |= statusGone
	}
	w.handedOut[id] = at
}

// KnownStatus is the status MarkStatus recorded for id.
func (w *Walk[T]) KnownStatus(id uuid.UUID) RowStatus {
	v, ok := w.handedOut[id]
	switch {
	case !ok || v < 0:
		return RowUnknown
	case v&statusStays != 0:
		return RowStays
	case v&statusGone != 0:
		return RowGone
	}
	return RowUnknown
}

// IDlessPassed is how many rows without an id one pass went over, at
// most.
func (w *Walk[T]) IDlessPassed() int {
	n := w.idlessPassed
	for _, r := range w.seen {
		if r.id == uuid.Nil {
			n++
		}
	}
	return max(w.idlessMost, n)
}

// Answer takes in the answer items to request seq, sent at offset. It
// returns the items to hand out, in order (the new ones, marked -1 until
// the consumer says otherwise), whether the walk moved (it passed rows or
// found new ones; when not, the first row is one whose download has not
// answered, and the next request should wait for it), and what comes next.
func (w *Walk[T]) Answer(seq, offset int, items []T) (out []T, moved bool, step Step) {
	if !w.confirming {
		if out, step, ok := w.answerCounting(items); ok {
			return out, true, step
		}
		if w.sent == 1 {
			// The first answer already breaks the rules (a page longer
			// than asked, a row twice): the walk is confirming from the
			// start, as if it never counted on.
			w.confirming = true
			return w.answerConfirming(seq, offset, items)
		}
		// The listing moved by someone else's doing: from here on the
		// walk is confirming. The pass goes on from stayingEnd, this answer
		// unused, and its end is confirmed by two more passes.
		w.startConfirming()
		return nil, true, StepOn
	}
	return w.answerConfirming(seq, offset, items)
}

// answerConfirming is Answer for a confirming walk.
func (w *Walk[T]) answerConfirming(seq, offset int, items []T) (out []T, moved bool, step Step) {
	if len(items) == 0 {
		if offset == w.start {
			w.idlessMost = w.IDlessPassed()
			return nil, false, StepDone // nothing listed: every row was handed out
		}
		return nil, false, w.endPass()
	}
	whole := w.wholeListing(offset, items)
	a := w.passOver(seq, offset, items, whole)
	w.offset = offset + a.run
	out = w.noteAnswer(offset, items, a)
	moved, step = w.confirmingStep(items, a, whole)
	return out, moved, step
}

// wholeListing reports whether items, a confirming walk's answer at
// offset, is the whole listing. A page longer than the limit is when it
// is the listing's start and shows each row once (the API ignored the
// limit), or when it comes back at a later offset (the API ignores limit
// and offset). Else it may be a page the API added rows to: the walk goes
// over the limit's rows of it, and the next request, past them, tells.
func (w *Walk[T]) wholeListing(offset int, items []T) bool {
	long := len(items) > w.limit
	whole := long && (offset == w.start && !HoldsRowTwice(w.id, items) ||
		w.lastAnswer != nil && offset > w.lastAnswerAt && SamePage(w.id, w.lastAnswer, items))
	return whole
}

// passedOver is what a confirming walk's answer showed: the rows it
// passes over from its offset (run), the rows new to the walk (fresh),
// the rows to hand out, and the rows without an id that it passes over,
// in the first pass, and that the answer before did not show passed over
// already (idless, handed out unless the answer repeats the one before).
type passedOver[T any] struct {
	run, fresh int
	out        []T
	idless     []T
}

// passOver goes over the answer items to request seq, sent at offset.
func (w *Walk[T]) passOver(seq, offset int, items []T, whole bool) passedOver[T] {
	var a passedOver[T]
	inRun := true
	from := 0
	if w.lastAnswer != nil && offset == w.lastAnswerAt && SamePage(w.id, w.lastAnswer, items) {
		from = w.lastAnswerRun
	}
	long := len(items) > w.limit
	for i, item := range items {
		if long && !whole && a.run == w.limit {
			inRun = false
		}
		id := w.id(item)
		at, known := w.handedOut[id]
		switch {
		case id == uuid.Nil:
			// Nothing can download it, so it stays where it is.
			if inRun {
				w.passIDless(&a, item, i >= from)
			}
		case !known:
			w.handedOut[id] = w.newRow
			a.fresh++
			a.out = append(a.out, a.idless...)
			a.out = append(a.out, item)
			w.idlessGiven += len(a.idless)
			a.idless = a.idless[:0]
			inRun = false
		case inRun && at >= 0 && requestOf(at) < seq:
			a.run++ // it stays: passed over
			w.signature.Write(id[:])
		default:
			inRun = false
		}
	}
	return a
}

// passIDless passes over a row without an id; in the first pass, one
// that the answer before did not show passed over already
// (notShownBefore) and that was not handed out yet is to be.
func (w *Walk[T]) passIDless(a *passedOver[T], item T, notShownBefore bool) {
	a.run++
	w.idlessPassed++
	w.signature.Write(uuid.Nil[:])
	if w.loop && w.passes == 0 && notShownBefore && w.idlessPassed > w.idlessGiven+len(a.idless) {
		a.idless = append(a.idless, item)
	}
}

// noteAnswer keeps what a confirming walk needs of its answer items at
// offset, to tell the same page again, and returns the rows to hand out.
func (w *Walk[T]) noteAnswer(offset int, items []T, a passedOver[T]) []T {
	out := a.out
	switch {
	case w.lastAnswer != nil && offset > w.lastAnswerAt && SamePage(w.id, w.lastAnswer, items):
		// The page before, again, at a later offset: what an API that
		// ignores the offset does (or a listing that repeats its rows,
		// for a time). Its rows without an id are taken for the same
		// rows again.
		w.answerRepeats++
	case w.lastAnswer == nil || offset != w.lastAnswerAt:
		w.answerRepeats = 1
		fallthrough
	default:
		out = append(out, a.idless...)
		w.idlessGiven += len(a.idless)
	}
	w.lastAnswer, w.lastAnswerAt, w.lastAnswerRun = items, offset, a.run
	return out
}

// confirmingStep says what comes after a confirming walk's answer items,
// and whether the walk moved (it passed rows or found new ones).
func (w *Walk[T]) confirmingStep(items []T, a passedOver[T], whole bool) (moved bool, step Step) {
	moved = a.run > 0 || a.fresh > 0
	shorter := len(items) < w.longestAnswer
	w.longestAnswer = max(w.longestAnswer, len(items))
	switch {
	case a.run == len(items) && (whole || shorter):
		// The walk went over the whole listing, sent in a page longer
		// than asked for, or over a page shorter than one it had
		// before (pages of a server that caps them are all as long, but
		// the last): the pass is over. (Waiting for an empty page instead
		// would never end on a listing that grows as fast as it is read.)
		return moved, w.endPass()
	case whole:
		// The whole listing, not gone over whole yet (downloads are in
		// flight). It comes back at every offset, but that is no ignored
		// offset: nothing lies beyond it. Read it again as downloads
		// answer, until the walk goes over it: not before one answers,
		// unless it brought new rows.
		return a.fresh > 0, StepOn
	case w.answerRepeats >= IgnoredAfter && len(items) >= w.limit && !w.unpaged:
		return moved, StepIgnored
	case w.answerRepeats >= IgnoredAfter:
		// The API ignores the offset and sent its whole listing in a
		// page shorter than the limit: the pass is over.
		return moved, w.endPass()
	}
	return moved, StepOn
}

// answerCounting takes in an answer to a counting walk's request, and reports
// false when it shows the listing moved by someone else's doing, taking
// nothing in. A counting walk counts on what it knows of its consumer: a
// row it left alone stays, a row whose download answered is gone, so each
// request starts past the rows known to stay (pass), and the pass that
// ends is the walk's last. It checks in every answer what the pass's
// completeness rests on, and the first answer that breaks it makes the
// walk confirming:
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
//     limit often ignores the offset too, and the confirming walk reads it
//     at less cost).
//
// Rows seen past the offset (whose status was not known when it was asked
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
func (w *Walk[T]) answerCounting(items []T) (out []T, step Step, ok bool) {
	a := &w.asked
	n := len(items)
	if n > a.limit {
		return nil, StepOn, false // the limit ignored: the offset may be too
	}
	switch {
	case a.pastLastStaying && (n > 0 || len(w.seen) > 0):
		return nil, StepOn, false // a server that caps its pages at one row
	case a.pastLastStaying:
		w.checkLastStaying = true // nothing past stayingEnd: if the overlap is still there, that is the end
		return nil, StepOn, true
	case w.checkLastStaying:
		if !w.onlyLastStaying(items) {
			return nil, StepOn, false
		}
		w.idlessMost = w.IDlessPassed()
		return nil, StepDone, true
	}
	i, ok := w.pastOverlap(items)
	if !ok {
		return nil, StepOn, false
	}
	longest := w.longestAnswer
	w.longestAnswer = max(w.longestAnswer, n)
	w.lastFull = n == a.limit
	// What a confirming walk would see repeated, if it comes to that.
	w.lastAnswer, w.lastAnswerAt, w.lastAnswerRun, w.answerRepeats = items, a.offset, 0, 1
	out = w.takeInPast(items, i)
	if w.countingGoesOn(n, longest) {
		return out, StepOn, true
	}
	w.idlessMost = w.IDlessPassed()
	return out, StepDone, true
}

// onlyLastStaying reports whether items, the answer that checks the
// overlap after a look past it found nothing, is the overlap alone, and
// no row seen past it waits.
func (w *Walk[T]) onlyLastStaying(items []T) bool {
	return len(items) == 1 && w.sameRow(items[0], w.lastStaying) && len(w.seen) == 0
}

// pastOverlap checks that items, a counting walk's answer, opens as the
// pass counted: with the overlap when it was asked for, then the seen
// rows still listed, in order (a row missing left the listing, and is no
// longer counted), then rows that are new (no id handed out before, none
// twice). It returns where the rows past the overlap start.
func (w *Walk[T]) pastOverlap(items []T) (i int, ok bool) {
	n := len(items)
	if w.asked.withLastStaying {
		if n == 0 || !w.sameRow(items[0], w.lastStaying) {
			return 0, false
		}
		i = 1
	}
	j := i
	for _, r := range w.seen {
		if j < n && w.sameRow(items[j], r.item) {
			j++
		}
	}
	fresh := map[uuid.UUID]bool{}
	for _, item := range items[j:] {
		id := w.id(item)
		if id == uuid.Nil {
			continue
		}
		if _, known := w.handedOut[id]; known || fresh[id] {
			return 0, false // listed again
		}
		fresh[id] = true
	}
	return i, true
}

// takeInPast keeps the seen rows items still lists from i on (and those
// past the end of a full answer), notes the rows past them as seen, and
// returns those to hand out.
func (w *Walk[T]) takeInPast(items []T, i int) (out []T) {
	n := len(items)
	keep := w.seen[:0]
	for _, r := range w.seen {
		if i < n && w.sameRow(items[i], r.item) {
			i++
			keep = append(keep, r)
			continue
		}
		if i == n && n == w.asked.limit {
			keep = append(keep, r) // past the answer's end
		}
	}
	clear(w.seen[len(keep):])
	w.seen = keep
	for _, item := range items[i:] {
		id := w.id(item)
		w.seen = append(w.seen, seenRow[T]{item: item, id: id})
		if id != uuid.Nil {
			w.handedOut[id] = w.newRow
			out = append(out, item)
		} else if w.loop {
			out = append(out, item)
			w.idlessGiven++
		}
	}
	return out
}

// countingGoesOn reports whether the pass goes on after an answer of n
// rows: it ends with nothing listed from where it went on, or with an
// answer shorter than asked for and than one before it (of a server that
// caps its pages, too, only the last is shorter).
func (w *Walk[T]) countingGoesOn(n, longest int) bool {
	a := &w.asked
	switch {
	case n == 0 && !a.withLastStaying && len(w.seen) == 0:
		return false
	case n < a.limit && n < longest:
		return false
	}
	return true
}

// startConfirming makes the walk confirming, from the pass under way on: its rows
// known to stay were passed over; the rows past them are asked for again.
func (w *Walk[T]) startConfirming() {
	w.idlessMost = w.IDlessPassed()
	w.confirming, w.passBeganCounting = true, true
	w.offset = w.stayingEnd
	clear(w.seen)
	w.seen = nil
	// Its requests ask for the limit again: what a longer request got
	// says nothing of where its listing ends.
	w.longestAnswer = min(w.longestAnswer, w.limit)
}

// sameRow reports whether a and b are the same row: the same id, or, for
// rows without one, the same content.
func (w *Walk[T]) sameRow(a, b T) bool {
	ia, ib := w.id(a), w.id(b)
	return ia == ib && (ia != uuid.Nil || reflect.DeepEqual(a, b))
}

// endPass ends a pass, and says whether the walk is over.
func (w *Walk[T]) endPass() Step {
	w.idlessMost = w.IDlessPassed()
	if !w.shrinks {
		return StepDone
	}
	sig := w.signature.Sum64()
	if w.passes > 0 && w.prevConfirms && sig == w.prevSignature {
		return StepDone
	}
	w.passes++
	if w.passes >= MaxPasses {
		return StepUnsettled
	}
	w.prevSignature, w.prevConfirms, w.passBeganCounting = sig, !w.passBeganCounting, false
	w.signature.Reset()
	w.idlessPassed, w.lastAnswer, w.answerRepeats = 0, nil, 0
	w.offset = w.start
	return StepOn
}
