// Package redisreplay is a webhook.ReplayCache kept in Redis, so that
// every receiver of a fleet knows which events any of them is processing
// and which are done.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
//	v, err := webhook.NewVerifier(secret, webhook.WithReplayCache(redisreplay.New(rdb)))
//
// It needs Redis 7.0 or later (for SET with both NX and GET).
//
// # How an event is kept
//
// Each event is one key, under a prefix (WithPrefix), whose value says
// what it is: "busy:" and the owner of the delivery processing it, with
// the lease's expiry (webhook.WithLease), or "done", with the cache's
// expiry (WithTTL, 24 hours by default). Three commands, one round trip
// each:
//
//   - Claim is one SET NX GET with the lease: of several receivers given
//     the same event at once, exactly one finds the key empty and holds
//     it; the others read what is there, in progress or done. A new event
//     costs this round trip and Commit's; a duplicate, this one only.
//   - Commit is one SET of "done" with the TTL, over whatever is there.
//   - Release is one script that deletes the key only while it holds the
//     caller's own mark, so that a delivery whose lease ended cannot drop
//     the mark of the delivery that took the event over.
//
// When the client sends the SET of a Claim again after a broken connection
// (go-redis retries a command on network errors), the Claim finds its own
// mark under the key and knows that the first SET took effect, rather
// than taking the event for one in progress elsewhere. A key left by the
// previous version of this package (32 hexadecimal digits) is read as
// done.
//
// # When Redis cannot answer
//
// Every method returns an error rather than guess: Redis down or hung, an
// answer of an unexpected type or a value this package did not write, or
// ctx done (the error then wraps ctx.Err()). webhook.Handler then answers
// 503 without calling its function, and the sender delivers again.
//
// Each call gives up when ctx ends or after the cache's timeout
// (WithTimeout, 2 seconds by default), whichever comes first, whatever the
// go-redis client's own dial, read and write timeouts and retries: the
// command runs on its own goroutine, which is left to finish in the
// background. When a Claim that gave up, or failed after it may have
// reached Redis, did take the key after all, that goroutine releases the
// mark again (for at most a second), so that the redelivery is not kept
// waiting for the lease.
//
// What this cannot cover: if Redis takes a Claim and becomes unreachable
// before its answer or that release arrives, the mark stays until its
// lease ends, and redeliveries are answered 503 until then. And a Redis
// that restarts without its data (no persistence, or a crash before it
// saved) forgets every key, so an event delivered again after that is
// processed again. A stop that keeps the data (SHUTDOWN with a save, or
// persistence turned on) loses nothing.
//
// Cache is safe for concurrent use. It uses the client as given and does
// not close it.
package redisreplay

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/acctadmin/acctadmin-go/webhook"
)

const (
	// DefaultPrefix is put before every key unless WithPrefix says
	// otherwise.
	DefaultPrefix = "acctadmin:webhook:replay:"

	// DefaultTTL is how long a done record is kept unless WithTTL says
	// otherwise.
	DefaultTTL = 24 * time.Hour

	// DefaultTimeout bounds each call unless WithTimeout says otherwise.
	DefaultTimeout = 2 * time.Second

	// undoTimeout bounds the release of a claim whose answer was lost or
	// given up on.
	undoTimeout = time.Second
)

// The values a key holds.
const (
	doneValue  = "done"
	busyPrefix = "busy:"
)

// Cache is a webhook.ReplayCache kept in Redis. Create it with New.
type Cache struct {
	rdb     redis.UniversalClient
	prefix  string
	ttl     time.Duration
	timeout time.Duration
	late    error // the cause of a call given up on at the timeout

	// background counts the goroutines of calls given up on that have
	// not finished yet.
	background sync.WaitGroup
}

var _ webhook.ReplayCache = (*Cache)(nil)

// Option configures a Cache; pass options to New.
type Option func(*Cache)

// WithPrefix sets the text put before every key, so that several caches
// (several accounts, or tests) can share one Redis database. The default
// is DefaultPrefix; "" is allowed.
func WithPrefix(prefix string) Option {
	return func(c *Cache) { c.prefix = prefix }
}

