package redisreplay_test

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/internal/redisserver"
	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/acctadmin/acctadmin-go/webhook/redisreplay"
)

// key is a replay key of the shape the verifier gives, 64 hex digits.
func key(c byte) string { return strings.Repeat(string(c), 64) }

func TestAddRemove(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	ctx := context.Background()
	c := redisreplay.New(rdb)

	added, err := c.Add(ctx, key('a'))
	require.NoError(t, err)
	assert.True(t, added, "a new key is added")
	added, err = c.Add(ctx, key('a'))
	require.NoError(t, err)
	assert.False(t, added, "a key already there is not")

	// One key under the default prefix, with the default expiry.
	keys, err := rdb.Keys(ctx, "*").Result()
	require.NoError(t, err)
	assert.Equal(t, []string{redisreplay.DefaultPrefix + key('a')}, keys)
	ttl, err := rdb.PTTL(ctx, keys[0]).Result()
	require.NoError(t, err)
	assert.Greater(t, ttl, redisreplay.DefaultTTL-time.Minute)
	assert.LessOrEqual(t, ttl, redisreplay.DefaultTTL)

	require.NoError(t, c.Remove(ctx, key('a')))
	n, err := rdb.Exists(ctx, keys[0]).Result()
	require.NoError(t, err)
	assert.Zero(t, n, "Remove deletes the key")
	added, err = c.Add(ctx, key('a'))
	require.NoError(t, err)
	assert.True(t, added, "a removed key is new again")

	require.NoError(t, c.Remove(ctx, key('z')), "removing a key never added is no error")
}

func TestPrefix(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	ctx := context.Background()
	a := redisreplay.New(rdb, redisreplay.WithPrefix("account-a:"))
	b := redisreplay.New(rdb, redisreplay.WithPrefix("account-b:"))
	bare := redisreplay.New(rdb, redisreplay.WithPrefix(""))

	for _, c := range []*redisreplay.Cache{a, b, bare} {
		added, err := c.Add(ctx, key('k'))
		require.NoError(t, err)
		assert.True(t, added, "caches with different prefixes do not see each other's keys")
	}
	keys, err := rdb.Keys(ctx, "*").Result()
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"account-a:" + key('k'), "account-b:" + key('k'), key('k')}, keys)

	require.NoError(t, a.Remove(ctx, key('k')))
	added, err := b.Add(ctx, key('k'))
	require.NoError(t, err)
	assert.False(t, added, "removing under one prefix leaves the others")
}

func TestTTL(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	ctx := context.Background()

	for _, tc := range []struct {
		ttl  time.Duration
		want time.Duration
	}{
		{0, redisreplay.DefaultTTL},
		{-time.Hour, redisreplay.DefaultTTL},
		{time.Nanosecond, time.Millisecond},
		{90 * time.Minute, 90 * time.Minute},
		{math.MaxInt64, math.MaxInt64 / time.Millisecond * time.Millisecond},
	} {
		c := redisreplay.New(rdb, redisreplay.WithPrefix("ttl:"), redisreplay.WithTTL(tc.ttl))
		require.NoError(t, rdb.FlushAll(ctx).Err())
		added, err := c.Add(ctx, key('t'))
		require.NoError(t, err)
		require.True(t, added)
		if tc.want == time.Millisecond {
			continue // gone, or about to be; the expiry test below covers it
		}
		got, err := rdb.PTTL(ctx, "ttl:"+key('t')).Result()
		require.NoError(t, err)
		assert.Greater(t, got, tc.want-time.Minute, "WithTTL(%v)", tc.ttl)
		assert.LessOrEqual(t, got, tc.want, "WithTTL(%v)", tc.ttl)
	}
}

