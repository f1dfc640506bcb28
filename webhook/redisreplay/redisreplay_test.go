package redisreplay_test

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
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

// TestClaimCommitRelease walks keys through their marks and checks what
// Redis holds at each step: the owner's mark with the lease, then "done"
// with the TTL; a release by another owner, or of a done key, changes
// nothing.
func TestClaimCommitRelease(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	ctx := context.Background()
	c := redisreplay.New(rdb)
	k := redisreplay.DefaultPrefix + key('a')

	assert.Equal(t, webhook.ClaimNew, claim(t, c, key('a'), "owner-1", time.Minute))
	assert.Equal(t, "busy:owner-1", rdb.Get(ctx, k).Val())
	assert.InDelta(t, float64(time.Minute), float64(pttl(t, rdb, k)), float64(10*time.Second))
	assert.Equal(t, webhook.ClaimInProgress, claim(t, c, key('a'), "owner-2", time.Minute))
	assert.Equal(t, webhook.ClaimNew, claim(t, c, key('a'), "owner-1", time.Minute), "the holder's own claim again")

	require.NoError(t, c.Release(ctx, key('a'), "owner-2"))
	assert.Equal(t, "busy:owner-1", rdb.Get(ctx, k).Val(), "another owner's release leaves the mark")
	require.NoError(t, c.Commit(ctx, key('a')))
	assert.Equal(t, "done", rdb.Get(ctx, k).Val())
	got := pttl(t, rdb, k)
	assert.Greater(t, got, redisreplay.DefaultTTL-time.Minute)
	assert.LessOrEqual(t, got, redisreplay.DefaultTTL)
	assert.Equal(t, webhook.ClaimDone, claim(t, c, key('a'), "owner-3", time.Minute))
	require.NoError(t, c.Release(ctx, key('a'), "owner-1"))
	assert.Equal(t, webhook.ClaimDone, claim(t, c, key('a'), "owner-3", time.Minute), "releasing a done key changes nothing")

	assert.Equal(t, webhook.ClaimNew, claim(t, c, key('b'), "owner-1", time.Minute))
	require.NoError(t, c.Release(ctx, key('b'), "owner-1"))
	assert.Zero(t, rdb.Exists(ctx, redisreplay.DefaultPrefix+key('b')).Val(), "the owner's release deletes the key")
	assert.Equal(t, webhook.ClaimNew, claim(t, c, key('b'), "owner-2", time.Minute))

	require.NoError(t, c.Release(ctx, key('z'), "owner-1"), "releasing a key never claimed is no error")
	require.NoError(t, c.Commit(ctx, key('y')), "a commit without a claim records the key")
	assert.Equal(t, webhook.ClaimDone, claim(t, c, key('y'), "owner-1", time.Minute))

	for _, lease := range []time.Duration{0, -time.Second} {
		_, err := c.Claim(ctx, key('x'), "o", lease)
		require.ErrorContains(t, err, "lease must be positive")
	}
	keys, err := rdb.Keys(ctx, "*").Result()
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{k, redisreplay.DefaultPrefix + key('b'), redisreplay.DefaultPrefix + key('y')}, keys)
}

// TestLegacyValue checks that a key written by the previous version (a
// token of 32 lower-case hex digits) is read as done, and that a value
// only like one is an error.
func TestLegacyValue(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	ctx := context.Background()
	c := redisreplay.New(rdb)
	require.NoError(t, rdb.Set(ctx, redisreplay.DefaultPrefix+key('l'), "0123456789abcdef0123456789abcdef", time.Hour).Err())
	assert.Equal(t, webhook.ClaimDone, claim(t, c, key('l'), "o", time.Minute))
	for i, v := range []string{
		"0123456789abcdef0123456789abcdeg",  // not hex
		"0123456789ABCDEF0123456789ABCDEF",  // upper case
		"0123456789abcdef0123456789abcde",   // 31 digits
		"0123456789abcdef0123456789abcdef0", // 33 digits
		"/123456789abcdef0123456789abcdef",  // just below '0'
		":123456789abcdef0123456789abcdef",  // just above '9'
		"`123456789abcdef0123456789abcdef",  // just below 'a'
		"done ", "busy", "",
	} {
		k := key('v') + strconv.Itoa(i)
		require.NoError(t, rdb.Set(ctx, redisreplay.DefaultPrefix+k, v, time.Hour).Err())
		_, err := c.Claim(ctx, k, "o", time.Minute)
		require.Error(t, err, "value %q", v)
		assert.Contains(t, err.Error(), "this package did not write")
	}
}