// WithTTL sets how long a done record is kept: the window in which a
// replay is caught (the API's tokens carry no expiry). Choose it longer
// than any delay after which a redelivery would still do harm. A ttl that
// is not positive keeps the default, DefaultTTL; Redis keeps expiries in
// whole milliseconds, so a shorter positive ttl counts as one millisecond.
func WithTTL(ttl time.Duration) Option {
	return func(c *Cache) {
		if ttl > 0 {
			c.ttl = max(ttl, time.Millisecond)
		}
	}
}

// WithTimeout bounds each call of the cache, whatever the go-redis
// client's own timeouts and retries: a hung Redis costs a delivery at most
// d (and the request's context may end it sooner). A d that is not
// positive keeps the default, DefaultTimeout.
func WithTimeout(d time.Duration) Option {
	return func(c *Cache) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// New returns a Cache that keeps its keys in Redis through rdb (a
// *redis.Client, *redis.ClusterClient, *redis.Ring or failover client).
// It panics if rdb is nil.
func New(rdb redis.UniversalClient, opts ...Option) *Cache {
	if rdb == nil {
		panic("redisreplay: nil Redis client")
	}
	c := &Cache{rdb: rdb, prefix: DefaultPrefix, ttl: DefaultTTL, timeout: DefaultTimeout}
	for _, opt := range opts {
		opt(c)
	}
	c.late = fmt.Errorf("no answer from Redis within %v: %w", c.timeout, context.DeadlineExceeded)
	return c
}

// Claim implements webhook.ReplayCache with one SET NX GET: it marks key
// in progress for owner, for lease, unless the key holds a mark already,
// and reports what it found. An error means that nothing can be said
// about key.
func (c *Cache) Claim(ctx context.Context, key, owner string, lease time.Duration) (webhook.ClaimState, error) {
	if lease <= 0 {
		return 0, errors.New("redisreplay: claim: lease must be positive")
	}
	k, mark := c.prefix+key, busyPrefix+owner
	ms := max(lease.Milliseconds(), 1)
	var state webhook.ClaimState
	err := c.run(ctx, "claim", func(ctx context.Context) error {
		reply, err := c.rdb.Do(ctx, "SET", k, mark, "NX", "PX", ms, "GET").Result()
		state, err = readClaim(reply, err, mark)
		return err
	}, func(err error) {
		// Given up on, or failed after it may have reached Redis: the
		// key may hold this call's mark, which no one would release.
		if err != nil && !mayHaveReached(err) {
			return
		}
		if err == nil && state != webhook.ClaimNew {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), undoTimeout)
		defer cancel()
		_, _ = c.release(ctx, k, mark)
	})
	if err != nil {
		return 0, err
	}
	return state, nil
}

// readClaim reads the answer of a Claim's SET NX GET.
func readClaim(reply any, err error, mark string) (webhook.ClaimState, error) {
	if errors.Is(err, redis.Nil) {
		return webhook.ClaimNew, nil // nothing was there: marked now
	}
	if err != nil {
		return 0, err
	}
	old, ok := reply.(string)
	if !ok {
		return 0, fmt.Errorf("answer of type %T, not a string", reply)
	}
	switch {
	case old == mark:
		// The client sent the SET again after a broken connection, and
		// the first one had taken effect.
		return webhook.ClaimNew, nil
	case old == doneValue, isLegacy(old):
		return webhook.ClaimDone, nil
	case strings.HasPrefix(old, busyPrefix):
		return webhook.ClaimInProgress, nil
	default:
		// Not the key's value quoted: it may be anything.
		return 0, fmt.Errorf("the key holds a value of %d bytes this package did not write", len(old))
	}
}

// isLegacy reports whether v is a value of the previous version of this
// package, a token of 32 hexadecimal digits that meant "accepted".
func isLegacy(v string) bool {
	if len(v) != 32 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !('0' <= v[i] && v[i] <= '9' || 'a' <= v[i] && v[i] <= 'f') {
			return false
		}
	}
	return true
}

