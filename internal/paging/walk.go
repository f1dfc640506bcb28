package paging

import (
	"hash/maphash"
	"reflect"
	"slices"

	"github.com/google/uuid"
)

// MaxPasses bounds the passes of a walk over a shrinking listing.
const MaxPasses = 10

// IgnoredAfter is how many times running a page must come back, at later
// offsets, before the API is taken to ignore the offset.
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

// Listing is what a walk knows of the listing it reads and its consumer.
type Listing[T any] struct {
	Limit, Max, Start int                       // the page size asked for, the largest (0: none), the first offset
	ID                func(T) uuid.UUID         // uuid.Nil for a row without a usable id
	Shrinks           bool                      // the consumer shrinks the listing
	Loop              bool                      // All's loop: done with each row before the next request, handed rows without an id too
	StatusOf          func(uuid.UUID) RowStatus // what the consumer did to a row; nil: what MarkStatus recorded
	ConsumerUnknown   bool                      // nothing tells what the consumer did
}

// A Walk reads a listing (see the package doc).
type Walk[T any] struct {
	Listing[T]

	offset    int                  // where a confirming walk's next request starts
	sent      int                  // requests sent; numbers each request from 1
	handedOut map[uuid.UUID]handed // every id handed out
	newRow    handed               // what a row handed out now is marked with

	// The pass under way: the ids it passed over, in order, and the rows
	// without an id among them.
	passes            int
	signature         maphash.Hash
	idlessPassed      int
	idlessMost        int    // the most rows without an id a pass passed over
	prevSignature     uint64 // the pass before's
	prevConfirms      bool   // and it did not begin counting
	passBeganCounting bool
	// The last answer, where it was asked for, the rows it passed over,
	// and how many times running it came back at later offsets.
	lastAnswer    []T
	lastAnswerAt  int
	lastAnswerRun int
	answerRepeats int
	longestAnswer int
	idlessGiven   int // rows without an id handed out

	// Counting (until confirming is set).
	confirming       bool
	stayingEnd       int             // the offset past the rows of the pass known to stay
	lastStaying      T               // the last of them: the overlap
	seen             []T             // rows seen past stayingEnd, in listing order
	asked            countingRequest // the request out
	lastFull         bool            // the last answer held all the rows asked for
	checkLastStaying bool            // a look past the overlap found nothing: check it is still there
}

// RowStatus is what the consumer did to a row handed out.
type RowStatus uint8

// The statuses of a row.
const (
	RowUnknown RowStatus = iota // either: a download under way or failed
	RowStays                    // left alone
	RowGone                     // taken out
)

// countingRequest is a counting walk's request: whether its first row is
// the overlap, or it looks past the overlap without it.
type countingRequest struct {
	offset, limit   int
	withLastStaying bool
	pastLastStaying bool
}

// handed is what a walk knows of a row it handed out.
type handed struct {
	until  int       // the last request sent while the consumer could take it out; -1: it still can
	status RowStatus // what the consumer did to it
}

// NewWalk starts a walk over l.
func NewWalk[T any](l Listing[T]) *Walk[T] {
	w := &Walk[T]{Listing: l, offset: l.Start, stayingEnd: l.Start, handedOut: make(map[uuid.UUID]handed)}
	if w.StatusOf == nil { // what MarkStatus recorded
		w.StatusOf = func(id uuid.UUID) RowStatus { return w.handedOut[id].status }
	}
	w.confirming = !l.Shrinks || l.ConsumerUnknown
	w.signature.SetSeed(maphash.MakeSeed())
	return w
}

// sameRow reports whether a and b are the same row: the same id, or, for
// rows without one, the same content.
func sameRow[T any](id func(T) uuid.UUID, a, b T) bool {
	ia, ib := id(a), id(b)
	return ia == ib && (ia != uuid.Nil || reflect.DeepEqual(a, b))
}

