// Package redislease keeps owner-token leases on Redis keys, for the
// Redis-backed parts of the SDK: the mail room's shared claims
// (mailroom.WithRedis) and the webhook replay cache (webhook/redisreplay).
//
// A lease is a key that holds its owner's token and expires after its
// TTL, so that the lease of an owner that died is taken over. Only the
// owner renews or releases it: a holder whose lease ended and was taken by
// another cannot renew or delete the new holder's. Each operation is one
// round trip:
//
//   - Acquire takes a free key, or renews the owner's own lease, in one
//     script.
//   - Claim takes a free key with one SET NX GET and otherwise reports the
//     value found there, which may be something other than a token (the
//     replay cache keeps its records under the same keys).
//   - Release deletes the key only while it holds the owner's token, in
//     one script.
//
// Every call of a Client, these and Do, gives up when the caller's context
// ends or after the client's timeout, whichever comes first, whatever the
// go-redis client's own dial, read and write timeouts and retries: the
// command runs on a goroutine of its own, left to finish in the background
// (Wait waits for those). A call whose context has ended already sends
// nothing. An answer of a type or value a command never gives is an
// error: nothing is guessed.
//
// The package lives twice, byte for byte, as mailroom/internal/redislease
// and webhook/redisreplay/internal/redislease, so that each of those
// modules is whole on its own and a user of either needs no module of
// this one; .ci/run fails when the two copies differ.
package redislease

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultTimeout bounds each call of a Client built with no timeout of its
// own.
const DefaultTimeout = 2 * time.Second

// undoTimeout bounds the release of a Claim whose answer was lost or given
// up on.
const undoTimeout = time.Second

// Client keeps leases on the keys of one Redis. Create it with New; it is
// safe for concurrent use.
type Client struct {
	rdb     redis.UniversalClient
	timeout time.Duration
	late    error // the cause of a call given up on at the timeout

	// background counts the goroutines of calls given up on that have
	// not finished yet.
	background sync.WaitGroup
}

// New returns a Client that sends its commands through rdb and bounds each
// call by timeout (DefaultTimeout when timeout is not positive). It uses
// rdb as given and does not close it; it panics if rdb is nil.
func New(rdb redis.UniversalClient, timeout time.Duration) *Client {
	if rdb == nil {
		panic("redislease: nil Redis client")
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Client{
		rdb:     rdb,
		timeout: timeout,
		late:    fmt.Errorf("no answer from Redis within %v: %w", timeout, context.DeadlineExceeded),
	}
}

// Wait waits for the goroutines of the calls given up on to finish.
func (c *Client) Wait() { c.background.Wait() }

// acquireScript holds KEYS[1] for ARGV[1] for ARGV[2] milliseconds when it
// is free or already ARGV[1]'s (then it renews it), in one step; it
// answers 1 when ARGV[1] holds it now, 0 when another owner does.
var acquireScript = redis.NewScript(`
local v = redis.call("GET", KEYS[1])
if v == false or v == ARGV[1] then
	redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
	return 1
end
return 0`)

// releaseScript deletes KEYS[1] while it holds ARGV[1]; it answers 1 when
// it deleted it, 0 otherwise.
var releaseScript = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

// millis is ttl in whole milliseconds, at least one; a ttl that is not
// positive is an error: a lease that never expires would outlive its
// owner.
func millis(ttl time.Duration) (int64, error) {
	if ttl <= 0 {
		return 0, fmt.Errorf("lease TTL %v is not positive", ttl)
	}
	return max(ttl.Milliseconds(), 1), nil
}

// Acquire holds key for owner for ttl when key is free or already holds
// owner (then it renews the lease to the full ttl), in one script, and
// reports whether owner holds it now: false means another owner does. An
// error means that nothing can be said. A call given up on may still take
// or renew the lease, which then ends with its ttl.
func (c *Client) Acquire(ctx context.Context, key, owner string, ttl time.Duration) (bool, error) {
	ms, err := millis(ttl)
	if err != nil {
		return false, err
	}
	var held bool
	err = c.Do(ctx, func(ctx context.Context) error {
		reply, err := acquireScript.Run(ctx, c.rdb, []string{key}, owner, ms).Result()
		if err != nil {
			return err
		}
		held, err = zeroOrOne(reply)
		return err
	})
	if err != nil {
		return false, err
	}
	return held, nil
}

// Claim holds key for owner for ttl when key is free, with one SET NX PX
// GET, and reports whether owner holds it now, and otherwise the value
// found there (a token or anything else; the lease is left as it is). When
// the found value is owner's token, the client sent the SET again after a
// broken connection and the first one took effect: Claim reports the key
// held. When a Claim gives up, or fails after its SET may have reached
// Redis, and the key holds owner's token, the background goroutine
// releases it again (for at most a second), so that the next claim need
// not wait for ttl. It needs Redis 7.0 or later.
func (c *Client) Claim(ctx context.Context, key, owner string, ttl time.Duration) (held bool, found string, err error) {
	ms, err := millis(ttl)
	if err != nil {
		return false, "", err
	}
	var ok bool
	var old string
	err = c.do(ctx, func(ctx context.Context) error {
		reply, err := c.rdb.Do(ctx, "SET", key, owner, "NX", "PX", ms, "GET").Result()
		ok, old, err = readClaim(reply, err, owner)
		return err
	}, func(err error) {
		// Given up on, or failed after it may have reached Redis: the
		// key may hold owner's token, which no one would release.
		if err != nil && !mayHaveReached(err) {
			return
		}
		if err == nil && !ok {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), undoTimeout)
		defer cancel()
		_, _ = c.release(ctx, key, owner)
	})
	if err != nil {
		return false, "", err
	}
	return ok, old, nil
}

