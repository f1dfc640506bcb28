package mailroom

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// WithUnlock lets the room pay for payment-locked documents with the
// stored card paymentMethodID (an acctadmin.PaymentMethod's ID) and save
// them, at most once each and never above ceiling per document.
// WithUnlockBudget also bounds what one pull pays in all.
//
// The price is checked before paying, against the document's record: the
// room unlocks a document (acctadmin.DocumentsClient.Unlock) only when its
// listing gives the price (acctadmin.Document.UnlockPrice), that price is
// above zero, and it is at most ceiling. No client of the real API shows
// where the price is given (the SDK's fake gives it as "unlock_price");
// where the API does not, the room unlocks nothing, since it could not
// keep the ceiling. A price of zero or below is taken for a record that
// cannot be trusted, and nothing is paid. The answer says what was
// charged; a charge above the ceiling (a price that changed between the
// listing and the payment) is logged as an error.
//
// At most once: before it pays, the room records the attempt durably,
// in every place it shares with other rooms: with WithRedis, in Redis (a
// member of the set acctadmin:mailroom:journal:unlocks, which never
// expires), and in the store when the store is an UnlockRecorder (Dir
// is: an empty file under path/.mailroom/unlocks). A document with such a record in any of them
// is never paid for again, whatever the answer was: a declined card, an
// answer that never came (acctadmin.ErrOutcomeUnknown: the document may
// be unlocked, and if it is the next pull finds it so and saves it), or a
// refusal. Those are logged, and the document is left unread for a person
// to see to; removing its records lets the room try once more. So rooms
// that share a Redis, or a folder, pay at most once for a document
// between them, whatever else they do not share, across restarts. Rooms
// that share neither cannot see each other's records, and each may pay.
// A Redis that restarts empty loses its records: keep it persistent, or
// keep the rooms on one folder. New refuses WithUnlock for a room that
// has nowhere to record them: no Redis, and a store that is not an
// UnlockRecorder.
func WithUnlock(paymentMethodID uuid.UUID, ceiling acctadmin.Money) Option {
	return optionFunc(func(c *config) {
		switch {
		case paymentMethodID == uuid.Nil:
			c.err = errors.New("mailroom: WithUnlock: nil payment method id")
		case ceiling.Cmp(acctadmin.Money{}) <= 0:
			c.err = fmt.Errorf("mailroom: WithUnlock: ceiling %s is not positive", ceiling)
		}
		c.unlockCard, c.ceiling = paymentMethodID, ceiling
	})
}

// WithUnlockBudget bounds what one pull (Pull, or one of Run's pulls)
// pays for payment-locked documents in all, on top of WithUnlock's
// ceiling per document, which it needs: a nightly job that meets 11
// documents at 25.00 with a budget of 60.00 pays for 2 of them (50.00) and
// leaves the others locked, each listed with its price in PullStats. A
// document is counted at its listed price before it is paid for; one
// whose card was declined gives its price back, and one whose outcome is
// unknown keeps it. Each pull starts with the whole budget again.
func WithUnlockBudget(total acctadmin.Money) Option {
	return optionFunc(func(c *config) {
		if total.Cmp(acctadmin.Money{}) <= 0 {
			c.err = fmt.Errorf("mailroom: WithUnlockBudget: %s is not positive", total)
		}
		c.budget, c.hasBudget = total, true
	})
}

// UnlockRecorder is a store that records, durably, the unlocks that
// WithUnlock pays for, for every room saving into it. Dir is one, and so
// is a store that wraps Dir and passes BeginUnlock on to it (as it passes
// on Dir's Journal), so that a wrapper keeps the record in the folder.
type UnlockRecorder interface {
	// BeginUnlock records the unlock of id, durably, before it is paid
	// for, and reports whether it is the first record of it: false means
	// an unlock was tried before, by this room or another, and must not be
	// paid for again. An error means that nothing is paid.
	BeginUnlock(ctx context.Context, id uuid.UUID) (first bool, err error)
}

// unlockRecords are every place a room records its unlocks in: Redis
// first (with WithRedis), then Dir's folder. An unlock is the first only
// when it is the first in each; each is written even when one before it
// had a record, so that a record found in one place is copied to the
// others.
type unlockRecords []UnlockRecorder

