package mailroom_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
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

var modelScale = flag.Int("mailroom.scale", 1, "multiply the generated runs of the model tests (CI: 40 runs of one room, 8 of the fleet)")

// rapidChecksGiven says whether -rapid.checks was given on the command
// line, before any test sets it.
var rapidChecksGiven = sync.OnceValue(func() bool {
	given := false
	flag.Visit(func(fl *flag.Flag) { given = given || fl.Name == "rapid.checks" })
	return given
})

// withChecks runs f with rapid's number of checks set to n times
// -mailroom.scale, unless -rapid.checks was given.
func withChecks(t *testing.T, n int, f func()) {
	if !rapidChecksGiven() {
		old := flag.Lookup("rapid.checks").Value.String()
		if err := flag.Set("rapid.checks", strconv.Itoa(n**modelScale)); err != nil {
			t.Fatal(err)
		}
		defer flag.Set("rapid.checks", old)
	}
	f()
}

// model drives rooms sharing one folder (and one Redis, when it has one)
// through generated arrivals, deliveries, redeliveries, invoices' events
// (handed to WithEvents), pulls, failing downloads, crashes and Redis
// restarts, and checks after every step that
// every document is saved at most once, byte-identical to the API's, that
// every document a room acknowledged or saved is in the folder, and that
// no temporary file of a live room is left; at the end, that none is
// missing.
type model struct {
	t     *testing.T
	w     *world
	dir   string
	redis *redisserver.Server // nil: one room, claims in memory
	ttl   time.Duration

	rooms []*mailroom.Room
	gone  []*mailroom.Room       // rooms crashed and replaced
	pdfs  map[uuid.UUID][]byte   // every document's file, as the API serves it
	kept  map[uuid.UUID]bool     // documents kept out
	acked map[uuid.UUID]bool     // documents a room answered 2xx for or saved
	order []uuid.UUID            // documents, in arrival order
	down  bool                   // Redis is down
	dead  map[uuid.UUID]struct{} // documents a crashed room was downloading

	clients []*redis.Client // closed at the end of the run

	eventsMu sync.Mutex
	invoices map[uuid.UUID]int // WithEvents' calls, by invoice
	eventErr error             // what WithEvents' function returns
}

// onEvent is the rooms' WithEvents function: it counts the invoice's
// calls and returns eventErr.
func (m *model) onEvent(_ context.Context, ev *webhook.Event) error {
	m.eventsMu.Lock()
	defer m.eventsMu.Unlock()
	m.invoices[ev.InvoiceID]++
	return m.eventErr
}

func keepOutRule(d acctadmin.Document) bool { return d.Type == "Annual Report" }

// redisClient is a new client of the model's Redis, closed at the end of
// the run.
func (m *model) redisClient() *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: m.redis.Addr, DialTimeout: 100 * time.Millisecond,
		ReadTimeout: 100 * time.Millisecond, WriteTimeout: 100 * time.Millisecond, MaxRetries: -1})
	m.clients = append(m.clients, rdb)
	return rdb
}

func (m *model) newRoom() *mailroom.Room {
	opts := []mailroom.Option{mailroom.WithLogger(discardLogger()), mailroom.WithKeepOut(keepOutRule), mailroom.WithClaimTTL(m.ttl), mailroom.WithWorkers(3), mailroom.WithEvents(m.onEvent)}
	if m.redis != nil {
		opts = append(opts, mailroom.WithRedis(m.redisClient()))
	}
	r, err := mailroom.New(m.w.c, m.w.v, mailroom.Dir(m.dir), opts...)
	if err != nil {
		m.t.Fatal(err)
	}
	return r
}

func (m *model) pick(t *rapid.T) uuid.UUID {
	return m.order[rapid.IntRange(0, len(m.order)-1).Draw(t, "doc")]
}

func (m *model) room(t *rapid.T) *mailroom.Room {
	return m.rooms[rapid.IntRange(0, len(m.rooms)-1).Draw(t, "room")]
}

// Arrive adds a document to the API; its event is delivered by Deliver.
func (m *model) Arrive(t *rapid.T) {
	typ := rapid.SampledFrom([]string{"Regular Mail", "Regular Mail", "Delivered Service of Process", "Annual Report"}).Draw(t, "type")
	d := m.w.fake.AddDocument(acctadmintest.DocumentInput{CompanyID: m.w.company.ID, Type: typ, Pages: rapid.IntRange(1, 3).Draw(t, "pages")})
	m.pdfs[d.ID] = m.w.pdf(d.ID)
	m.kept[d.ID] = typ == "Annual Report"
	m.order = append(m.order, d.ID)
}

