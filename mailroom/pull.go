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
// is free, then pulls the unread documents with Documents.Pull,
// WithWorkers at a time, leaving alone those that are saved, kept out,
// already in the journal (the next Pull fetches those by id), or claimed
// by another delivery or room.
//
// It returns nil when every document it met is saved, kept out, gone or
// payment-locked (left unread, and listed once in Stats and the log; see
// WithUnlock; LastPull lists them), or was being saved elsewhere. A document the unread listing shows but
// whose download answers 404 is gone: the pull starts again without it
// (at most 8 times), so that it does not stop the pull of the rest.
// It is tried again by the next Pull, as the listing may show a document
// before its file can be downloaded. The journal's documents are each tried,
// and the first error among them returned; an error of the claims or the
// store (Redis down, a folder that refuses writes) stops it at once. The
// first error of the unread documents (a download, a save, the claims)
// stops the pull of them, as it stops Documents.Pull, and is returned as
// the *acctadmin.PullError: a document whose download or save failed stays
// in the journal and is fetched again by the next Pull; one never
// downloaded stays unread, and the next Pull lists it.
func (r *Room) Pull(ctx context.Context) error {
	if ctx == nil {
		return errors.New("mailroom: nil context")
	}
	rep := r.newPullReport()
	defer func() {
		st := rep.result()
		r.lastMu.Lock()
		r.last = st
		r.lastMu.Unlock()
	}()
	if r.refusing.Load() && !r.storeWritable(ctx) {
		return errRefusing
	}
	gone := make(map[uuid.UUID]bool)
	for {
		err := r.pullOnce(ctx, gone, rep)
		var pe *acctadmin.PullError
		if len(gone) == maxGone || !errors.As(err, &pe) || !errors.Is(pe.Err, acctadmin.ErrNotFound) ||
			pe.Document == uuid.Nil || gone[pe.Document] {
			return err
		}
		if err := r.forget(ctx, pe.Document); err != nil {
			return err
		}
		gone[pe.Document] = true
	}
}

// forget ends the journal record of a document whose download answered
// 404: nothing of it was saved, nor marked read, so there is nothing to
// fetch again. A delivery or room that holds it now keeps its record.
func (r *Room) forget(ctx context.Context, id uuid.UUID) error {
	release, err := r.claim(ctx, id)
	if errors.Is(err, errBusy) {
		return nil
	}
	if err != nil {
		return err
	}
	defer release()
	return r.journal.End(ctx, id)
}

// maxGone bounds how many times one Pull starts again past a document
// whose download answers 404.
const maxGone = 8

// pullOnce is one Pull: the journal's documents, then the unread ones
// but those in gone.
func (r *Room) pullOnce(ctx context.Context, gone map[uuid.UUID]bool, rep *pullReport) error {
	ids, err := r.journal.Pending(ctx)
	if err != nil {
		return err
	}
	p := &pass{gone: gone}
	for _, id := range ids {
		if p.stop {
			break
		}
		p.record(id, r.take(ctx, id, nil, true))
	}
	if p.stop {
		return p.err
	}
	if err := r.unread(ctx, gone, rep); p.err == nil {
		p.err = err
	}
	return p.err
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

// pass is the journal part of one Pull: the first error met, whether it
// stops the pull, and the documents found gone.
type pass struct {
	err  error
	stop bool
	gone map[uuid.UUID]bool
}

// record keeps the outcome of the journal's document id: the first error;
// an error of the claims or the store stops the pass. A document busy
// elsewhere is no error, nor one gone, which the listing then leaves.
func (p *pass) record(id uuid.UUID, err error) {
	if errors.Is(err, errGone) {
		p.gone[id] = true
		return
	}
	if err == nil || errors.Is(err, errBusy) || errors.Is(err, errLocked) {
		return
	}
	var api *acctadmin.APIError
	var tr *acctadmin.TransportError
	if p.err == nil {
		p.err = err
	}
	if !errors.As(err, &api) && !errors.As(err, &tr) {
		p.stop = true
	}
}

// unread pulls the unread listing with Documents.Pull. The room's steps
// for a document (see take) are split around Pull's download: Skip keeps
// out what WithKeepOut says, and the documents this Pull found gone; Before, on the worker, claims the document,
// asks the store, and records it in the journal; fn saves it, tells
// WithOnSaved and ends the record. Pull walks the listing again until two
// walks running see the same documents, so a document that stays unread
// through the pull, and that the room does not leave alone, is downloaded.
//
// The claims that Before took are released by fn, or, for a document
// whose download failed or that fn never got, once Pull returns.
func (r *Room) unread(ctx context.Context, gone map[uuid.UUID]bool, rep *pullReport) error {
	h := &holds{m: map[uuid.UUID]func(){}}
	defer h.releaseAll()
	return r.c.Documents.Pull(ctx, &acctadmin.PullParams{
		Workers: r.cfg.workers,
		Skip:    func(d acctadmin.Document) bool { return gone[d.ID] || r.keepOut(d) || r.leaveLocked(ctx, d, rep) },
		Before: func(ctx context.Context, d acctadmin.Document) error {
			return r.before(ctx, d, h, rep)
		},
		OnProgress: func(p acctadmin.PullProgress) {
			if errors.Is(p.Err, acctadmin.ErrPaymentRequired) {
				r.refused(ctx, p.Document, rep)
			}
		},
	}, func(ctx context.Context, d acctadmin.Document, f *acctadmin.File) error {
		defer h.release(d.ID)
		return r.save(ctx, d, f, false)
	})
}

// before takes the steps of take up to the download, for a document the
// unread listing shows: it is left alone (acctadmin.ErrSkipDocument) when
// another delivery or room holds it, when the store has it, or when the
// journal has it already (the journal part of the next Pull fetches it by
// id; leaving it here keeps a document whose download keeps failing from
// stopping every pull). Any other error stops the pull, with nothing
// downloaded.
func (r *Room) before(ctx context.Context, d acctadmin.Document, h *holds, rep *pullReport) error {
	release, err := r.claim(ctx, d.ID)
	if errors.Is(err, errBusy) {
		return acctadmin.ErrSkipDocument
	}
	if err != nil {
		return err
	}
	leave := func(err error) error {
		release()
		return err
	}
	saved, err := r.store.Has(ctx, d.ID)
	switch {
	case err != nil:
		return leave(err)
	case saved:
		return leave(acctadmin.ErrSkipDocument)
	}
	if d.PaymentLocked {
		// Skip let it through: WithUnlock may pay for it.
		if err := r.unlock(ctx, d, rep); err != nil {
			return leave(err)
		}
	}
	recorded, err := r.journal.Begin(ctx, d.ID)
	switch {
	case err != nil:
		return leave(err)
	case recorded:
		return leave(acctadmin.ErrSkipDocument)
	}
	stop := r.renewWhileDownloading(ctx, d.ID)
	h.hold(d.ID, func() {
		stop()
		release()
	})
	r.started(false)
	return nil
}

// holds are the claims one pull took and has not released yet.
type holds struct {
	mu sync.Mutex
	m  map[uuid.UUID]func()
}

func (h *holds) hold(id uuid.UUID, release func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.m[id] = release
}

// release releases the claim on id, if held.
func (h *holds) release(id uuid.UUID) {
	h.mu.Lock()
	release := h.m[id]
	delete(h.m, id)
	h.mu.Unlock()
	if release != nil {
		release()
	}
}

// releaseAll releases every claim still held.
func (h *holds) releaseAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, release := range h.m {
		release()
		delete(h.m, id)
	}
}
