package webhook

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// ReplayCache remembers the events a Verifier has accepted, so that a
// second delivery of one is refused with ErrReplayed. Keys are opaque
// strings of 64 hexadecimal digits. Implementations must be safe for
// concurrent use; a cache shared by several processes (a database, Redis
// with SET NX and an expiry, see package webhook/redisreplay) protects
// all of them.
//
// The context is the request's (Handler, VerifyRequest) or the caller's
// (VerifyContext, Forget): a networked cache should give up when it is
// done and return an error that wraps ctx.Err().
type ReplayCache interface {
	// Add records key and reports whether it was new: false means that
	// key was recorded before and is still remembered. Checking and
	// recording must be one atomic step, so that of two concurrent
	// deliveries of one event only one is accepted. When the cache cannot
	// tell, Add must return an error rather than guess: the error makes
	// Verify fail with it wrapped, and Handler answer 503 without calling
	// its function, so that the sender delivers again later.
	Add(ctx context.Context, key string) (added bool, err error)

	// Remove forgets key, so that the event may be delivered again. An
	// error means that key may still be remembered.
	Remove(ctx context.Context, key string) error
}

const (
	defaultReplaySize = 10000
	defaultReplayTTL  = 24 * time.Hour
)

// MemoryReplayCache is a ReplayCache held in the memory of one process. It
// remembers at most a fixed number of keys, each for a fixed time; when it
// is full, recording a key forgets the oldest one. The zero value is ready
// to use, with the defaults of NewMemoryReplayCache.
type MemoryReplayCache struct {
	mu    sync.Mutex
	size  int
	ttl   time.Duration
	now   func() time.Time
	order *list.List // of *replayEntry, oldest first
	index map[string]*list.Element
}

type replayEntry struct {
	key     string
	expires time.Time
}

// NewMemoryReplayCache returns a MemoryReplayCache that remembers at most
// size keys, each for ttl after it was recorded. A size or ttl that is not
// positive selects the default: 10000 keys, 24 hours.
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
}

// Add implements ReplayCache. It never blocks, does not use ctx, and
// never returns an error.
func (c *MemoryReplayCache) Add(_ context.Context, key string) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	now := c.now()
	for e := c.order.Front(); e != nil && !now.Before(e.Value.(*replayEntry).expires); e = c.order.Front() {
		c.remove(e)
	}
	if _, ok := c.index[key]; ok {
		return false, nil
	}
	c.index[key] = c.order.PushBack(&replayEntry{key: key, expires: now.Add(c.ttl)})
	for c.order.Len() > c.size {
		c.remove(c.order.Front())
	}
	return true, nil
}

// Remove implements ReplayCache. It does not use ctx and never returns an
// error.
func (c *MemoryReplayCache) Remove(_ context.Context, key string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	if e, ok := c.index[key]; ok {
		c.remove(e)
	}
	return nil
}

// remove drops e from both the list and the index. c.mu must be held.
func (c *MemoryReplayCache) remove(e *list.Element) {
	delete(c.index, c.order.Remove(e).(*replayEntry).key)
}