// SamePage reports whether page b repeats page a, row for row.
func SamePage[T any](id func(T) uuid.UUID, a, b []T) bool {
	return slices.EqualFunc(a, b, func(x, y T) bool { return sameRow(id, x, y) })
}

// HoldsRowTwice reports whether page shows a row twice.
func HoldsRowTwice[T any](id func(T) uuid.UUID, page []T) bool {
	for i := range page {
		if Overlaps(id, page[:i], page[i:i+1]) {
			return true
		}
	}
	return false
}

// Overlaps reports whether page b holds a row of page a.
func Overlaps[T any](id func(T) uuid.UUID, a, b []T) bool {
	return slices.ContainsFunc(b, func(x T) bool {
		return slices.ContainsFunc(a, func(y T) bool { return sameRow(id, x, y) })
	})
}

// Request says where the next request starts and how many rows it asks for.
func (w *Walk[T]) Request() (offset, limit int) {
	w.sent++
	w.newRow = handed{until: -1}
	if w.Loop {
		w.newRow.until = w.sent
	}
	if !w.confirming {
		w.passStaying()
		if w.Loop && len(w.seen) > 0 {
			w.startConfirming() // a row the loop was given may still leave at any time
		}
	}
	if w.confirming {
		return w.offset, w.Limit
	}
	a := countingRequest{offset: w.stayingEnd, limit: w.Limit, withLastStaying: w.stayingEnd > w.Start}
	if a.withLastStaying && !w.lastFull && w.longestAnswer <= 1 && !w.checkLastStaying {
		// No answer held two rows: a server that caps its pages at one row
		// would answer the overlap alone, as the end does. Look past it,
		// then check it.
		a.withLastStaying, a.pastLastStaying = false, true
	}
	if a.withLastStaying {
		a.offset--
		a.limit++
	}
	a.limit += len(w.seen)
	if w.Max > 0 {
		a.limit = min(a.limit, w.Max)
	}
	w.asked = a
	return a.offset, a.limit
}

// passStaying passes over the seen rows whose status is known, up to the
// first that is not: those that stay move stayingEnd past them.
func (w *Walk[T]) passStaying() {
	n := 0
	for _, r := range w.seen {
		id := w.ID(r)
		f := RowStays // a row without an id stays
		if id != uuid.Nil {
			f = w.StatusOf(id)
		}
		if f == RowUnknown {
			break
		}
		n++
		if f == RowStays {
			w.stayingEnd++
			w.lastStaying = r
			w.signature.Write(id[:])
			if id == uuid.Nil {
				w.idlessPassed++
			}
		}
	}
	clear(w.seen[:n])
	w.seen = w.seen[n:]
}

// RoomForAPage reports whether the next request, sent now, can bring a
// whole page of rows past the seen rows still awaiting their status.
func (w *Walk[T]) RoomForAPage() bool {
	if w.confirming {
		return true
	}
	for i, r := range w.seen {
		if id := w.ID(r); id != uuid.Nil && w.StatusOf(id) == RowUnknown {
			b := len(w.seen) - i // the rows from the first awaiting its status
			return w.lastFull && (w.Max <= 0 || w.Limit+1+b <= w.Max)
		}
	}
	return true
}

// MarkStatus records what the consumer did to id's row, which it can no
// longer change from the next request on.
func (w *Walk[T]) MarkStatus(id uuid.UUID, s RowStatus) {
	w.handedOut[id] = handed{until: w.sent, status: s}
}

// IDlessPassed is the most rows without an id one pass went over.
func (w *Walk[T]) IDlessPassed() int {
	n := w.idlessPassed
	for _, r := range w.seen {
		if w.ID(r) == uuid.Nil {
			n++
		}
	}
	return max(w.idlessMost, n)
}