func (rs unlockRecords) BeginUnlock(ctx context.Context, id uuid.UUID) (bool, error) {
	first := true
	for _, rec := range rs {
		f, err := rec.BeginUnlock(ctx, id)
		if err != nil {
			return false, err
		}
		first = first && f
	}
	return first, nil
}

// BeginUnlock implements UnlockRecorder: an empty file
// path/.mailroom/unlocks/<id>, made with O_EXCL and synced.
func (s *dirStore) BeginUnlock(_ context.Context, id uuid.UUID) (bool, error) {
	dir := filepath.Join(s.path, ".mailroom", "unlocks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("mailroom: unlocks: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, id.String()), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, os.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("mailroom: unlocks: %w", err)
	}
	if err := f.Close(); err != nil {
		return false, fmt.Errorf("mailroom: unlocks: %w", err)
	}
	return true, syncDir(dir)
}

// redisUnlocks records the unlocks of the rooms sharing a Redis: members
// of a set that never expires, each call bounded as the claims' are (do
// is the claims' redislease.Client.Do).
type redisUnlocks struct {
	rdb redis.UniversalClient
	do  func(ctx context.Context, call func(context.Context) error) error
	key string
}

// BeginUnlock implements UnlockRecorder.
func (u *redisUnlocks) BeginUnlock(ctx context.Context, id uuid.UUID) (bool, error) {
	var added int64
	err := u.do(ctx, func(ctx context.Context) (err error) {
		added, err = u.rdb.SAdd(ctx, u.key, id.String()).Result()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("mailroom: unlocks: %w", err)
	}
	return added == 1, nil
}

// maxLockedKnown bounds how many payment-locked documents a room
// remembers (about 100 bytes each). Past it, it forgets one at random to
// remember a new one; the one forgotten may be logged, and counted in
// Stats.Locked, once more when it is met again.
const maxLockedKnown = 10000

// lockedDocs are the payment-locked documents a room met: each is logged
// and counted once, and one whose download was refused while its record
// did not say it is locked is not tried again until its record changes.
type lockedDocs struct {
	mu sync.Mutex
	m  map[uuid.UUID]lockedDoc
}

type lockedDoc struct {
	// updated is the document's UpdatedAt when its download was refused
	// (zero when not known); refused says that it was.
	updated time.Time
	refused bool
	// tried says that an unlock of it was asked for (or found recorded).
	tried bool
}

// note remembers id with what change says, and reports whether it is new.
func (l *lockedDocs) note(id uuid.UUID, change func(*lockedDoc)) (isNew bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.m[id]
	if !ok {
		if l.m == nil {
			l.m = make(map[uuid.UUID]lockedDoc)
		}
		if len(l.m) >= maxLockedKnown {
			for k := range l.m {
				delete(l.m, k)
				break
			}
		}
	}
	change(&e)
	l.m[id] = e
	return !ok
}

func (l *lockedDocs) get(id uuid.UUID) (lockedDoc, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.m[id]
	return e, ok
}

func (l *lockedDocs) forget(id uuid.UUID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, id)
}

// errLocked reports a document whose download was refused because it is
// payment-locked: nothing was read, its journal record is ended, and it is
// acknowledged (the pulls see to it, and WithUnlock).
var errLocked = errors.New("mailroom: document is payment-locked")

// noteLocked logs and counts the payment-locked document d, the first time
// the room meets it, saying why it stays locked.
func (r *Room) noteLocked(ctx context.Context, d acctadmin.Document, why string, change func(*lockedDoc)) {
	if r.lockedDocs.note(d.ID, change) {
		r.lockedCount.Add(1)
		r.cfg.logger.WarnContext(ctx, "mailroom: document is payment-locked; left unread", "document", d.ID, "reason", why)
	}
}

