package mailroom

import (
	"context"
	"testing"
	"time"

	"github.com/acctadmin/acctadmin-go/internal/redisserver"
	"github.com/google/uuid"
)

// The holder of a claim renews it, to the full TTL, and keeps it; another
// room does not get it meanwhile.
func TestAClaimIsRenewedByItsHolder(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := redisClient(t, srv.Addr)
	ttl := time.Minute
	a, b := claimsOf(rdb, "room-a", ttl), claimsOf(rdb, "room-b", ttl)
	ctx := context.Background()
	id := uuid.New()
	if held, err := a.take(ctx, id); err != nil || !held {
		t.Fatalf("first take = %v, %v", held, err)
	}
	// The claim is about to expire: its holder renews it.
	if err := rdb.PExpire(ctx, claimKey(id), 2*time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	if held, err := a.take(ctx, id); err != nil || !held {
		t.Fatalf("the holder's renewal = %v, %v, want true", held, err)
	}
	left, err := rdb.PTTL(ctx, claimKey(id)).Result()
	if err != nil || left <= ttl/2 {
		t.Fatalf("after the renewal the claim expires in %s (%v), want about %s", left, err, ttl)
	}
	if held, err := b.take(ctx, id); err != nil || held {
		t.Fatalf("another room's take = %v, %v, want false", held, err)
	}
	if owner, err := rdb.Get(ctx, claimKey(id)).Result(); err != nil || owner != "room-a" {
		t.Fatalf("the claim holds %q (%v), want room-a", owner, err)
	}
}

// A room releases its own claim only: one that expired under it and that
// another room took since is left to that room.
func TestAReleaseLeavesAnotherRoomsClaim(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := redisClient(t, srv.Addr)
	a, b := claimsOf(rdb, "room-a", time.Minute), claimsOf(rdb, "room-b", time.Minute)
	ctx := context.Background()
	id := uuid.New()
	if held, err := a.take(ctx, id); err != nil || !held {
		t.Fatalf("a's take = %v, %v", held, err)
	}
	// a's claim expires (a stalled past the TTL), and b takes the document.
	if err := rdb.Del(ctx, claimKey(id)).Err(); err != nil {
		t.Fatal(err)
	}
	if held, err := b.take(ctx, id); err != nil || !held {
		t.Fatalf("b's take = %v, %v", held, err)
	}
	if err := a.release(ctx, id); err != nil {
		t.Fatal(err)
	}
	if owner, err := rdb.Get(ctx, claimKey(id)).Result(); err != nil || owner != "room-b" {
		t.Fatalf("after a's release the claim holds %q (%v), want room-b's", owner, err)
	}
	if held, err := a.take(ctx, id); err != nil || held {
		t.Fatalf("a's take after its release = %v, %v, want false: b holds it", held, err)
	}
	if err := b.release(ctx, id); err != nil {
		t.Fatal(err)
	}
	if n, err := rdb.Exists(ctx, claimKey(id)).Result(); err != nil || n != 0 {
		t.Fatalf("after b's release the claim exists: %d, %v", n, err)
	}
}

// A store without a journal of its own gets one kept in Redis: Begin,
// Pending and End keep the ids in flight. (That the room saves through
// it is TestRedisJournalForAStoreWithout of internal/integration/mailroom.)
func TestRedisJournalForAStoreWithoutOne(t *testing.T) {
	srv := redisserver.Start(t)
	type plain struct{ Store }
	r := bareRoom(t, plain{Dir(t.TempDir())}, WithRedis(redisClient(t, srv.Addr)))
	j, ok := r.journal.(*redisJournal)
	if !ok {
		t.Fatalf("journal is %T", r.journal)
	}
	ctx := context.Background()
	id := uuid.New()
	if again, err := j.Begin(ctx, id); err != nil || again {
		t.Fatal(err)
	}
	if got, err := j.Pending(ctx); err != nil || len(got) != 1 || got[0] != id {
		t.Fatalf("Pending = %v, %v", got, err)
	}
	if err := j.End(ctx, id); err != nil {
		t.Fatal(err)
	}
	if got, _ := j.Pending(ctx); len(got) != 0 {
		t.Fatalf("Pending after End = %v", got)
	}
}

// While a download runs, the room renews its claim every third of the
// claim TTL (its rule: WithClaimTTL), well before it expires: each tick of
// the room's clock renews the claim, to the full TTL, and the clock ticks
// at most every TTL/3. Once the download is over, the clock stops, and
// the claim's release leaves no key. (Through a callback whose download
// the API holds: TestAClaimIsRenewedWhileTheDownloadRuns of
// internal/integration/mailroom.)
func TestAClaimIsRenewedEveryThirdOfItsTTL(t *testing.T) {
	srv := redisserver.Start(t)
	rdb := redisClient(t, srv.Addr)
	log := &claimLog{}
	rdb.AddHook(log)
	ttl := 900 * time.Millisecond
	r := bareRoom(t, Dir(t.TempDir()), WithRedis(rdb), WithClaimTTL(ttl))
	clock := newFakeTicker()
	r.ticker = clock.ticker
	id := uuid.New()
	ctx := context.Background()
	release, err := r.claim(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	stop := r.renewWhileDownloading(ctx, id)
	periods, _ := clock.state()
	if len(periods) != 1 || periods[0] <= 0 || periods[0] > ttl/3 {
		stop()
		t.Fatalf("the renewals' clock ticks every %v, want one clock ticking at most every %v (TTL/3)", periods, ttl/3)
	}
	const renewals = 3
	for i := 1; i <= renewals; i++ {
		clock.tick()
		if !waitFor(func() bool { return len(log.of(id)) == 1+i }) {
			stop()
			t.Fatalf("tick %d: %d calls of the claim, want the take and %d renewals", i, len(log.of(id)), i)
		}
	}
	stop()
	release()
	takes := log.of(id)
	for i, c := range takes {
		if !c.held || c.ttlMillis != ttl.Milliseconds() || c.owner != takes[0].owner {
			t.Fatalf("call %d of the claim: %+v, want the room's own claim held for %v", i, c, ttl)
		}
	}
	if _, stopped := clock.state(); stopped != 1 {
		t.Fatalf("the renewals' clock was stopped %d times after the download, want once", stopped)
	}
	if n, err := rdb.Exists(ctx, claimKey(id)).Result(); err != nil || n != 0 {
		t.Fatalf("the claim is left after its release: %d, %v", n, err)
	}
}
