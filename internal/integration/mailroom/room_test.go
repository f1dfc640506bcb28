package mailroom_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/internal/redisserver"
	"github.com/acctadmin/acctadmin-go/mailroom"
	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
	"pgregory.net/rapid"
)

func TestHandlerSavesTheDocumentBeforeAnswering(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	var alerted []string
	var mu sync.Mutex
	r := w.room(mailroom.Dir(dir), mailroom.WithOnSaved(func(_ context.Context, d acctadmin.Document) {
		mu.Lock()
		defer mu.Unlock()
		alerted = append(alerted, d.Type)
	}))
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	w.fake.AddCallback(srv.URL)

	doc := w.fake.AddDocument(acctadmintest.DocumentInput{CompanyID: w.company.ID, Type: "Delivered Service of Process"})
	ds, err := w.fake.WaitDeliveries(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if !ds[0].Delivered || ds[0].Attempt != 1 {
		t.Fatalf("delivery %+v", ds[0])
	}
	docs, others := savedFiles(t, dir)
	if len(docs) != 1 || len(others) != 0 {
		t.Fatalf("saved %d documents, others %v", len(docs), others)
	}
	if !bytes.Equal(docs[doc.ID], w.pdf(doc.ID)) {
		t.Fatal("the saved file differs from the API's")
	}
	if st := r.Stats(); st.Saved != 1 || st.Downloads != 1 || st.Redownloads != 0 {
		t.Fatalf("stats %+v", st)
	}
	if !slices.Equal(alerted, []string{"Delivered Service of Process"}) {
		t.Fatalf("WithOnSaved saw %v", alerted)
	}
	if pending, _ := mailroom.Dir(dir).(mailroom.Journal).Pending(context.Background()); len(pending) != 0 {
		t.Fatalf("journal left %v", pending)
	}
}

func TestHandlerAnswersARedeliveryDuringTheSaveRetryably(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	r := w.room(mailroom.Dir(dir))
	h := r.Handler()
	doc := w.addDocument("Regular Mail")
	// The first download is held once the API has answered it, and the
	// second delivery comes meanwhile.
	release := w.faults.holdDownloads()
	first := make(chan int)
	go func() { first <- w.deliver(h, doc.ID) }()
	for w.downloads() == 0 { // bounded by the test's timeout: the download starts at once
		time.Sleep(time.Millisecond)
	}
	body, _ := json.Marshal(map[string]string{"data": w.token(doc.ID)})
	req := httptest.NewRequest(http.MethodPost, "/callbacks", bytes.NewReader(body))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	release()
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "5" {
		t.Fatalf("redelivery during the save answered %d with Retry-After %q, want 503 with 5", rec.Code, rec.Header().Get("Retry-After"))
	}
	if code := <-first; code != http.StatusOK {
		t.Fatalf("first delivery answered %d", code)
	}
	if code := w.deliver(h, doc.ID); code != http.StatusOK {
		t.Fatalf("redelivery after the save answered %d", code)
	}
	if n := w.downloads(); n != 1 {
		t.Fatalf("%d downloads, want 1", n)
	}
	if docs, others := savedFiles(t, dir); len(docs) != 1 || len(others) != 0 {
		t.Fatalf("saved %d documents and %v", len(docs), others)
	}
}

// The handler acknowledges, without a download, every callback it need
// not save: a document kept out (left unread), a document the API does
// not know (gone), an event of another kind, a new-document event without
// a document id; one that does not verify is refused with a 4xx, as
// webhook.Handler does.
func TestHandlerAcknowledgesWhatItNeedNotSave(t *testing.T) {
	// post sends claims signed with the fake's secret; raw, when set, is
	// sent as the token instead.
	post := func(w *world, h http.Handler, claims map[string]any, raw string) int {
		tok := raw
		if tok == "" {
			var err error
			tok, err = webhook.Sign(claims, []byte(w.fake.SecretKey), webhook.WithSignAccessKey(w.fake.AccessKey))
			if err != nil {
				t.Fatal(err)
			}
		}
		req := httptest.NewRequest(http.MethodPost, "/callbacks", strings.NewReader(`{"data":"`+tok+`"}`))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	keepOut := mailroom.WithKeepOut(func(d acctadmin.Document) bool { return d.Type == "Annual Report" })
	for _, tc := range []struct {
		name string
		// send delivers the callback and returns the handler's answer.
		send func(w *world, h http.Handler) int
		// wantClass is the answer's class: 2 for 2xx, 4 for 4xx.
		wantClass int
		keptOut   int64
	}{
		{name: "kept out", keptOut: 1, wantClass: 2, send: func(w *world, h http.Handler) int {
			kept := w.addDocument("Annual Report")
			code := w.deliver(h, kept.ID)
			if d, _ := w.fake.Document(kept.ID); d.Status != acctadmintest.DocumentUnread {
				t.Errorf("kept-out document is %s", d.Status)
			}
			return code
		}},
		{name: "unknown document", wantClass: 2, send: func(w *world, h http.Handler) int {
			return w.deliver(h, uuid.New())
		}},
		{name: "invoice", wantClass: 2, send: func(w *world, h http.Handler) int {
			return post(w, h, map[string]any{"event": "new-invoice", "invoice_id": uuid.NewString(), "company_id": w.company.ID.String()}, "")
		}},
		{name: "no document", wantClass: 2, send: func(w *world, h http.Handler) int {
			return post(w, h, map[string]any{"event": "new-document", "company_id": w.company.ID.String()}, "")
		}},
		{name: "forged", wantClass: 4, send: func(w *world, h http.Handler) int {
			return post(w, h, nil, "x.y.z")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			r := w.room(mailroom.Dir(t.TempDir()), keepOut)
			if code := tc.send(w, r.Handler()); code/100 != tc.wantClass || (tc.wantClass == 2 && code != http.StatusOK) {
				t.Errorf("answered %d, want %dxx", code, tc.wantClass)
			}
			if n := w.downloads(); n != 0 {
				t.Errorf("%d downloads", n)
			}
			if st := r.Stats(); st.KeptOut != tc.keptOut || st.Saved != 0 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func TestHandlerKeepsAFailedDownloadInTheJournal(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	r := w.room(mailroom.Dir(dir))
	h := r.Handler()
	doc := w.addDocument("Regular Mail")
	// The download is applied (marked read) and its body cut short, every
	// time the client tries.
	w.fake.InjectFault(acctadmintest.Fault{Method: http.MethodGet, Path: "/documents/:id/download", TruncateBody: true})
	if code := w.deliver(h, doc.ID); code < 500 {
		t.Fatalf("a failed download answered %d", code)
	}
	if d, _ := w.fake.Document(doc.ID); d.Status != acctadmintest.DocumentRead {
		t.Fatal("the fault did not mark the document read")
	}
	pending, err := mailroom.Dir(dir).(mailroom.Journal).Pending(context.Background())
	if err != nil || len(pending) != 1 || pending[0] != doc.ID {
		t.Fatalf("journal %v, %v", pending, err)
	}
	if docs, others := savedFiles(t, dir); len(docs) != 0 || len(others) != 0 {
		t.Fatalf("saved %d, others %v", len(docs), others)
	}
	// The document is read, so no listing shows it: Pull fetches it by id
	// from the journal.
	w.fake.ClearFaults()
	if err := r.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	docs, _ := savedFiles(t, dir)
	if !bytes.Equal(docs[doc.ID], w.pdf(doc.ID)) {
		t.Fatal("the document was not saved whole after the failure")
	}
	if pending, _ := mailroom.Dir(dir).(mailroom.Journal).Pending(context.Background()); len(pending) != 0 {
		t.Fatalf("journal left %v", pending)
	}
	if st := r.Stats(); st.Redownloads != 1 || st.Saved != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// A download cut short is that document's failure, not the store's: the
// callback of the next document is downloaded and saved, at once.
func TestACutDownloadLeavesTheCallbacksOn(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	r := w.room(mailroom.Dir(dir))
	h := r.Handler()
	broken, healthy := w.addDocument("Regular Mail"), w.addDocument("Regular Mail")
	w.faults.cutNext(cut{announced: 100_000, sent: 9, err: io.ErrUnexpectedEOF})
	if code := w.deliver(h, broken.ID); code != http.StatusInternalServerError {
		t.Fatalf("a cut download answered %d, want 500", code)
	}
	if pending, _ := mailroom.Dir(dir).(mailroom.Journal).Pending(context.Background()); !slices.Equal(pending, []uuid.UUID{broken.ID}) {
		t.Fatalf("journal %v, want the cut document", pending)
	}
	if code := w.deliver(h, healthy.ID); code != http.StatusOK {
		t.Fatalf("the callback after a cut download answered %d, want 200", code)
	}
	docs, others := savedFiles(t, dir)
	if len(docs) != 1 || !bytes.Equal(docs[healthy.ID], w.pdf(healthy.ID)) || len(others) != 0 {
		t.Fatalf("saved %d documents (the healthy one: %t), others %v", len(docs), docs[healthy.ID] != nil, others)
	}
	if n := w.downloads(); n != 2+1 { // the room's two, and the test's own in w.pdf
		t.Fatalf("%d downloads", n)
	}
	if err := r.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	if docs, _ := savedFiles(t, dir); !bytes.Equal(docs[broken.ID], w.pdf(broken.ID)) {
		t.Fatal("the cut document was not saved from the journal")
	}
}

// Whatever cuts a download short, in a callback or in a pull, and however
// much of it came, the callbacks after it are downloaded and saved: only
// a failure of the store's own writes stops the downloads.
func TestACutDownloadNeverStopsTheDownloads(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := newWorld(t)
		dir := t.TempDir()
		r := w.room(mailroom.Dir(dir))
		h := r.Handler()
		broken, healthy := w.addDocument("Regular Mail"), w.addDocument("Regular Mail")
		size := len(w.pdf(broken.ID))
		sent := rapid.IntRange(0, size-1).Draw(rt, "sent")
		c := cut{
			announced: int64(size) + rapid.Int64Range(0, 1<<20).Draw(rt, "more"),
			sent:      sent,
			err: rapid.SampledFrom([]error{io.ErrUnexpectedEOF, syscall.ECONNRESET, io.ErrClosedPipe,
				&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}}).Draw(rt, "err"),
		}
		w.faults.cutNext(c)
		if rapid.Bool().Draw(rt, "inAPull") {
			w.fake.SetDocumentStatus(healthy.ID, acctadmintest.DocumentRead) // the pull meets the broken one alone
			if err := r.Pull(context.Background()); err == nil {
				rt.Fatal("a pull whose download was cut returned nil")
			}
		} else if code := w.deliver(h, broken.ID); code != http.StatusInternalServerError {
			rt.Fatalf("a cut download answered %d, want 500", code)
		}
		if code := w.deliver(h, healthy.ID); code != http.StatusOK {
			rt.Fatalf("the callback after a cut download answered %d, want 200", code)
		}
		docs, _ := savedFiles(t, dir)
		if _, ok := docs[broken.ID]; ok || !bytes.Equal(docs[healthy.ID], w.pdf(healthy.ID)) {
			rt.Fatalf("saved %d documents; want the healthy one alone", len(docs))
		}
		if pending, _ := mailroom.Dir(dir).(mailroom.Journal).Pending(context.Background()); !slices.Equal(pending, []uuid.UUID{broken.ID}) {
			rt.Fatalf("journal %v, want the cut document", pending)
		}
		w.fake.Close()
	})
}

// A save cut short because its context ended is no sign of a store that
// refuses writes: the callbacks after it are downloaded and saved.
func TestASaveCutByItsContextLeavesTheDownloadsOn(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	store := &cancelingStore{Store: mailroom.Dir(dir), Journal: mailroom.Dir(dir).(mailroom.Journal)}
	r := w.room(store)
	cut, next := w.addDocument("Regular Mail"), w.addDocument("Regular Mail")
	w.fake.SetDocumentStatus(next.ID, acctadmintest.DocumentRead) // the pull meets the first alone
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store.cancelNext(cancel)
	if err := r.Pull(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("a pull whose save was cut by its context = %v, want context.Canceled", err)
	}
	if code := w.deliver(r.Handler(), next.ID); code != http.StatusOK {
		t.Fatalf("the callback after a save cut by its context answered %d, want 200", code)
	}
	if err := r.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	docs, others := savedFiles(t, dir)
	if len(docs) != 2 || !bytes.Equal(docs[next.ID], w.pdf(next.ID)) || !bytes.Equal(docs[cut.ID], w.pdf(cut.ID)) || len(others) != 0 {
		t.Fatalf("saved %d documents of 2, others %v", len(docs), others)
	}
	if pending, _ := mailroom.Dir(dir).(mailroom.Journal).Pending(context.Background()); len(pending) != 0 {
		t.Fatalf("journal left %v", pending)
	}
}

// refusingStore fails every Save while refuse is set; Check tells.
type refusingStore struct {
	mailroom.Store
	mailroom.Journal
	mu     sync.Mutex
	refuse bool
	checks int
}

var errDiskFull = errors.New("disk full")

func (s *refusingStore) set(refuse bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = refuse
}

func (s *refusingStore) Save(ctx context.Context, d acctadmin.Document, r io.Reader) error {
	s.mu.Lock()
	refuse := s.refuse
	s.mu.Unlock()
	if refuse {
		_, _ = io.Copy(io.Discard, r)
		return errDiskFull
	}
	return s.Store.Save(ctx, d, r)
}

func (s *refusingStore) Check(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checks++
	if s.refuse {
		return errDiskFull
	}
	return nil
}

func TestAStoreThatRefusesWritesStopsTheDownloads(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	store := &refusingStore{Store: mailroom.Dir(dir), Journal: mailroom.Dir(dir).(mailroom.Journal), refuse: true}
	r := w.room(store)
	h := r.Handler()
	var ids []uuid.UUID
	for range 5 {
		ids = append(ids, w.addDocument("Regular Mail").ID)
	}
	if code := w.deliver(h, ids[0]); code < 500 {
		t.Fatalf("a refused save answered %d", code)
	}
	for _, id := range ids[1:] {
		if code := w.deliver(h, id); code < 500 {
			t.Fatalf("a callback while the store refuses answered %d", code)
		}
	}
	if err := r.Pull(context.Background()); err == nil || !strings.Contains(err.Error(), "the store refuses writes") {
		t.Fatalf("Pull while the store refuses = %v", err)
	}
	if n := w.downloads(); n != 1 {
		t.Fatalf("%d downloads while the store refuses writes, want the first only", n)
	}
	store.set(false)
	if err := r.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	docs, others := savedFiles(t, dir)
	if len(docs) != 5 || len(others) != 0 {
		t.Fatalf("saved %d of 5, others %v", len(docs), others)
	}
	for _, id := range ids {
		if !bytes.Equal(docs[id], w.pdf(id)) {
			t.Fatalf("document %s differs", id)
		}
	}
	if st := r.Stats(); st.Downloads != 6 || st.Redownloads != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestRunRegistersOnceAndPulls(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	const hook = "https://mail.example.com/callbacks"
	w.fake.AddCallback("https://other.example.com/x")
	doc := w.addDocument("Regular Mail")
	for round := range 2 { // a restart registers nothing more
		r := w.room(mailroom.Dir(dir), mailroom.WithCallbackURL(hook), mailroom.WithPullInterval(time.Hour))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- r.Run(ctx) }()
		for range 5000 {
			if has, _ := mailroom.Dir(dir).Has(ctx, doc.ID); has || round == 1 {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %v, want context.Canceled wrapped", err)
		}
		n := 0
		for _, cb := range w.fake.Callbacks() {
			if cb.URL == hook {
				n++
			}
		}
		if n != 1 || len(w.fake.Callbacks()) != 2 {
			t.Fatalf("round %d: %d registrations of the hook, %d callbacks", round, n, len(w.fake.Callbacks()))
		}
	}
	if has, _ := mailroom.Dir(dir).Has(context.Background(), doc.ID); !has {
		t.Fatal("Run did not pull the document")
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	w := newWorld(t)
	store := mailroom.Dir(t.TempDir())
	cases := map[string][]mailroom.Option{
		"interval":  {mailroom.WithPullInterval(0)},
		"ttl":       {mailroom.WithClaimTTL(time.Millisecond)},
		"workers":   {mailroom.WithWorkers(0)},
		"workers33": {mailroom.WithWorkers(33)},
		"timeout":   {mailroom.WithDownloadTimeout(-time.Second)},
		"url":       {mailroom.WithCallbackURL("ftp://x")},
		"redis":     {mailroom.WithRedis(nil)},
		"logger":    {mailroom.WithLogger(nil)},
		"events":    {mailroom.WithEvents(nil)},
	}
	for name, opts := range cases {
		if _, err := mailroom.New(w.c, w.v, store, opts...); err == nil {
			t.Errorf("%s: New accepted a bad option", name)
		}
	}
	if _, err := mailroom.New(w.c, w.v, struct{ mailroom.Store }{store}); err == nil {
		t.Error("New accepted a store with no journal and no Redis")
	}
	if _, err := mailroom.New(nil, w.v, store); err == nil {
		t.Error("New accepted a nil client")
	}
}

// Two rooms sharing one Redis, given one document at once: the second is
// answered a 5xx while the first downloads it, then 200 once it is saved;
// the document is downloaded once.
func TestTwoRoomsOnOneRedisDownloadOnce(t *testing.T) {
	srv := redisserver.Start(t)
	w := newWorld(t)
	dir := t.TempDir()
	a := w.room(mailroom.Dir(dir), mailroom.WithRedis(redisClient(t, srv.Addr)))
	b := w.room(mailroom.Dir(dir), mailroom.WithRedis(redisClient(t, srv.Addr)))
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

// With Redis unreachable nothing is downloaded and callbacks get a 5xx:
// Redis down (killed), where Pull fails too and, once Redis is back empty
// (every claim forgotten), the document is downloaded and saved once; or
// Redis hung (it takes connections and never answers) under a client that
// has no timeout of its own, where the room gives up on each call after a
// third of the claim TTL.
func TestAnUnreachableRedisStopsTheDownloads(t *testing.T) {
	for _, tc := range []struct {
		name string
		// client is the room's Redis client; stop makes Redis unreachable.
		client func(t *testing.T, srv *redisserver.Server) *redis.Client
		stop   func(t *testing.T, srv *redisserver.Server, rdb *redis.Client)
		opts   []mailroom.Option
		// back, when set, checks the room while Redis is still down, then
		// brings Redis back and checks the room again.
		back func(t *testing.T, w *world, r *mailroom.Room, srv *redisserver.Server, dir string, doc acctadmintest.Document)
	}{
		{
			name:   "down",
			client: func(t *testing.T, srv *redisserver.Server) *redis.Client { return redisClient(t, srv.Addr) },
			stop:   func(_ *testing.T, srv *redisserver.Server, _ *redis.Client) { srv.Kill() },
			back: func(t *testing.T, w *world, r *mailroom.Room, srv *redisserver.Server, dir string, doc acctadmintest.Document) {
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
			},
		},
		{
			name: "hung",
			client: func(t *testing.T, srv *redisserver.Server) *redis.Client {
				rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, ReadTimeout: -1, WriteTimeout: -1, MaxRetries: -1})
				t.Cleanup(func() { rdb.Close() })
				return rdb
			},
			stop: func(t *testing.T, srv *redisserver.Server, rdb *redis.Client) {
				if err := rdb.Ping(context.Background()).Err(); err != nil { // a pooled connection
					t.Fatal(err)
				}
				if line, err := srv.Do("CLIENT", "PAUSE", "60000", "ALL"); err != nil || line != "+OK" {
					t.Fatalf("CLIENT PAUSE: %q, %v", line, err)
				}
				t.Cleanup(func() { srv.Do("CLIENT", "UNPAUSE") })
			},
			opts: []mailroom.Option{mailroom.WithClaimTTL(300 * time.Millisecond)},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redisserver.Start(t)
			w := newWorld(t)
			dir := t.TempDir()
			rdb := tc.client(t, srv)
			r := w.room(mailroom.Dir(dir), append([]mailroom.Option{mailroom.WithRedis(rdb)}, tc.opts...)...)
			doc := w.addDocument("Regular Mail")
			tc.stop(t, srv, rdb)
			answered := make(chan int, 1)
			go func() { answered <- w.deliver(r.Handler(), doc.ID) }()
			select {
			case code := <-answered:
				if code < 500 {
					t.Fatalf("with Redis %s the room answered %d", tc.name, code)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("the handler waited for Redis %s", tc.name)
			}
			if n := w.downloads(); n != 0 {
				t.Fatalf("%d downloads with Redis %s", n, tc.name)
			}
			if tc.back != nil {
				tc.back(t, w, r, srv, dir, doc)
			}
		})
	}
}

// A room renews its claim while its download runs, however long that
// takes: another room given the document meanwhile does not download it.
func TestAClaimIsRenewedWhileTheDownloadRuns(t *testing.T) {
	srv := redisserver.Start(t)
	w := newWorld(t)
	dir := t.TempDir()
	ttl := 600 * time.Millisecond
	a := w.room(mailroom.Dir(dir), mailroom.WithRedis(redisClient(t, srv.Addr)), mailroom.WithClaimTTL(ttl))
	b := w.room(mailroom.Dir(dir), mailroom.WithRedis(redisClient(t, srv.Addr)), mailroom.WithClaimTTL(ttl))
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

// One callback URL serves every event: through the room's handler, a
// new-invoice event reaches WithEvents' function once per delivery the
// verifier accepts (a duplicate of one done is answered 200 without it),
// its failure answers 500 so that the sender delivers again, and a
// new-document event is saved and never handed on.
func TestHandlerHandsTheOtherEventsOn(t *testing.T) {
	w := newWorld(t)
	v, err := webhook.NewVerifier([]byte(w.fake.SecretKey), webhook.WithAccessKey(w.fake.AccessKey),
		webhook.WithReplayCache(webhook.NewMemoryReplayCache(100, time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []*webhook.Event
	var fail error
	events := func(_ context.Context, ev *webhook.Event) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, ev)
		return fail
	}
	dir := t.TempDir()
	r, err := mailroom.New(w.c, v, mailroom.Dir(dir), mailroom.WithLogger(discardLogger()), mailroom.WithEvents(events))
	if err != nil {
		t.Fatal(err)
	}
	h := r.Handler()
	post := func(claims map[string]any) int {
		tok, err := webhook.Sign(claims, []byte(w.fake.SecretKey), webhook.WithSignAccessKey(w.fake.AccessKey))
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodPost, "/callbacks", strings.NewReader(`{"data":"`+tok+`"}`))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	invoice := func(id uuid.UUID) map[string]any {
		return map[string]any{"event": "new-invoice", "invoice_id": id.String(),
			"company_id": w.company.ID.String(), "company_name": w.company.Name, "jti": "inv-" + id.String()}
	}
	calls := func() []uuid.UUID {
		mu.Lock()
		defer mu.Unlock()
		var ids []uuid.UUID
		for _, ev := range got {
			ids = append(ids, ev.InvoiceID)
		}
		return ids
	}

	paid, failing := uuid.New(), uuid.New()
	if code := post(invoice(paid)); code != http.StatusOK {
		t.Fatalf("new-invoice answered %d", code)
	}
	if code := post(invoice(paid)); code != http.StatusOK {
		t.Fatalf("its duplicate answered %d", code)
	}
	if ids := calls(); !slices.Equal(ids, []uuid.UUID{paid}) {
		t.Fatalf("WithEvents saw %v, want [%s] once", ids, paid)
	}

	mu.Lock()
	fail = errors.New("ledger unavailable")
	mu.Unlock()
	if code := post(invoice(failing)); code != http.StatusInternalServerError {
		t.Fatalf("a failing function answered %d, want 500", code)
	}
	mu.Lock()
	fail = nil
	mu.Unlock()
	if code := post(invoice(failing)); code != http.StatusOK {
		t.Fatalf("the redelivery answered %d", code)
	}
	if ids := calls(); !slices.Equal(ids, []uuid.UUID{paid, failing, failing}) {
		t.Fatalf("WithEvents saw %v", ids)
	}

	doc := w.addDocument("Regular Mail")
	if code := w.deliver(h, doc.ID); code != http.StatusOK {
		t.Fatalf("new-document answered %d", code)
	}
	if docs, _ := savedFiles(t, dir); len(docs) != 1 || docs[doc.ID] == nil {
		t.Fatalf("saved %d documents", len(docs))
	}
	if n := len(calls()); n != 3 {
		t.Fatalf("WithEvents saw the new-document event: %d calls", n)
	}
}

// A room that only pulls needs no verifier: New takes a nil one (but not
// with WithCallbackURL, which would have the API post to a room that
// cannot verify), Pull saves the mail, and its Handler refuses every
// callback with 500, saying why in the log, so that the sender keeps it.
func TestAPullOnlyRoomNeedsNoVerifier(t *testing.T) {
	w := newWorld(t)
	var docs []uuid.UUID
	for range 3 {
		docs = append(docs, w.addDocument("Regular Mail").ID)
	}
	dir := t.TempDir()
	var logged strings.Builder
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		logMu.Lock()
		defer logMu.Unlock()
		return logged.Write(p)
	}), nil))
	r, err := mailroom.New(w.c, nil, mailroom.Dir(dir), mailroom.WithLogger(logger))
	if err != nil {
		t.Fatalf("New without a verifier: %v", err)
	}
	if err := r.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	saved, _ := savedFiles(t, dir)
	for _, id := range docs {
		if saved[id] == nil {
			t.Errorf("document %s not saved", id)
		}
	}
	if len(saved) != len(docs) || r.Stats().Saved != int64(len(docs)) {
		t.Errorf("saved %d, stats %+v", len(saved), r.Stats())
	}

	late := w.addDocument("Regular Mail")
	if code := w.deliver(r.Handler(), late.ID); code != http.StatusInternalServerError {
		t.Errorf("a callback to a room without a verifier answered %d, want 500", code)
	}
	if n := w.downloads(); n != len(docs) {
		t.Errorf("%d downloads, want %d", n, len(docs))
	}
	logMu.Lock()
	msg := logged.String()
	logMu.Unlock()
	if !strings.Contains(msg, "without a verifier") {
		t.Errorf("the log does not say why: %q", msg)
	}

	if _, err := mailroom.New(w.c, nil, mailroom.Dir(t.TempDir()), mailroom.WithCallbackURL("https://mail.example.com/callbacks")); err == nil {
		t.Error("New took WithCallbackURL without a verifier")
	}
}

// writerFunc is an io.Writer made of a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
