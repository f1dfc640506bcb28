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