func TestPrefix(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	ctx := context.Background()
	a := redisreplay.New(rdb, redisreplay.WithPrefix("account-a:"))
	b := redisreplay.New(rdb, redisreplay.WithPrefix("account-b:"))
	bare := redisreplay.New(rdb, redisreplay.WithPrefix(""))

	for _, c := range []*redisreplay.Cache{a, b, bare} {
		assert.Equal(t, webhook.ClaimNew, claim(t, c, key('k'), "o", time.Minute), "caches with different prefixes do not see each other's keys")
		require.NoError(t, c.Commit(ctx, key('k')))
	}
	keys, err := rdb.Keys(ctx, "*").Result()
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"account-a:" + key('k'), "account-b:" + key('k'), key('k')}, keys)

	require.NoError(t, rdb.Del(ctx, "account-a:"+key('k')).Err())
	assert.Equal(t, webhook.ClaimDone, claim(t, b, key('k'), "o", time.Minute), "a key under one prefix stands for that prefix only")
	assert.Equal(t, webhook.ClaimNew, claim(t, a, key('k'), "o", time.Minute))
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
		require.NoError(t, c.Commit(ctx, key('t')))
		if tc.want == time.Millisecond {
			continue // gone, or about to be; the expiry test below covers it
		}
		got := pttl(t, rdb, "ttl:"+key('t'))
		assert.Greater(t, got, tc.want-time.Minute, "WithTTL(%v)", tc.ttl)
		assert.LessOrEqual(t, got, tc.want, "WithTTL(%v)", tc.ttl)
	}
	// The longest lease Go can say is taken too.
	c := redisreplay.New(rdb)
	assert.Equal(t, webhook.ClaimNew, claim(t, c, key('m'), "o", math.MaxInt64))
	assert.Greater(t, pttl(t, rdb, redisreplay.DefaultPrefix+key('m')), 100*365*24*time.Hour)
	assert.Equal(t, webhook.ClaimNew, claim(t, c, key('n'), "o", time.Nanosecond), "a lease under a millisecond is one")
}

// TestExpiry checks that Redis forgets a done record once its TTL has
// passed, and an in-progress mark once its lease has, so that the event is
// new again. It polls rather than sleeping a fixed time.
func TestExpiry(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	ctx := context.Background()
	c := redisreplay.New(rdb, redisreplay.WithTTL(200*time.Millisecond))

	require.NoError(t, c.Commit(ctx, key('e')))
	require.Equal(t, webhook.ClaimDone, claim(t, c, key('e'), "a", time.Hour), "remembered within the TTL")
	eventually(t, "the done record was never forgotten", func() bool {
		return claim(t, c, key('e'), "a", time.Hour) == webhook.ClaimNew
	})

	require.Equal(t, webhook.ClaimNew, claim(t, c, key('f'), "dead", 200*time.Millisecond))
	require.Equal(t, webhook.ClaimInProgress, claim(t, c, key('f'), "b", time.Hour), "held within the lease")
	eventually(t, "the mark of a dead owner never expired", func() bool {
		return claim(t, c, key('f'), "b", time.Hour) == webhook.ClaimNew
	})
}

