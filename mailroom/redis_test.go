package mailroom

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/internal/redisserver"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

func redisClient(t testing.TB, addr string) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: 300 * time.Millisecond,
		ReadTimeout: 300 * time.Millisecond, WriteTimeout: 300 * time.Millisecond, MaxRetries: 1})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func TestTwoRoomsOnOneRedisDownloadOnce(t *testing.T) {
	srv := redisserver.Start(t)
	w := newWorld(t)
	dir := t.TempDir()
	a := w.room(Dir(dir), WithRedis(redisClient(t, srv.Addr)))
	b := w.room(Dir(dir), WithRedis(redisClient(t, srv.Addr)))
	doc := w.addDocument("Regular Mail")
	release := w.faults.holdDownloads()
	first := make(chan int)
	go func() { first <- w.deliver(a.Handler(), doc.ID) }()
	for w.downloads() == 0 {
		time.Sleep(time.Millisecond)
	}
	code := w.deliver(b.Handler(), doc.ID)
	release()
	if code < 500 {
		t.Fatalf("the second room answered %d while the first saves", code)
	}
	if code := <-first; code != http.StatusOK {
		t.Fatalf("the first room answered %d", code)
	}
	if code := w.deliver(b.Handler(), doc.ID); code != http.StatusOK {
		t.Fatalf("the second room answered %d after the save", code)
	}
	if n := w.downloads(); n != 1 {
		t.Fatalf("%d downloads", n)
	}
}

func TestRedisDownStopsTheDownloads(t *testing.T) {
	srv := redisserver.Start(t)
	w := newWorld(t)
	dir := t.TempDir()
	r := w.room(Dir(dir), WithRedis(redisClient(t, srv.Addr)))
	doc := w.addDocument("Regular Mail")
	srv.Kill()
	if code := w.deliver(r.Handler(), doc.ID); code < 500 {
		t.Fatalf("with Redis down the room answered %d", code)
	}
	if err := r.Pull(context.Background()); err == nil {
		t.Fatal("Pull with Redis down returned nil")
	}
	if n := w.downloads(); n != 0 {
		t.Fatalf("%d downloads with Redis down", n)
	}
	if err := srv.Resume(); err != nil { // empty: every claim forgotten
		t.Fatal(err)
	}
	if code := w.deliver(r.Handler(), doc.ID); code != http.StatusOK {
		t.Fatalf("with Redis back the room answered %d", code)
	}
	if code := w.deliver(r.Handler(), doc.ID); code != http.StatusOK {
		t.Fatalf("a redelivery answered %d", code)
	}
	if n := w.downloads(); n != 1 {
		t.Fatalf("%d downloads", n)
	}
	docs, others := savedFiles(t, dir)
	if len(docs) != 1 || len(others) != 0 {
		t.Fatalf("saved %d, others %v", len(docs), others)
	}
}

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

// A Redis that takes connections and never answers stops the downloads
// as one that is down does, even with a client that has no timeout of its
// own: the room gives up on each call after a third of the claim TTL.
func TestAHungRedisStopsTheDownloads(t *testing.T) {
	srv := redisserver.Start(t)
	w := newWorld(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, ReadTimeout: -1, WriteTimeout: -1, MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	r := w.room(Dir(t.TempDir()), WithRedis(rdb), WithClaimTTL(300*time.Millisecond))
	doc := w.addDocument("Regular Mail")
	if err := rdb.Ping(context.Background()).Err(); err != nil { // a pooled connection
		t.Fatal(err)
	}
	if line, err := srv.Do("CLIENT", "PAUSE", "60000", "ALL"); err != nil || line != "+OK" {
		t.Fatalf("CLIENT PAUSE: %q, %v", line, err)
	}
	t.Cleanup(func() { srv.Do("CLIENT", "UNPAUSE") })
	answered := make(chan int, 1)
	go func() { answered <- w.deliver(r.Handler(), doc.ID) }()
	select {
	case code := <-answered:
		if code < 500 {
			t.Fatalf("with Redis hung the room answered %d", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the handler waited for a hung Redis")
	}
	if n := w.downloads(); n != 0 {
		t.Fatalf("%d downloads with Redis hung", n)
	}
}

// A room renews its claim while its download runs, however long that
// takes: another room given the document meanwhile does not download it.
func TestAClaimIsRenewedWhileTheDownloadRuns(t *testing.T) {
	srv := redisserver.Start(t)
	w := newWorld(t)
	dir := t.TempDir()
	ttl := 600 * time.Millisecond
	a := w.room(Dir(dir), WithRedis(redisClient(t, srv.Addr)), WithClaimTTL(ttl))
	b := w.room(Dir(dir), WithRedis(redisClient(t, srv.Addr)), WithClaimTTL(ttl))
	doc := w.addDocument("Regular Mail")
	release := w.faults.holdDownloads()
	first := make(chan int)
	go func() { first <- w.deliver(a.Handler(), doc.ID) }()
	for w.downloads() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(3 * ttl) // the claim would have expired three times over
	second := make(chan int, 1)
	go func() { second <- w.deliver(b.Handler(), doc.ID) }()
	select {
	case code := <-second:
		release()
		if code < 500 {
			t.Fatalf("the second room answered %d while the first still downloads", code)
		}
	case <-time.After(10 * time.Second): // a bound for a failure: its download is held
		release()
		<-second
		t.Fatal("the second room took the claim and downloaded the document")
	}
	if code := <-first; code != http.StatusOK {
		t.Fatalf("the first room answered %d", code)
	}
	if n := w.downloads(); n != 1 {
		t.Fatalf("%d downloads", n)
	}
}