// Invoice delivers a new-invoice event (a new one or one delivered
// before) to a room, whose WithEvents function succeeds or fails: it is
// called once, the answer is 200 or 500 as it returned, and no document
// is downloaded.
func (m *model) Invoice(t *rapid.T) {
	id := uuid.New()
	var known []uuid.UUID
	for inv := range m.invoices {
		known = append(known, inv)
	}
	slices.SortFunc(known, func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
	if len(known) > 0 && rapid.Bool().Draw(t, "again") {
		id = rapid.SampledFrom(known).Draw(t, "invoice")
	}
	fail := rapid.Bool().Draw(t, "fail")
	m.eventsMu.Lock()
	m.eventErr = nil
	if fail {
		m.eventErr = errors.New("ledger unavailable")
	}
	calls := m.invoices[id]
	m.eventsMu.Unlock()
	tok, err := webhook.Sign(map[string]any{"event": "new-invoice", "invoice_id": id.String(), "company_id": m.w.company.ID.String()},
		[]byte(m.w.fake.SecretKey), webhook.WithSignAccessKey(m.w.fake.AccessKey))
	if err != nil {
		t.Fatal(err)
	}
	downloads := m.w.downloads()
	req := httptest.NewRequest(http.MethodPost, "/callbacks", strings.NewReader(`{"data":"`+tok+`"}`))
	rec := httptest.NewRecorder()
	m.room(t).Handler().ServeHTTP(rec, req)
	want := http.StatusOK
	if fail {
		want = http.StatusInternalServerError
	}
	m.eventsMu.Lock()
	got := m.invoices[id] - calls
	m.eventsMu.Unlock()
	if rec.Code != want || got != 1 {
		t.Fatalf("new-invoice (failing: %v) answered %d after %d calls, want %d after 1", fail, rec.Code, got, want)
	}
	if n := m.w.downloads(); n != downloads {
		t.Fatalf("new-invoice started %d downloads", n-downloads)
	}
}

// Deliver delivers a document's event to a room (a first delivery, or a
// redelivery, late or not).
func (m *model) Deliver(t *rapid.T) {
	if len(m.order) == 0 {
		t.Skip("no document yet")
	}
	id := m.pick(t)
	r := m.room(t)
	if code := m.w.deliver(r.Handler(), id); code == http.StatusOK {
		m.acked[id] = true
	} else if code < 500 {
		t.Fatalf("delivery answered %d", code)
	}
}

// DeliverTwiceAtOnce delivers one event to two rooms (or twice to one) at
// the same time, as a sender whose first attempt timed out does.
func (m *model) DeliverTwiceAtOnce(t *rapid.T) {
	if len(m.order) == 0 {
		t.Skip("no document yet")
	}
	id := m.pick(t)
	a, b := m.room(t), m.room(t)
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i, r := range []*mailroom.Room{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = m.w.deliver(r.Handler(), id)
		}()
	}
	wg.Wait()
	for _, code := range codes {
		if code == http.StatusOK {
			m.acked[id] = true
		}
	}
}

// Pull runs a reconciling pull of one room.
func (m *model) Pull(t *rapid.T) {
	_ = m.room(t).Pull(context.Background())
}

// FailDownloads makes the next downloads fail: cut short after the API
// marked the document read, or refused before.
func (m *model) FailDownloads(t *rapid.T) {
	m.w.faults.fail(rapid.IntRange(1, 4).Draw(t, "failures"), rapid.Bool().Draw(t, "truncate"))
}

// Crash kills a room in the middle of a download: its claim stays taken,
// its journal record made, the document marked read, a temporary file
// half written. The room is replaced by a new one, as a restart does.
func (m *model) Crash(t *rapid.T) {
	if len(m.order) == 0 {
		t.Skip("no document yet")
	}
	i := rapid.IntRange(0, len(m.rooms)-1).Draw(t, "room")
	id := m.pick(t)
	ctx := context.Background()
	victim := m.rooms[i]
	if has, _ := mailroom.Dir(m.dir).Has(ctx, id); has || m.kept[id] {
		t.Skip("nothing to download")
	}
	if m.redis != nil && !m.down {
		// The victim's claim: the key under a token no live room has.
		if held, err := holdClaim(ctx, m.redisClient(), id, "crashed-room", m.ttl); err != nil || !held {
			t.Skip("claimed elsewhere")
		}
	}
	if _, err := mailroom.Dir(m.dir).(mailroom.Journal).Begin(ctx, id); err != nil {
		t.Fatal(err)
	}
	m.w.fake.SetDocumentStatus(id, acctadmintest.DocumentRead)
	tmp := filepath.Join(m.dir, ".tmp-"+hostname+"-"+strconv.Itoa(deadPID(m.t))+"-"+id.String()[:8])
	if err := os.WriteFile(tmp, m.pdfs[id][:len(m.pdfs[id])/2], 0o644); err != nil {
		t.Fatal(err)
	}
	m.dead[id] = struct{}{}
	m.gone = append(m.gone, victim)
	m.rooms[i] = m.newRoom()
}