// Answer takes in the answer to the last request: the rows to hand out,
// whether the walk moved (passed rows or found new ones; if not, Pull
// waits for a download before it asks again), and what comes next.
func (w *Walk[T]) Answer(items []T) (out []T, moved bool, step Step) {
	if w.confirming {
		return w.answerConfirming(items)
	}
	if out, step, ok := w.answerCounting(items); ok {
		return out, true, step
	}
	if w.sent > 1 {
		w.startConfirming() // someone else moved the listing: this answer is not used
		return nil, true, StepOn
	}
	w.confirming = true // the first answer broke the rules: as if the walk never counted
	return w.answerConfirming(items)
}

// answerConfirming is Answer for a confirming walk.
func (w *Walk[T]) answerConfirming(items []T) (out []T, moved bool, step Step) {
	offset := w.offset
	if len(items) == 0 {
		if offset == w.Start {
			return nil, false, StepDone // nothing listed
		}
		return nil, false, w.endPass()
	}
	same := w.lastAnswer != nil && SamePage(w.ID, w.lastAnswer, items)
	back := w.back(offset, items)
	long := len(items) > w.Limit
	whole := long && (offset == w.Start && !HoldsRowTwice(w.ID, items) ||
		back && same)
	from := 0
	if same && offset == w.lastAnswerAt {
		from = w.lastAnswerRun
	}
	a := w.passOver(items, whole, from)
	w.offset = offset + a.run
	switch {
	case back:
		w.answerRepeats++
	case w.lastAnswer == nil || offset != w.lastAnswerAt:
		w.answerRepeats = 1
	}
	out = a.out
	if !back || !same { // the page before again shows the same rows without an id
		out = append(out, a.idless...)
		w.idlessGiven += len(a.idless)
	}
	w.lastAnswer, w.lastAnswerAt, w.lastAnswerRun = items, offset, a.run
	moved, step = w.confirmingStep(items, a, whole)
	return out, moved, step
}

// passedOver is what a confirming walk's answer showed.
type passedOver[T any] struct {
	run, fresh int // the rows passed over from the offset, the rows new to the walk
	out        []T // the rows to hand out
	idless     []T // rows without an id a Loop's first pass is to hand out, unless the answer repeats the one before
}

// passOver goes over items from the row from on (those before it were
// gone over already); a long page not whole, as far as the limit only.
func (w *Walk[T]) passOver(items []T, whole bool, from int) passedOver[T] {
	var a passedOver[T]
	inRun := true
	long := len(items) > w.Limit
	for i, item := range items {
		if long && !whole && a.run == w.Limit {
			inRun = false
		}
		id := w.ID(item)
		h, known := w.handedOut[id]
		switch {
		case id == uuid.Nil:
			if inRun { // nothing can download it: it stays
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
		case inRun && h.until >= 0 && h.until < w.sent:
			a.run++ // it stays: passed over
			w.signature.Write(id[:])
		default:
			inRun = false
		}
	}
	return a
}

// passIDless passes over a row without an id, to be handed out in a
// Loop's first pass when no answer before showed it (notShownBefore).
func (w *Walk[T]) passIDless(a *passedOver[T], item T, notShownBefore bool) {
	a.run++
	w.idlessPassed++
	w.signature.Write(uuid.Nil[:])
	if w.Loop && w.passes == 0 && notShownBefore && w.idlessPassed > w.idlessGiven+len(a.idless) {
		a.idless = append(a.idless, item)
	}
}

// back reports whether items come back: the answer before's rows at a
// later offset (package doc).
func (w *Walk[T]) back(offset int, items []T) bool {
	n := min(len(w.lastAnswer), w.Limit+1)
	return w.lastAnswer != nil && offset > w.lastAnswerAt && len(items) >= n &&
		SamePage(w.ID, w.lastAnswer[:n], items[:n])
}

// confirmingStep says whether a confirming walk's answer moved it, and
// what comes next.
func (w *Walk[T]) confirmingStep(items []T, a passedOver[T], whole bool) (moved bool, step Step) {
	moved = a.run > 0 || a.fresh > 0
	shorter := len(items) < w.longestAnswer
	w.longestAnswer = max(w.longestAnswer, len(items))
	switch {
	case a.run == len(items) && (whole || shorter):
		return moved, w.endPass()
	case whole:
		// Not gone over whole yet (downloads are in flight): read it again
		// once one answers, unless it brought new rows.
		return a.fresh > 0, StepOn
	case w.answerRepeats >= IgnoredAfter && len(items) > w.Limit && !whole:
		return moved, w.endPass() // a long page back, not the same: the offset cannot end the pass
	case w.answerRepeats >= IgnoredAfter && len(items) >= w.Limit:
		return moved, StepIgnored
	case w.answerRepeats >= IgnoredAfter:
		return moved, w.endPass() // the whole listing, in a page shorter than the limit
	}
	return moved, StepOn
}

// answerCounting takes in a counting walk's answer, or reports false,
// taking nothing in, when it breaks the counting rules (package doc).
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
		ok := n == 1 && sameRow(w.ID, items[0], w.lastStaying) && len(w.seen) == 0
		return nil, StepDone, ok
	}
	out, ok = w.takeIn(items)
	if !ok {
		return nil, StepOn, false
	}
	longest := w.longestAnswer
	w.longestAnswer = max(w.longestAnswer, n)
	w.lastFull = n == a.limit
	w.lastAnswer, w.lastAnswerAt, w.lastAnswerRun, w.answerRepeats = items, a.offset, 0, 1
	// The end: nothing past the pass, or a page shorter than asked and than one before.
	if n == 0 && !a.withLastStaying && len(w.seen) == 0 || n < a.limit && n < longest {
		return out, StepDone, true
	}
	return out, StepOn, true
}

