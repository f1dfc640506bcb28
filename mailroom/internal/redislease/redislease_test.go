package redislease

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
	"pgregory.net/rapid"

	"github.com/acctadmin/acctadmin-go/internal/redisserver"
)

// quiet drops go-redis's own log lines; the tests assert on the errors
// instead.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func TestMain(m *testing.M) {
	redis.SetLogger(quiet{})
	goleak.VerifyTestMain(m)
}

// newClient returns a go-redis client of srv, closed when t ends.
func newClient(t testing.TB, srv *redisserver.Server) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{
		Addr:         srv.Addr,
		DialTimeout:  250 * time.Millisecond,
		ReadTimeout:  time.Second,
		WriteTimeout: time.Second,
		MaxRetries:   1,
		PoolSize:     32,
	})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// tb is what the helpers need of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Fatal(args ...any)
}

// value returns what key holds, or "" when it does not exist.
func value(t tb, rdb *redis.Client, key string) string {
	t.Helper()
	v, err := rdb.Get(context.Background(), key).Result()
	if errors.Is(err, redis.Nil) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// pttl returns the time key has left to live.
func pttl(t tb, rdb *redis.Client, key string) time.Duration {
	t.Helper()
	d, err := rdb.PTTL(context.Background(), key).Result()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// expire ends the lease on key at once, as its TTL passing does.
func expire(t tb, rdb *redis.Client, key string) {
	t.Helper()
	if err := rdb.Del(context.Background(), key).Err(); err != nil {
		t.Fatal(err)
	}
}

// Of two owners acquiring one key at once, exactly one holds it, with its
// own token and the full TTL; every other owner is told no, and changes
// nothing.
func TestAcquireByTwoHoldersAtOnce(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	c := New(rdb, 0)
	ctx := context.Background()
	const owners, rounds = 8, 20
	ttl := time.Minute
	for round := range rounds {
		key := fmt.Sprintf("lease:race:%d", round)
		var wg sync.WaitGroup
		held := make([]bool, owners)
		errs := make([]error, owners)
		for i := range owners {
			wg.Add(1)
			go func() {
				defer wg.Done()
				held[i], errs[i] = c.Acquire(ctx, key, fmt.Sprintf("owner-%d", i), ttl)
			}()
		}
		wg.Wait()
		winner := -1
		for i := range owners {
			if errs[i] != nil {
				t.Fatalf("round %d: owner %d: %v", round, i, errs[i])
			}
			if held[i] {
				if winner >= 0 {
					t.Fatalf("round %d: owners %d and %d both hold the lease", round, winner, i)
				}
				winner = i
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no owner holds the lease", round)
		}
		if got, want := value(t, rdb, key), fmt.Sprintf("owner-%d", winner); got != want {
			t.Fatalf("round %d: the key holds %q, want the winner's token %q", round, got, want)
		}
		if left := pttl(t, rdb, key); left <= ttl/2 || left > ttl {
			t.Fatalf("round %d: the lease expires in %v, want about %v", round, left, ttl)
		}
	}
}

// The holder renews its own lease to the full TTL; another owner neither
// takes nor renews it.
func TestAcquireRenewsTheHoldersOwnLease(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	c := New(rdb, 0)
	ctx := context.Background()
	const key = "lease:renew"
	ttl := time.Minute
	if held, err := c.Acquire(ctx, key, "a", ttl); err != nil || !held {
		t.Fatalf("a's first Acquire = %v, %v, want true", held, err)
	}
	// The lease is about to end: another owner does not get it, nor
	// lengthen it.
	if err := rdb.PExpire(ctx, key, 5*time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	if held, err := c.Acquire(ctx, key, "b", ttl); err != nil || held {
		t.Fatalf("b's Acquire of a's lease = %v, %v, want false", held, err)
	}
	if left := pttl(t, rdb, key); left > 5*time.Second {
		t.Fatalf("after b's Acquire the lease expires in %v: b renewed a's lease", left)
	}
	// Its holder renews it, to the full TTL.
	if held, err := c.Acquire(ctx, key, "a", ttl); err != nil || !held {
		t.Fatalf("a's renewal = %v, %v, want true", held, err)
	}
	if left := pttl(t, rdb, key); left <= ttl/2 {
		t.Fatalf("after a's renewal the lease expires in %v, want about %v", left, ttl)
	}
	if got := value(t, rdb, key); got != "a" {
		t.Fatalf("the key holds %q, want a", got)
	}
}

// A lease that expired under its holder is taken over by another owner;
// the old holder then neither renews nor releases the new holder's lease,
// and the new holder releases it.
func TestAnExpiredLeaseIsTakenOver(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	c := New(rdb, 0)
	ctx := context.Background()
	for _, how := range []string{"Acquire", "Claim"} {
		t.Run(how, func(t *testing.T) {
			key := "lease:takeover:" + how
			take := func(owner string) (bool, error) {
				if how == "Acquire" {
					return c.Acquire(ctx, key, owner, time.Minute)
				}
				held, _, err := c.Claim(ctx, key, owner, time.Minute)
				return held, err
			}
			if held, err := take("old"); err != nil || !held {
				t.Fatalf("old's take = %v, %v", held, err)
			}
			expire(t, rdb, key)
			if held, err := take("new"); err != nil || !held {
				t.Fatalf("new's take of the expired lease = %v, %v, want true", held, err)
			}
			if held, err := c.Acquire(ctx, key, "old", time.Minute); err != nil || held {
				t.Fatalf("old's renewal after the takeover = %v, %v, want false", held, err)
			}
			if deleted, err := c.Release(ctx, key, "old"); err != nil || deleted {
				t.Fatalf("old's release after the takeover = %v, %v, want false", deleted, err)
			}
			if got := value(t, rdb, key); got != "new" {
				t.Fatalf("after old's release the key holds %q, want new's lease", got)
			}
			if deleted, err := c.Release(ctx, key, "new"); err != nil || !deleted {
				t.Fatalf("new's release = %v, %v, want true", deleted, err)
			}
			if got := value(t, rdb, key); got != "" {
				t.Fatalf("after new's release the key holds %q", got)
			}
			if deleted, err := c.Release(ctx, key, "new"); err != nil || deleted {
				t.Fatalf("a second release = %v, %v, want false", deleted, err)
			}
		})
	}
}

// Claim takes a free key with the TTL and otherwise reports what is
// there, changing nothing; its own token found again (a SET sent twice)
// is held.
func TestClaim(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	c := New(rdb, 0)
	ctx := context.Background()
	const key = "lease:claim"
	ttl := time.Minute
	held, found, err := c.Claim(ctx, key, "busy:a", ttl)
	if err != nil || !held || found != "" {
		t.Fatalf("a's Claim of a free key = %v, %q, %v, want held", held, found, err)
	}
	if got := value(t, rdb, key); got != "busy:a" {
		t.Fatalf("the key holds %q, want busy:a", got)
	}
	if left := pttl(t, rdb, key); left <= ttl/2 || left > ttl {
		t.Fatalf("the lease expires in %v, want about %v", left, ttl)
	}
	if err := rdb.PExpire(ctx, key, 5*time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	held, found, err = c.Claim(ctx, key, "busy:b", ttl)
	if err != nil || held || found != "busy:a" {
		t.Fatalf("b's Claim = %v, %q, %v, want a's token found", held, found, err)
	}
	if got, left := value(t, rdb, key), pttl(t, rdb, key); got != "busy:a" || left > 5*time.Second {
		t.Fatalf("after b's Claim the key holds %q for %v, want a's lease unchanged", got, left)
	}
	held, found, err = c.Claim(ctx, key, "busy:a", ttl)
	if err != nil || !held || found != "" {
		t.Fatalf("a's Claim again = %v, %q, %v, want held", held, found, err)
	}
	if err := rdb.Set(ctx, key, "done", 0).Err(); err != nil {
		t.Fatal(err)
	}
	held, found, err = c.Claim(ctx, key, "busy:a", ttl)
	if err != nil || held || found != "done" {
		t.Fatalf("a's Claim of a record = %v, %q, %v, want done found", held, found, err)
	}
	if got := value(t, rdb, key); got != "done" {
		t.Fatalf("the record became %q", got)
	}
}

// A TTL under a millisecond is one millisecond; one that is not positive
// is refused without a round trip, since the lease would never end.
func TestTTLBounds(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	var trips tripCount
	rdb.AddHook(&trips)
	c := New(rdb, 0)
	ctx := context.Background()
	for _, ttl := range []time.Duration{0, -time.Second} {
		if _, err := c.Acquire(ctx, "lease:ttl", "a", ttl); err == nil || !strings.Contains(err.Error(), "not positive") {
			t.Fatalf("Acquire with ttl %v = %v, want an error", ttl, err)
		}
		if _, _, err := c.Claim(ctx, "lease:ttl", "a", ttl); err == nil || !strings.Contains(err.Error(), "not positive") {
			t.Fatalf("Claim with ttl %v = %v, want an error", ttl, err)
		}
	}
	if n := trips.n.Load(); n != 0 {
		t.Fatalf("%d round trips for leases with no TTL", n)
	}
	if held, err := c.Acquire(ctx, "lease:ttl", "a", time.Microsecond); err != nil || !held {
		t.Fatalf("Acquire with 1µs = %v, %v", held, err)
	}
	// The key expires within its millisecond: wait for it, bounded.
	for i := 0; i < 1000 && value(t, rdb, "lease:ttl") != ""; i++ {
		time.Sleep(time.Millisecond)
	}
	if got := value(t, rdb, "lease:ttl"); got != "" {
		t.Fatalf("a lease of 1µs still holds %q", got)
	}
}

// tripCount is a go-redis hook that counts the commands sent.
type tripCount struct{ n atomic.Int64 }

func (h *tripCount) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *tripCount) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}
func (h *tripCount) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmds)
	}
}

