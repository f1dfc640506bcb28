package mailroom_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/internal/redisserver"
	"github.com/acctadmin/acctadmin-go/mailroom"
	"github.com/google/uuid"
)

// lockedLog is a logger whose records a test reads back.
type lockedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedLog) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

// count counts the records that say msg about the document id.
func (l *lockedLog) count(msg string, id uuid.UUID) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range strings.Split(l.buf.String(), "\n") {
		if strings.Contains(line, msg) && strings.Contains(line, id.String()) {
			n++
		}
	}
	return n
}

const lockedMsg = "document is payment-locked; left unread"

func (w *world) addLocked(price string) acctadmintest.Document {
	return w.fake.AddDocument(acctadmintest.DocumentInput{CompanyID: w.company.ID, Type: "Regular Mail", Title: "Held " + price,
		PaymentLocked: true, UnlockPrice: price})
}

// unlocks counts the unlock requests the fake received.
func (w *world) unlocks() int {
	return w.fake.RequestCount(http.MethodPost, "/documents/unlock/:id")
}

// card stores a card on the fake and returns its id (found by listing:
// the fake answers the store without the card, as the real server does).
func (w *world) card(number string) uuid.UUID {
	w.t.Helper()
	pm, err := w.clean.PaymentMethods.Store(context.Background(), &acctadmin.Card{Number: acctadmin.Secret(number), ExpMonth: 5, ExpYear: 2031,
		CVC: acctadmin.Secret("123"), FirstName: "Ada", LastName: "Lovelace"})
	if err != nil {
		w.t.Fatal(err)
	}
	return pm.ID
}

