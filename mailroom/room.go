package mailroom

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/mailroom/internal/redislease"
	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// Defaults of the options.
const (
	// DefaultPullInterval is the time between two reconciling pulls unless
	// WithPullInterval says otherwise.
	DefaultPullInterval = time.Minute
	// DefaultClaimTTL is how long a claim outlives the room that took it
	// unless WithClaimTTL says otherwise.
	DefaultClaimTTL = 30 * time.Second
	// DefaultWorkers is the number of documents a reconciling pull
	// downloads at once unless WithWorkers says otherwise.
	DefaultWorkers = 4
	// DefaultDownloadTimeout bounds the download and save of one document
	// unless WithDownloadTimeout says otherwise.
	DefaultDownloadTimeout = 5 * time.Minute
)

// keyPrefix is put before every Redis key of the room.
const keyPrefix = "acctadmin:mailroom:"

// Room saves every document of an account into a Store, exactly once, as
// callbacks announce them and as reconciling pulls find them. Create it
// with New; it is safe for concurrent use.
type Room struct {
	c       *acctadmin.Client
	v       *webhook.Verifier
	store   Store
	journal Journal
	local   inflight
	shared  *redisClaims // nil without WithRedis
	cfg     config

	// refusing is set while the store refuses writes: no download starts
	// until a write succeeds again.
	refusing atomic.Bool

	// ticker starts the clock of the claim renewals (a seam for the tests):
	// a tick every d on c until stop is called.
	ticker func(d time.Duration) (c <-chan time.Time, stop func())

	saved, downloads, redownloads, keptOut atomic.Int64

	// The payment-locked documents (locked.go): those met, the count of
	// them, the unlocks paid for, and where WithUnlock records its
	// attempts.
	lockedDocs            lockedDocs
	lockedCount, unlocked atomic.Int64
	unlocks               UnlockRecorder

	// last is the PullStats of the last pull that returned.
	lastMu sync.Mutex
	last   PullStats
}

type config struct {
	rdb             redis.UniversalClient
	callbackURL     string
	interval        time.Duration
	ttl             time.Duration
	workers         int
	downloadTimeout time.Duration
	onSaved         func(context.Context, acctadmin.Document)
	keepOut         func(acctadmin.Document) bool
	events          func(context.Context, *webhook.Event) error
	logger          *slog.Logger
	unlockCard      uuid.UUID // WithUnlock's card, or uuid.Nil
	ceiling         acctadmin.Money
	budget          acctadmin.Money // WithUnlockBudget's, when hasBudget
	hasBudget       bool
	err             error
}

// Option configures a Room; pass options to New. The With functions
// make the options.
type Option interface{ apply(*config) }

// optionFunc is an Option that is a function.
type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithRedis shares the room's claims, and its journal when the store keeps
// none, with every room on rdb: a fleet of rooms behind one load balancer,
// saving into one store, downloads each document once between them. rdb
// is used as given and not closed.
func WithRedis(rdb redis.UniversalClient) Option {
	return optionFunc(func(c *config) {
		if rdb == nil {
			c.err = errors.New("mailroom: WithRedis: nil client")
		}
		c.rdb = rdb
	})
}

// WithCallbackURL sets the public URL at which the API reaches Handler;
// Run registers it, exactly once (see acctadmin.CallbacksClient.Ensure).
// Without it Run registers nothing and relies on its pulls alone.
func WithCallbackURL(url string) Option {
	return optionFunc(func(c *config) { c.callbackURL = url })
}

// WithPullInterval sets the time between two reconciling pulls of Run
// (default DefaultPullInterval).
func WithPullInterval(d time.Duration) Option {
	return optionFunc(func(c *config) {
		if d <= 0 {
			c.err = fmt.Errorf("mailroom: WithPullInterval: %s is not positive", d)
		}
		c.interval = d
	})
}

