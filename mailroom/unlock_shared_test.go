package mailroom

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/internal/redisserver"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
	"pgregory.net/rapid"
)

// unlockAnswer is how lockAPI answers one unlock request.
type unlockAnswer int

const (
	unlockOK             unlockAnswer = iota // 200: unlocked and charged
	unlockBadGateway                         // 502, the unlock not applied
	unlockBadGatewayDone                     // 502, the unlock applied all the same
	unlockTimeout                            // no answer before the client gives up, not applied
	unlockTimeoutDone                        // no answer before the client gives up, applied
	unlockDeclined                           // 402: the card was declined
	unlockAnswers                            // the number of answers
)

func (a unlockAnswer) String() string {
	return [...]string{"ok", "502", "502 applied", "timeout", "timeout applied", "declined"}[a]
}

// lockAPI is the part of the API a pulling room uses, for payment-locked
// documents: the unread listing, the download (refused while a document
// is locked), and the unlock, whose answers the test scripts. Each
// request names its room in the X-Room header (roomTransport), so that
// the unlock requests are counted by room.
type lockAPI struct {
	t   testing.TB
	srv *httptest.Server

	mu       sync.Mutex
	order    []uuid.UUID
	docs     map[uuid.UUID]*lockDoc
	answers  map[uuid.UUID][]unlockAnswer // what the next unlocks of each document get; ok when none is left
	requests map[uuid.UUID][]int          // the rooms that sent an unlock of each document, in order
}

type lockDoc struct {
	locked bool
	price  string // as the listing writes it; "" leaves it out
	read   bool
}

func newLockAPI(t testing.TB) *lockAPI {
	a := &lockAPI{t: t, docs: map[uuid.UUID]*lockDoc{}, answers: map[uuid.UUID][]unlockAnswer{}, requests: map[uuid.UUID][]int{}}
	a.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.srv.Close)
	return a
}

// add adds an unread document, locked at price when price is not empty.
func (a *lockAPI) add(price string) uuid.UUID {
	a.mu.Lock()
	defer a.mu.Unlock()
	id := uuid.New()
	a.order = append(a.order, id)
	a.docs[id] = &lockDoc{locked: price != "", price: price}
	return id
}

// script sets what the next unlocks of id get.
func (a *lockAPI) script(id uuid.UUID, answers ...unlockAnswer) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.answers[id] = answers
}

// unlocksOf returns the rooms that sent an unlock of id, in order.
func (a *lockAPI) unlocksOf(id uuid.UUID) []int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.requests[id])
}

// unlocks counts the unlock requests of every document.
func (a *lockAPI) unlocks() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, r := range a.requests {
		n += len(r)
	}
	return n
}

func (a *lockAPI) isLocked(id uuid.UUID) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.docs[id].locked
}

func (a *lockAPI) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	path := r.URL.Path
	if rest, ok := strings.CutPrefix(path, "/documents/unlock/"); ok && r.Method == http.MethodPost {
		a.unlock(w, r, rest)
		return
	}
	if rest, ok := strings.CutSuffix(strings.TrimPrefix(path, "/documents/"), "/download"); ok && r.Method == http.MethodGet {
		a.download(w, rest)
		return
	}
	if path != "/documents" || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	a.mu.Lock()
	var rows []string
	for _, id := range a.order {
		d := a.docs[id]
		if d.read {
			continue
		}
		row := `{"id":"` + id.String() + `","status":"unread","title":"Held mail","type":"Regular Mail","updated_at":"2026-05-30T10:00:00Z","payment_locked":` + strconv.FormatBool(d.locked)
		if d.price != "" {
			row += `,"unlock_price":` + d.price
		}
		rows = append(rows, row+"}")
	}
	a.mu.Unlock()
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
	offset = min(offset, len(rows))
	rows = rows[offset:min(offset+limit, len(rows))]
	io.WriteString(w, `{"success":true,"result":[`+strings.Join(rows, ",")+`]}`)
}