// leaveLocked is the pull's Skip step for payment-locked documents: it
// keeps out (true) a document locked by its record that the room will not
// pay for, and one whose download was refused as locked while its record
// did not say so, until the record changes. A locked document the room
// may pay for goes on to the Before step, which pays for it (unlock).
// What it keeps out is listed in the pull's report rep.
func (r *Room) leaveLocked(ctx context.Context, d acctadmin.Document, rep *pullReport) bool {
	e, known := r.lockedDocs.get(d.ID)
	if !d.PaymentLocked {
		if known && e.refused && e.updated.Equal(d.UpdatedAt) {
			rep.leave(d, "its download was refused: payment required")
			return true
		}
		return false
	}
	var why string
	switch {
	case r.cfg.unlockCard == uuid.Nil:
		why = "the room does not pay for documents (WithUnlock)"
	case d.UnlockPrice.IsZero():
		why = "its price is not given, so the ceiling could not be kept"
	case d.UnlockPrice.Cmp(acctadmin.Money{}) < 0:
		why = "its price " + d.UnlockPrice.String() + " is not positive"
	case d.UnlockPrice.Cmp(r.cfg.ceiling) > 0:
		why = "its price " + d.UnlockPrice.String() + " is above the ceiling " + r.cfg.ceiling.String()
	case known && e.tried:
		why = "an unlock of it was tried before"
	default:
		return false
	}
	r.noteLocked(ctx, d, why, func(*lockedDoc) {})
	rep.leave(d, why)
	return true
}

// refused takes in a download refused as payment-locked, on the pull's
// goroutine while the room still holds the document's claim: nothing was
// read, so its journal record is ended, and the room remembers it.
func (r *Room) refused(ctx context.Context, d acctadmin.Document, rep *pullReport) {
	if err := r.journal.End(ctx, d.ID); err != nil {
		r.cfg.logger.WarnContext(ctx, "mailroom: ending the journal record of a payment-locked document", "document", d.ID, "error", err)
	}
	const why = "its download was refused: payment required"
	r.noteLocked(ctx, d, why, func(e *lockedDoc) {
		e.refused, e.updated = true, d.UpdatedAt
	})
	rep.leave(d, why)
}

// unlock pays for the payment-locked document d, which the room holds the
// claim of, once the price was found within the ceiling (leaveLocked): it
// counts the price against the pull's budget, records the attempt, and
// pays only when the budget allows it and no attempt was recorded before.
// It returns nil when d is unlocked (its download follows),
// acctadmin.ErrSkipDocument when it is not, and the recorder's error
// when the attempt cannot be recorded (nothing is paid then).
func (r *Room) unlock(ctx context.Context, d acctadmin.Document, rep *pullReport) error {
	if !rep.reserve(d.UnlockPrice) {
		why := "its price " + d.UnlockPrice.String() + " is over what is left of the pull's budget " + r.cfg.budget.String()
		r.noteLocked(ctx, d, why, func(*lockedDoc) {})
		rep.leave(d, why)
		return acctadmin.ErrSkipDocument
	}
	first, err := r.unlocks.BeginUnlock(ctx, d.ID)
	if err != nil || !first {
		rep.giveBack(d.UnlockPrice)
	}
	if err != nil {
		return err
	}
	tried := func(e *lockedDoc) { e.tried = true }
	if !first {
		const why = "an unlock of it was tried before"
		r.noteLocked(ctx, d, why, tried)
		rep.leave(d, why)
		return acctadmin.ErrSkipDocument
	}
	u, err := r.c.Documents.Unlock(ctx, d.ID, r.cfg.unlockCard)
	if err != nil {
		why := "the unlock failed"
		switch {
		case errors.Is(err, acctadmin.ErrPaymentDeclined):
			why = "the card was declined"
			rep.giveBack(d.UnlockPrice) // nothing was charged
		case errors.Is(err, acctadmin.ErrOutcomeUnknown):
			why = "the unlock's outcome is unknown; it is not tried again"
		}
		r.cfg.logger.ErrorContext(ctx, "mailroom: unlocking a payment-locked document failed", "document", d.ID, "error", err)
		r.noteLocked(ctx, d, why, tried)
		rep.leave(d, why)
		return acctadmin.ErrSkipDocument
	}
	r.unlocked.Add(1)
	r.lockedDocs.forget(d.ID)
	rep.paid(d, u.Amount)
	if u.Amount.Cmp(r.cfg.ceiling) > 0 {
		r.cfg.logger.ErrorContext(ctx, "mailroom: an unlock charged more than the ceiling", "document", d.ID,
			"amount", u.Amount.String(), "ceiling", r.cfg.ceiling.String())
	} else {
		r.cfg.logger.InfoContext(ctx, "mailroom: unlocked a payment-locked document", "document", d.ID, "amount", u.Amount.String())
	}
	return nil
}

