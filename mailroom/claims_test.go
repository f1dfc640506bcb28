package mailroom

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
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

// A room that died holding a claim and a journal record: another room
// leaves the claim until it expires, then takes it over, saves the
// document and finishes the record.
func TestAClaimOfADeadRoomIsTakenOver(t *testing.T) {
	srv := redisserver.Start(t)
	w := newWorld(t)
	dir := t.TempDir()
	ttl := time.Second
	dead := w.room(Dir(dir), WithRedis(redisClient(t, srv.Addr)), WithClaimTTL(ttl))
	live := w.room(Dir(dir), WithRedis(redisClient(t, srv.Addr)), WithClaimTTL(ttl))
	doc := w.addDocument("Regular Mail")
	ctx := context.Background()
	// The dead room claimed the document and recorded its download, then
	// died: it never releases the claim nor ends the record.
	if held, err := dead.shared.take(ctx, doc.ID); err != nil || !held {
		t.Fatalf("take = %v, %v", held, err)
	}
	if _, err := dead.journal.Begin(ctx, doc.ID); err != nil {
		t.Fatal(err)
	}
	w.fake.SetDocumentStatus(doc.ID, acctadmintest.DocumentRead) // it was downloaded
	claimed := time.Now()
	if err := live.Pull(ctx); err != nil {
		t.Fatal(err)
	}
	if has, _ := live.store.Has(ctx, doc.ID); has && time.Since(claimed) < ttl {
		// (On a machine so slow that the claim expired during the pull,
		// taking it was right.)
		t.Fatal("the live room took a claim that had not expired")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := live.Pull(ctx); err != nil {
			t.Fatal(err)
		}
		if has, _ := live.store.Has(ctx, doc.ID); has {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the claim was never taken over")
		}
		time.Sleep(ttl / 4)
	}
	if pending, _ := live.journal.Pending(ctx); len(pending) != 0 {
		t.Fatalf("journal left %v", pending)
	}
}

// A store without a journal of its own gets one kept in Redis: Begin,
// Pending and End keep the ids in flight, and the room saves through it.
func TestRedisJournalForAStoreWithout(t *testing.T) {
	srv := redisserver.Start(t)
	w := newWorld(t)
	type plain struct{ Store }
	r := w.room(plain{Dir(t.TempDir())}, WithRedis(redisClient(t, srv.Addr)))
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
	doc := w.addDocument("Regular Mail")
	if code := w.deliver(r.Handler(), doc.ID); code != http.StatusOK {
		t.Fatalf("answered %d", code)
	}
}
