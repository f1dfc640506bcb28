// Package redisreplay is a webhook.ReplayCache kept in Redis, so that
// every receiver of a fleet refuses an event that any of them has
// accepted.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
//	v, err := webhook.NewVerifier(secret, webhook.WithReplayCache(redisreplay.New(rdb)))
//
// # How a key is kept
//
// Add records a key with one atomic SET NX with an expiry (WithTTL, 24
// hours by default), under a prefix (WithPrefix); of several receivers
// given the same event at once, exactly one is told it is new. Remove
// forgets the key with DEL. The value stored is a random token of the
// call that set it: when the client sends the SET again after a broken
// connection (go-redis retries a command on network errors), Add finds its
// own token under the key and knows that the first SET took effect, rather
// than taking its own record for a replay. This needs Redis 7.0 or later,
// for SET with both NX and GET.
//
// # When Redis cannot answer
//
// Add and Remove return an error rather than guess: Redis down, a timeout,
// or ctx done (the error wraps ctx.Err()). webhook.Handler then answers
// 503 without calling its function, and the sender delivers again. When
// Add fails after the SET may have reached Redis, Add also tries, for at
// most a second, to take back a record that is its own (the key still
// holds its token), so that the redelivery is not refused.
//
// What this cannot cover: if Redis takes the SET and then becomes
// unreachable before either its answer or that undo arrives, the key stays
// recorded and redeliveries of the event are refused as replays until the
// key expires; the event is then processed at most once, not once. And a
// Redis that restarts without its data (no persistence, or a crash before
// it saved) forgets every key, so an event delivered again after that is
// processed again. A stop that keeps the data (SHUTDOWN with a save, or
// persistence turned on) loses nothing: every event is processed exactly
// once, as the package's fleet test shows.
//
// Cache is safe for concurrent use. It uses the client as given and does
// not close it.
package redisreplay

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/acctadmin/acctadmin-go/webhook"
)

const (
	// DefaultPrefix is put before every key unless WithPrefix says
	// otherwise.
	DefaultPrefix = "acctadmin:webhook:replay:"

	// DefaultTTL is how long a key is kept unless WithTTL says otherwise.
	DefaultTTL = 24 * time.Hour

	// undoTimeout bounds the attempt to take back a SET whose answer was
	// lost.
	undoTimeout = time.Second
)

// Cache is a webhook.ReplayCache kept in Redis. Create it with New.
type Cache struct {
	rdb    redis.UniversalClient
	prefix string
	ttl    time.Duration
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

// WithTTL sets how long a key is remembered: the window in which a replay
// is caught (the API's tokens carry no expiry). Choose it longer than any
// delay after which a redelivery would still do harm. A ttl that is not
// positive keeps the default, DefaultTTL; Redis keeps expiries in whole
// milliseconds, so a shorter positive ttl counts as one millisecond.
func WithTTL(ttl time.Duration) Option {
	return func(c *Cache) {
		if ttl > 0 {
			c.ttl = max(ttl, time.Millisecond)
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
	c := &Cache{rdb: rdb, prefix: DefaultPrefix, ttl: DefaultTTL}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// Add implements webhook.ReplayCache: it records key with SET NX and the
// cache's expiry, and reports whether key was new. An error means that
// Redis did not answer, and nothing can be said about key.
func (c *Cache) Add(ctx context.Context, key string) (bool, error) {
	token, err := newToken()
	if err != nil {
		return false, fmt.Errorf("redisreplay: add: %w", err)
	}
	k := c.prefix + key
	old, err := c.rdb.SetArgs(ctx, k, token, redis.SetArgs{Mode: "NX", TTL: c.ttl, Get: true}).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return true, nil // nothing was there: recorded now
	case err != nil:
		if mayHaveReached(err) {
			c.undo(ctx, k, token)
		}
		return false, fmt.Errorf("redisreplay: add: %w", err)
	case old == token:
		// The client sent the SET again after a broken connection, and
		// the first one had taken effect.
		return true, nil
	default:
		return false, nil
	}
}

// undoScript deletes a key only while it still holds the caller's token.
var undoScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

// undo takes back a SET that may have taken effect although Add returns an
// error, so that a redelivery of the event is not refused. It runs even
// when ctx is done (that may be why the SET failed), for at most
// undoTimeout, and its failure is not reported: Add's error stands.
func (c *Cache) undo(ctx context.Context, key, token string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), undoTimeout)
	defer cancel()
	_ = undoScript.Run(ctx, c.rdb, []string{key}, token).Err()
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

// Remove implements webhook.ReplayCache: it forgets key with DEL. An error
// means that Redis did not answer and key may still be recorded.
func (c *Cache) Remove(ctx context.Context, key string) error {
	if err := c.rdb.Del(ctx, c.prefix+key).Err(); err != nil {
		return fmt.Errorf("redisreplay: remove: %w", err)
	}
	return nil
}

// newToken returns a random value that tells one Add call's record from
// every other.
func newToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}