// Commit implements webhook.ReplayCache with one SET of the done value and
// the cache's TTL, over whatever the key holds. An error means that the
// record may not have been made.
func (c *Cache) Commit(ctx context.Context, key string) error {
	k := c.prefix + key
	ms := max(c.ttl.Milliseconds(), 1)
	return c.run(ctx, "commit", func(ctx context.Context) error {
		reply, err := c.rdb.Do(ctx, "SET", k, doneValue, "PX", ms).Result()
		if err != nil {
			return err
		}
		if s, ok := reply.(string); !ok || s != "OK" {
			return fmt.Errorf("answer %s, not OK", describe(reply))
		}
		return nil
	}, nil)
}

// Release implements webhook.ReplayCache: it deletes key if it still
// holds owner's mark, in one script. An error means that the mark may
// still be there.
func (c *Cache) Release(ctx context.Context, key, owner string) error {
	k := c.prefix + key
	return c.run(ctx, "release", func(ctx context.Context) error {
		_, err := c.release(ctx, k, busyPrefix+owner)
		return err
	}, nil)
}

// releaseScript deletes a key only while it holds the caller's mark.
var releaseScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

// release runs releaseScript and reports whether it deleted the key.
func (c *Cache) release(ctx context.Context, key, mark string) (bool, error) {
	reply, err := releaseScript.Run(ctx, c.rdb, []string{key}, mark).Result()
	if err != nil {
		return false, err
	}
	n, ok := reply.(int64)
	if !ok || n < 0 || n > 1 {
		return false, fmt.Errorf("answer %s, not 0 or 1", describe(reply))
	}
	return n == 1, nil
}

// describe names a reply for an error without quoting a string, which
// could be anything.
func describe(reply any) string {
	switch r := reply.(type) {
	case string:
		if r == "OK" {
			return "OK"
		}
		return fmt.Sprintf("a string of %d bytes", len(r))
	case int64:
		return fmt.Sprintf("the integer %d", r)
	default:
		return fmt.Sprintf("of type %T", reply)
	}
}

// run runs cmd on a goroutine of its own, with ctx bounded by the cache's
// timeout, and returns its error, or ctx's (the caller's, or the timeout)
// as soon as ctx ends, whatever the client's own timeouts. When cmd fails,
// or is given up on, abandoned (when not nil) runs on that goroutine once
// cmd has returned, with cmd's error (nil when cmd succeeded after it was
// given up on). Every error is prefixed with "redisreplay: " and op.
func (c *Cache) run(ctx context.Context, op string, cmd func(context.Context) error, abandoned func(error)) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redisreplay: %s: %w", op, err)
	}
	callCtx, cancel := context.WithTimeoutCause(ctx, c.timeout, c.late)
	// outcome decides, once, whether the caller takes cmd's result
	// (finished) or has given up on it (givenUp), whichever comes first.
	var outcome atomic.Int32
	const (
		finished = 1
		givenUp  = 2
	)
	done := make(chan error, 1)
	c.background.Add(1)
	go func() {
		defer c.background.Done()
		defer cancel()
		err := cmd(callCtx)
		if outcome.CompareAndSwap(0, finished) {
			done <- err
			if err != nil && abandoned != nil {
				abandoned(err)
			}
			return
		}
		if abandoned != nil {
			abandoned(err)
		}
	}()
	select {
	case err := <-done:
		return wrap(op, err)
	case <-callCtx.Done():
		if !outcome.CompareAndSwap(0, givenUp) {
			return wrap(op, <-done) // cmd finished first
		}
		return fmt.Errorf("redisreplay: %s: %w", op, context.Cause(callCtx))
	}
}

// wrap prefixes a command's error, and returns nil for nil.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("redisreplay: %s: %w", op, err)
}

// mayHaveReached reports whether a command that failed with err may have
// reached Redis: not when no connection could be had.
func mayHaveReached(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return false
	}
	return !errors.Is(err, redis.ErrPoolTimeout) && !errors.Is(err, redis.ErrClosed)
}