func (a *lockAPI) download(w http.ResponseWriter, rawID string) {
	id, err := uuid.Parse(rawID)
	a.mu.Lock()
	d, ok := a.docs[id]
	switch {
	case err != nil || !ok:
		a.mu.Unlock()
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"success":false,"message":"not found"}`)
		return
	case d.locked:
		a.mu.Unlock()
		w.WriteHeader(http.StatusPaymentRequired)
		io.WriteString(w, `{"success":false,"message":"payment required to access this document"}`)
		return
	}
	d.read = true
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/pdf")
	io.WriteString(w, "%PDF-1.4 "+id.String())
}

func (a *lockAPI) unlock(w http.ResponseWriter, r *http.Request, rawID string) {
	io.Copy(io.Discard, r.Body) // so that the server notices the client hang up
	id, err := uuid.Parse(rawID)
	room, _ := strconv.Atoi(r.Header.Get("X-Room"))
	a.mu.Lock()
	d, ok := a.docs[id]
	if err != nil || !ok {
		a.mu.Unlock()
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"success":false,"message":"not found"}`)
		return
	}
	a.requests[id] = append(a.requests[id], room)
	answer := unlockOK
	if next := a.answers[id]; len(next) > 0 {
		answer, a.answers[id] = next[0], next[1:]
	}
	applied := answer == unlockOK || answer == unlockBadGatewayDone || answer == unlockTimeoutDone
	if applied {
		d.locked = false
	}
	price := d.price
	a.mu.Unlock()
	switch answer {
	case unlockOK:
		io.WriteString(w, `{"success":true,"action":"capture","amount":`+price+`,"result":"Payment captured"}`)
	case unlockBadGateway, unlockBadGatewayDone:
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, `{"message":"bad gateway"}`)
	case unlockTimeout, unlockTimeoutDone:
		<-r.Context().Done() // the client gives up (lockClient's timeout)
	case unlockDeclined:
		w.WriteHeader(http.StatusPaymentRequired)
		io.WriteString(w, `{"success":false,"message":"the card was declined"}`)
	}
}

// roomTransport names the room in every request it sends.
type roomTransport struct{ room int }

func (t roomTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("X-Room", strconv.Itoa(t.room))
	return http.DefaultTransport.RoundTrip(req)
}

// lockClient is the client of room number room; an attempt that gets no
// answer within 200ms is given up.
func (a *lockAPI) lockClient(room int) *acctadmin.Client {
	a.t.Helper()
	c, err := acctadmin.NewClient("key", "secret", acctadmin.WithBaseURL(a.srv.URL), acctadmin.WithTimeout(200*time.Millisecond),
		acctadmin.WithRetryWait(time.Millisecond, 5*time.Millisecond), acctadmin.WithHTTPClient(&http.Client{Transport: roomTransport{room}}))
	if err != nil {
		a.t.Fatal(err)
	}
	a.t.Cleanup(c.CloseIdleConnections)
	return c
}

var lockCard = uuid.MustParse("7d7a3e0c-2b1f-4c55-9a77-1f0e6b5c4d31")

