package acctadmin

import (
	"context"
	"iter"

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

// ahead reads a stable listing one page ahead of the caller.
func (l *listing[T]) ahead(ctx context.Context, yield func(T, error) bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := func(offset int) <-chan page[T] {
		ch := make(chan page[T], 1)
		go func() {
			items, err := l.fetch(ctx, l.limit, offset)
			ch <- page[T]{items, err}
		}()
		return ch
	}
	var zero T
	var prevFirst uuid.UUID
	offset := l.offset
	next := start(offset)
	for next != nil {
		p := <-next
		next = nil
		if p.err != nil {
			yield(zero, p.err)
			return
		}
		if l.id != nil && len(p.items) > 0 {
			// A page that starts where the previous one did means the API
			// ignored the offset: everything was yielded already.
			first := l.id(p.items[0])
			if first == prevFirst {
				return
			}
			prevFirst = first
		}
		offset += len(p.items)
		// A short page is the last one; so is a page longer than asked
		// for, which means the API ignored the limit and sent everything.
		if len(p.items) == l.limit {
			next = start(offset)
		}
		for _, item := range p.items {
			if !yield(item, nil) {
				if next != nil {
					cancel()
					<-next // the fetcher ends with the loop
				}
				return
			}
		}
	}
}

// shrinking reads a listing that the loop body may shrink by removing the
// items it is given.
func (l *listing[T]) shrinking(ctx context.Context, yield func(T, error) bool) {
	var zero T
	seen := make(map[uuid.UUID]struct{})
	offset := l.offset
	for {
		items, err := l.fetch(ctx, l.limit, offset)
		if err != nil {
			yield(zero, err)
			return
		}
		present := 0
		for _, item := range items {
			id := l.id(item)
			if _, ok := seen[id]; ok {
				present++
				continue
			}
			seen[id] = struct{}{}
			if !yield(item, nil) {
				return
			}
		}
		if len(items) < l.limit {
			return
		}
		offset += present
	}
}