// takeIn checks that a counting walk's answer holds the overlap when
// asked for, then the seen rows still listed, in order, then rows new to
// the walk, each once. If so, it keeps those seen rows (and those past
// the end of a full answer) and returns the new rows, now seen.
func (w *Walk[T]) takeIn(items []T) (out []T, ok bool) {
	n, i := len(items), 0
	if w.asked.withLastStaying {
		if n == 0 || !sameRow(w.ID, items[0], w.lastStaying) {
			return nil, false
		}
		i = 1
	}
	var keep []T
	for _, r := range w.seen {
		switch {
		case i < n && sameRow(w.ID, items[i], r):
			i++
			keep = append(keep, r)
		case i == n && n == w.asked.limit:
			keep = append(keep, r)
		}
	}
	if !w.allNew(items[i:]) {
		return nil, false
	}
	w.seen = keep
	for _, item := range items[i:] {
		w.seen = append(w.seen, item)
		if id := w.ID(item); id != uuid.Nil {
			w.handedOut[id] = w.newRow
			out = append(out, item)
		} else if w.Loop {
			out = append(out, item)
			w.idlessGiven++
		}
	}
	return out, true
}

// allNew reports whether rows hold no id handed out before, and none
// twice.
func (w *Walk[T]) allNew(rows []T) bool {
	fresh := map[uuid.UUID]bool{}
	for _, r := range rows {
		id := w.ID(r)
		if id == uuid.Nil {
			continue
		}
		if _, known := w.handedOut[id]; known || fresh[id] {
			return false // listed again
		}
		fresh[id] = true
	}
	return true
}

// startConfirming makes the walk confirm the rest of the pass, past its
// rows known to stay.
func (w *Walk[T]) startConfirming() {
	w.idlessMost = w.IDlessPassed()
	w.confirming, w.passBeganCounting = true, true
	w.offset = w.stayingEnd
	w.seen = nil
	w.longestAnswer = min(w.longestAnswer, w.Limit)
}

// endPass ends a pass, and says whether the walk is over.
func (w *Walk[T]) endPass() Step {
	w.idlessMost = w.IDlessPassed()
	if !w.Shrinks {
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
	w.offset = w.Start
	return StepOn
}