func lockMoney(t testing.TB, s string) acctadmin.Money {
	t.Helper()
	m, err := acctadmin.ParseMoney(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// lockRoom is a room of number n on a, saving into dir, with rdb when it
// is not nil, and the unlock options given.
func (a *lockAPI) lockRoom(n int, dir string, rdb redis.UniversalClient, opts ...Option) *Room {
	a.t.Helper()
	opts = append([]Option{WithLogger(lockLogger()), WithWorkers(2)}, opts...)
	if rdb != nil {
		opts = append(opts, WithRedis(rdb))
	}
	r, err := New(a.lockClient(n), nil, Dir(dir), opts...)
	if err != nil {
		a.t.Fatal(err)
	}
	return r
}

// Two rooms on one Redis, each saving into a folder of its own: the
// first unlock's answer is a 502 (not applied), and the second room does
// not pay for the document again, nor does the first once restarted.
func TestUnlockIsRecordedInTheRedisTheRoomsShare(t *testing.T) {
	srv := redisserver.Start(t)
	api := newLockAPI(t)
	doc := api.add("20.00")
	api.script(doc, unlockBadGateway)
	unlock := WithUnlock(lockCard, lockMoney(t, "30"))
	first := api.lockRoom(0, t.TempDir(), redisClient(t, srv.Addr), unlock)
	second := api.lockRoom(1, t.TempDir(), redisClient(t, srv.Addr), unlock)
	for i, r := range []*Room{first, second, second, first} {
		if err := r.Pull(context.Background()); err != nil {
			t.Fatalf("pull %d: %v", i, err)
		}
	}
	if got := api.unlocksOf(doc); len(got) != 1 || got[0] != 0 {
		t.Fatalf("unlock requests by room %v, want one, by room 0", got)
	}
	st := second.LastPull()
	if len(st.Locked) != 1 || st.Locked[0].Document.ID != doc || !strings.Contains(st.Locked[0].Reason, "tried before") {
		t.Fatalf("the second room's last pull: %+v, want the document left locked as tried before", st)
	}
}

// A price below zero (or zero) under the ceiling is not paid: nothing is
// sent, and the document is listed as left locked, saying why.
func TestUnlockRefusesAPriceThatIsNotPositive(t *testing.T) {
	api := newLockAPI(t)
	negative, open := api.add("-5.00"), api.add("")
	dir := t.TempDir()
	r := api.lockRoom(0, dir, nil, WithUnlock(lockCard, lockMoney(t, "30")))
	if err := r.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := api.unlocks(); n != 0 {
		t.Fatalf("%d unlock requests for a document priced -5.00", n)
	}
	if !api.isLocked(negative) {
		t.Fatal("the document priced -5.00 was unlocked")
	}
	st := r.LastPull()
	if len(st.Locked) != 1 || st.Locked[0].Document.ID != negative || st.Locked[0].Reason != "its price -5.00 is not positive" ||
		st.Locked[0].Document.UnlockPrice.String() != "-5.00" || len(st.Unlocked) != 0 {
		t.Fatalf("last pull %+v", st)
	}
	docs, _ := savedFiles(t, dir)
	if _, ok := docs[open]; !ok || len(docs) != 1 {
		t.Fatalf("saved %d documents, want the open one", len(docs))
	}
	if s := r.Stats(); s.Locked != 1 || s.Unlocked != 0 {
		t.Fatalf("stats %+v", s)
	}
}

// One nightly pull meets 11 locked documents at 25.00, with a ceiling of
// 30.00 each and a budget of 60.00: it pays for 2 (50.00), lists the 9
// others with their price, and the next night's pull pays for 2 more;
// no document is paid for twice.
func TestUnlockBudgetBoundsEachPull(t *testing.T) {
	api := newLockAPI(t)
	var locked []uuid.UUID
	for range 11 {
		locked = append(locked, api.add("25.00"))
	}
	dir := t.TempDir()
	opts := []Option{WithUnlock(lockCard, lockMoney(t, "30.00")), WithUnlockBudget(lockMoney(t, "60.00")), WithWorkers(4)}
	r := api.lockRoom(0, dir, nil, opts...)
	if err := r.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := api.unlocks(); n != 2 {
		t.Fatalf("%d unlock requests in one pull, want 2 (50.00 of a budget of 60.00)", n)
	}
	st := r.LastPull()
	if len(st.Unlocked) != 2 || !st.Spent.Equal(lockMoney(t, "50")) || len(st.Locked) != 9 {
		t.Fatalf("last pull: %d unlocked, %s spent, %d locked; want 2, 50.00, 9", len(st.Unlocked), st.Spent, len(st.Locked))
	}
	for _, u := range st.Unlocked {
		if !u.Amount.Equal(lockMoney(t, "25")) || api.isLocked(u.Document.ID) {
			t.Fatalf("unlocked %+v", u)
		}
	}
	for _, l := range st.Locked {
		if !l.Document.UnlockPrice.Equal(lockMoney(t, "25")) || !strings.Contains(l.Reason, "budget") || !api.isLocked(l.Document.ID) {
			t.Fatalf("left locked: %+v", l)
		}
	}
	docs, _ := savedFiles(t, dir)
	if len(docs) != 2 {
		t.Fatalf("saved %d documents after the first night, want 2", len(docs))
	}
	// The next night: a new room, a new budget.
	r = api.lockRoom(0, dir, nil, opts...)
	if err := r.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := api.unlocks(); n != 4 {
		t.Fatalf("%d unlock requests after two nights, want 4", n)
	}
	for _, id := range locked {
		if n := len(api.unlocksOf(id)); n > 1 {
			t.Fatalf("document %s unlocked %d times", id, n)
		}
	}
	if st := r.LastPull(); len(st.Unlocked) != 2 || len(st.Locked) != 7 {
		t.Fatalf("second night: %d unlocked, %d locked; want 2, 7", len(st.Unlocked), len(st.Locked))
	}
}

// A declined card gives its price back to the budget: of 3 documents at
// 25.00 under a budget of 50.00, the first declined, the two others are
// paid for.
func TestUnlockBudgetGetsADeclinedPriceBack(t *testing.T) {
	api := newLockAPI(t)
	docs := []uuid.UUID{api.add("25.00"), api.add("25.00"), api.add("25.00")}
	api.script(docs[0], unlockDeclined)
	r := api.lockRoom(0, t.TempDir(), nil, WithUnlock(lockCard, lockMoney(t, "30")), WithUnlockBudget(lockMoney(t, "50")), WithWorkers(1))
	if err := r.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := r.LastPull()
	if api.unlocks() != 3 || len(st.Unlocked) != 2 || !st.Spent.Equal(lockMoney(t, "50")) || len(st.Locked) != 1 || st.Locked[0].Document.ID != docs[0] {
		t.Fatalf("%d unlock requests; last pull %+v", api.unlocks(), st)
	}
}

func TestUnlockBudgetRefusesBadArguments(t *testing.T) {
	api := newLockAPI(t)
	for name, opts := range map[string][]Option{
		"zero budget":        {WithUnlock(lockCard, lockMoney(t, "10")), WithUnlockBudget(acctadmin.Money{})},
		"negative budget":    {WithUnlock(lockCard, lockMoney(t, "10")), WithUnlockBudget(lockMoney(t, "-60"))},
		"without WithUnlock": {WithUnlockBudget(lockMoney(t, "60"))},
	} {
		if _, err := New(api.lockClient(0), nil, Dir(t.TempDir()), opts...); err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
}

// lockFamily is one generated case of TestUnlockAtMostOnceGenerated.
type lockFamily struct {
	api    *lockAPI
	srv    *redisserver.Server
	dirs   []string
	useRdb []bool // by room: on the shared Redis
	folder []int  // by room: which of dirs it saves into
	rooms  []*Room
	opts   []Option
}

func (f *lockFamily) newRoom(t *testing.T, i int) *Room {
	var rdb redis.UniversalClient
	if f.useRdb[i] {
		rdb = redisClient(t, f.srv.Addr)
	}
	return f.api.lockRoom(i, f.dirs[f.folder[i]], rdb, f.opts...)
}

// shares says whether rooms i and j keep their unlock records in one
// place: they are one room (restarted or not), share the Redis, or share
// a folder.
func (f *lockFamily) shares(i, j int) bool {
	return i == j || f.useRdb[i] && f.useRdb[j] || f.folder[i] == f.folder[j]
}

// At most one unlock request per document among rooms that share a
// Redis or a folder, whatever the unlock answers (ok, 502 applied or
// not, a timeout applied or not, declined), across restarts and pulls
// at once: generated rooms (1 to 3), each on the shared Redis or not,
// saving into a folder shared or its own, through generated pulls and
// restarts. Each pull pays only within its budget, and a document
// unlocked with an answer is saved by the room that paid.
func TestUnlockAtMostOnceGenerated(t *testing.T) {
	srv := redisserver.Start(t)
	var tally lockTally
	if f := flag.Lookup("rapid.checks"); f.Value.String() == f.DefValue {
		// 25 checks unless -rapid.checks says otherwise.
		if err := flag.Set("rapid.checks", "25"); err != nil {
			t.Fatal(err)
		}
		defer flag.Set("rapid.checks", f.DefValue)
	}
	rapid.Check(t, func(rt *rapid.T) {
		unlockAtMostOnce(t, rt, srv, &tally)
	})
	t.Logf("%d cases (%d with 2 or 3 rooms on one Redis and folders of their own), %d pulls, %d restarts, %d unlock requests: %v",
		tally.cases, tally.redisOwnFolders, tally.pulls, tally.restarts, tally.requests, tally.answers)
}

// lockLogger drops the rooms' log lines; the tests assert on LastPull.
func lockLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// lockTally is what the generated cases covered.
type lockTally struct {
	cases, redisOwnFolders, pulls, restarts, requests int
	answers                                           map[string]int // the unlock answers scripted for the requests sent
}

func unlockAtMostOnce(t *testing.T, rt *rapid.T, srv *redisserver.Server, tally *lockTally) {
	ctx := context.Background()
	flush := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer flush.Close()
	if err := flush.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	n := rapid.IntRange(1, 3).Draw(rt, "rooms")
	f := &lockFamily{api: newLockAPI(t), srv: srv}
	redisMode := rapid.SampledFrom([]string{"all", "none", "mixed"}).Draw(rt, "Redis")
	folderMode := rapid.SampledFrom([]string{"one", "own", "mixed"}).Draw(rt, "folders")
	for i := range n {
		f.dirs = append(f.dirs, t.TempDir())
		switch redisMode {
		case "all", "none":
			f.useRdb = append(f.useRdb, redisMode == "all")
		default:
			f.useRdb = append(f.useRdb, rapid.Bool().Draw(rt, fmt.Sprintf("room %d on the Redis", i)))
		}
		switch folderMode {
		case "one":
			f.folder = append(f.folder, 0)
		case "own":
			f.folder = append(f.folder, i)
		default:
			f.folder = append(f.folder, rapid.IntRange(0, i).Draw(rt, fmt.Sprintf("room %d's folder", i)))
		}
	}
	budget := rapid.IntRange(1, 4).Draw(rt, "budget (documents)")
	f.opts = []Option{WithUnlock(lockCard, lockMoney(t, "30")), WithUnlockBudget(lockMoney(t, strconv.Itoa(10*budget)))}
	docs := make([]uuid.UUID, rapid.IntRange(1, 4).Draw(rt, "documents"))
	for i := range docs {
		docs[i] = f.api.add("10.00")
		var script []unlockAnswer
		for range 3 {
			script = append(script, unlockAnswer(rapid.IntRange(0, int(unlockAnswers)-1).Draw(rt, "answer")))
		}
		f.api.script(docs[i], script...)
	}
	for i := range n {
		f.rooms = append(f.rooms, f.newRoom(t, i))
	}
	scripts := map[uuid.UUID][]unlockAnswer{}
	for _, id := range docs {
		f.api.mu.Lock()
		scripts[id] = slices.Clone(f.api.answers[id])
		f.api.mu.Unlock()
	}
	tally.cases++
	if n > 1 && !slices.Contains(f.useRdb, false) && len(slices.Compact(slices.Sorted(slices.Values(f.folder)))) == n {
		tally.redisOwnFolders++
	}
	defer func() {
		if tally.answers == nil {
			tally.answers = map[string]int{}
		}
		for _, id := range docs {
			k := len(f.api.unlocksOf(id))
			tally.requests += k
			for _, a := range scripts[id][:min(k, len(scripts[id]))] {
				tally.answers[a.String()]++
			}
		}
	}()
	// paidBy is the room that got an ok answer for each document.
	paidBy := map[uuid.UUID]int{}
	for step := range rapid.IntRange(1, 6).Draw(rt, "steps") {
		switch rapid.IntRange(0, 2).Draw(rt, fmt.Sprintf("step %d", step)) {
		case 0: // one room pulls
			tally.pulls++
			i := rapid.IntRange(0, n-1).Draw(rt, "room")
			if err := f.rooms[i].Pull(ctx); err != nil {
				t.Fatalf("room %d: %v", i, err)
			}
			f.checkPull(t, i, budget, paidBy)
		case 1: // every room pulls at once
			tally.pulls += n
			var wg sync.WaitGroup
			errs := make([]error, n)
			for i, r := range f.rooms {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = r.Pull(ctx)
				}()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("room %d: %v", i, err)
				}
				f.checkPull(t, i, budget, paidBy)
			}
		case 2: // a room is started again
			tally.restarts++
			i := rapid.IntRange(0, n-1).Draw(rt, "room")
			f.rooms[i] = f.newRoom(t, i)
		}
		for _, id := range docs {
			by := f.api.unlocksOf(id)
			for a := range by {
				for b := range a {
					if f.shares(by[a], by[b]) {
						t.Fatalf("document %s: unlock requests by rooms %v, of which %d and %d share a Redis or a folder (Redis %v, folders %v)",
							id, by, by[b], by[a], f.useRdb, f.folder)
					}
				}
			}
		}
	}
	for id, i := range paidBy {
		docs, _ := savedFiles(t, f.dirs[f.folder[i]])
		if _, ok := docs[id]; !ok {
			t.Fatalf("document %s, unlocked by room %d with an answer, is not in its folder", id, i)
		}
	}
}

// checkPull checks the last pull of room i: it paid within its budget,
// and each document it says it unlocked was unlocked by one of its
// requests; those go into paidBy.
func (f *lockFamily) checkPull(t *testing.T, i, budget int, paidBy map[uuid.UUID]int) {
	st := f.rooms[i].LastPull()
	if len(st.Unlocked) > budget || st.Spent.Cmp(lockMoney(t, strconv.Itoa(10*budget))) > 0 {
		t.Fatalf("room %d paid for %d documents (%s) within a budget of %d", i, len(st.Unlocked), st.Spent, budget)
	}
	for _, u := range st.Unlocked {
		if by := f.api.unlocksOf(u.Document.ID); !slices.Contains(by, i) || f.api.isLocked(u.Document.ID) {
			t.Fatalf("room %d says it unlocked %s; requests by %v", i, u.Document.ID, by)
		}
		paidBy[u.Document.ID] = i
	}
}

// wrappedDir is a store that wraps Dir, as a program that watches the
// saves would, passing on its journal and its unlock records.
type wrappedDir struct {
	Store
	saves int
}

func (w *wrappedDir) Save(ctx context.Context, d acctadmin.Document, r io.Reader) error {
	w.saves++
	return w.Store.Save(ctx, d, r)
}
func (w *wrappedDir) Begin(ctx context.Context, id uuid.UUID) (bool, error) {
	return w.Store.(Journal).Begin(ctx, id)
}
func (w *wrappedDir) End(ctx context.Context, id uuid.UUID) error {
	return w.Store.(Journal).End(ctx, id)
}
func (w *wrappedDir) Pending(ctx context.Context) ([]uuid.UUID, error) {
	return w.Store.(Journal).Pending(ctx)
}
func (w *wrappedDir) BeginUnlock(ctx context.Context, id uuid.UUID) (bool, error) {
	return w.Store.(UnlockRecorder).BeginUnlock(ctx, id)
}

// A store that wraps Dir and passes BeginUnlock on keeps the unlock
// records in the folder: a room on it and a room on Dir itself, on one
// folder without Redis, pay once for a document whose first unlock
// answered 502.
func TestUnlockRecordedThroughAWrappedDir(t *testing.T) {
	api := newLockAPI(t)
	doc := api.add("20.00")
	api.script(doc, unlockBadGateway)
	dir := t.TempDir()
	unlock := WithUnlock(lockCard, lockMoney(t, "30"))
	wrapped, err := New(api.lockClient(0), nil, &wrappedDir{Store: Dir(dir)}, WithLogger(lockLogger()), unlock)
	if err != nil {
		t.Fatal(err)
	}
	plain := api.lockRoom(1, dir, nil, unlock)
	for i, r := range []*Room{wrapped, plain, wrapped} {
		if err := r.Pull(context.Background()); err != nil {
			t.Fatalf("pull %d: %v", i, err)
		}
	}
	if got := api.unlocksOf(doc); len(got) != 1 || got[0] != 0 {
		t.Fatalf("unlock requests by room %v, want one, by room 0", got)
	}
}
