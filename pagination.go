package acctadmin

import (
	"context"
	"iter"
	"reflect"

	"github.com/google/uuid"
)

// The API pages its listings by limit and offset and says nothing of
// totals, so a page shorter than the page size is the last one.
//
// Every All method is one call of paginate, which has two strategies:
//
//   - Stable listings (the loop's own calls cannot change them) are read
//     one page ahead: while the caller works through page k, page k+1 is
//     already on its way, so N pages cost about N round trips of wall time
//     rather than N round trips plus the caller's work.
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
			ctx = context.Background()
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