// PullStats are what one pull did with the payment-locked documents, for
// a summary: those it paid for and those it left locked. Room.LastPull
// returns them.
type PullStats struct {
	// Unlocked are the documents the pull paid for (WithUnlock), in the
	// order they were paid for.
	Unlocked []UnlockedDocument
	// Locked are the payment-locked documents the pull met and left
	// unread, each once, in the order met; each one's record has its price
	// (Document.UnlockPrice, zero when the listing gives none).
	Locked []LockedDocument
	// Spent is what the unlocks of the pull were charged in all, as the
	// answers said.
	Spent acctadmin.Money
}

// UnlockedDocument is a document a pull paid for.
type UnlockedDocument struct {
	// Document is the document's record as the listing gave it, before
	// it was unlocked.
	Document acctadmin.Document
	// Amount is what the answer says was charged.
	Amount acctadmin.Money
}

// LockedDocument is a payment-locked document a pull left unread.
type LockedDocument struct {
	// Document is the document's record as the listing gave it; its
	// UnlockPrice is the price, when given.
	Document acctadmin.Document
	// Reason says why it was left locked, for a person: no WithUnlock, a
	// price not given or above the ceiling, the pull's budget spent, an
	// unlock tried before or failing now.
	Reason string
}

// pullReport gathers one pull's PullStats, and counts its unlocks'
// prices against WithUnlockBudget's budget. Its methods are safe for the
// pull's workers, and do nothing on a nil report (a callback's).
type pullReport struct {
	mu       sync.Mutex
	budget   acctadmin.Money
	bounded  bool
	reserved acctadmin.Money // the prices counted against the budget
	stats    PullStats
	locked   map[uuid.UUID]int // index in stats.Locked
}

func (r *Room) newPullReport() *pullReport {
	return &pullReport{budget: r.cfg.budget, bounded: r.cfg.hasBudget, locked: map[uuid.UUID]int{}}
}

// reserve counts price against the budget, and reports whether it fits.
func (p *pullReport) reserve(price acctadmin.Money) bool {
	if p == nil {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	next := p.reserved.Add(price)
	if p.bounded && next.Cmp(p.budget) > 0 {
		return false
	}
	p.reserved = next
	return true
}

// giveBack takes back a price reserve counted, for an unlock that
// charged nothing.
func (p *pullReport) giveBack(price acctadmin.Money) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reserved = p.reserved.Sub(price)
}

// leave lists d as left locked, for why; a document listed already has
// its reason replaced.
func (p *pullReport) leave(d acctadmin.Document, why string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if i, ok := p.locked[d.ID]; ok {
		p.stats.Locked[i].Reason = why
		return
	}
	p.locked[d.ID] = len(p.stats.Locked)
	p.stats.Locked = append(p.stats.Locked, LockedDocument{Document: d, Reason: why})
}

// paid lists d as unlocked for amount. A charge above the price reserved
// counts in the budget too.
func (p *pullReport) paid(d acctadmin.Document, amount acctadmin.Money) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if amount.Cmp(d.UnlockPrice) > 0 {
		p.reserved = p.reserved.Add(amount.Sub(d.UnlockPrice))
	}
	p.stats.Unlocked = append(p.stats.Unlocked, UnlockedDocument{Document: d, Amount: amount})
	p.stats.Spent = p.stats.Spent.Add(amount)
}

// result is the pull's PullStats, a copy.
func (p *pullReport) result() PullStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := PullStats{Unlocked: slices.Clone(p.stats.Unlocked), Spent: p.stats.Spent}
	for _, l := range p.stats.Locked {
		if !slices.ContainsFunc(st.Unlocked, func(u UnlockedDocument) bool { return u.Document.ID == l.Document.ID }) {
			st.Locked = append(st.Locked, l)
		}
	}
	return st
}