// Each operation is one round trip (the scripts loaded first).
func TestOneRoundTripEach(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	c := New(rdb, 0)
	ctx := context.Background()
	if _, err := c.Acquire(ctx, "lease:load", "o", time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Release(ctx, "lease:load", "o"); err != nil {
		t.Fatal(err)
	}
	var trips tripCount
	rdb.AddHook(&trips)
	steps := []struct {
		name string
		f    func() error
	}{
		{"Acquire", func() error { _, err := c.Acquire(ctx, "lease:rt", "a", time.Minute); return err }},
		{"renewal", func() error { _, err := c.Acquire(ctx, "lease:rt", "a", time.Minute); return err }},
		{"Claim found", func() error { _, _, err := c.Claim(ctx, "lease:rt", "b", time.Minute); return err }},
		{"Release", func() error { _, err := c.Release(ctx, "lease:rt", "a"); return err }},
		{"Claim", func() error { _, _, err := c.Claim(ctx, "lease:rt", "b", time.Minute); return err }},
	}
	for _, s := range steps {
		before := trips.n.Load()
		if err := s.f(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if n := trips.n.Load() - before; n != 1 {
			t.Fatalf("%s: %d round trips, want 1", s.name, n)
		}
	}
}

// A call whose context has ended sends nothing, not even from a goroutine
// after the call returned, and fails with the context's error; so does
// Do, without running its command.
func TestEndedContextSendsNothing(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	var trips tripCount
	rdb.AddHook(&trips)
	c := New(rdb, 0)
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Acquire(ended, "lease:ended", "o", time.Minute); !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire = %v, want context.Canceled", err)
	}
	if _, _, err := c.Claim(ended, "lease:ended", "o", time.Minute); !errors.Is(err, context.Canceled) {
		t.Fatalf("Claim = %v, want context.Canceled", err)
	}
	if _, err := c.Release(ended, "lease:ended", "o"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Release = %v, want context.Canceled", err)
	}
	ran := false
	if err := c.Do(ended, func(context.Context) error { ran = true; return nil }); !errors.Is(err, context.Canceled) || ran {
		t.Fatalf("Do = %v (ran: %v), want context.Canceled without running", err, ran)
	}
	c.Wait()
	if n := trips.n.Load(); n != 0 {
		t.Fatalf("%d round trips with an ended context", n)
	}
	if got := value(t, rdb, "lease:ended"); got != "" {
		t.Fatalf("the key holds %q after calls with an ended context", got)
	}
}

// Against a frozen Redis, under a client with go-redis's default timeouts
// (3 s reads, 3 retries), each call ends at the client's timeout with an
// error that says so, or with the caller's context; a Claim given up on
// leaves nothing once Redis runs again.
func TestHungRedis(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { rdb.Close() })
	c := New(rdb, 300*time.Millisecond)
	ctx := context.Background()
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Wait)
	t.Cleanup(func() { _ = srv.Thaw() })
	if err := srv.Freeze(); err != nil {
		t.Fatal(err)
	}
	_, err := c.Acquire(ctx, "lease:hung", "o", time.Minute)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer from Redis within 300ms") {
		t.Fatalf("Acquire = %v, want no answer within 300ms", err)
	}
	_, err = c.Release(ctx, "lease:hung", "o")
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer from Redis within 300ms") {
		t.Fatalf("Release = %v, want no answer within 300ms", err)
	}
	short, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	_, _, err = c.Claim(short, "lease:hung-claim", "o", time.Minute)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Claim with a context cancelled meanwhile = %v, want context.Canceled", err)
	}
	if err := srv.Thaw(); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	if got := value(t, newClient(t, srv), "lease:hung-claim"); got != "" {
		t.Fatalf("the Claim given up on left %q", got)
	}
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