// TestOutage stops Redis: every method returns an error (never a guess),
// the handler answers 503 and does not call its function; when Redis is
// back, the same delivery is accepted and processed once.
func TestOutage(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	r := newReceiver(t, rdb, nil)
	ctx := context.Background()
	tok := sign(t, event())

	srv.Stop()
	_, err := r.cache.Claim(ctx, key('o'), "o", time.Minute)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "redisreplay: claim: "), err.Error())
	err = r.cache.Commit(ctx, key('o'))
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "redisreplay: commit: "), err.Error())
	err = r.cache.Release(ctx, key('o'), "o")
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "redisreplay: release: "), err.Error())

	for range 3 {
		assert.Equal(t, http.StatusServiceUnavailable, r.post(t, tok))
	}
	_, err = r.verifier.Verify(tok)
	require.Error(t, err)
	for _, s := range []error{webhook.ErrReplayed, webhook.ErrInProgress, webhook.ErrMalformed, webhook.ErrInvalidSignature} {
		assert.NotErrorIs(t, err, s, "an outage is not a verdict on the token")
	}
	assert.Zero(t, r.processed.Load(), "the function ran while Redis was down")

	require.NoError(t, srv.Resume())
	assert.Equal(t, http.StatusOK, r.post(t, tok), "the redelivery is accepted once Redis is back")
	assert.Equal(t, http.StatusOK, r.post(t, tok), "and then it is a replay, acknowledged")
	assert.Equal(t, int64(1), r.processed.Load(), "and processed once")
}

// TestFunctionFailsThenRedelivery checks Release on Redis: when the
// function fails, its event's mark is deleted again, so the redelivery,
// to any receiver, is processed.
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
// receivers at the same moment, each delivery repeated while the answer is
// 503, as a sender does: exactly one of them processes it, the others are
// told it is in progress and then that it is done.
func TestConcurrentDeliveryToThreeReceivers(t *testing.T) {
	srv := redisserver.Start(t)
	var fleet []*receiver
	for range 3 {
		fleet = append(fleet, newReceiver(t, newClient(t, srv), func(context.Context, *webhook.Event) error {
			time.Sleep(time.Millisecond) // long enough for the others to find it in progress
			return nil
		}))
	}
	const events = 30
	busy := 0
	for i := 0; i < events; i++ {
		tok := sign(t, event())
		codes := make([][]int, len(fleet))
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
				for range 200 {
					code := r.post(t, tok)
					codes[j] = append(codes[j], code)
					if code != http.StatusServiceUnavailable {
						return
					}
					time.Sleep(2 * time.Millisecond)
				}
			}()
		}
		close(start)
		wg.Wait()
		processed := 0
		for j, r := range fleet {
			processed += int(r.processed.Load() - before[j])
			require.Equal(t, http.StatusOK, codes[j][len(codes[j])-1], "event %d, receiver %d: %v", i, j, codes[j])
			busy += len(codes[j]) - 1
		}
		require.Equal(t, 1, processed, "event %d was processed %d times", i, processed)
	}
	var total int64
	for _, r := range fleet {
		total += r.processed.Load()
	}
	assert.Equal(t, int64(events), total)
	assert.Positive(t, busy, "no delivery ever found an event in progress")
}

// TestContext checks that every method gives up with the caller's
// context: a cancelled one at once, and an expiring one while Redis holds
// writes, with errors that wrap the context's; and that a claim given up
// on leaves nothing behind.
func TestContext(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	c := redisreplay.New(rdb)

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Claim(cancelled, key('c'), "o", time.Minute)
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, c.Commit(cancelled, key('c')), context.Canceled)
	require.ErrorIs(t, c.Release(cancelled, key('c'), "o"), context.Canceled)

	// Redis holds every write for a while: Claim waits no longer than its
	// context allows.
	line, err := srv.Do("CLIENT", "PAUSE", "3000", "WRITE")
	require.NoError(t, err)
	require.Equal(t, "+OK", line)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	start := time.Now()
	_, err = c.Claim(ctx, key('c'), "o", time.Minute)
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 2500*time.Millisecond, "Claim outlived its context")
	line, err = srv.Do("CLIENT", "UNPAUSE")
	require.NoError(t, err)
	require.Equal(t, "+OK", line)
	c.WaitBackground()

	assert.Equal(t, webhook.ClaimNew, claim(t, c, key('c'), "p", time.Minute), "the claim given up on left nothing")

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