// WithClaimTTL sets how long a claim on a document outlives the room that
// took it (default DefaultClaimTTL): a room renews its claims every third
// of it while it downloads, and a room that dies has its claims taken over
// by the others that much later. It must be at least 100 milliseconds.
func WithClaimTTL(d time.Duration) Option {
	return optionFunc(func(c *config) {
		if d < 100*time.Millisecond {
			c.err = fmt.Errorf("mailroom: WithClaimTTL: %s is under 100ms", d)
		}
		c.ttl = d
	})
}

// WithWorkers sets how many documents a reconciling pull downloads at once
// (default DefaultWorkers, at most 32). Callbacks are not bounded by it:
// each is downloaded as it arrives.
func WithWorkers(n int) Option {
	return optionFunc(func(c *config) {
		if n < 1 || n > 32 {
			c.err = fmt.Errorf("mailroom: WithWorkers: %d is not from 1 to 32", n)
		}
		c.workers = n
	})
}

// WithDownloadTimeout bounds the download and save of one document
// (default DefaultDownloadTimeout). A callback's download goes on after
// its sender has hung up, within this bound, so that the redelivery finds
// the document saved.
func WithDownloadTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) {
		if d <= 0 {
			c.err = fmt.Errorf("mailroom: WithDownloadTimeout: %s is not positive", d)
		}
		c.downloadTimeout = d
	})
}

// WithOnSaved calls fn with each document the room has saved, before the
// room answers the callback or ends its journal record: to alert on a
// "Delivered Service of Process" or a "High Priority" document, say. fn
// is called at least once per saved document: once, unless the room dies
// after the save and before fn returns, in which case the room that
// finishes the journal record calls it again. It runs on the goroutine
// that saved the document; keep it quick.
func WithOnSaved(fn func(ctx context.Context, d acctadmin.Document)) Option {
	return optionFunc(func(c *config) { c.onSaved = fn })
}

// WithKeepOut keeps out the documents for which keep returns true: they
// are never downloaded (so they stay unread) and their callbacks are
// acknowledged. keep sees the document's record as the API lists it, so
// it can decide on its Type, CompanyID or CompanyName, among others. With
// it (or WithOnSaved) a callback costs one more request, to read the
// record the event does not carry.
func WithKeepOut(keep func(d acctadmin.Document) bool) Option {
	return optionFunc(func(c *config) { c.keepOut = keep })
}

// WithEvents hands fn every authentic event other than new-document that
// reaches Handler (new-invoice, and whatever the API sends later), so
// that one callback URL serves every event: the API posts all of an
// account's events to the URLs registered for it. fn is called as
// webhook.Handler calls its function: with the event's context; nil or a
// webhook.Permanent error answers 200, any other error 500 so that the
// sender delivers again; with a replay cache on the verifier, by one
// delivery of an event at a time and not again once it succeeded.
// Without it those events are answered 200 and dropped.
func WithEvents(fn func(ctx context.Context, ev *webhook.Event) error) Option {
	return optionFunc(func(c *config) {
		if fn == nil {
			c.err = errors.New("mailroom: WithEvents: nil function")
		}
		c.events = fn
	})
}

// WithLogger sets the logger of what the room does not return: a failed
// pull, a failed registration, a document it could not save (default
// slog.Default()). It logs ids, never secrets.
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *config) { c.logger = l })
}

