package mailroom

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/google/uuid"
)

// WithUnlock lets the room pay for payment-locked documents with the
// stored card paymentMethodID (an acctadmin.PaymentMethod's ID) and save
// them, at most once each and never above ceiling per document.
//
// The price is checked before paying, against the document's record: the
// room unlocks a document (acctadmin.DocumentsClient.Unlock) only when its
// listing gives the price (acctadmin.Document.UnlockPrice) and that price
// is at most ceiling. No client of the real API shows where the price is
// given (the SDK's fake gives it as "unlock_price"); where the API does
// not, the room unlocks nothing, since it could not keep the ceiling. The
// answer says what was charged; a charge above the ceiling (a price that
// changed between the listing and the payment) is logged as an error.
//
// At most once: before it pays, the room records the attempt durably,
// where every room saving into the same store sees it (Dir keeps it as a
// file under path/.mailroom/unlocks, else it is kept in Redis, with
// WithRedis), and a document with such a record is never paid for again,
// whatever the answer was: a declined card, an answer that never came
// (acctadmin.ErrOutcomeUnknown: the document may be unlocked, and if it
// is the next pull finds it so and saves it), or a refusal. Those are
// logged, and the document is left unread for a person to see to;
// removing its record lets the room try once more. New refuses WithUnlock
// for a store whose journal is neither Dir's nor Redis's.
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

// unlockRecorder records, durably and for every room of the store, that
// an unlock of a document is about to be paid for.
type unlockRecorder interface {
	// beginUnlock records the unlock of id and reports whether it is the
	// first record of it: false means an unlock was tried before, by this
	// room or another, and must not be paid for again.
	beginUnlock(ctx context.Context, id uuid.UUID) (first bool, err error)
}

// beginUnlock implements unlockRecorder: an empty file
// path/.mailroom/unlocks/<id>, made with O_EXCL and synced.
func (s *dirStore) beginUnlock(_ context.Context, id uuid.UUID) (bool, error) {
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

// beginUnlock implements unlockRecorder: a member of the set
// <journal key>:unlocks, which never expires.
func (j *redisJournal) beginUnlock(ctx context.Context, id uuid.UUID) (bool, error) {
	var added int64
	err := j.calls.Do(ctx, func(ctx context.Context) (err error) {
		added, err = j.rdb.SAdd(ctx, j.key+":unlocks", id.String()).Result()
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
func (r *Room) leaveLocked(ctx context.Context, d acctadmin.Document) bool {
	e, known := r.lockedDocs.get(d.ID)
	if !d.PaymentLocked {
		return known && e.refused && e.updated.Equal(d.UpdatedAt)
	}
	var why string
	switch {
	case r.cfg.unlockCard == uuid.Nil:
		why = "the room does not pay for documents (WithUnlock)"
	case d.UnlockPrice.IsZero():
		why = "its price is not given, so the ceiling could not be kept"
	case d.UnlockPrice.Cmp(r.cfg.ceiling) > 0:
		why = "its price " + d.UnlockPrice.String() + " is above the ceiling " + r.cfg.ceiling.String()
	case known && e.tried:
		why = "an unlock of it was tried before"
	default:
		return false
	}
	r.noteLocked(ctx, d, why, func(*lockedDoc) {})
	return true
}

// refused takes in a download refused as payment-locked, on the pull's
// goroutine while the room still holds the document's claim: nothing was
// read, so its journal record is ended, and the room remembers it.
func (r *Room) refused(ctx context.Context, d acctadmin.Document) {
	if err := r.journal.End(ctx, d.ID); err != nil {
		r.cfg.logger.WarnContext(ctx, "mailroom: ending the journal record of a payment-locked document", "document", d.ID, "error", err)
	}
	r.noteLocked(ctx, d, "its download was refused: payment required", func(e *lockedDoc) {
		e.refused, e.updated = true, d.UpdatedAt
	})
}

// unlock pays for the payment-locked document d, which the room holds the
// claim of, once the price was found within the ceiling (leaveLocked): it
// records the attempt first, and pays only when no attempt was recorded
// before. It returns nil when d is unlocked (its download follows),
// acctadmin.ErrSkipDocument when it is not, and the recorder's error
// when the attempt cannot be recorded (nothing is paid then).
func (r *Room) unlock(ctx context.Context, d acctadmin.Document) error {
	first, err := r.unlocks.beginUnlock(ctx, d.ID)
	if err != nil {
		return err
	}
	tried := func(e *lockedDoc) { e.tried = true }
	if !first {
		r.noteLocked(ctx, d, "an unlock of it was tried before", tried)
		return acctadmin.ErrSkipDocument
	}
	u, err := r.c.Documents.Unlock(ctx, d.ID, r.cfg.unlockCard)
	if err != nil {
		why := "the unlock failed"
		switch {
		case errors.Is(err, acctadmin.ErrPaymentDeclined):
			why = "the card was declined"
		case errors.Is(err, acctadmin.ErrOutcomeUnknown):
			why = "the unlock's outcome is unknown; it is not tried again"
		}
		r.cfg.logger.ErrorContext(ctx, "mailroom: unlocking a payment-locked document failed", "document", d.ID, "error", err)
		r.noteLocked(ctx, d, why, tried)
		return acctadmin.ErrSkipDocument
	}
	r.unlocked.Add(1)
	r.lockedDocs.forget(d.ID)
	if u.Amount.Cmp(r.cfg.ceiling) > 0 {
		r.cfg.logger.ErrorContext(ctx, "mailroom: an unlock charged more than the ceiling", "document", d.ID,
			"amount", u.Amount.String(), "ceiling", r.cfg.ceiling.String())
	} else {
		r.cfg.logger.InfoContext(ctx, "mailroom: unlocked a payment-locked document", "document", d.ID, "amount", u.Amount.String())
	}
	return nil
}
