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
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/acctadmin/acctadmin-go/webhook/redisreplay/internal/redislease"
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
)

// The values a key holds.
const (
	doneValue  = "done"
	busyPrefix = "busy:"
)

// Cache is a webhook.ReplayCache kept in Redis. Create it with New.
type Cache struct {
	rdb     redis.UniversalClient
	leases  *redislease.Client // the marks, and the bound of every call
	prefix  string
	ttl     time.Duration
	timeout time.Duration
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
	c.leases = redislease.New(rdb, c.timeout)
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
	held, old, err := c.leases.Claim(ctx, c.prefix+key, busyPrefix+owner, lease)
	if err != nil {
		return 0, wrap("claim", err)
	}
	state, err := readClaim(held, old)
	if err != nil {
		return 0, wrap("claim", err)
	}
	return state, nil
}

// readClaim reads what a Claim found: the key held now (nothing was there,
// or the client sent the SET again and found the first one's mark), or
// the value another delivery left.
func readClaim(held bool, old string) (webhook.ClaimState, error) {
	switch {
	case held:
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
	return wrap("commit", c.leases.Do(ctx, func(ctx context.Context) error {
		reply, err := c.rdb.Do(ctx, "SET", k, doneValue, "PX", ms).Result()
		if err != nil {
			return err
		}
		if s, ok := reply.(string); !ok || s != "OK" {
			return fmt.Errorf("answer %s, not OK", redislease.Describe(reply))
		}
		return nil
	}))
}

// Release implements webhook.ReplayCache: it deletes key if it still
// holds owner's mark, in one script. An error means that the mark may
// still be there.
func (c *Cache) Release(ctx context.Context, key, owner string) error {
	_, err := c.leases.Release(ctx, c.prefix+key, busyPrefix+owner)
	return wrap("release", err)
}

// wrap prefixes a command's error, and returns nil for nil.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("redisreplay: %s: %w", op, err)
}