// New makes a mail room that saves every document of the account into
// store. v verifies the callbacks; it may have a replay cache or not: the
// room's own claims decide what is done, so a redelivery that arrives
// while the first is still being saved gets a retryable answer, never a
// 2xx. A room that only pulls (Pull from a nightly job, or Run without
// WithCallbackURL) needs no verifier: v may be nil, and then New refuses
// WithCallbackURL and the room's Handler refuses every callback (see
// Handler).
//
// The room's journal is the store's when the store implements Journal (as
// Dir does), else it is kept in Redis; a store that keeps no journal
// needs WithRedis. Bad options give an error naming the option.
func New(c *acctadmin.Client, v *webhook.Verifier, store Store, opts ...Option) (*Room, error) {
	cfg := config{
		interval:        DefaultPullInterval,
		ttl:             DefaultClaimTTL,
		workers:         DefaultWorkers,
		downloadTimeout: DefaultDownloadTimeout,
		logger:          slog.Default(),
	}
	for _, opt := range opts {
		opt.apply(&cfg)
		if cfg.err != nil {
			return nil, cfg.err
		}
	}
	switch {
	case c == nil:
		return nil, errors.New("mailroom: nil client")
	case v == nil && cfg.callbackURL != "":
		return nil, errors.New("mailroom: WithCallbackURL needs a verifier for the callbacks; a room without one only pulls")
	case store == nil:
		return nil, errors.New("mailroom: nil store")
	case cfg.logger == nil:
		return nil, errors.New("mailroom: WithLogger: nil logger")
	}
	if cfg.callbackURL != "" {
		if err := checkURL(cfg.callbackURL); err != nil {
			return nil, err
		}
	}
	r := &Room{c: c, v: v, store: store, cfg: cfg, ticker: newTicker}
	if j, ok := store.(Journal); ok {
		r.journal = j
	}
	if cfg.rdb != nil {
		owner := make([]byte, 16)
		if _, err := rand.Read(owner); err != nil {
			return nil, fmt.Errorf("mailroom: %w", err)
		}
		leases := redislease.New(cfg.rdb, min(maxRedisTimeout, cfg.ttl/3))
		r.shared = &redisClaims{leases: leases, prefix: keyPrefix, owner: hex.EncodeToString(owner), ttl: cfg.ttl}
		if r.journal == nil {
			r.journal = &redisJournal{rdb: cfg.rdb, calls: leases, key: keyPrefix + "journal"}
		}
	}
	if r.journal == nil {
		return nil, errors.New("mailroom: the store keeps no journal: use Dir, a store that implements Journal, or WithRedis")
	}
	if cfg.hasBudget && cfg.unlockCard == uuid.Nil {
		return nil, errors.New("mailroom: WithUnlockBudget needs WithUnlock")
	}
	if cfg.unlockCard != uuid.Nil {
		var recs unlockRecords
		if r.shared != nil {
			recs = append(recs, &redisUnlocks{rdb: cfg.rdb, do: r.shared.leases.Do, key: keyPrefix + "journal:unlocks"})
		}
		if u, ok := store.(UnlockRecorder); ok {
			recs = append(recs, u)
		}
		if len(recs) == 0 {
			return nil, errors.New("mailroom: WithUnlock: the unlocks are recorded in Redis or in the store (an UnlockRecorder, as Dir is): use WithRedis, or Dir")
		}
		r.unlocks = recs
	}
	return r, nil
}

// Stats are the running totals of one room.
type Stats struct {
	// Saved counts the documents this room saved.
	Saved int64
	// Downloads counts the downloads this room started.
	Downloads int64
	// Redownloads counts the downloads beyond the first of a document:
	// those made again from the journal (after a crash or an error
	// between download and save), and those whose document turned out to
	// be saved already (two rooms that could not tell).
	Redownloads int64
	// KeptOut counts the documents kept out by WithKeepOut, each time one
	// was met.
	KeptOut int64
	// Locked counts the payment-locked documents this room left unread,
	// each once however many pulls meet it (the room logs each once too),
	// and Unlocked those it paid for (WithUnlock).
	Locked   int64
	Unlocked int64
}

// Stats returns the room's running totals.
func (r *Room) Stats() Stats {
	return Stats{Saved: r.saved.Load(), Downloads: r.downloads.Load(), Redownloads: r.redownloads.Load(), KeptOut: r.keptOut.Load(),
		Locked: r.lockedCount.Load(), Unlocked: r.unlocked.Load()}
}

// LastPull returns what the last pull that returned (Pull, or one of
// Run's) did with the payment-locked documents: those it paid for, with
// what each was charged, and those it left locked, with their price and
// why. Before the first pull returns it is empty.
func (r *Room) LastPull() PullStats {
	r.lastMu.Lock()
	defer r.lastMu.Unlock()
	return r.last
}