// TestTTLExpiry checks that Redis forgets a key once its TTL has passed,
// so that the event is new again. It polls rather than sleeping a fixed
// time.
func TestTTLExpiry(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	ctx := context.Background()
	c := redisreplay.New(rdb, redisreplay.WithTTL(200*time.Millisecond))

	added, err := c.Add(ctx, key('e'))
	require.NoError(t, err)
	require.True(t, added)
	added, err = c.Add(ctx, key('e'))
	require.NoError(t, err)
	require.False(t, added, "remembered within the TTL")

	deadline := time.Now().Add(10 * time.Second)
	for {
		added, err = c.Add(ctx, key('e'))
		require.NoError(t, err)
		if added {
			break
		}
		require.True(t, time.Now().Before(deadline), "the key was never forgotten")
		time.Sleep(50 * time.Millisecond)
	}
}

// TestOutage stops Redis: Add and Remove return errors (never a guess),
// the handler answers 503 and does not call its function; when Redis is
// back, the same delivery is accepted and processed once.
func TestOutage(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	r := newReceiver(t, rdb, nil)
	ctx := context.Background()
	tok := sign(t, event())

	srv.Stop()
	added, err := r.cache.Add(ctx, key('o'))
	require.Error(t, err)
	assert.False(t, added)
	assert.True(t, strings.HasPrefix(err.Error(), "redisreplay: add: "), err.Error())
	err = r.cache.Remove(ctx, key('o'))
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "redisreplay: remove: "), err.Error())

	for range 3 {
		assert.Equal(t, http.StatusServiceUnavailable, r.post(t, tok))
	}
	_, err = r.verifier.Verify(tok)
	require.Error(t, err)
	for _, s := range []error{webhook.ErrReplayed, webhook.ErrMalformed, webhook.ErrInvalidSignature} {
		assert.NotErrorIs(t, err, s, "an outage is not a verdict on the token")
	}
	assert.Zero(t, r.processed.Load(), "the function ran while Redis was down")

	require.NoError(t, srv.Resume())
	assert.Equal(t, http.StatusOK, r.post(t, tok), "the redelivery is accepted once Redis is back")
	assert.Equal(t, http.StatusOK, r.post(t, tok), "and then it is a replay, acknowledged")
	assert.Equal(t, int64(1), r.processed.Load(), "and processed once")
}

// TestFunctionFailsThenRedelivery checks Forget on Redis: when the
// function fails, its event is deleted again, so the redelivery, to any
// receiver, is processed.
func TestFunctionFailsThenRedelivery(t *testing.T) {
	srv := redisserver.Start(t)
	var fail sync.Once
	failFirst := func(context.Context, *webhook.Event) error {
		err := errors.New("database unavailable")
		failed := false
		fail.Do(func() { failed = true })
		if failed {
			return err
		}
		return nil
	}
	a := newReceiver(t, newClient(t, srv), failFirst)
	b := newReceiver(t, newClient(t, srv), nil)
	tok := sign(t, event())

	assert.Equal(t, http.StatusInternalServerError, a.post(t, tok))
	keys, err := newClient(t, srv).Keys(context.Background(), "*").Result()
	require.NoError(t, err)
	assert.Empty(t, keys, "the failed event was removed from Redis")
	assert.Equal(t, http.StatusOK, b.post(t, tok))
	assert.Equal(t, http.StatusOK, a.post(t, tok), "a replay is acknowledged")
	assert.Equal(t, int64(0), a.processed.Load())
	assert.Equal(t, int64(1), b.processed.Load())
}

// TestConcurrentDeliveryToThreeReceivers sends each event to three
// receivers at the same moment: all three answer 200, and exactly one of
// them processes it; the other two take it for a replay.
func TestConcurrentDeliveryToThreeReceivers(t *testing.T) {
	srv := redisserver.Start(t)
	var fleet []*receiver
	for range 3 {
		fleet = append(fleet, newReceiver(t, newClient(t, srv), nil))
	}
	const events = 50
	for i := 0; i < events; i++ {
		tok := sign(t, event())
		codes := make([]int, len(fleet))
		before := make([]int64, len(fleet))
		for j, r := range fleet {
			before[j] = r.processed.Load()
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		for j, r := range fleet {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				codes[j] = r.post(t, tok)
			}()
		}
		close(start)
		wg.Wait()
		processed := 0
		for j, r := range fleet {
			processed += int(r.processed.Load() - before[j])
		}
		require.Equal(t, []int{200, 200, 200}, codes, "event %d", i)
		require.Equal(t, 1, processed, "event %d was processed %d times", i, processed)
	}
	var total int64
	for _, r := range fleet {
		total += r.processed.Load()
	}
	assert.Equal(t, int64(events), total)
}