// RestartRedis stops Redis at once and starts it again empty, or leaves
// it down until the next restart.
func (m *model) RestartRedis(t *rapid.T) {
	if m.redis == nil {
		t.Skip("no Redis")
	}
	if m.down {
		if err := m.redis.Resume(); err != nil {
			t.Fatal(err)
		}
		m.down = false
		return
	}
	m.redis.Kill()
	if rapid.Bool().Draw(t, "stayDown") {
		m.down = true
		return
	}
	if err := m.redis.Resume(); err != nil {
		t.Fatal(err)
	}
}

// Check is the invariant after every step.
func (m *model) Check(t *rapid.T) {
	docs, others := savedFiles(m.t, m.dir)
	prefix := ".tmp-" + hostname + "-" + strconv.Itoa(os.Getpid()) + "-"
	for _, name := range others {
		if len(name) >= len(prefix) && name[:len(prefix)] == prefix {
			t.Fatalf("temporary file of a live room left: %s", name)
		}
	}
	for id, b := range docs {
		want, ok := m.pdfs[id]
		if !ok {
			t.Fatalf("unknown document %s saved", id)
		}
		if !bytes.Equal(b, want) {
			t.Fatalf("document %s saved with %d bytes, not the API's %d", id, len(b), len(want))
		}
		if m.kept[id] {
			t.Fatalf("kept-out document %s saved", id)
		}
	}
	for id := range m.acked {
		if _, ok := docs[id]; !ok && !m.kept[id] {
			t.Fatalf("document %s acknowledged but not saved", id)
		}
	}
	var saved int64
	for _, r := range append(append([]*mailroom.Room(nil), m.rooms...), m.gone...) {
		saved += r.Stats().Saved
	}
	if saved != int64(len(docs)) {
		t.Fatalf("%d saves for %d files: a document was saved twice", saved, len(docs))
	}
}

// drain brings Redis back, stops the faults, and pulls until every room
// is done: after the claims of crashed rooms expire, every document but
// those kept out must be saved, and no temporary file left.
func (m *model) drain(t *rapid.T) {
	if m.down {
		if err := m.redis.Resume(); err != nil {
			t.Fatal(err)
		}
		m.down = false
	}
	m.w.faults.clear()
	deadline := time.Now().Add(30 * time.Second) // a bound for a failure, not a measure
	for {
		for _, r := range m.rooms {
			_ = r.Pull(context.Background())
		}
		docs, others := savedFiles(m.t, m.dir)
		missing := 0
		for _, id := range m.order {
			if _, ok := docs[id]; !ok && !m.kept[id] {
				missing++
			}
		}
		if missing == 0 && len(others) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the run: %d documents missing, files left %v", missing, others)
		}
		time.Sleep(m.ttl / 4)
	}
	m.Check(t)
	for id := range m.kept {
		if d, _ := m.w.fake.Document(id); m.kept[id] && d.Status != acctadmintest.DocumentUnread {
			t.Fatalf("kept-out document %s was downloaded", id)
		}
	}
	if pending, _ := mailroom.Dir(m.dir).(mailroom.Journal).Pending(context.Background()); len(pending) != 0 {
		t.Fatalf("journal left %v", pending)
	}
}

func runModel(t *testing.T, checks, rooms int, srv *redisserver.Server) {
	withChecks(t, checks, func() {
		rapid.Check(t, func(rt *rapid.T) {
			m := &model{
				t: t, w: newWorld(t), redis: srv, ttl: 150 * time.Millisecond,
				pdfs: map[uuid.UUID][]byte{}, kept: map[uuid.UUID]bool{}, acked: map[uuid.UUID]bool{},
				dead: map[uuid.UUID]struct{}{}, invoices: map[uuid.UUID]int{},
			}
			dir, err := os.MkdirTemp(t.TempDir(), "store")
			if err != nil {
				t.Fatal(err)
			}
			m.dir = dir
			if srv != nil {
				if line, err := srv.Do("FLUSHALL"); err != nil {
					rt.Fatalf("FLUSHALL: %q, %v", line, err)
				}
			}
			for range rooms {
				m.rooms = append(m.rooms, m.newRoom())
			}
			actions := map[string]func(*rapid.T){
				"":                   m.Check,
				"Arrive":             m.Arrive,
				"Deliver":            m.Deliver,
				"Invoice":            m.Invoice,
				"DeliverTwiceAtOnce": m.DeliverTwiceAtOnce,
				"Pull":               m.Pull,
				"FailDownloads":      m.FailDownloads,
				"Crash":              m.Crash,
				"RestartRedis":       m.RestartRedis,
			}
			rt.Repeat(actions)
			m.drain(rt)
			for _, c := range m.clients {
				c.Close()
			}
			m.w.fake.Close()
		})
	})
}

// TestModelOneRoom drives one room with its claims in memory.
func TestModelOneRoom(t *testing.T) {
	runModel(t, 40, 1, nil)
}

// TestModelFleetOnRedis drives three rooms sharing a real Redis that
// restarts empty.
func TestModelFleetOnRedis(t *testing.T) {
	runModel(t, 8, 3, redisserver.Start(t))
}