// errBusy reports a document another delivery or room is working on: the
// sender should deliver again later, when it is saved. It wraps
// webhook.ErrInProgress, which webhook.Handler answers with 503 and
// Retry-After.
var errBusy = fmt.Errorf("mailroom: document in progress elsewhere: %w", webhook.ErrInProgress)

// errGone reports a document whose download answered 404: nothing was
// saved, and its journal record is ended.
var errGone = errors.New("mailroom: document gone from the API")

// errRefusing reports that no download starts while the store refuses
// writes.
var errRefusing = errors.New("mailroom: the store refuses writes; no download starts until one succeeds")

// Handler receives the API's callbacks, at the one URL the API posts
// every event to: a new-document event is downloaded and saved before the
// answer, and the other events go to the function of WithEvents. It
// answers 2xx only for a document that is saved (or kept out on purpose),
// and a retryable status when it cannot tell.
//
// The answers are webhook.Handler's: 200 for a document saved now or
// before, kept out, gone from the API (404), or payment-locked (its
// download refused: the pulls list it, and WithUnlock may pay for it), for
// a new-document event without a document id, and for an event of another
// kind that WithEvents took (or without WithEvents); 503 with Retry-After
// when the document is being saved by another delivery or room (the
// redelivery then finds it saved), and when the verifier has a replay
// cache that cannot answer or that records the event in progress
// elsewhere; 500 when the download or the save failed, when Redis or the
// store cannot answer, while the store refuses writes, and when
// WithEvents' function fails. The download and save go on after the
// sender hangs up (within WithDownloadTimeout), so that its redelivery
// finds the document saved.
//
// A room made without a verifier (New's v nil: it only pulls) answers
// every request 500 and logs an error saying so: the sender keeps the
// events and delivers them again once the room has a verifier.
func (r *Room) Handler() http.Handler {
	if r.v == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			r.cfg.logger.ErrorContext(req.Context(), "mailroom: callback refused: the room was made without a verifier (New's v is nil), so it cannot verify callbacks")
			http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		})
	}
	return r.v.Handler(func(ctx context.Context, ev *webhook.Event) error {
		if ev.Name != webhook.EventNewDocument {
			if r.cfg.events == nil {
				return nil
			}
			return r.cfg.events(ctx, ev)
		}
		if ev.DocumentID == uuid.Nil {
			r.cfg.logger.WarnContext(ctx, "mailroom: new-document event without a document id")
			return nil
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.cfg.downloadTimeout)
		defer cancel()
		err := r.take(ctx, ev.DocumentID, nil, false)
		if errors.Is(err, errGone) || errors.Is(err, errLocked) {
			return nil
		}
		if err != nil && !errors.Is(err, errBusy) {
			r.cfg.logger.WarnContext(ctx, "mailroom: document not saved", "document", ev.DocumentID, "error", err)
		}
		return err
	})
}