// TestHungRedis freezes Redis (SIGSTOP) under a client built with go-redis's
// defaults, as the README builds it, whose own read timeout is 3 seconds
// and which retries 3 times: each call still ends with its context, or
// after the cache's timeout when the context has no deadline; the handler
// answers 503 without calling its function; and once Redis runs again a
// claim given up on has left nothing behind.
func TestHungRedis(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { rdb.Close() })
	c := redisreplay.New(rdb, redisreplay.WithTimeout(300*time.Millisecond))
	require.NoError(t, rdb.Ping(context.Background()).Err())
	t.Cleanup(c.WaitBackground)
	t.Cleanup(func() { _ = srv.Thaw() })
	require.NoError(t, srv.Freeze())

	// go-redis alone waits its 3-second read timeout at least; the cache
	// returns at its context's end, well under it.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	start := time.Now()
	_, err := c.Claim(ctx, key('h'), "o", time.Minute)
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 2500*time.Millisecond, "Claim outlived its 200 ms context")

	start = time.Now()
	err = c.Commit(context.Background(), key('i'))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "no answer from Redis within 300ms")
	assert.Less(t, time.Since(start), 2500*time.Millisecond, "Commit outlived the cache's 300 ms timeout")

	var calls int
	v, err := webhook.NewVerifier(testSecret, webhook.WithReplayCache(c))
	require.NoError(t, err)
	h := v.Handler(func(context.Context, *webhook.Event) error { calls++; return nil })
	start = time.Now()
	w := serveToken(h, sign(t, event()))
	assert.Equal(t, http.StatusServiceUnavailable, w)
	assert.Zero(t, calls)
	assert.Less(t, time.Since(start), 2500*time.Millisecond, "a delivery cost more than the cache's timeout")

	require.NoError(t, srv.Thaw())
	c.WaitBackground()
	assert.Equal(t, webhook.ClaimNew, claim(t, c, key('h'), "p", time.Minute), "the claims given up on were released")
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

// TestSetWhoseAnswerIsLost checks both ways Claim handles a SET that took
// effect though its answer did not arrive: sent again, it recognises its
// own mark and reports the key as new; given up on, it releases the mark
// so that the redelivery is accepted at once.
func TestSetWhoseAnswerIsLost(t *testing.T) {
	srv := redisserver.Start(t)
	ctx := context.Background()

	rdb := newClient(t, srv)
	rdb.AddHook(&lostReply{resend: true})
	st, err := redisreplay.New(rdb).Claim(ctx, key('r'), "o", time.Minute)
	require.NoError(t, err)
	assert.Equal(t, webhook.ClaimNew, st, "a SET sent twice is still the first mark of the key")

	rdb = newClient(t, srv)
	rdb.AddHook(&lostReply{})
	c := redisreplay.New(rdb)
	_, err = c.Claim(ctx, key('l'), "o", time.Minute)
	require.ErrorContains(t, err, "connection reset")
	c.WaitBackground()
	assert.Equal(t, webhook.ClaimNew, claim(t, c, key('l'), "p", time.Minute), "the mark of a failed Claim was released")
}

// replyHook replaces the answer of every command named name with reply.
type replyHook struct {
	name  string
	reply any
}

func (h replyHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h replyHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h replyHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if cmd.Name() != h.name {
			return err
		}
		c, ok := cmd.(*redis.Cmd)
		if !ok {
			return err
		}
		c.SetErr(nil)
		c.SetVal(h.reply)
		return nil
	}
}

