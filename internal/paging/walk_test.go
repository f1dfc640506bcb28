package paging

import (
	"fmt"
	"testing"

	"github.com/google/uuid"
)

// row is a row of a test listing.
type row struct{ id uuid.UUID }

func rowIDOf(r row) uuid.UUID { return r.id }

func rowsOf(n int) []row {
	rs := make([]row, n)
	for i := range rs {
		rs[i] = row{uuid.NewSHA1(uuid.NameSpaceOID, []byte(fmt.Sprint(i)))}
	}
	return rs
}

// server is a listing that honours limit and offset; pad opens every
// answer with the listing's first row.
type server struct {
	rows     []row
	pad      bool
	requests int
	// before, when set, runs before each answer (others changing the
	// listing).
	before func(s *server)
}

func (s *server) page(offset, limit int) []row {
	s.requests++
	if s.before != nil {
		s.before(s)
	}
	offset = min(offset, len(s.rows))
	page := append([]row(nil), s.rows[offset:min(offset+limit, len(s.rows))]...)
	if s.pad && len(s.rows) > 0 {
		page = append([]row{s.rows[0]}, page...)
	}
	return page
}

// readAll walks s as All does when its loop reads only (every row handed
// out stays), and returns how often each row was handed out and the last
// step.
func readAll(t *testing.T, s *server, limit int) (map[uuid.UUID]int, Step) {
	t.Helper()
	handed := map[uuid.UUID]int{}
	w := NewWalk(Listing[row]{Limit: limit, Max: 200, ID: rowIDOf, Shrinks: true, Loop: true,
		StatusOf: func(uuid.UUID) RowStatus { return RowStays }})
	for range 1000 {
		offset, n := w.Request()
		out, _, step := w.Answer(s.page(offset, n))
		for _, r := range out {
			handed[r.id]++
		}
		if step != StepOn {
			return handed, step
		}
	}
	t.Fatal("no end after 1000 requests")
	return nil, StepOn
}

func checkEach(t *testing.T, handed map[uuid.UUID]int, want []row) {
	t.Helper()
	if len(handed) != len(want) {
		t.Fatalf("%d rows handed out, want %d", len(handed), len(want))
	}
	for _, r := range want {
		if handed[r.id] != 1 {
			t.Fatalf("row %s handed out %d times", r.id, handed[r.id])
		}
	}
}

// A counting walk over a listing that pages honestly and does not move
// hands out every row once, and ends at its last page, shorter than the
// one before: 5 rows in pages of 2 cost 3 requests (rows 0-1, then 1-3
// with the overlap, then 3-4).
func TestWalkCountsOnAnHonestListing(t *testing.T) {
	s := &server{rows: rowsOf(5)}
	handed, step := readAll(t, s, 2)
	checkEach(t, handed, s.rows)
	if step != StepDone || s.requests != 3 {
		t.Fatalf("step %d after %d requests, want StepDone after 3", step, s.requests)
	}
}

// A row before the offset that others take out moves the overlap: the
// walk turns confirming, and still hands out every row once.
func TestWalkConfirmsWhenTheOverlapMoves(t *testing.T) {
	all := rowsOf(9)
	s := &server{rows: append([]row(nil), all...)}
	gone := false
	s.before = func(s *server) {
		if s.requests == 3 && !gone {
			s.rows = s.rows[1:] // others read the first row
			gone = true
		}
	}
	handed, step := readAll(t, s, 3)
	checkEach(t, handed, all)
	// Counting: 3 requests; then confirming passes over the 8 rows left
	// (4 requests each, the empty one at the end included), two that agree.
	if step != StepDone || s.requests <= 4 {
		t.Fatalf("step %d after %d requests, want StepDone after more than 4", step, s.requests)
	}
}

// A page longer than the limit that shows a row twice is not the whole
// listing: every row of a listing whose answers all open with its first
// row is handed out once.
func TestWalkReadsPastALongPageThatShowsARowTwice(t *testing.T) {
	s := &server{rows: rowsOf(30), pad: true}
	handed, step := readAll(t, s, 10)
	checkEach(t, handed, s.rows)
	if step != StepDone {
		t.Fatalf("step %d, want StepDone", step)
	}
}

// A page longer than the limit at the listing's start that shows each row
// once is the whole listing (the API ignored the limit).
func TestWalkTakesALongFirstPageForTheWholeListing(t *testing.T) {
	rows := rowsOf(7)
	w := NewWalk(Listing[row]{Limit: 3, ID: rowIDOf, Shrinks: true, ConsumerUnknown: true, Loop: true})
	w.Request()
	out, _, step := w.Answer(rows)
	if len(out) != 7 || step != StepOn {
		t.Fatalf("%d rows handed out, step %d; want 7 and StepOn", len(out), step)
	}
	// Confirming: the page again is gone over whole, and ends the pass;
	// a second pass that agrees ends the walk.
	for pass := range 2 {
		if offset, _ := w.Request(); offset != 0 {
			t.Fatalf("pass %d asks at offset %d, want 0", pass, offset)
		}
		out, _, step = w.Answer(rows)
		if len(out) != 0 {
			t.Fatalf("pass %d hands out %d rows again", pass, len(out))
		}
	}
	if step != StepDone {
		t.Fatalf("step %d after two passes, want StepDone", step)
	}
}