// take saves the document id unless it is saved, kept out, gone (then it
// returns errGone), or claimed by another delivery or room. d is its record when known.
// fromJournal says that a download of it may have been made before.
//
// The order of the steps is the argument for exactly once (see the
// package documentation): claim, ask the store, record in the journal,
// download, save, end the record, release the claim. The reconciling
// pull takes the same steps, split around Documents.Pull's download (see
// pull.go).
func (r *Room) take(ctx context.Context, id uuid.UUID, d *acctadmin.Document, fromJournal bool) error {
	release, err := r.claim(ctx, id)
	if err != nil {
		return err
	}
	defer release()
	saved, err := r.store.Has(ctx, id)
	if err != nil {
		return err
	}
	if saved {
		if fromJournal {
			// Saved, but the room that saved it died before ending its
			// record: it may not have told WithOnSaved.
			return r.finish(ctx, id, d)
		}
		return nil
	}
	if d == nil && (r.cfg.keepOut != nil || r.cfg.onSaved != nil) {
		got, err := r.c.Documents.Get(ctx, id)
		if errors.Is(err, acctadmin.ErrNotFound) {
			return r.gone(ctx, id)
		}
		if err != nil {
			return err
		}
		d = got
	}
	if d != nil && r.keepOut(*d) {
		return r.journal.End(ctx, id)
	}
	if d != nil && d.PaymentLocked {
		// The pulls see to it (and WithUnlock): no download is tried.
		return r.locked(ctx, *d)
	}
	recorded, err := r.journal.Begin(ctx, id)
	if err != nil {
		return err
	}
	stop := r.renewWhileDownloading(ctx, id)
	defer stop()
	again := fromJournal || recorded
	r.started(again)
	f, err := r.c.Documents.Download(ctx, id)
	if errors.Is(err, acctadmin.ErrPaymentRequired) {
		doc := acctadmin.Document{ID: id}
		if d != nil {
			doc = *d
		}
		return r.locked(ctx, doc)
	}
	if errors.Is(err, acctadmin.ErrNotFound) {
		return r.gone(ctx, id)
	}
	if err != nil {
		return err // the journal keeps the record: it is fetched again
	}
	defer f.Close()
	doc := acctadmin.Document{ID: id}
	if d != nil {
		doc = *d
	}
	return r.save(ctx, doc, f, again)
}

// gone ends the journal record of a document the API answers 404 for:
// nothing was saved of it, nor marked read. It returns errGone.
func (r *Room) gone(ctx context.Context, id uuid.UUID) error {
	if err := r.journal.End(ctx, id); err != nil {
		return err
	}
	return errGone
}

// locked ends the journal record of a payment-locked document that take
// met (nothing of it was read) and notes it; it returns errLocked.
func (r *Room) locked(ctx context.Context, d acctadmin.Document) error {
	if err := r.journal.End(ctx, d.ID); err != nil {
		return err
	}
	r.noteLocked(ctx, d, "payment required", func(*lockedDoc) {})
	return errLocked
}

// claim takes the room's claims on id, in memory and, for a fleet, in
// Redis; the function it returns releases them. It fails with errBusy
// when another delivery or room holds id, and with errRefusing while the
// store refuses writes.
func (r *Room) claim(ctx context.Context, id uuid.UUID) (release func(), err error) {
	if r.refusing.Load() {
		return nil, errRefusing
	}
	if !r.local.take(id) {
		return nil, errBusy
	}
	if r.shared == nil {
		return func() { r.local.release(id) }, nil
	}
	held, err := r.shared.take(ctx, id)
	if err != nil || !held {
		r.local.release(id)
		if err == nil {
			err = errBusy
		}
		return nil, err
	}
	return func() {
		r.shared.release(ctx, id)
		r.local.release(id)
	}, nil
}

// keepOut reports whether WithKeepOut keeps d out, and counts it.
func (r *Room) keepOut(d acctadmin.Document) bool {
	if r.cfg.keepOut == nil || !r.cfg.keepOut(d) {
		return false
	}
	r.keptOut.Add(1)
	return true
}

// started counts a download about to start; again says a download of the
// document may have been made before.
func (r *Room) started(again bool) {
	r.downloads.Add(1)
	if again {
		r.redownloads.Add(1)
	}
}

// save saves the downloaded document doc from body, tells WithOnSaved and
// ends its journal record. again says that the download was counted as
// one beyond the first already. A save that fails leaves the record; one
// that fails of the store's own accord (not because reading the download
// failed, nor because ctx ended) makes the room start no download until a
// write succeeds.
func (r *Room) save(ctx context.Context, doc acctadmin.Document, body io.Reader, again bool) error {
	src := &source{r: body}
	err := r.store.Save(ctx, doc, src)
	switch {
	case errors.Is(err, ErrAlreadySaved):
		if !again {
			r.redownloads.Add(1)
		}
		return r.journal.End(ctx, doc.ID)
	case err != nil:
		if ctx.Err() == nil && !src.failed.Load() {
			r.refusing.Store(true)
		}
		return err
	}
	r.refusing.Store(false)
	r.saved.Add(1)
	if r.cfg.onSaved != nil {
		r.cfg.onSaved(ctx, doc)
	}
	return r.journal.End(ctx, doc.ID)
}

