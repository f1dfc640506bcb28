package mailroom_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/internal/redisserver"
	"github.com/acctadmin/acctadmin-go/mailroom"
)

// A room that died holding a claim and a journal record: another room
// leaves the claim until it expires, then takes it over, saves the
// document and finishes the record. (The dead room's claim is its key in
// Redis under another owner's token; its record is the Dir's journal.)
func TestAClaimOfADeadRoomIsTakenOver(t *testing.T) {
	srv := redisserver.Start(t)
	w := newWorld(t)
	dir := t.TempDir()
	ttl := time.Second
	rdb := redisClient(t, srv.Addr)
	live := w.room(mailroom.Dir(dir), mailroom.WithRedis(redisClient(t, srv.Addr)), mailroom.WithClaimTTL(ttl))
	store, journal := mailroom.Dir(dir), mailroom.Dir(dir).(mailroom.Journal)
	doc := w.addDocument("Regular Mail")
	ctx := context.Background()
	// The dead room claimed the document and recorded its download, then
	// died: it never releases the claim nor ends the record.
	if held, err := holdClaim(ctx, rdb, doc.ID, "dead-room", ttl); err != nil || !held {
		t.Fatalf("take = %v, %v", held, err)
	}
	if _, err := journal.Begin(ctx, doc.ID); err != nil {
		t.Fatal(err)
	}
	w.fake.SetDocumentStatus(doc.ID, acctadmintest.DocumentRead) // it was downloaded
	claimed := time.Now()
	if err := live.Pull(ctx); err != nil {
		t.Fatal(err)
	}
	if has, _ := store.Has(ctx, doc.ID); has && time.Since(claimed) < ttl {
		// (On a machine so slow that the claim expired during the pull,
		// taking it was right.)
		t.Fatal("the live room took a claim that had not expired")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := live.Pull(ctx); err != nil {
			t.Fatal(err)
		}
		if has, _ := store.Has(ctx, doc.ID); has {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the claim was never taken over")
		}
		time.Sleep(ttl / 4)
	}
	if pending, _ := journal.Pending(ctx); len(pending) != 0 {
		t.Fatalf("journal left %v", pending)
	}
}

// A store without a journal of its own gets one kept in Redis, and the
// room saves through it. (Its Begin, Pending and End:
// TestRedisJournalForAStoreWithoutOne of the mailroom package.)
func TestRedisJournalForAStoreWithout(t *testing.T) {
	srv := redisserver.Start(t)
	w := newWorld(t)
	type plain struct{ mailroom.Store }
	dir := t.TempDir()
	r := w.room(plain{mailroom.Dir(dir)}, mailroom.WithRedis(redisClient(t, srv.Addr)))
	doc := w.addDocument("Regular Mail")
	if code := w.deliver(r.Handler(), doc.ID); code != http.StatusOK {
		t.Fatalf("answered %d", code)
	}
	if docs, others := savedFiles(t, dir); len(docs) != 1 || docs[doc.ID] == nil || len(others) != 0 {
		t.Fatalf("saved %d documents (%v wanted), others %v", len(docs), doc.ID, others)
	}
}