// readClaim reads the answer of a Claim's SET NX GET.
func readClaim(reply any, err error, owner string) (held bool, found string, _ error) {
	if errors.Is(err, redis.Nil) {
		return true, "", nil // nothing was there: held now
	}
	if err != nil {
		return false, "", err
	}
	old, ok := reply.(string)
	if !ok {
		return false, "", fmt.Errorf("answer of type %T, not a string", reply)
	}
	if old == owner {
		// The client sent the SET again after a broken connection, and
		// the first one had taken effect.
		return true, "", nil
	}
	return false, old, nil
}

// Release deletes key while it holds owner, in one script, and reports
// whether it did: a lease another owner took since is left to it. An
// error means that owner's lease may still be there.
func (c *Client) Release(ctx context.Context, key, owner string) (bool, error) {
	var deleted bool
	err := c.Do(ctx, func(ctx context.Context) error {
		var err error
		deleted, err = c.release(ctx, key, owner)
		return err
	})
	if err != nil {
		return false, err
	}
	return deleted, nil
}

// release runs releaseScript, with no bound of its own.
func (c *Client) release(ctx context.Context, key, owner string) (bool, error) {
	reply, err := releaseScript.Run(ctx, c.rdb, []string{key}, owner).Result()
	if err != nil {
		return false, err
	}
	return zeroOrOne(reply)
}

// zeroOrOne reads the answer of a script that answers 0 or 1.
func zeroOrOne(reply any) (bool, error) {
	n, ok := reply.(int64)
	if !ok || n < 0 || n > 1 {
		return false, fmt.Errorf("answer %s, not 0 or 1", Describe(reply))
	}
	return n == 1, nil
}

// Describe names a reply for an error without quoting a string, which
// could be anything (a secret included).
func Describe(reply any) string {
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

// Do runs cmd, bounded as every call of the client is: on a goroutine of
// its own, with a context that ends with ctx or after the client's
// timeout, and returns its error, or, as soon as that context ends, ctx's
// cause or an error wrapping context.DeadlineExceeded that says no answer
// came within the timeout. When ctx has ended already, cmd does not run.
// It is for the other commands of the lease's users (a record, a journal),
// so that they are bounded the same way.
func (c *Client) Do(ctx context.Context, cmd func(context.Context) error) error {
	return c.do(ctx, cmd, nil)
}

// do is Do, and, when cmd fails or is given up on, runs abandoned (when
// not nil) on cmd's goroutine once cmd has returned, with cmd's error
// (nil when cmd succeeded after it was given up on).
func (c *Client) do(ctx context.Context, cmd func(context.Context) error, abandoned func(error)) error {
	if err := ctx.Err(); err != nil {
		return err
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
		return err
	case <-callCtx.Done():
		if !outcome.CompareAndSwap(0, givenUp) {
			return <-done // cmd finished first
		}
		return context.Cause(callCtx)
	}
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