// TestUnexpectedReplies answers each command with what it never answers:
// another type, or a value this package did not write. Every method fails
// (closed), the handler answers 503, and the function is never called: a
// SET answered with an integer is not "seen before".
func TestUnexpectedReplies(t *testing.T) {
	srv := redisserver.Start(t)
	ctx := context.Background()
	cases := []struct {
		name, cmd string
		reply     any
		method    string
	}{
		{"claim answered an integer", "set", int64(1), "claim"},
		{"claim answered OK", "set", "OK", "claim"},
		{"claim answered an array", "set", []any{"done"}, "claim"},
		{"claim answered a foreign value", "set", "the-access-key-AK123", "claim"},
		{"claim answered a boolean", "set", true, "claim"},
		{"commit answered an integer", "set", int64(0), "commit"},
		{"commit answered a string", "set", "QUEUED", "commit"},
		{"release answered a string", "evalsha", "1", "release"},
		{"release answered 2", "evalsha", int64(2), "release"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rdb := newClient(t, srv)
			require.NoError(t, rdb.FlushAll(ctx).Err())
			require.NoError(t, rdb.ScriptFlush(ctx).Err())
			// The script is loaded first, so that the release is one EVALSHA.
			require.NoError(t, redisreplay.New(rdb).Release(ctx, key('u'), "o"))
			rdb.AddHook(replyHook{name: tc.cmd, reply: tc.reply})
			c := redisreplay.New(rdb)
			var err error
			switch tc.method {
			case "claim":
				var st webhook.ClaimState
				st, err = c.Claim(ctx, key('u'), "o", time.Minute)
				assert.Zero(t, st)
				r := newReceiver(t, rdb, nil)
				assert.Equal(t, http.StatusServiceUnavailable, r.post(t, sign(t, event())))
				assert.Zero(t, r.processed.Load(), "the function ran on an answer the cache could not read")
			case "commit":
				err = c.Commit(ctx, key('u'))
			case "release":
				err = c.Release(ctx, key('u'), "o")
			}
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "redisreplay: "+tc.method+": "), err.Error())
			assert.NotContains(t, err.Error(), "AK123", "a value is never quoted")
			c.WaitBackground()
		})
	}
}

func TestNewNilClientPanics(t *testing.T) {
	assert.PanicsWithValue(t, "redisreplay: nil Redis client", func() { redisreplay.New(nil) })
}

// TestRoundTrips counts the commands the handler sends Redis for each kind
// of delivery: a new event costs two round trips (claim, commit), a
// duplicate of a done event one, a duplicate of an event in progress one,
// and a new event whose function fails a claim and a release.
func TestRoundTrips(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	var trips roundTrips
	rdb.AddHook(&trips)
	c := redisreplay.New(rdb)
	require.NoError(t, c.Release(context.Background(), key('s'), "o")) // loads the script
	v, err := webhook.NewVerifier(testSecret, webhook.WithReplayCache(c))
	require.NoError(t, err)
	entered, proceed := make(chan struct{}), make(chan error)
	h := v.Handler(func(_ context.Context, ev *webhook.Event) error {
		if ev.Claims["block"] == true {
			entered <- struct{}{}
			return <-proceed
		}
		return nil
	})
	count := func(f func()) int64 {
		before := trips.n.Load()
		f()
		return trips.n.Load() - before
	}

	tok := sign(t, event())
	assert.Equal(t, int64(2), count(func() { assert.Equal(t, http.StatusOK, serveToken(h, tok)) }), "a new event")
	assert.Equal(t, int64(1), count(func() { assert.Equal(t, http.StatusOK, serveToken(h, tok)) }), "a duplicate of a done event")

	claims := event()
	claims["block"] = true
	slow := sign(t, claims)
	first := make(chan int)
	start := trips.n.Load()
	go func() { first <- serveToken(h, slow) }()
	<-entered
	dup := count(func() { assert.Equal(t, http.StatusServiceUnavailable, serveToken(h, slow)) })
	assert.Equal(t, int64(1), dup, "a duplicate in progress")
	proceed <- errors.New("failed")
	assert.Equal(t, http.StatusInternalServerError, <-first)
	assert.Equal(t, int64(2), trips.n.Load()-start-dup, "a failed event: claim and release")
	t.Logf("round trips: new event 2, duplicate of a done event 1, duplicate in progress 1, failed event 2")

	// A call with an ended context makes no round trip, not even one that
	// a goroutine would make after the call returned.
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	before := trips.n.Load()
	_, err = c.Claim(ended, key('e'), "o", time.Minute)
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, c.Commit(ended, key('e')), context.Canceled)
	assert.ErrorIs(t, c.Release(ended, key('e'), "o"), context.Canceled)
	time.Sleep(50 * time.Millisecond)
	assert.Equal(t, int64(0), trips.n.Load()-before, "round trips with an ended context")
	state, err := c.Claim(context.Background(), key('e'), "o", time.Minute)
	require.NoError(t, err)
	assert.Equal(t, webhook.ClaimNew, state, "nothing was claimed or committed with the ended context")
}