// TestContext checks that Add and Remove give up with the caller's
// context: a cancelled one at once, and an expiring one while Redis holds
// writes, with errors that wrap the context's; and that a SET given up on
// leaves nothing recorded.
func TestContext(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	c := redisreplay.New(rdb)

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Add(cancelled, key('c'))
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, c.Remove(cancelled, key('c')), context.Canceled)

	// Redis holds every write for a while: Add waits no longer than its
	// context allows.
	line, err := srv.Do("CLIENT", "PAUSE", "3000", "WRITE")
	require.NoError(t, err)
	require.Equal(t, "+OK", line)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	start := time.Now()
	_, err = c.Add(ctx, key('c'))
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 2500*time.Millisecond, "Add outlived its context")
	line, err = srv.Do("CLIENT", "UNPAUSE")
	require.NoError(t, err)
	require.Equal(t, "+OK", line)

	added, err := c.Add(context.Background(), key('c'))
	require.NoError(t, err)
	assert.True(t, added, "the SET given up on recorded nothing")

	// Through the verifier: VerifyContext passes its context down.
	v, err := webhook.NewVerifier(testSecret, webhook.WithReplayCache(c))
	require.NoError(t, err)
	cancelled, cancel = context.WithCancel(context.Background())
	cancel()
	tok := sign(t, event())
	_, err = v.VerifyContext(cancelled, tok)
	require.ErrorIs(t, err, context.Canceled)
	ev, err := v.VerifyContext(context.Background(), tok)
	require.NoError(t, err)
	assert.Equal(t, webhook.EventNewInvoice, ev.Name)
}

// lostReply is a go-redis hook that runs the first SET and then reports
// an error, as when a connection breaks after Redis took the command, and
// optionally sends the SET a second time first, as go-redis does when it
// retries.
type lostReply struct {
	resend bool
	done   bool
}

func (h *lostReply) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *lostReply) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h *lostReply) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() != "set" || h.done {
			return next(ctx, cmd)
		}
		h.done = true
		err := next(ctx, cmd)
		if h.resend {
			return next(ctx, cmd)
		}
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		err = errors.New("connection reset after the command was sent")
		cmd.SetErr(err)
		return err
	}
}

// TestSetWhoseAnswerIsLost checks both ways Add handles a SET that took
// effect though its answer did not arrive: sent again, it recognises its
// own record and reports the key as new; given up on, it takes the record
// back so that the redelivery is accepted.
func TestSetWhoseAnswerIsLost(t *testing.T) {
	srv := redisserver.Start(t)
	ctx := context.Background()

	rdb := newClient(t, srv)
	rdb.AddHook(&lostReply{resend: true})
	added, err := redisreplay.New(rdb).Add(ctx, key('r'))
	require.NoError(t, err)
	assert.True(t, added, "a SET sent twice is still the first record of the key")

	rdb = newClient(t, srv)
	rdb.AddHook(&lostReply{})
	c := redisreplay.New(rdb)
	_, err = c.Add(ctx, key('l'))
	require.ErrorContains(t, err, "connection reset")
	added, err = c.Add(ctx, key('l'))
	require.NoError(t, err)
	assert.True(t, added, "the record of a failed Add was taken back")
}

func TestNewNilClientPanics(t *testing.T) {
	assert.PanicsWithValue(t, "redisreplay: nil Redis client", func() { redisreplay.New(nil) })
}
