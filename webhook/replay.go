package webhook

import (
	"container/list"
	"context"
	"errors"
	"sync"
	"time"
)

// ClaimState is what a ReplayCache found when a delivery claimed an
// event. The zero value is not a state: a cache that returns it without an
// error is taken to have failed.
type ClaimState int

const (
	// ClaimNew means that the event was neither done nor in progress (or
	// its mark had expired): it is now marked in progress for the caller,
	// who must process it and then Commit or Release it.
	ClaimNew ClaimState = iota + 1

	// ClaimInProgress means that another delivery holds the event's mark
	// and its lease has not ended: the event is being processed, and
	// whether that will succeed is not known yet.
	ClaimInProgress

	// ClaimDone means that the event was processed: its Commit is
	// recorded.
	ClaimDone
)

// String returns the state's name.
func (s ClaimState) String() string {
	switch s {
	case ClaimNew:
		return "new"
	case ClaimInProgress:
		return "in progress"
	case ClaimDone:
		return "done"
	default:
		return "invalid"
	}
}

// ReplayCache records which events are being processed and which are
// done, so that an event is processed by one delivery at a time and not
// again once it succeeded. Keys are opaque strings of 64 hexadecimal
// digits. Implementations must be safe for concurrent use; a cache shared
// by several processes (Redis, see package webhook/redisreplay, or a
// database) protects all of them.
//
// An event goes through two marks: "in progress", held by one delivery
// (its owner, an opaque string unique to the delivery) for a lease, and
// "done", kept for the cache's own retention. Claim takes the first,
// Commit replaces it with the second, and Release drops it when
// processing failed, so that a redelivery is processed. A mark whose
// owner died is neither committed nor released: it ends with its lease,
// and the event is then accepted again.
//
// The context is the request's (Handler, VerifyRequest) or the caller's
// (VerifyContext, Commit, Forget); Handler's carries the event
// (FromContext). A networked cache should give up when it is done and
// return an error that wraps ctx.Err(). Every method must return an error
// rather than guess when it cannot tell what it did: Handler then answers
// 503 without calling its function, so that the sender delivers again.
type ReplayCache interface {
	// Claim marks key in progress for owner, for lease, unless it is
	// already done or marked by another owner whose lease has not ended,
	// and reports which of the three it found. Checking and marking must
	// be one atomic step, so that of two concurrent deliveries of one
	// event only one gets ClaimNew. A claim by the owner that already
	// holds the mark returns ClaimNew again.
	Claim(ctx context.Context, key, owner string, lease time.Duration) (ClaimState, error)

	// Commit records key as done, whoever holds its mark, and whether or
	// not a mark is still there: the event was processed. A Claim of key
	// returns ClaimDone from then on, for as long as the cache keeps
	// records. An error means that the record may not have been made.
	Commit(ctx context.Context, key string) error

	// Release drops key's in-progress mark if owner still holds it, so
	// that the event may be processed again; a mark of another owner, or a
	// done record, is left as it is. An error means that the mark may
	// still be there, until its lease ends.
	Release(ctx context.Context, key, owner string) error
}

const (
	defaultReplaySize = 10000
	defaultReplayTTL  = 24 * time.Hour
)

// errLease is returned by MemoryReplayCache.Claim for a lease that is not
// positive.
var errLease = errors.New("webhook: replay cache: lease must be positive")

// MemoryReplayCache is a ReplayCache held in the memory of one process. It
// keeps at most a fixed number of done records, each for a fixed time;
// when it is full, recording one more forgets the oldest. In-progress
// marks are kept apart, each until its lease ends, and are never evicted
// to make room: there is one for each event being processed. The zero
// value is ready to use, with the defaults of NewMemoryReplayCache.
type MemoryReplayCache struct {
	mu    sync.Mutex
	size  int
	ttl   time.Duration
	now   func() time.Time
	order *list.List // of *replayEntry, done records, oldest first
	index map[string]*list.Element
	busy  map[string]busyMark
}

type replayEntry struct {
	key     string
	expires time.Time
}

// busyMark is an in-progress mark: who holds it, and until when.
type busyMark struct {
	owner   string
	expires time.Time
}

// NewMemoryReplayCache returns a MemoryReplayCache that keeps at most size
// done records, each for ttl after it was made. A size or ttl that is not
// positive selects the default: 10000 records, 24 hours.
//
// The API's tokens carry no expiry, so ttl is the window in which a replay
// is caught: choose it longer than any delay after which a replay would
// still do harm, and size larger than the number of events received in
// ttl.
func NewMemoryReplayCache(size int, ttl time.Duration) *MemoryReplayCache {
	c := &MemoryReplayCache{size: size, ttl: ttl}
	c.init()
	return c
}

// init fills in defaults. It is called with c.mu held, or before c is
// shared.
func (c *MemoryReplayCache) init() {
	if c.index != nil {
		return
	}
	if c.size <= 0 {
		c.size = defaultReplaySize
	}
	if c.ttl <= 0 {
		c.ttl = defaultReplayTTL
	}
	if c.now == nil {
		c.now = time.Now
	}
	c.order = list.New()
	c.index = make(map[string]*list.Element)
	c.busy = make(map[string]busyMark)
}

// Claim implements ReplayCache. It never blocks and does not use ctx; its
// only error is for a lease that is not positive.
func (c *MemoryReplayCache) Claim(_ context.Context, key, owner string, lease time.Duration) (ClaimState, error) {
	if lease <= 0 {
		return 0, errLease
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	now := c.now()
	c.dropExpired(now)
	if _, ok := c.index[key]; ok {
		return ClaimDone, nil
	}
	if m, ok := c.busy[key]; ok && now.Before(m.expires) && m.owner != owner {
		return ClaimInProgress, nil
	}
	if len(c.busy) >= c.size {
		c.sweepBusy(now)
	}
	c.busy[key] = busyMark{owner: owner, expires: now.Add(lease)}
	return ClaimNew, nil
}

// Commit implements ReplayCache. It does not use ctx and never returns an
// error.
func (c *MemoryReplayCache) Commit(_ context.Context, key string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	now := c.now()
	c.dropExpired(now)
	delete(c.busy, key)
	if e, ok := c.index[key]; ok {
		c.remove(e)
	}
	c.index[key] = c.order.PushBack(&replayEntry{key: key, expires: now.Add(c.ttl)})
	for c.order.Len() > c.size {
		c.remove(c.order.Front())
	}
	return nil
}

// Release implements ReplayCache. It does not use ctx and never returns
// an error.
func (c *MemoryReplayCache) Release(_ context.Context, key, owner string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	if m, ok := c.busy[key]; ok && m.owner == owner {
		delete(c.busy, key)
	}
	return nil
}

// dropExpired forgets the done records whose time has passed. c.mu must
// be held.
func (c *MemoryReplayCache) dropExpired(now time.Time) {
	for e := c.order.Front(); e != nil && !now.Before(e.Value.(*replayEntry).expires); e = c.order.Front() {
		c.remove(e)
	}
}

// sweepBusy forgets the in-progress marks whose lease has ended. It runs
// only when there are as many marks as done records allowed, so that
// marks left by callers that never committed or released them do not
// pile up. c.mu must be held.
func (c *MemoryReplayCache) sweepBusy(now time.Time) {
	for k, m := range c.busy {
		if !now.Before(m.expires) {
			delete(c.busy, k)
		}
	}
}

// remove drops e from both the list and the index. c.mu must be held.
func (c *MemoryReplayCache) remove(e *list.Element) {
	delete(c.index, c.order.Remove(e).(*replayEntry).key)
}