// source is a download as the store reads it: it tells whether reading it
// failed, so that a download cut short is not taken for a store that
// refuses writes, and it names its errors as the download's.
type source struct {
	r      io.Reader
	failed atomic.Bool
}

// Read implements io.Reader.
func (s *source) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.failed.Store(true)
		err = &sourceError{err}
	}
	return n, err
}

// sourceError is an error reading a download, as the store sees it.
type sourceError struct{ err error }

func (e *sourceError) Error() string { return "reading the download: " + e.err.Error() }
func (e *sourceError) Unwrap() error { return e.err }

// finish ends the journal record of a document found saved, telling
// WithOnSaved first.
func (r *Room) finish(ctx context.Context, id uuid.UUID, d *acctadmin.Document) error {
	if r.cfg.onSaved != nil {
		if d == nil {
			got, err := r.c.Documents.Get(ctx, id)
			switch {
			case errors.Is(err, acctadmin.ErrNotFound):
				got = &acctadmin.Document{ID: id}
			case err != nil:
				return err
			}
			d = got
		}
		r.cfg.onSaved(ctx, *d)
	}
	return r.journal.End(ctx, id)
}

// renewWhileDownloading renews the room's shared claim on id every third
// of the claim TTL until the returned function is called.
func (r *Room) renewWhileDownloading(ctx context.Context, id uuid.UUID) (stop func()) {
	if r.shared == nil {
		return func() {}
	}
	done := make(chan struct{})
	tick, stopTicker := r.ticker(r.cfg.ttl / 3)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer stopTicker()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick:
				if held, err := r.shared.take(ctx, id); err == nil && !held {
					// Taken over (the claim expired under a stalled
					// room): the store still saves the document once.
					r.cfg.logger.WarnContext(ctx, "mailroom: claim taken over during a download", "document", id)
				}
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// newTicker is the room's clock of the claim renewals: a time.Ticker.
func newTicker(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}

// Run keeps the room complete until ctx ends: it makes sure the callback
// URL is registered exactly once, then pulls the unread documents the
// callbacks missed, every pull interval. It returns when ctx ends (nil,
// or an error wrapping ctx's).
//
// The registration (with WithCallbackURL) is tried again with backoff, from
// a second up to the pull interval, until it succeeds; the pulls start
// once it has. Each pull first fetches again, by id, the documents left in
// the journal, then walks the unread listing (see Pull). A pull that fails
// is logged and tried again at the next interval.
func (r *Room) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("mailroom: nil context")
	}
	if r.cfg.callbackURL != "" {
		if err := r.ensureCallback(ctx); err != nil {
			return err
		}
	}
	for {
		if err := r.Pull(ctx); err != nil && ctx.Err() == nil {
			r.cfg.logger.WarnContext(ctx, "mailroom: pull failed", "error", err)
		}
		t := time.NewTimer(r.cfg.interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("mailroom: %w", ctx.Err())
		case <-t.C:
		}
	}
}

// ensureCallback registers the callback URL, trying again with backoff
// until it succeeds or ctx ends.
func (r *Room) ensureCallback(ctx context.Context) error {
	wait := time.Second
	for {
		_, err := r.c.Callbacks.Ensure(ctx, r.cfg.callbackURL)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("mailroom: %w", ctx.Err())
		}
		r.cfg.logger.WarnContext(ctx, "mailroom: registering the callback URL failed; trying again", "error", err, "wait", wait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("mailroom: %w", ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, max(r.cfg.interval, time.Second))
	}
}

// checkURL refuses what Callbacks.Ensure would, at New rather than in Run.
func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("mailroom: WithCallbackURL: want an absolute http or https URL")
	}
	return nil
}