func money(t *testing.T, s string) acctadmin.Money {
	m, err := acctadmin.ParseMoney(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Pulls save the other documents, leave the payment-locked ones unread
// without asking for their download, and list each in Stats and the log
// once, however many pulls meet them.
func TestPullLeavesPaymentLockedDocumentsAndListsEachOnce(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	var open []uuid.UUID
	for range 5 {
		open = append(open, w.addDocument("Regular Mail").ID)
	}
	locked := []uuid.UUID{w.addLocked("25.00").ID, w.addLocked("25.00").ID, w.addLocked("25.00").ID}
	var log lockedLog
	r := w.room(mailroom.Dir(dir), mailroom.WithLogger(log.logger()), mailroom.WithWorkers(2))
	for pull := range 3 {
		if err := r.Pull(context.Background()); err != nil {
			t.Fatalf("pull %d: %v", pull, err)
		}
	}
	docs, _ := savedFiles(t, dir)
	if len(docs) != len(open) {
		t.Fatalf("saved %d documents, want %d", len(docs), len(open))
	}
	for _, id := range locked {
		if _, ok := docs[id]; ok {
			t.Fatalf("locked document %s saved", id)
		}
		if d, _ := w.fake.Document(id); d.Status != acctadmintest.DocumentUnread {
			t.Fatalf("locked document %s is %s", id, d.Status)
		}
		if n := log.count(lockedMsg, id); n != 1 {
			t.Fatalf("locked document %s logged %d times in 3 pulls, want once", id, n)
		}
	}
	if n := w.downloads(); n != len(open) {
		t.Fatalf("%d downloads, want %d (none of a locked document)", n, len(open))
	}
	if s := r.Stats(); s.Locked != 3 || s.Saved != 5 || s.Unlocked != 0 {
		t.Fatalf("stats %+v, want 3 locked and 5 saved", s)
	}
	if ids, err := mailroom.Dir(dir).(mailroom.Journal).Pending(context.Background()); err != nil || len(ids) != 0 {
		t.Fatalf("journal %v, %v, want empty", ids, err)
	}
}

// unflaggingTransport makes the listings and records say that no document
// is payment-locked, as a server that refuses the download without saying
// so beforehand would.
type unflaggingTransport struct{ next http.RoundTripper }

func (u unflaggingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := u.next.RoundTrip(req)
	if err != nil || req.Method != http.MethodGet || strings.Contains(req.URL.Path, "/download") || strings.Contains(req.URL.Path, "/page") {
		return resp, err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	b = bytes.ReplaceAll(b, []byte(`"payment_locked":true`), []byte(`"payment_locked":false`))
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	resp.Header.Del("Content-Length")
	return resp, nil
}

// A download refused as payment-locked, though the listing did not say
// so: the pull goes on and succeeds, the journal keeps no record of it
// (so it is not fetched again and again), later pulls leave it alone, and
// it is counted and logged once; its callback is acknowledged.
func TestARefusedDownloadIsNotTriedAgainAndAgain(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	c, err := acctadmin.NewClient(w.fake.AccessKey, w.fake.SecretKey, acctadmin.WithBaseURL(w.fake.URL),
		acctadmin.WithHTTPClient(&http.Client{Transport: unflaggingTransport{http.DefaultTransport}}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	open := w.addDocument("Regular Mail").ID
	locked := w.addLocked("25.00").ID
	var log lockedLog
	r, err := mailroom.New(c, w.v, mailroom.Dir(dir), mailroom.WithLogger(log.logger()))
	if err != nil {
		t.Fatal(err)
	}
	for pull := range 3 {
		if err := r.Pull(context.Background()); err != nil {
			t.Fatalf("pull %d: %v", pull, err)
		}
	}
	if code := w.deliver(r.Handler(), locked); code != http.StatusOK {
		t.Fatalf("the callback of a locked document answered %d", code)
	}
	docs, _ := savedFiles(t, dir)
	if _, ok := docs[open]; !ok || len(docs) != 1 {
		t.Fatalf("saved %d documents, want the open one", len(docs))
	}
	// One download of each by the first pull, one by the callback.
	if n := w.downloads(); n != 3 {
		t.Fatalf("%d downloads, want 3: the locked one's once by the pulls, once by its callback", n)
	}
	if ids, err := mailroom.Dir(dir).(mailroom.Journal).Pending(context.Background()); err != nil || len(ids) != 0 {
		t.Fatalf("journal %v, %v, want empty", ids, err)
	}
	if n := log.count(lockedMsg, locked); n != 1 {
		t.Fatalf("logged %d times, want once", n)
	}
	if s := r.Stats(); s.Locked != 1 || s.Saved != 1 {
		t.Fatalf("stats %+v, want 1 locked, 1 saved", s)
	}
}

// With WithUnlock, the room pays for each locked document whose price is
// within the ceiling, once, and saves it; one above the ceiling is left
// unread and listed once; a second pull pays for nothing.
func TestWithUnlockPaysWithinTheCeilingOnce(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	cheap, atCeiling, dear := w.addLocked("10.00"), w.addLocked("30.00"), w.addLocked("30.01")
	open := w.addDocument("Regular Mail")
	card := w.card("4242424242424242")
	invoices := len(w.fake.Invoices())
	var log lockedLog
	r := w.room(mailroom.Dir(dir), mailroom.WithLogger(log.logger()), mailroom.WithUnlock(card, money(t, "30.00")))
	for pull := range 2 {
		if err := r.Pull(context.Background()); err != nil {
			t.Fatalf("pull %d: %v", pull, err)
		}
	}
	docs, _ := savedFiles(t, dir)
	for _, id := range []uuid.UUID{cheap.ID, atCeiling.ID, open.ID} {
		if _, ok := docs[id]; !ok {
			t.Fatalf("document %s not saved", id)
		}
	}
	if _, ok := docs[dear.ID]; ok || len(docs) != 3 {
		t.Fatalf("saved %d documents, the one above the ceiling among them: %v", len(docs), ok)
	}
	if n := w.unlocks(); n != 2 {
		t.Fatalf("%d unlock requests, want 2", n)
	}
	if n := len(w.fake.Invoices()) - invoices; n != 2 {
		t.Fatalf("%d invoices made, want 2", n)
	}
	if d, _ := w.fake.Document(dear.ID); !d.PaymentLocked || d.Status != acctadmintest.DocumentUnread {
		t.Fatalf("the document above the ceiling: %+v", d)
	}
	if n := log.count(lockedMsg, dear.ID); n != 1 || !strings.Contains(log.buf.String(), "above the ceiling") {
		t.Fatalf("the document above the ceiling logged %d times", n)
	}
	if s := r.Stats(); s.Unlocked != 2 || s.Locked != 1 || s.Saved != 3 {
		t.Fatalf("stats %+v, want 2 unlocked, 1 locked, 3 saved", s)
	}
}

// WithUnlock pays at most once for a document, even when the first
// attempt's outcome is unknown (a 503: here the API did not apply it) and
// the room is started again, and even when two rooms pull at once; a
// declined card is not tried again either.
func TestWithUnlockPaysAtMostOnceAcrossRestartsAndRooms(t *testing.T) {
	t.Run("unknown outcome, then a restart", func(t *testing.T) {
		w := newWorld(t)
		dir := t.TempDir()
		doc := w.addLocked("20.00")
		card := w.card("4242424242424242")
		invoices := len(w.fake.Invoices())
		w.fake.InjectFault(acctadmintest.Fault{Method: http.MethodPost, Path: "/documents/unlock/:id", Count: 1, Status: http.StatusServiceUnavailable})
		var log lockedLog
		first := w.room(mailroom.Dir(dir), mailroom.WithLogger(log.logger()), mailroom.WithUnlock(card, money(t, "50")))
		if err := first.Pull(context.Background()); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(log.buf.String(), "outcome unknown") {
			t.Fatalf("the unknown outcome was not logged: %s", log.buf.String())
		}
		again := w.room(mailroom.Dir(dir), mailroom.WithUnlock(card, money(t, "50")))
		for pull := range 2 {
			if err := again.Pull(context.Background()); err != nil {
				t.Fatalf("pull %d after the restart: %v", pull, err)
			}
		}
		if n := w.unlocks(); n != 1 {
			t.Fatalf("%d unlock requests, want 1", n)
		}
		if d, _ := w.fake.Document(doc.ID); !d.PaymentLocked || len(w.fake.Invoices()) != invoices {
			t.Fatalf("locked %v, %d invoices made", d.PaymentLocked, len(w.fake.Invoices())-invoices)
		}
		if s := again.Stats(); s.Locked != 1 || s.Unlocked != 0 {
			t.Fatalf("the restarted room's stats %+v, want 1 locked", s)
		}
	})
	t.Run("declined", func(t *testing.T) {
		w := newWorld(t)
		dir := t.TempDir()
		doc := w.addLocked("20.00")
		card := w.card(acctadmintest.DeclinedCardNumber)
		var log lockedLog
		r := w.room(mailroom.Dir(dir), mailroom.WithLogger(log.logger()), mailroom.WithUnlock(card, money(t, "50")))
		for pull := range 3 {
			if err := r.Pull(context.Background()); err != nil {
				t.Fatalf("pull %d: %v", pull, err)
			}
		}
		if n := w.unlocks(); n != 1 {
			t.Fatalf("%d unlock requests with a declined card, want 1", n)
		}
		if n := log.count(lockedMsg, doc.ID); n != 1 || !strings.Contains(log.buf.String(), "the card was declined") {
			t.Fatalf("logged %d times: %s", n, log.buf.String())
		}
	})
	t.Run("two rooms at once", func(t *testing.T) {
		w := newWorld(t)
		dir := t.TempDir()
		var locked []uuid.UUID
		for range 12 {
			locked = append(locked, w.addLocked("5.00").ID)
		}
		card := w.card("4242424242424242")
		invoices := len(w.fake.Invoices())
		rooms := []*mailroom.Room{
			w.room(mailroom.Dir(dir), mailroom.WithUnlock(card, money(t, "5.00")), mailroom.WithWorkers(4)),
			w.room(mailroom.Dir(dir), mailroom.WithUnlock(card, money(t, "5.00")), mailroom.WithWorkers(4)),
		}
		var wg sync.WaitGroup
		errs := make([]error, len(rooms))
		for i, r := range rooms {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = r.Pull(context.Background())
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("room %d: %v", i, err)
			}
		}
		// What a room left (the other one unlocked it while it looked) the
		// next pull saves.
		if err := rooms[0].Pull(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n := w.unlocks(); n != len(locked) {
			t.Fatalf("%d unlock requests for %d documents", n, len(locked))
		}
		if n := len(w.fake.Invoices()) - invoices; n != len(locked) {
			t.Fatalf("%d invoices for %d documents", n, len(locked))
		}
		docs, _ := savedFiles(t, dir)
		if len(docs) != len(locked) {
			t.Fatalf("saved %d of %d", len(docs), len(locked))
		}
	})
}

// A fleet without a journal of its own records its unlocks in Redis: a
// second room pays for nothing the first tried.
func TestWithUnlockRecordsInRedis(t *testing.T) {
	srv := redisserver.Start(t)
	w := newWorld(t)
	doc := w.addLocked("20.00")
	card := w.card("4242424242424242")
	w.fake.InjectFault(acctadmintest.Fault{Method: http.MethodPost, Path: "/documents/unlock/:id", Count: 1, Status: http.StatusServiceUnavailable})
	store := struct{ mailroom.Store }{mailroom.Dir(t.TempDir())}
	for i := range 2 {
		r := w.room(store, mailroom.WithRedis(redisClient(t, srv.Addr)), mailroom.WithUnlock(card, money(t, "50")))
		if err := r.Pull(context.Background()); err != nil {
			t.Fatalf("room %d: %v", i, err)
		}
	}
	if n := w.unlocks(); n != 1 {
		t.Fatalf("%d unlock requests, want 1", n)
	}
	if d, _ := w.fake.Document(doc.ID); !d.PaymentLocked {
		t.Fatal("unlocked")
	}
}

func TestWithUnlockRefusesBadArguments(t *testing.T) {
	w := newWorld(t)
	store := mailroom.Dir(t.TempDir())
	card := uuid.MustParse("5f0c8a52-9d61-4c1e-8f0e-0c1d2e3f4a01")
	for name, opt := range map[string]mailroom.Option{
		"nil card":     mailroom.WithUnlock(uuid.Nil, money(t, "10")),
		"zero ceiling": mailroom.WithUnlock(card, acctadmin.Money{}),
		"below zero":   mailroom.WithUnlock(card, money(t, "-1")),
	} {
		if _, err := mailroom.New(w.c, w.v, store, opt); err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
	// A store with a journal of its own, neither Dir's nor Redis's, has
	// nowhere to record the unlocks.
	if _, err := mailroom.New(w.c, w.v, journalStore{mailroom.Dir(t.TempDir())}, mailroom.WithUnlock(card, money(t, "10"))); err == nil {
		t.Error("New accepted WithUnlock with a journal that cannot record unlocks")
	}
}

// journalStore is a Store with a Journal of its own that is not Dir's.
type journalStore struct{ mailroom.Store }

func (s journalStore) Begin(ctx context.Context, id uuid.UUID) (bool, error) {
	return s.Store.(mailroom.Journal).Begin(ctx, id)
}
func (s journalStore) End(ctx context.Context, id uuid.UUID) error {
	return s.Store.(mailroom.Journal).End(ctx, id)
}
func (s journalStore) Pending(ctx context.Context) ([]uuid.UUID, error) {
	return s.Store.(mailroom.Journal).Pending(ctx)
}

// pricelessTransport leaves the price out of every record, as an API that
// does not say it before the payment would.
type pricelessTransport struct{ next http.RoundTripper }

var unlockPrice = regexp.MustCompile(`,?"unlock_price":[0-9.]+`)

func (p pricelessTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := p.next.RoundTrip(req)
	if err != nil || req.Method != http.MethodGet || strings.Contains(req.URL.Path, "/download") || strings.Contains(req.URL.Path, "/page") {
		return resp, err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	b = unlockPrice.ReplaceAll(b, nil)
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	resp.Header.Del("Content-Length")
	return resp, nil
}

// Without a price the ceiling cannot be kept: WithUnlock pays for nothing.
func TestWithUnlockPaysNothingWithoutAPrice(t *testing.T) {
	w := newWorld(t)
	c, err := acctadmin.NewClient(w.fake.AccessKey, w.fake.SecretKey, acctadmin.WithBaseURL(w.fake.URL),
		acctadmin.WithHTTPClient(&http.Client{Transport: pricelessTransport{http.DefaultTransport}}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	doc := w.addLocked("1.00")
	var log lockedLog
	r, err := mailroom.New(c, w.v, mailroom.Dir(t.TempDir()), mailroom.WithLogger(log.logger()), mailroom.WithUnlock(w.card("4242424242424242"), money(t, "1000")))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := w.unlocks(); n != 0 {
		t.Fatalf("%d unlock requests for a document whose price is not given", n)
	}
	if log.count(lockedMsg, doc.ID) != 1 || !strings.Contains(log.buf.String(), "price is not given") {
		t.Fatalf("log: %s", log.buf.String())
	}
}
