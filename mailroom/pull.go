package mailroom

import (
	"context"
	"errors"
	"sync"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/google/uuid"
)

// Pull makes the store complete once, as Run does every pull interval:
// it fetches again, by id, the documents left in the journal whose claim
// is free, then lists the unread documents and saves those that are not
// saved, kept out, or claimed by another delivery or room, WithWorkers at
// a time.
//
// It returns nil when every document it met is saved, kept out or gone,
// or was being saved elsewhere; otherwise the first error, after trying
// the rest. A document whose download failed stays in the journal and is
// fetched again by the next Pull. An error of the claims or the store
// (Redis down, a folder that refuses writes) stops the pull at once:
// nothing is downloaded that the room could not account for.
func (r *Room) Pull(ctx context.Context) error {
	if ctx == nil {
		return errors.New("mailroom: nil context")
	}
	if r.refusing.Load() && !r.storeWritable(ctx) {
		return errRefusing
	}
	ids, err := r.journal.Pending(ctx)
	if err != nil {
		return err
	}
	p := &pass{r: r}
	for _, id := range ids {
		if p.stopped() {
			break
		}
		p.record(r.take(ctx, id, nil, true))
	}
	if p.stopped() {
		return p.result()
	}
	return p.unread(ctx)
}

// storeWritable asks a store that refuses writes whether it takes one
// again (through its Check method), and when it does lets downloads
// start. A store without Check is given a new chance at every pull.
func (r *Room) storeWritable(ctx context.Context) bool {
	if c, ok := r.store.(interface{ Check(context.Context) error }); ok {
		if err := c.Check(ctx); err != nil {
			return false
		}
	}
	r.refusing.Store(false)
	return true
}

// pass is one Pull: the first error met, and whether it stops the pull.
type pass struct {
	r    *Room
	mu   sync.Mutex
	err  error
	stop bool
}

// record keeps the first error of a document; an error of the claims or
// the store stops the pass. A document busy elsewhere is no error.
func (p *pass) record(err error) {
	if err == nil || errors.Is(err, errBusy) {
		return
	}
	var api *acctadmin.APIError
	var tr *acctadmin.TransportError
	perDocument := errors.As(err, &api) || errors.As(err, &tr)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		p.err = err
	}
	if !perDocument {
		p.stop = true
	}
}

// result is the first error kept, or nil.
func (p *pass) result() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// fail keeps err, unless an error was kept before, and stops the pass.
func (p *pass) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		p.err = err
	}
	p.stop = true
}

func (p *pass) stopped() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stop
}

// maxWalks bounds the walks of the unread listing in one Pull.
const maxWalks = 8

// unread walks the unread listing and saves what it finds, WithWorkers at
// a time, again and again while a walk downloads anything, at most
// maxWalks times.
//
// A walk hands each listed document to a worker as soon as it is listed,
// so the downloads shrink the listing while All reads it; All keeps its
// promise under that (it walks the listing again when it moved), and
// when it cannot (a listing that never settles) it says so. The walks
// that follow a walk that downloaded anything catch the documents that
// arrived meanwhile, so that the pull ends only on a walk that found
// nothing to do.
func (p *pass) unread(ctx context.Context) error {
	for range maxWalks {
		before := p.r.downloads.Load()
		if err := p.walk(ctx); err != nil {
			p.fail(err)
		}
		if p.stopped() || p.r.downloads.Load() == before {
			break
		}
	}
	return p.result()
}

// walk reads the unread listing once, handing each document to a worker.
func (p *pass) walk(ctx context.Context) error {
	work := make(chan acctadmin.Document)
	var wg sync.WaitGroup
	for range p.r.cfg.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range work {
				if !p.stopped() {
					p.record(p.r.take(ctx, d.ID, &d, false))
				}
			}
		}()
	}
	defer func() {
		close(work)
		wg.Wait()
	}()
	for d, err := range p.r.c.Documents.All(ctx, nil) {
		if err != nil {
			return err
		}
		if p.stopped() {
			return nil
		}
		if d.ID == uuid.Nil {
			continue // cannot be downloaded
		}
		if p.r.cfg.keepOut != nil && p.r.cfg.keepOut(d) {
			p.r.keptOut.Add(1)
			continue
		}
		select {
		case work <- d:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