// A Claim's SET that took effect though its answer was lost: sent again,
// it finds its own token and holds the key; failed, its token is
// released, so that another owner may claim the key at once.
func TestClaimWhoseAnswerIsLost(t *testing.T) {
	srv := redisserver.Start(t)
	ctx := context.Background()

	rdb := newClient(t, srv)
	rdb.AddHook(&lostReply{resend: true})
	held, found, err := New(rdb, 0).Claim(ctx, "lease:resent", "o", time.Minute)
	if err != nil || !held || found != "" {
		t.Fatalf("a SET sent twice = %v, %q, %v, want held", held, found, err)
	}

	rdb = newClient(t, srv)
	rdb.AddHook(&lostReply{})
	c := New(rdb, 0)
	if _, _, err := c.Claim(ctx, "lease:lost", "o", time.Minute); err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("Claim = %v, want the connection's error", err)
	}
	c.Wait()
	if got := value(t, rdb, "lease:lost"); got != "" {
		t.Fatalf("the failed Claim left %q", got)
	}
	if held, _, err := c.Claim(ctx, "lease:lost", "p", time.Minute); err != nil || !held {
		t.Fatalf("another owner's Claim = %v, %v, want held", held, err)
	}
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

// Every operation answered with what its command never answers fails
// (closed) rather than guess, without quoting the answer.
func TestUnexpectedReplies(t *testing.T) {
	srv := redisserver.Start(t)
	ctx := context.Background()
	cases := []struct {
		name, cmd, op string
		reply         any
	}{
		{"claim answered an integer", "set", "claim", int64(1)},
		{"claim answered an array", "set", "claim", []any{"busy:o"}},
		{"claim answered a boolean", "set", "claim", true},
		{"acquire answered a string", "evalsha", "acquire", "1-the-access-key-AK123"},
		{"acquire answered 2", "evalsha", "acquire", int64(2)},
		{"acquire answered -1", "evalsha", "acquire", int64(-1)},
		{"release answered a string", "evalsha", "release", "1-the-access-key-AK123"},
		{"release answered 2", "evalsha", "release", int64(2)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rdb := newClient(t, srv)
			if err := rdb.FlushAll(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			// The scripts are loaded first, so that each is one EVALSHA.
			if err := rdb.ScriptFlush(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			if _, err := New(rdb, 0).Acquire(ctx, "lease:load", "o", time.Minute); err != nil {
				t.Fatal(err)
			}
			if _, err := New(rdb, 0).Release(ctx, "lease:load", "o"); err != nil {
				t.Fatal(err)
			}
			rdb.AddHook(replyHook{name: tc.cmd, reply: tc.reply})
			c := New(rdb, 0)
			var err error
			switch tc.op {
			case "claim":
				var held bool
				held, _, err = c.Claim(ctx, "lease:u", "busy:o", time.Minute)
				if held {
					t.Error("Claim reports the key held")
				}
			case "acquire":
				var held bool
				held, err = c.Acquire(ctx, "lease:u", "o", time.Minute)
				if held {
					t.Error("Acquire reports the key held")
				}
			case "release":
				var deleted bool
				deleted, err = c.Release(ctx, "lease:u", "o")
				if deleted {
					t.Error("Release reports the key deleted")
				}
			}
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), "AK123") {
				t.Fatalf("the error quotes the answer: %v", err)
			}
			c.Wait()
		})
	}
}

// TestLeasesOnGeneratedSchedules drives three owners through generated
// schedules of Acquire, Claim, Release and expiries on one key of a real
// Redis, and checks every answer, and what the key holds after each step,
// against a model: the key holds at most one owner's token; Acquire holds
// a free key or the owner's own (and renews it) and reports false for
// another's; Claim holds only a free key (or its owner's own) and reports
// what else is there; Release deletes only its owner's token. 100 checks
// of up to 30 steps in the normal suite.
func TestLeasesOnGeneratedSchedules(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := newClient(t, srv)
	c := New(rdb, 0)
	ctx := context.Background()
	owners := []string{"a", "b", "c"}
	ttl := time.Minute
	var n atomic.Int64
	rapid.Check(t, func(t *rapid.T) {
		key := fmt.Sprintf("lease:gen:%d", n.Add(1))
		holder := "" // the model: who holds the key
		steps := rapid.IntRange(1, 30).Draw(t, "steps")
		for range steps {
			owner := rapid.SampledFrom(owners).Draw(t, "owner")
			switch op := rapid.SampledFrom([]string{"acquire", "claim", "release", "expire"}).Draw(t, "op"); op {
			case "acquire":
				held, err := c.Acquire(ctx, key, owner, ttl)
				want := holder == "" || holder == owner
				if err != nil || held != want {
					t.Fatalf("%s's Acquire with %q holding = %v, %v, want %v", owner, holder, held, err, want)
				}
				if want {
					holder = owner
				}
			case "claim":
				held, found, err := c.Claim(ctx, key, owner, ttl)
				want := holder == "" || holder == owner
				wantFound := holder
				if want {
					wantFound = ""
				}
				if err != nil || held != want || found != wantFound {
					t.Fatalf("%s's Claim with %q holding = %v, %q, %v, want %v, %q", owner, holder, held, found, err, want, wantFound)
				}
				if want {
					holder = owner
				}
			case "release":
				deleted, err := c.Release(ctx, key, owner)
				want := holder == owner
				if err != nil || deleted != want {
					t.Fatalf("%s's Release with %q holding = %v, %v, want %v", owner, holder, deleted, err, want)
				}
				if want {
					holder = ""
				}
			case "expire":
				expire(t, rdb, key)
				holder = ""
			}
			if got := value(t, rdb, key); got != holder {
				t.Fatalf("the key holds %q, the model %q", got, holder)
			}
		}
	})
}
