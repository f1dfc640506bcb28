package acctadmin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acctadmin/acctadmin-go/internal/paging"
	"github.com/google/uuid"
	"go.uber.org/goleak"

	"pgregory.net/rapid"
)

// PullParams.Before, the step that runs on the worker right before each
// download: hand-picked cases, then the generated family of families_paging_test.go
// with a Before drawn beside its consumer.

type beforeKey struct{}

func TestPullBeforeDeclinedDocumentsAreNeverDownloaded(t *testing.T) {
	s := newGenServer(25)
	cl := genClient(t, s)
	var mu sync.Mutex
	befores := map[uuid.UUID]int{}
	handed := map[uuid.UUID]int{}
	var last PullProgress
	ctx := context.WithValue(context.Background(), beforeKey{}, "mine")
	err := cl.Documents.Pull(ctx, &PullParams{
		DocumentListParams: DocumentListParams{Limit: 4},
		Workers:            3,
		Before: func(ctx context.Context, d Document) error {
			if ctx.Value(beforeKey{}) != "mine" {
				return errors.New("Before did not get Pull's context")
			}
			mu.Lock()
			befores[d.ID]++
			mu.Unlock()
			if skipOdd(d) {
				return fmt.Errorf("claimed elsewhere: %w", ErrSkipDocument)
			}
			return nil
		},
		OnProgress: func(p PullProgress) { last = p },
	}, func(ctx context.Context, d Document, f *File) error {
		if ctx.Value(beforeKey{}) != "mine" {
			return errors.New("fn did not get Pull's context")
		}
		mu.Lock()
		handed[d.ID]++
		mu.Unlock()
		_, err := io.Copy(io.Discard, f)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	declined := 0
	for _, d := range s.docs {
		if befores[d.id] != 1 {
			t.Fatalf("Before called %d times for %s", befores[d.id], d.id)
		}
		if skipOdd(Document{ID: d.id}) {
			declined++
			if handed[d.id] != 0 || s.gets[d.id] != 0 || d.readAt >= 0 {
				t.Fatalf("declined %s: handed to fn %d times, downloaded %d times", d.id, handed[d.id], s.gets[d.id])
			}
		} else if handed[d.id] != 1 || s.gets[d.id] != 1 {
			t.Fatalf("%s: handed to fn %d times, downloaded %d times", d.id, handed[d.id], s.gets[d.id])
		}
	}
	if declined == 0 || declined == len(s.docs) {
		t.Fatalf("the case declines %d of %d: pick other ids", declined, len(s.docs))
	}
	if last.KeptOut != declined || last.Done != len(s.docs)-declined || last.Failed != 0 {
		t.Fatalf("last progress %+v, want %d kept out", last, declined)
	}
}

func TestPullBeforeErrorStopsPullWithoutTheDocumentUnfinished(t *testing.T) {
	s := newGenServer(30)
	cl := genClient(t, s)
	errClaims := errors.New("claims store down")
	bad := numberedID(9)
	err := cl.Documents.Pull(context.Background(), &PullParams{
		DocumentListParams: DocumentListParams{Limit: 5},
		Workers:            2,
		Before: func(ctx context.Context, d Document) error {
			if d.ID == bad {
				return errClaims
			}
			return nil
		},
	}, func(ctx context.Context, d Document, f *File) error {
		_, err := io.Copy(io.Discard, f)
		return err
	})
	var pe *PullError
	if !errors.As(err, &pe) || !errors.Is(err, errClaims) {
		t.Fatalf("Pull = %v (%T), want a *PullError wrapping Before's error", err, err)
	}
	if pe.Document != bad || slices.Contains(pe.Unfinished, bad) {
		t.Fatalf("PullError names %s, unfinished %v; want %s named and not unfinished", pe.Document, pe.Unfinished, bad)
	}
	if len(pe.Unfinished) != 0 {
		t.Fatalf("unfinished %v, but every download was read whole", pe.Unfinished)
	}
	if s.gets[bad] != 0 || s.byID[bad].readAt >= 0 {
		t.Fatal("the document whose Before failed was downloaded")
	}
	if want := "before downloading document " + bad.String() + ": claims store down"; !strings.Contains(err.Error(), want) {
		t.Fatalf("message %q, want it to contain %q", err, want)
	}
	// Every download that was made was handed to fn and finished.
	if n := len(s.gets); n != pe.Done {
		t.Fatalf("%d downloads, %d done", n, pe.Done)
	}
}

func TestPullBeforePanicAndGoexit(t *testing.T) {
	t.Run("panic", func(t *testing.T) {
		s := newGenServer(10)
		cl := genClient(t, s)
		defer func() {
			if v := recover(); v != "before broke" {
				t.Fatalf("recovered %v, want Before's panic", v)
			}
			if len(s.gets) > 1 {
				t.Fatalf("%d downloads after Before panicked", len(s.gets))
			}
		}()
		_ = cl.Documents.Pull(context.Background(), &PullParams{
			Workers: 1,
			Before: func(ctx context.Context, d Document) error {
				if d.ID == numberedID(1) {
					panic("before broke")
				}
				return nil
			},
		}, func(ctx context.Context, d Document, f *File) error { return nil })
		t.Fatal("Pull returned after a panic in Before")
	})
	t.Run("goexit", func(t *testing.T) {
		s := newGenServer(10)
		cl := genClient(t, s)
		done := make(chan error, 1)
		go func() {
			done <- cl.Documents.Pull(context.Background(), &PullParams{
				Workers: 2,
				Before: func(ctx context.Context, d Document) error {
					if d.ID == numberedID(3) {
						runtime.Goexit()
					}
					return nil
				},
			}, func(ctx context.Context, d Document, f *File) error { return nil })
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(20 * time.Second): // a bound for a hang, not a measure
			t.Fatal("Pull hangs after a Goexit in Before")
		}
		var pe *PullError
		if !errors.As(err, &pe) || !errors.Is(err, errGoexit) || !strings.Contains(err.Error(), "in Before") {
			t.Fatalf("Pull = %v, want a *PullError for a Goexit in Before", err)
		}
		if pe.Document != numberedID(3) || slices.Contains(pe.Unfinished, numberedID(3)) || s.gets[numberedID(3)] != 0 {
			t.Fatalf("PullError %+v; downloads of the document %d", pe, s.gets[numberedID(3)])
		}
	})
}

func TestPullBeforeSeesTheContextEnd(t *testing.T) {
	s := newGenServer(10)
	cl := genClient(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := cl.Documents.Pull(ctx, &PullParams{
		Workers: 1,
		Before: func(ctx context.Context, d Document) error {
			if d.ID == numberedID(2) {
				cancel()
				<-ctx.Done() // the context Before gets ends with Pull's
				return ctx.Err()
			}
			return nil
		},
	}, func(ctx context.Context, d Document, f *File) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Pull = %v, want context.Canceled", err)
	}
	if s.gets[numberedID(2)] != 0 {
		t.Fatal("downloaded after Before failed")
	}
}

// rotatingListing lists three documents, in another order at each
// request, and never shrinks: no two walks over it see the same rows.
type rotatingListing struct{ n int }

func (r *rotatingListing) RoundTrip(req *http.Request) (*http.Response, error) {
	r.n++
	var rows []string
	if req.URL.Query().Get("offset") == "0" || req.URL.Query().Get("offset") == "" {
		for i := range 3 {
			rows = append(rows, fmt.Sprintf(`{"id":%q}`, numberedID((i+r.n)%3)))
		}
	}
	body := `{"success":true,"result":[` + strings.Join(rows, ",") + `]}`
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
}

func TestListingUnsettledIsASentinel(t *testing.T) {
	rl := &rotatingListing{}
	cl := genClient(t, rl)
	var err error
	n := 0
	for _, e := range cl.Documents.All(context.Background(), nil) {
		if e != nil {
			err = e
			break
		}
		n++
	}
	if !errors.Is(err, ErrListingUnsettled) || n != 3 {
		t.Fatalf("All = %v after %d documents, want ErrListingUnsettled after 3", err, n)
	}
	if !strings.Contains(ErrListingUnsettled.Error(), strconv.Itoa(paging.MaxPasses)+" passes") {
		t.Fatalf("the message %q does not say MaxPasses (%d)", ErrListingUnsettled, paging.MaxPasses)
	}
	if rl.n > 2*paging.MaxPasses+2 {
		t.Fatalf("%d listing requests for %d passes", rl.n, paging.MaxPasses)
	}
}

// beforeConsumer is a Pull whose Before is drawn too: it declines some
// documents, and may fail (an error, a panic, a Goexit) at its k-th call.
type beforeConsumer struct {
	limit, workers int
	declineMod     int // Before declines ids whose last byte is 0 modulo this; 0 none
	failAt         int // Before fails at its failAt-th call; 0 never
	failHow        string
	cancelAt       int // fn cancels the context at its cancelAt-th document; 0 never
}

func drawBeforeConsumer(t *rapid.T) beforeConsumer {
	c := beforeConsumer{
		limit:   rapid.SampledFrom([]int{1, 2, 3, 5, 8, 200}).Draw(t, "limit"),
		workers: rapid.IntRange(1, 32).Draw(t, "workers"),
	}
	if rapid.Bool().Draw(t, "declines") {
		c.declineMod = rapid.IntRange(1, 4).Draw(t, "declineMod")
	}
	if rapid.IntRange(0, 2).Draw(t, "beforeFails") == 0 {
		c.failAt = rapid.IntRange(1, 40).Draw(t, "failAt")
		c.failHow = rapid.SampledFrom([]string{"error", "panic", "goexit"}).Draw(t, "failHow")
	}
	if rapid.IntRange(0, 4).Draw(t, "cancels") == 0 {
		c.cancelAt = rapid.IntRange(1, 40).Draw(t, "cancelAt")
	}
	return c
}

var errBeforeFailed = errors.New("before failed")

type beforeOutcome struct {
	genOutcome
	befores  map[uuid.UUID]int
	declined map[uuid.UUID]bool
	failed   uuid.UUID // the document whose Before failed
	calls    int
}

func (c beforeConsumer) run(s *genServer) *beforeOutcome {
	o := &beforeOutcome{befores: map[uuid.UUID]int{}, declined: map[uuid.UUID]bool{}}
	o.init()
	cl := newGenClient(s)
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), beforeKey{}, "mine"))
	defer cancel()
	p := &PullParams{DocumentListParams: DocumentListParams{Limit: c.limit}, Workers: c.workers,
		Before: func(ctx context.Context, d Document) error {
			if ctx.Value(beforeKey{}) != "mine" {
				panic("Before without Pull's context")
			}
			o.mu.Lock()
			o.befores[d.ID]++
			o.calls++
			n := o.calls
			decline := c.declineMod > 0 && int(d.ID[15])%c.declineMod == 0
			if decline {
				o.declined[d.ID] = true
			}
			if c.failAt > 0 && n == c.failAt {
				o.failed = d.ID
			}
			o.mu.Unlock()
			if c.failAt > 0 && n == c.failAt {
				return breakDown(c.failHow, "before broke at "+d.ID.String(), errBeforeFailed)
			}
			if decline {
				return fmt.Errorf("left alone: %w", ErrSkipDocument)
			}
			return nil
		},
		OnProgress: func(pr PullProgress) {
			if pr.Err == nil && pr.Document.ID != uuid.Nil {
				o.mu.Lock()
				if o.declined[pr.Document.ID] {
					o.kept[pr.Document.ID] = true
				}
				o.mu.Unlock()
			}
		},
	}
	o.pull(ctx, cl, p, func(ctx context.Context, d Document, f *File) error {
		_, err := o.take(d, f, c.cancelAt, cancel)
		return err
	})
	return o
}

// check is the invariant of the family with Before: each document meets
// Before at most once; a declined document, or one whose Before failed, is
// never downloaded and never handed to fn, and is not unfinished; what fn
// was handed, it was handed once; a nil result means every document unread
// from the start that nobody else read was handed to fn or declined.
func (c beforeConsumer) check(t *rapid.T, s *genServer, o *beforeOutcome) {
	for id, n := range o.befores {
		if n != 1 {
			t.Fatalf("Before called %d times for %s", n, id)
		}
	}
	for id, n := range o.handed {
		if n != 1 {
			t.Fatalf("document %s handed to fn %d times", id, n)
		}
		if o.befores[id] != 1 {
			t.Fatalf("document %s handed to fn without Before", id)
		}
	}
	for id := range o.declined {
		if o.handed[id] != 0 || s.gets[id] != 0 {
			t.Fatalf("declined document %s handed to fn %d times, downloaded %d times", id, o.handed[id], s.gets[id])
		}
	}
	if o.failed != uuid.Nil && (o.handed[o.failed] != 0 || s.gets[o.failed] != 0) {
		t.Fatalf("document %s whose Before failed was downloaded", o.failed)
	}
	if o.panic != nil {
		if c.failHow != "panic" || !strings.HasPrefix(fmt.Sprint(o.panic), "before broke at ") {
			t.Fatalf("Pull panicked with %v", o.panic)
		}
		return
	}
	if o.failed != uuid.Nil && c.failHow == "panic" {
		t.Fatal("Before panicked, and Pull did not raise it")
	}
	if errors.Is(o.err, ErrPagingIgnored) && !s.ignoreOffset {
		t.Fatalf("ErrPagingIgnored from a server that honours the offset (%s)", s.describe())
	}
	if errors.Is(o.err, ErrSkipDocument) {
		t.Fatalf("a document left alone stopped Pull: %v", o.err)
	}
	if o.err == nil {
		if o.failed != uuid.Nil {
			t.Fatalf("Before failed for %s, and Pull returned nil", o.failed)
		}
		for _, id := range s.required() {
			if o.handed[id] != 1 && !o.kept[id] {
				t.Fatalf("nil error, but document %s was neither handed over nor declined (%s)", id, s.describe())
			}
		}
		for id := range o.declined {
			if !o.kept[id] {
				t.Fatalf("declined document %s not reported kept out", id)
			}
		}
		return
	}
	var pe *PullError
	if !errors.As(o.err, &pe) {
		t.Fatalf("Pull returned %v (%T), want a *PullError", o.err, o.err)
	}
	if o.failed != uuid.Nil && pe.Document == o.failed {
		if c.failHow == "error" && !errors.Is(o.err, errBeforeFailed) || c.failHow == "goexit" && !errors.Is(o.err, errGoexit) {
			t.Fatalf("Pull stopped at %s with %v, not Before's failure", o.failed, o.err)
		}
	}
	for _, id := range pe.Unfinished {
		if o.ok[id] || o.declined[id] || id == o.failed {
			t.Fatalf("document %s in Unfinished: finished %v, declined %v, Before failed %v", id, o.ok[id], o.declined[id], id == o.failed)
		}
	}
	var want []uuid.UUID
	for id := range o.handed {
		if !o.ok[id] {
			want = append(want, id)
		}
	}
	got := slices.DeleteFunc(slices.Clone(pe.Unfinished), func(id uuid.UUID) bool { return o.handed[id] == 0 })
	sortIDs(got)
	sortIDs(want)
	if !slices.Equal(got, want) {
		t.Fatalf("Unfinished (of those fn had) %v, want %v; err %v", got, want, o.err)
	}
	if pe.Done != len(o.ok) {
		t.Fatalf("PullError.Done %d, fn returned nil %d times", pe.Done, len(o.ok))
	}
}

// beforeChecks is how many cases TestPullBeforeOnGeneratedServers runs
// when -rapid.checks is not given (about a millisecond each).
const beforeChecks = 400

func TestPullBeforeOnGeneratedServers(t *testing.T) {
	if !flagGiven("rapid.checks") {
		defer setFlag(t, "rapid.checks", strconv.Itoa(beforeChecks))()
	}
	rapid.Check(t, func(t *rapid.T) {
		s := drawServer(t)
		c := drawBeforeConsumer(t)
		c.check(t, s, runCase(t, s.describe, c, func() *beforeOutcome { return c.run(s) }))
	})
}

// postRoom is a documents API whose unread listing really shrinks: a
// download marks the document read and takes it out of the listing. With
// a maxDelay it answers every request after a random delay up to it, so
// that downloads finish out of order and listings see them half done.
type postRoom struct {
	maxDelay time.Duration
	// keep, when set, leaves downloaded documents in the unread listing
	// (an API that marks them read late, or never).
	keep bool
	// fail, when it returns a status, answers the request with it.
	fail func(r *http.Request) int
	// idless documents without an id head the listing.
	idless int
	// unusable lists, before the document at each index, a record whose
	// id is the given JSON value (not a UUID): nothing can download it.
	unusable map[int]string

	mu        sync.Mutex
	rng       *rand.Rand
	ids       []uuid.UUID
	read      map[uuid.UUID]bool
	downloads map[uuid.UUID]int
	lists     int
}

func newPostRoom(n int, seed uint64, maxDelay time.Duration) *postRoom {
	m := &postRoom{maxDelay: maxDelay, rng: rand.New(rand.NewPCG(seed, seed+1)),
		read: map[uuid.UUID]bool{}, downloads: map[uuid.UUID]int{}}
	for i := range n {
		m.ids = append(m.ids, numberedID(i))
	}
	return m
}

// pdf is the content of document id's file.
func postPDF(id uuid.UUID) string { return "%PDF-1.4 " + id.String() + strings.Repeat(".", 100) }

func (m *postRoom) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	delay := time.Duration(m.rng.Int64N(int64(m.maxDelay) + 1))
	m.mu.Unlock()
	select {
	case <-time.After(delay):
	case <-r.Context().Done():
		return
	}
	if m.fail != nil {
		if status := m.fail(r); status != 0 {
			writeJSON(w, status, `{"message":"refused"}`)
			return
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if strings.HasSuffix(r.URL.Path, "/download") {
		id := uuid.MustParse(strings.Split(r.URL.Path, "/")[2])
		if !m.keep {
			m.read[id] = true
		}
		m.downloads[id]++
		w.Header().Set("Content-Type", "application/pdf")
		io.WriteString(w, postPDF(id))
		return
	}
	m.lists++
	q := r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	offset, _ := strconv.Atoi(q.Get("offset"))
	wantRead := q.Get("status") == "read"
	var listed []string
	for i := range m.idless {
		listed = append(listed, fmt.Sprintf(`{"id":null,"title":"no id %d"}`, i))
	}
	for i, id := range m.ids {
		if raw, ok := m.unusable[i]; ok && !wantRead {
			listed = append(listed, fmt.Sprintf(`{"id":%s,"status":"unread","title":"unusable id"}`, raw))
		}
		if m.read[id] == wantRead {
			listed = append(listed, fmt.Sprintf(`{"id":"%s","status":"unread","title":"letter"}`, id))
		}
	}
	end := min(offset+limit, len(listed))
	offset = min(offset, len(listed))
	ok("["+strings.Join(listed[offset:end], ",")+"]")(w, r)
}

func (m *postRoom) downloaded() map[uuid.UUID]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps(m.downloads)
}

func maps[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// pullRecorder is an fn for Pull that reads each file whole, checks it and
// counts the documents it was given.
type pullRecorder struct {
	mu    sync.Mutex
	got   map[uuid.UUID]int
	bytes int64
	check func(d Document, body []byte) error
}

func newPullRecorder() *pullRecorder { return &pullRecorder{got: map[uuid.UUID]int{}} }

func (p *pullRecorder) fn(ctx context.Context, d Document, f *File) error {
	b, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	if p.check != nil {
		if err := p.check(d, b); err != nil {
			return err
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.got[d.ID]++
	p.bytes += int64(len(b))
	return nil
}

func (p *pullRecorder) counts() map[uuid.UUID]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps(p.got)
}

// checkOnce checks that want is exactly the set of documents handed out,
// each once.
func checkOnce(t *testing.T, what string, got map[uuid.UUID]int, want []uuid.UUID) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d distinct documents, want %d", what, len(got), len(want))
	}
	for _, id := range want {
		if got[id] != 1 {
			t.Fatalf("%s: document %s handed out %d times", what, id, got[id])
		}
	}
}

func TestPullHandsEachDocumentOnceForEveryWorkerCount(t *testing.T) {
	// Every worker count from 1 to 32, pages of several sizes, random
	// delays on every request (so downloads finish out of order while the
	// unread listing shrinks under the pull), and several seeds.
	limits := []int{1, 3, 7, 20, 50, 200}
	runs := 3
	if testing.Short() {
		runs = 1
	}
	for workers := 1; workers <= maxPullWorkers; workers++ {
		for run := range runs {
			seed := uint64(workers*100 + run)
			limit := limits[(workers+run)%len(limits)]
			n := 40 + int(seed%61)
			name := fmt.Sprintf("workers=%d/run=%d/limit=%d/docs=%d", workers, run, limit, n)
			m := newPostRoom(n, seed, 2*time.Millisecond)
			m.keep = run == 2 // the last run: an API that does not shrink the listing
			srv := newAPIServer(t, m.ServeHTTP)
			c := newTestClient(t, srv)
			rec := newPullRecorder()
			rec.check = func(d Document, body []byte) error {
				if string(body) != postPDF(d.ID) {
					return fmt.Errorf("document %s: got %q", d.ID, body)
				}
				return nil
			}
			var progress []PullProgress
			err := c.Documents.Pull(context.Background(), &PullParams{
				DocumentListParams: DocumentListParams{Limit: limit},
				Workers:            workers,
				OnProgress:         func(p PullProgress) { progress = append(progress, p) },
			}, rec.fn)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkOnce(t, name+" fn", rec.counts(), m.ids)
			checkOnce(t, name+" downloads", m.downloaded(), m.ids)
			if len(progress) != n {
				t.Fatalf("%s: OnProgress called %d times", name, len(progress))
			}
			last := progress[n-1]
			if last.Done != n || last.Failed != 0 || last.Bytes != rec.bytes || last.Bytes != int64(n*len(postPDF(uuid.Nil))) {
				t.Fatalf("%s: last progress %+v, %d bytes read", name, last, rec.bytes)
			}
			srv.Close()
		}
	}
}

func TestPullRefusesBadParamsAndSendsNothing(t *testing.T) {
	srv := newAPIServer(t, newPostRoom(3, 1, 0).ServeHTTP)
	c := newTestClient(t, srv)
	fn := newPullRecorder().fn
	cases := []struct {
		name  string
		p     *PullParams
		fn    func(context.Context, Document, *File) error
		field string
	}{
		{"negative workers", &PullParams{Workers: -1}, fn, "workers"},
		{"too many workers", &PullParams{Workers: 33}, fn, "workers"},
		{"no fn", nil, nil, "fn"},
		{"limit too large", &PullParams{DocumentListParams: DocumentListParams{Limit: 201}}, fn, "limit"},
		{"negative offset", &PullParams{DocumentListParams: DocumentListParams{Offset: -1}}, fn, "offset"},
		{"stop before start", &PullParams{DocumentListParams: DocumentListParams{Start: time.Now(), Stop: time.Now().Add(-time.Hour)}}, fn, "stop"},
	}
	for _, tc := range cases {
		err := c.Documents.Pull(context.Background(), tc.p, tc.fn)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != tc.field || !errors.Is(err, ErrInvalidParams) {
			t.Fatalf("%s: got %v, want a validation error on %s", tc.name, err, tc.field)
		}
	}
	if srv.count() != 0 {
		t.Fatalf("the server received %d requests", srv.count())
	}
}

// checkUnfinished checks a *PullError against what the server and fn saw:
// its Unfinished are exactly the documents downloaded (or asked for) whose
// fn did not return nil. When the context was cancelled, downloads asked for
// may have been cut off before the server counted them: Unfinished may hold
// those too, but never a finished one.
func checkUnfinished(t *testing.T, err error, asked map[uuid.UUID]int, finished map[uuid.UUID]int, cancelled ...bool) *PullError {
	t.Helper()
	var pe *PullError
	if !errors.As(err, &pe) {
		t.Fatalf("got %v (%T), want a *PullError", err, err)
	}
	if pe.Done != len(finished) {
		t.Fatalf("Done %d, fn returned nil %d times", pe.Done, len(finished))
	}
	var want []uuid.UUID
	for id := range asked {
		if finished[id] == 0 {
			want = append(want, id)
		}
	}
	got := slices.Clone(pe.Unfinished)
	if len(cancelled) > 0 && cancelled[0] {
		got = slices.DeleteFunc(got, func(id uuid.UUID) bool {
			if finished[id] > 0 {
				t.Fatalf("finished document %s is in Unfinished", id)
			}
			return asked[id] == 0
		})
	}
	sortIDs(want)
	sortIDs(got)
	if !slices.Equal(got, want) {
		t.Fatalf("Unfinished %v, want %v", pe.Unfinished, want)
	}
	for id, n := range asked {
		if n != 1 {
			t.Fatalf("document %s asked for %d times", id, n)
		}
	}
	return pe
}

func sortIDs(ids []uuid.UUID) {
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
}

func TestPullStopsAtTheFirstErrorOfFn(t *testing.T) {
	before := goleak.IgnoreCurrent()
	m := newPostRoom(200, 3, time.Millisecond)
	srv := newAPIServer(t, m.ServeHTTP)
	c := newTestClient(t, srv)
	rec := newPullRecorder()
	bad := m.ids[17]
	var calls atomic.Int32
	var progress []PullProgress
	err := c.Documents.Pull(context.Background(), &PullParams{Workers: 6, DocumentListParams: DocumentListParams{Limit: 20},
		OnProgress: func(p PullProgress) { progress = append(progress, p) },
	}, func(ctx context.Context, d Document, f *File) error {
		calls.Add(1)
		if d.ID == bad {
			return fmt.Errorf("saving %s: %w", d.ID, errShredder)
		}
		return rec.fn(ctx, d, f)
	})
	pe := checkUnfinished(t, err, m.downloaded(), rec.counts())
	if !errors.Is(err, errShredder) || pe.Document != bad || !slices.Contains(pe.Unfinished, bad) {
		t.Fatalf("got %v (document %s), want the shredder error on %s", err, pe.Document, bad)
	}
	// The pull stopped soon after the error (the other workers finish what
	// they had), and fn had every document downloaded.
	if n := len(m.downloaded()); n >= 60 || int(calls.Load()) != n {
		t.Fatalf("%d downloads, %d calls of fn after an error at the 18th document", n, calls.Load())
	}
	lastFailed := 0
	for _, p := range progress {
		if p.Err != nil {
			lastFailed++
			if p.Document.ID != bad || !errors.Is(p.Err, errShredder) {
				t.Fatalf("progress %+v", p)
			}
		}
	}
	if lastFailed != 1 || progress[len(progress)-1].Failed != 1 {
		t.Fatalf("progress reported %d failures", lastFailed)
	}
	noLeaks(t, before, srv, c)
}

func TestPullStopsAtTheFirstFailedDownload(t *testing.T) {
	before := goleak.IgnoreCurrent()
	m := newPostRoom(120, 4, time.Millisecond)
	gone := m.ids[30]
	m.fail = func(r *http.Request) int {
		if strings.Contains(r.URL.Path, gone.String()) {
			return http.StatusNotFound
		}
		return 0
	}
	srv := newAPIServer(t, m.ServeHTTP)
	c := newTestClient(t, srv)
	rec := newPullRecorder()
	err := c.Documents.Pull(context.Background(), &PullParams{Workers: 5, DocumentListParams: DocumentListParams{Limit: 25}}, rec.fn)
	asked := m.downloaded()
	asked[gone] = 1 // asked for, refused
	pe := checkUnfinished(t, err, asked, rec.counts())
	if !errors.Is(err, ErrNotFound) || pe.Document != gone {
		t.Fatalf("got %v, want a not-found error on %s", err, gone)
	}
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusNotFound {
		t.Fatalf("errors.As APIError: %v", err)
	}
	noLeaks(t, before, srv, c)
}

func TestPullStopsWhenAListingRequestFails(t *testing.T) {
	before := goleak.IgnoreCurrent()
	m := newPostRoom(100, 5, time.Millisecond)
	var lists atomic.Int32
	m.fail = func(r *http.Request) int {
		if r.URL.Path == "/documents" && lists.Add(1) == 3 {
			return http.StatusForbidden
		}
		return 0
	}
	srv := newAPIServer(t, m.ServeHTTP)
	c := newTestClient(t, srv)
	rec := newPullRecorder()
	err := c.Documents.Pull(context.Background(), &PullParams{Workers: 4, DocumentListParams: DocumentListParams{Limit: 10}}, rec.fn)
	pe := checkUnfinished(t, err, m.downloaded(), rec.counts())
	if !errors.Is(err, ErrForbidden) || pe.Document != uuid.Nil || len(pe.Unfinished) != 0 || pe.Done == 0 || pe.Done >= 100 {
		t.Fatalf("got %v (%+v), want the listing's 403 after some documents, none unfinished", err, pe)
	}
	noLeaks(t, before, srv, c)
}

func TestPullStopsWhenTheContextEnds(t *testing.T) {
	before := goleak.IgnoreCurrent()
	m := newPostRoom(300, 6, 2*time.Millisecond)
	srv := newAPIServer(t, m.ServeHTTP)
	c := newTestClient(t, srv)
	rec := newPullRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen atomic.Int32
	err := c.Documents.Pull(ctx, &PullParams{Workers: 8, DocumentListParams: DocumentListParams{Limit: 30}},
		func(ctx context.Context, d Document, f *File) error {
			if seen.Add(1) == 40 {
				cancel()
			}
			return rec.fn(ctx, d, f)
		})
	pe := checkUnfinished(t, err, m.downloaded(), rec.counts(), true)
	if !errors.Is(err, context.Canceled) || pe.Done < 30 || pe.Done > 60 {
		t.Fatalf("got %v after %d documents", err, pe.Done)
	}
	noLeaks(t, before, srv, c)
}

func TestPullClosesEachFileAndCallsOnProgressOneAtATime(t *testing.T) {
	m := newPostRoom(80, 9, time.Millisecond)
	srv := newAPIServer(t, m.ServeHTTP)
	c := newTestClient(t, srv)
	var mu sync.Mutex
	var files []*File
	var inside atomic.Int32
	calls, prevDone := 0, 0
	err := c.Documents.Pull(context.Background(), &PullParams{Workers: 16, DocumentListParams: DocumentListParams{Limit: 11},
		OnProgress: func(p PullProgress) {
			if inside.Add(1) != 1 {
				t.Error("OnProgress called while another call runs")
			}
			defer inside.Add(-1)
			time.Sleep(100 * time.Microsecond)
			calls++
			if p.Done != prevDone+1 || p.Err != nil {
				t.Errorf("progress %+v after %d done", p, prevDone)
			}
			prevDone = p.Done
		}}, func(ctx context.Context, d Document, f *File) error {
		// Read only the first bytes: Pull still closes the file.
		buf := make([]byte, 9)
		if _, err := io.ReadFull(f, buf); err != nil || string(buf) != "%PDF-1.4 " {
			return fmt.Errorf("read %q: %v", buf, err)
		}
		mu.Lock()
		files = append(files, f)
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 80 || len(files) != 80 {
		t.Fatalf("%d progress calls, %d files", calls, len(files))
	}
	for _, f := range files {
		if _, err := f.Read(make([]byte, 1)); err == nil {
			t.Fatal("a file can still be read after Pull returned")
		}
	}
}

func TestPullRaisesAPanicOfFnAfterStopping(t *testing.T) {
	before := goleak.IgnoreCurrent()
	m := newPostRoom(60, 10, time.Millisecond)
	srv := newAPIServer(t, m.ServeHTTP)
	c := newTestClient(t, srv)
	var done atomic.Int32
	got := func() (v any) {
		defer func() { v = recover() }()
		_ = c.Documents.Pull(context.Background(), &PullParams{Workers: 4, DocumentListParams: DocumentListParams{Limit: 10}},
			func(ctx context.Context, d Document, f *File) error {
				if done.Add(1) == 12 {
					panic("fn broke")
				}
				return nil
			})
		return nil
	}()
	if got != "fn broke" {
		t.Fatalf("recovered %v", got)
	}
	noLeaks(t, before, srv, c)
}

func TestPullRaisesAPanicOfOnProgressAfterStopping(t *testing.T) {
	before := goleak.IgnoreCurrent()
	m := newPostRoom(60, 11, time.Millisecond)
	srv := newAPIServer(t, m.ServeHTTP)
	c := newTestClient(t, srv)
	calls := 0
	rec := newPullRecorder()
	got := func() (v any) {
		defer func() { v = recover() }()
		_ = c.Documents.Pull(context.Background(), &PullParams{Workers: 4, DocumentListParams: DocumentListParams{Limit: 10},
			OnProgress: func(p PullProgress) {
				if calls++; calls == 5 {
					panic("progress broke")
				}
			}}, rec.fn)
		return nil
	}()
	if got != "progress broke" || calls != 5 {
		t.Fatalf("recovered %v after %d calls", got, calls)
	}
	// The pull stopped: the downloads in flight finished, no more began.
	if n := len(m.downloaded()); n >= 60 || len(rec.counts()) != n {
		t.Fatalf("%d downloads, %d handed to fn", n, len(rec.counts()))
	}
	noLeaks(t, before, srv, c)
}

func TestWorkerPoolFedFromAllGetsEveryDocument(t *testing.T) {
	// A loop over All that hands each document to a worker and goes on at
	// once: All anchors its next request as if the downloads had answered
	// inside the loop body, and here they answer just after that request
	// (the server holds the third listing until they have), so the listing
	// shrinks under an offset already chosen and the first pass misses
	// half the mail. The rows it passed over then vanish, so the next pass
	// does not go over the same rows: All walks again and finds the rest.
	m := newPostRoom(4, 12, 0)
	var lists, downloads atomic.Int32
	secondListed := make(chan struct{})
	bothDownloaded := make(chan struct{})
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/documents" {
			switch lists.Add(1) {
			case 2:
				defer close(secondListed)
			case 3:
				<-bothDownloaded
			}
		} else if downloads.Add(1) == 2 {
			defer close(bothDownloaded)
		}
		m.ServeHTTP(w, r)
	})
	c := newTestClient(t, srv)
	ctx := context.Background()

	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[uuid.UUID]int{}
	for d, err := range c.Documents.All(ctx, &DocumentListParams{Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() { // a worker of the pool
			defer wg.Done()
			<-secondListed
			f, err := c.Documents.Download(ctx, d.ID)
			if err != nil {
				t.Error(err)
				return
			}
			f.Close()
			mu.Lock()
			got[d.ID]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	checkOnce(t, "All's pool", got, m.ids)
	// The first pass read pages at offsets 0, 0 and 2 (empty, the two
	// left having moved under it); the second found them.
	if lists.Load() < 4 {
		t.Fatalf("%d listing requests; the first pass cannot have missed anything", lists.Load())
	}
}

const docListJSON = `[
 {"id":"5b7e1a52-9d61-4c1e-8f0e-0c1d2e3f4a01","created_at":"2024-05-01 10:00:00 -0600","updated_at":"2024-05-01T10:05:00.250-06:00",
  "title":"Annual report notice","status":"unread","type":"Annual Report","source":"mail","pages":3,"payment_locked":false,
  "state":"Utah","company_name":"Acme LLC","company_id":"9a1b2c3d-0000-4000-8000-000000000001","_links":{"self":"x"}},
 {"id":"5b7e1a52-9d61-4c1e-8f0e-0c1d2e3f4a02","created_at":"2024-05-02 11:00:00 +0000","updated_at":null,
  "title":"Service of process","status":"read","type":"Delivered Service of Process","source":"hand-delivered","pages":1,"payment_locked":true,
  "jurisdiction":"Idaho","company_name":"Beta Inc","company_id":"9a1b2c3d-0000-4000-8000-000000000002","legacy_id":7}
]`

func TestDocumentsListRequestAndQuirks(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"success":"true","timestamp":"2024-05-02 11:00:00 +0000","result":`+docListJSON+`}`)
	})
	c := newTestClient(t, srv)
	start := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	stop := time.Date(2024, 5, 31, 23, 59, 59, 0, time.FixedZone("", -6*3600))
	docs, err := c.Documents.List(context.Background(), &DocumentListParams{Limit: 200, Offset: 10, Status: DocumentRead, Start: start, Stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	r := srv.last(t)
	wantQuery := "limit=200&offset=10&status=read&start=2024-05-01+00%3A00%3A00+%2B0000&stop=2024-05-31+23%3A59%3A59+-0600"
	if r.Method != "GET" || r.Path != "/documents" || r.RawQuery != wantQuery || !r.AuthOK {
		t.Fatalf("request %+v", r)
	}
	if len(docs) != 2 {
		t.Fatalf("got %d documents", len(docs))
	}
	d := docs[0]
	if d.ID != uuid.MustParse("5b7e1a52-9d61-4c1e-8f0e-0c1d2e3f4a01") || d.Title != "Annual report notice" || d.Status != DocumentUnread ||
		d.Type != "Annual Report" || d.Source != SourceMail || d.Pages != 3 || d.PaymentLocked || d.Jurisdiction != "Utah" ||
		d.CompanyName != "Acme LLC" || d.CompanyID != uuid.MustParse("9a1b2c3d-0000-4000-8000-000000000001") ||
		!d.CreatedAt.Equal(time.Date(2024, 5, 1, 16, 0, 0, 0, time.UTC)) || !d.UpdatedAt.Equal(time.Date(2024, 5, 1, 16, 5, 0, 250e6, time.UTC)) {
		t.Fatalf("first document %+v", d)
	}
	d = docs[1]
	if d.Jurisdiction != "Idaho" || d.Status != DocumentRead || d.Source != SourceHandDelivered || !d.PaymentLocked || !d.UpdatedAt.IsZero() {
		t.Fatalf("second document %+v", d)
	}
}

func TestDocumentsGetPageDownload(t *testing.T) {
	id := uuid.MustParse("5b7e1a52-9d61-4c1e-8f0e-0c1d2e3f4a01")
	png := "\x89PNG\r\n\x1a\nfake-png-bytes"
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/download"):
			w.Header().Set("Content-Type", "application/pdf")
			w.Header().Set("Content-Disposition", `attachment; filename="notice.pdf"`)
			w.Header().Set("Content-Length", "9")
			io.WriteString(w, "%PDF-1.4\n")
		case strings.Contains(r.URL.Path, "/page/"):
			w.Header().Set("Content-Type", "image/png")
			io.WriteString(w, png)
		default:
			ok(`{"id":"5b7e1a52-9d61-4c1e-8f0e-0c1d2e3f4a01","title":"x","jurisdiction":"Nevada","state":"ignored when jurisdiction is set"}`)(w, r)
		}
	})
	c := newTestClient(t, srv)
	ctx := context.Background()

	d, err := c.Documents.Get(ctx, id)
	if err != nil || d.ID != id || d.Jurisdiction != "Nevada" {
		t.Fatalf("Get: %+v, %v", d, err)
	}
	if r := srv.last(t); r.Path != "/documents/"+id.String() || r.RawQuery != "" || !r.AuthOK {
		t.Fatalf("Get request %+v", r)
	}

	f, err := c.Documents.Page(ctx, id, 2, &PageParams{DPI: 300})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != png || f.ContentType != "image/png" {
		t.Fatalf("Page: %q %q", b, f.ContentType)
	}
	if r := srv.last(t); r.Path != "/documents/"+id.String()+"/page/2" || r.RawQuery != "dpi=300" || !r.AuthOK {
		t.Fatalf("Page request %+v", r)
	}
	f, err = c.Documents.Page(ctx, id, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if r := srv.last(t); r.Path != "/documents/"+id.String()+"/page/0" || r.RawQuery != "" {
		t.Fatalf("Page without params %+v", r)
	}

	f, err = c.Documents.Download(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(f)
	f.Close()
	if string(b) != "%PDF-1.4\n" || f.ContentType != "application/pdf" || f.ContentLength != 9 || f.Filename != "notice.pdf" {
		t.Fatalf("Download: %q %+v", b, f)
	}
	if r := srv.last(t); r.Path != "/documents/"+id.String()+"/download" || r.Method != "GET" || !r.AuthOK {
		t.Fatalf("Download request %+v", r)
	}
}

func TestDocumentsValidationSendsNothing(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv)
	ctx := context.Background()
	id := uuid.New()
	now := time.Now()
	cases := []struct {
		name  string
		field string
		call  func() error
	}{
		{"limit above 200", "limit", func() error { _, err := c.Documents.List(ctx, &DocumentListParams{Limit: 201}); return err }},
		{"negative limit", "limit", func() error { _, err := c.Documents.List(ctx, &DocumentListParams{Limit: -1}); return err }},
		{"negative offset", "offset", func() error { _, err := c.Documents.List(ctx, &DocumentListParams{Offset: -5}); return err }},
		{"stop before start", "stop", func() error {
			_, err := c.Documents.List(ctx, &DocumentListParams{Start: now, Stop: now.Add(-time.Hour)})
			return err
		}},
		{"nil id on get", "id", func() error { _, err := c.Documents.Get(ctx, uuid.Nil); return err }},
		{"nil id on page", "id", func() error { _, err := c.Documents.Page(ctx, uuid.Nil, 0, nil); return err }},
		{"nil id on download", "id", func() error { _, err := c.Documents.Download(ctx, uuid.Nil); return err }},
		{"dpi 100", "dpi", func() error { _, err := c.Documents.Page(ctx, id, 0, &PageParams{DPI: 100}); return err }},
		{"negative dpi", "dpi", func() error { _, err := c.Documents.Page(ctx, id, 0, &PageParams{DPI: -72}); return err }},
		{"negative page", "page_number", func() error { _, err := c.Documents.Page(ctx, id, -1, nil); return err }},
		{"all with bad limit", "limit", func() error {
			for _, err := range c.Documents.All(ctx, &DocumentListParams{Limit: 500}) {
				return err
			}
			return nil
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var ve *ValidationError
			if !errors.Is(err, ErrInvalidParams) || !errors.As(err, &ve) || ve.Field != tc.field {
				t.Fatalf("got %v, want a validation error on %s", err, tc.field)
			}
		})
	}
	if srv.count() != 0 {
		t.Fatalf("the server received %d requests", srv.count())
	}
}

func TestDocumentsAllUnreadWhileDownloadingVisitsEachOnce(t *testing.T) {
	cases := []struct {
		name     string
		params   *DocumentListParams
		download func(i int) bool
		maxLists int
	}{
		// The explicit unread listing, downloading every document: no extra
		// request at all (20 pages and one empty answer).
		{"explicit unread, download all", &DocumentListParams{Status: DocumentUnread, Limit: 50}, func(int) bool { return true }, 21},
		// The default listing is the unread one.
		{"default params, download all", &DocumentListParams{Limit: 50}, func(int) bool { return true }, 21},
		// Downloading none, or some, costs the same: the walk knows from
		// the client which rows stay, and asks each page with the row
		// before it (20 pages and the answer that holds that row alone).
		{"download none", &DocumentListParams{Limit: 50}, func(int) bool { return false }, 21},
		{"download every other", &DocumentListParams{Limit: 50}, func(i int) bool { return i%2 == 0 }, 21},
		{"download every third", &DocumentListParams{Limit: 50}, func(i int) bool { return i%3 == 0 }, 21},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newPostRoom(1000, 1, 0)
			srv := newAPIServer(t, m.ServeHTTP)
			c := newTestClient(t, srv)
			ctx := context.Background()
			visits := map[uuid.UUID]int{}
			i := 0
			for d, err := range c.Documents.All(ctx, tc.params) {
				if err != nil {
					t.Fatal(err)
				}
				visits[d.ID]++
				if tc.download(i) {
					f, err := c.Documents.Download(ctx, d.ID)
					if err != nil {
						t.Fatal(err)
					}
					b, _ := io.ReadAll(f)
					f.Close()
					if string(b) != postPDF(d.ID) {
						t.Fatalf("downloaded %q", b)
					}
				}
				i++
			}
			if len(visits) != 1000 {
				t.Fatalf("visited %d distinct documents, want 1000", len(visits))
			}
			for id, n := range visits {
				if n != 1 {
					t.Fatalf("document %s visited %d times", id, n)
				}
			}
			if m.lists > tc.maxLists {
				t.Fatalf("%d listing requests, want at most %d", m.lists, tc.maxLists)
			}
		})
	}
}

func TestDocumentsAllNilParamsIsTheUnreadListing(t *testing.T) {
	m := newPostRoom(450, 1, 0)
	srv := newAPIServer(t, m.ServeHTTP)
	c := newTestClient(t, srv)
	n := 0
	for d, err := range c.Documents.All(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		f, err := c.Documents.Download(context.Background(), d.ID)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		n++
	}
	// Page size 200 (the maximum), three pages: the third, shorter than
	// the two before it, ends the listing (a server that caps its pages
	// makes them all as long, but the last).
	if n != 450 || len(m.downloaded()) != 450 || m.lists != 3 {
		t.Fatalf("visited %d, downloaded %d, %d listings", n, len(m.downloaded()), m.lists)
	}
	if q := srv.requests()[0].RawQuery; q != "limit=200" {
		t.Fatalf("first query %q", q)
	}
}

func TestDocumentsAllReadListingIsPrefetched(t *testing.T) {
	m := newPostRoom(300, 1, 0)
	for _, id := range m.ids {
		m.read[id] = true
	}
	srv := newAPIServer(t, m.ServeHTTP)
	c := newTestClient(t, srv)
	n := 0
	for _, err := range c.Documents.All(context.Background(), &DocumentListParams{Status: DocumentRead}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 300 {
		t.Fatalf("visited %d in %d listings", n, m.lists)
	}
	checkPagesAsked(t, srv, "limit=200&status=read", "limit=200&offset=200&status=read")
}

// heapSampler is an io.Writer that discards what it gets and records the
// highest live heap it sees along the way.
type heapSampler struct {
	written, next int64
	peak          uint64
}

func (h *heapSampler) Write(p []byte) (int, error) {
	h.written += int64(len(p))
	if h.written >= h.next {
		h.next = h.written + 8<<20
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h.peak = max(h.peak, ms.HeapInuse)
	}
	return len(p), nil
}

func TestDownloadStreamsInConstantMemory(t *testing.T) {
	const size = 256 << 20
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Header().Set("Content-Length", strconv.Itoa(size))
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	c := newTestClient(t, srv)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	f, err := c.Documents.Download(context.Background(), uuid.New())
	if err != nil {
		t.Fatal(err)
	}
	sampler := &heapSampler{}
	n, err := io.Copy(sampler, f)
	f.Close()
	if err != nil || n != size || f.ContentLength != size {
		t.Fatalf("copied %d of %d bytes: %v", n, size, err)
	}
	growth := int64(sampler.peak) - int64(before.HeapInuse)
	t.Logf("heap grew by at most %d KiB while streaming %d MiB", growth>>10, size>>20)
	if growth > 8<<20 {
		t.Fatalf("heap grew by %d MiB while streaming a %d MiB file", growth>>20, size>>20)
	}
}

// unusableIDRoom is an unread listing of five documents and, third, one
// listed with the id "legacy-42", which is not a UUID.
func unusableIDRoom() *postRoom {
	m := newPostRoom(5, 4, 0)
	m.unusable = map[int]string{2: `"legacy-42"`}
	return m
}

func TestDocumentsWithAnUnusableIDCostOnlyThemselves(t *testing.T) {
	for _, raw := range []string{`"legacy-42"`, `42`, `""`, `{"n":1}`} {
		t.Run("List "+raw, func(t *testing.T) {
			m := newPostRoom(2, 4, 0)
			m.unusable = map[int]string{1: raw}
			c := newTestClient(t, newAPIServer(t, m.ServeHTTP))
			got, err := c.Documents.List(context.Background(), &DocumentListParams{Limit: 10})
			if err != nil || len(got) != 3 {
				t.Fatalf("List: %d documents, %v", len(got), err)
			}
			if got[0].ID != m.ids[0] || got[1].ID != uuid.Nil || got[1].Title != "unusable id" || got[2].ID != m.ids[1] {
				t.Fatalf("List: %+v", got)
			}
		})
	}
	t.Run("All downloading each", func(t *testing.T) {
		m := unusableIDRoom()
		c := newTestClient(t, newAPIServer(t, m.ServeHTTP))
		for run := range 3 {
			var titles []string
			for d, err := range c.Documents.All(context.Background(), nil) {
				if err != nil {
					t.Fatalf("run %d: %v", run, err)
				}
				titles = append(titles, d.Title)
				if d.ID == uuid.Nil {
					continue
				}
				f, err := c.Documents.Download(context.Background(), d.ID)
				if err != nil {
					t.Fatal(err)
				}
				f.Close()
			}
			// The first run yields all six (the one without a usable id
			// when the walk passes over it); that one stays unread, and
			// is all a later run finds.
			want := []string{"letter", "letter", "letter", "letter", "letter", "unusable id"}
			if run > 0 {
				want = []string{"unusable id"}
			}
			slices.Sort(titles)
			if !slices.Equal(titles, want) {
				t.Fatalf("run %d yielded %q, want %q", run, titles, want)
			}
		}
		for _, id := range m.ids {
			if m.downloaded()[id] != 1 {
				t.Fatalf("document %s downloaded %d times", id, m.downloaded()[id])
			}
		}
	})
	t.Run("Pull", func(t *testing.T) {
		for _, workers := range []int{1, 4} {
			m := unusableIDRoom()
			c := newTestClient(t, newAPIServer(t, m.ServeHTTP))
			rec := newPullRecorder()
			var last PullProgress
			err := c.Documents.Pull(context.Background(), &PullParams{Workers: workers, DocumentListParams: DocumentListParams{Limit: 2},
				OnProgress: func(p PullProgress) { last = p }}, rec.fn)
			if err != nil {
				t.Fatalf("%d workers: %v", workers, err)
			}
			checkOnce(t, "fn", rec.counts(), m.ids)
			if last.Done != 5 || last.Skipped != 1 || last.Failed != 0 {
				t.Fatalf("%d workers: last progress %+v, want 5 done and 1 skipped", workers, last)
			}
		}
	})
}

// Bad parameters of Documents are refused before anything is sent, by a
// *ValidationError naming the field as the API spells it.
func TestDocumentsRefuseBadParams(t *testing.T) {
	checkRefused(t, []badParams{
		{"page url nil id", "id", func(ctx context.Context, c *Client) error {
			_, err := c.Documents.PageURL(ctx, uuid.Nil, 0)
			return err
		}},
		{"page url negative page", "page_number", func(ctx context.Context, c *Client) error {
			_, err := c.Documents.PageURL(ctx, wcDocument, -1)
			return err
		}},
		{"bulk download no ids", "ids", func(ctx context.Context, c *Client) error { _, err := c.Documents.BulkDownload(ctx); return err }},
		{"bulk download nil id", "ids", func(ctx context.Context, c *Client) error {
			_, err := c.Documents.BulkDownload(ctx, wcDocument, uuid.Nil)
			return err
		}},
	})
}

func TestDocumentsListByJurisdictionAndCompany(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv)
	company := uuid.MustParse("9a1b2c3d-0000-4000-8000-000000000001")
	got, err := c.Documents.List(context.Background(), &DocumentListParams{Limit: 20, Status: DocumentRead, Jurisdiction: "New Mexico", CompanyID: company})
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("List = %v, %v; want an empty list", got, err)
	}
	requireSent(t, srv, http.MethodGet, "/documents", "limit=20&status=read&jurisdiction=New+Mexico&company_id=9a1b2c3d-0000-4000-8000-000000000001")

	// All sends them with every page.
	srv = newAPIServer(t, offsetPager(3, func(i int) string { return `{"id":"` + indexID(i).String() + `","status":"read"}` }))
	c = newTestClient(t, srv)
	docs, errs := collectSeq(c.Documents.All(context.Background(), &DocumentListParams{Status: DocumentRead, Jurisdiction: "UT", CompanyID: company}))
	if len(docs) != 3 || len(errs) != 0 {
		t.Fatalf("All gave %d documents and %v", len(docs), errs)
	}
	for _, r := range srv.requests() {
		if !strings.HasSuffix(r.RawQuery, "status=read&jurisdiction=UT&company_id=9a1b2c3d-0000-4000-8000-000000000001") {
			t.Fatalf("page asked as %q", r.RawQuery)
		}
	}
}

// Customers' clients see far more document types than the first spec's
// ten; every one is kept as it comes, and a document may name its place
// as both state and jurisdiction.
func TestDocumentsKeepAnyTypeString(t *testing.T) {
	types := []string{"Certified Mail service of Process", "Hand delivered service of process", "EIN - SS4 Form", "BOI Initial",
		"Vehicle Renewal Notice", "Bad Scan", "Historical", "VO Office Lease", "a type nobody has seen yet", ""}
	items := make([]string, len(types))
	for i, ty := range types {
		items[i] = `{"id":"` + indexID(i).String() + `","type":` + strconv.Quote(ty) + `,"state":"Utah","jurisdiction":"UT"}`
	}
	srv := newAPIServer(t, ok(`[`+strings.Join(items, ",")+`]`))
	c := newTestClient(t, srv)
	docs, err := c.Documents.List(context.Background(), nil)
	if err != nil || len(docs) != len(types) {
		t.Fatalf("List = %d documents, %v", len(docs), err)
	}
	for i, d := range docs {
		if d.Type != types[i] || d.Jurisdiction != "UT" {
			t.Errorf("document %d: type %q, jurisdiction %q; want %q, UT", i, d.Type, d.Jurisdiction, types[i])
		}
	}
}

func TestDocumentsUnlock(t *testing.T) {
	doc, card, inv := numberedID(7), wcCard, wcInvoice
	answers := map[string]string{
		"beside result": `{"success":true,"action":"capture","amount":25.5,"result":"Payment captured","invoice_ids":["` + inv.String() + `"]}`,
		"inside result": `{"success":true,"result":{"action":"capture","amount":"25.50","invoice_ids":["` + inv.String() + `"]}}`,
		"invoices":      `{"success":true,"action":"capture","amount":25.50,"result":[{"id":"` + inv.String() + `","status":"paid"}]}`,
	}
	for name, body := range answers {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, body) })
		c := newTestClient(t, srv)
		got, err := c.Documents.Unlock(context.Background(), doc, card)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.Action != "capture" || got.Amount.String() != "25.50" && got.Amount.String() != "25.5" ||
			!slices.Equal(got.InvoiceIDs, []uuid.UUID{inv}) {
			t.Fatalf("%s: got %+v", name, got)
		}
		if name == "beside result" && got.Result != "Payment captured" {
			t.Fatalf("%s: Result = %q", name, got.Result)
		}
		req := srv.last(t)
		if srv.count() != 1 || req.Method != http.MethodPost || req.Path != "/documents/unlock/"+doc.String() ||
			req.Body != `{"payment_token":"`+card.String()+`"}` || !req.AuthOK {
			t.Fatalf("%s: sent %d request(s), the last %s %s %s (auth %v)", name, srv.count(), req.Method, req.Path, req.Body, req.AuthOK)
		}
	}

	// A declined card: one request, ErrPaymentDeclined.
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 402, `{"success":false,"message":"the card ending 0002 was declined"}`)
	})
	_, err := newTestClient(t, srv).Documents.Unlock(context.Background(), doc, card)
	if !errors.Is(err, ErrPaymentDeclined) || errors.Is(err, ErrPaymentRequired) || errors.Is(err, ErrOutcomeUnknown) || srv.count() != 1 {
		t.Fatalf("declined: err = %v after %d request(s), want ErrPaymentDeclined after 1", err, srv.count())
	}

	// A 503: sent once, the outcome is unknown, and the error says how to
	// find out.
	srv = newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 503, `{"message":"busy"}`) })
	_, err = newTestClient(t, srv).Documents.Unlock(context.Background(), doc, card)
	if !errors.Is(err, ErrOutcomeUnknown) || srv.count() != 1 || !strings.Contains(err.Error(), "Documents.Get shows whether the document is still payment-locked") {
		t.Fatalf("503: err = %v after %d request(s), want ErrOutcomeUnknown after 1", err, srv.count())
	}

	// Nil ids: nothing is sent.
	srv = newAPIServer(t, ok(`{}`))
	c := newTestClient(t, srv)
	for _, ids := range [][2]uuid.UUID{{uuid.Nil, card}, {doc, uuid.Nil}} {
		if _, err := c.Documents.Unlock(context.Background(), ids[0], ids[1]); !errors.Is(err, ErrInvalidParams) {
			t.Fatalf("Unlock(%s, %s): err = %v, want ErrInvalidParams", ids[0], ids[1], err)
		}
	}
	if srv.count() != 0 {
		t.Fatalf("invalid calls sent %d request(s)", srv.count())
	}
}

// lockedRoom is a postRoom whose documents locked answer a download with
// 402, as the API does for a payment-locked document, and stay unread;
// refusals counts those answers.
func lockedRoom(n int, seed uint64, maxDelay time.Duration, locked map[int]bool) (*postRoom, *sync.Map) {
	m := newPostRoom(n, seed, maxDelay)
	refusals := new(sync.Map)
	lockedIDs := map[string]bool{}
	for i := range locked {
		lockedIDs[m.ids[i].String()] = true
	}
	m.fail = func(r *http.Request) int {
		parts := strings.Split(r.URL.Path, "/")
		if strings.HasSuffix(r.URL.Path, "/download") && lockedIDs[parts[2]] {
			v, _ := refusals.LoadOrStore(parts[2], new(atomic.Int64))
			v.(*atomic.Int64).Add(1)
			return http.StatusPaymentRequired
		}
		return 0
	}
	return m, refusals
}

// Pull leaves a payment-locked document unread, tries its download once,
// counts it in Locked and goes on with the others; the pull succeeds.
func TestPullLeavesPaymentLockedDocuments(t *testing.T) {
	locked := map[int]bool{0: true, 3: true, 4: true, 11: true}
	for _, workers := range []int{1, 4} {
		for _, limit := range []int{1, 3, 50} {
			m, refusals := lockedRoom(12, 9, 0, locked)
			c := newTestClient(t, newAPIServer(t, m.ServeHTTP))
			rec := newPullRecorder()
			var last PullProgress
			var lockedSeen []uuid.UUID
			err := c.Documents.Pull(context.Background(), &PullParams{Workers: workers, DocumentListParams: DocumentListParams{Limit: limit},
				OnProgress: func(p PullProgress) {
					last = p
					if errors.Is(p.Err, ErrPaymentRequired) {
						lockedSeen = append(lockedSeen, p.Document.ID)
					}
				}}, rec.fn)
			if err != nil {
				t.Fatalf("%d workers, limit %d: %v", workers, limit, err)
			}
			var open []uuid.UUID
			for i, id := range m.ids {
				if !locked[i] {
					open = append(open, id)
				}
			}
			checkOnce(t, "fn", rec.counts(), open)
			if last.Locked != len(locked) || last.Done != len(open) || last.Failed != 0 {
				t.Fatalf("%d workers, limit %d: last progress %+v, want %d locked and %d done", workers, limit, last, len(locked), len(open))
			}
			if len(lockedSeen) != len(locked) {
				t.Fatalf("%d workers, limit %d: %d progress calls with ErrPaymentRequired, want %d", workers, limit, len(lockedSeen), len(locked))
			}
			for i := range locked {
				v, _ := refusals.Load(m.ids[i].String())
				if v == nil || v.(*atomic.Int64).Load() != 1 {
					t.Fatalf("%d workers, limit %d: locked document %d refused %v times, want once", workers, limit, i, v)
				}
			}
		}
	}
}

// Over every listing with payment-locked documents among the others, any
// page size and worker count, and downloads that answer out of order:
// Pull returns nil, hands every other document to fn exactly once, asks
// for each locked one's download once, and counts them in Locked.
func TestPullWithLockedDocumentsGenerated(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 30).Draw(rt, "documents")
		locked := map[int]bool{}
		if n > 0 {
			for _, i := range rapid.SliceOfDistinct(rapid.IntRange(0, n-1), rapid.ID[int]).Draw(rt, "locked") {
				locked[i] = true
			}
		}
		workers := rapid.IntRange(1, 8).Draw(rt, "workers")
		limit := rapid.IntRange(1, 12).Draw(rt, "limit")
		delay := time.Duration(rapid.IntRange(0, 2).Draw(rt, "delay")) * time.Millisecond
		m, refusals := lockedRoom(n, rapid.Uint64().Draw(rt, "seed"), delay, locked)
		srv := newAPIServer(t, m.ServeHTTP)
		c := newTestClient(t, srv)
		rec := newPullRecorder()
		var last PullProgress
		err := c.Documents.Pull(context.Background(), &PullParams{Workers: workers, DocumentListParams: DocumentListParams{Limit: limit},
			OnProgress: func(p PullProgress) { last = p }}, rec.fn)
		if err != nil {
			rt.Fatalf("Pull: %v", err)
		}
		got := rec.counts()
		for i, id := range m.ids {
			v, _ := refusals.Load(id.String())
			switch {
			case locked[i] && (v == nil || v.(*atomic.Int64).Load() != 1):
				rt.Fatalf("locked document %d refused %v times, want once", i, v)
			case locked[i] && got[id] != 0:
				rt.Fatalf("locked document %d handed to fn", i)
			case !locked[i] && got[id] != 1:
				rt.Fatalf("document %d handed to fn %d times", i, got[id])
			}
		}
		if n > 0 && (last.Locked != len(locked) || last.Done != n-len(locked)) {
			rt.Fatalf("last progress %+v, want %d locked, %d done", last, len(locked), n-len(locked))
		}
	})
}

// A link answered as a bare string is that URL, kept whole in Raw; an
// object is read field by field.
func TestFileLinkAsABareStringOrAnObject(t *testing.T) {
	const url = "https://files.example.com/p/2?sig=abc"
	id := uuid.MustParse("5b7e1a52-9d61-4c1e-8f0e-0c1d2e3f4a01")
	for answer, want := range map[string]FileLink{
		`"` + url + `"`: {URL: url, Raw: []byte(`"` + url + `"`)},
		`{"url":"` + url + `","expires_at":"2030-01-01 00:00:00 +0000"}`: {URL: url, ExpiresAt: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC),
			Raw: []byte(`{"url":"` + url + `","expires_at":"2030-01-01 00:00:00 +0000"}`)},
	} {
		srv := newAPIServer(t, ok(answer))
		l, err := newTestClient(t, srv).Documents.PageURL(context.Background(), id, 2)
		if err != nil || l.URL != want.URL || !l.ExpiresAt.Equal(want.ExpiresAt) || string(l.Raw) != string(want.Raw) || len(l.IDs) != 0 {
			t.Errorf("answer %s: %+v, %v; want %+v", answer, l, err, want)
		}
	}
}

// pullGuard is a genServer that cancels the pull once it has answered
// more listing requests than stop, so that a walk that does not end
// fails its test instead of hanging it.
type pullGuard struct {
	*genServer
	stop   int
	cancel context.CancelFunc
}

func (g pullGuard) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := g.genServer.RoundTrip(r)
	g.mu.Lock()
	over := g.lists > g.stop
	g.mu.Unlock()
	if over {
		g.cancel()
	}
	return resp, err
}

// A server that ignores both the offset and the limit sends the whole
// listing in every answer, and others change it before every answer: no
// answer repeats the one before, none is shorter. With every document
// declined by Before the listing never shrinks, so only the offset could
// end a pass. Three answers running that open as the one before end the
// pass (the page longer than asked for is the whole listing), and Pull
// ends once two passes agree (else with ErrListingUnsettled after
// MaxPasses), within the family's request bound, every document met by
// Before once and none downloaded.
func TestPullBeforeDecliningAllOnServerIgnoringPaging(t *testing.T) {
	s := &genServer{rng: &genRand{s: 3}, byID: map[uuid.UUID]*genDoc{}, gets: map[uuid.UUID]int{},
		ignoreOffset: true, ignoreLimit: true, othersEvery: 1, dupGap: 1}
	for i := range 45 {
		d := &genDoc{id: numberedID(i), title: "letter " + strconv.Itoa(i), readAt: -1, initial: true, dup: i%4 == 0}
		s.docs = append(s.docs, d)
		s.byID[d.id] = d
	}
	s.initial = len(s.docs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cl := newGenClient(pullGuard{genServer: s, stop: 1000, cancel: cancel})
	var mu sync.Mutex
	befores := map[uuid.UUID]int{}
	p := &PullParams{DocumentListParams: DocumentListParams{Limit: 3}, Workers: 17,
		Before: func(ctx context.Context, d Document) error {
			mu.Lock()
			befores[d.ID]++
			mu.Unlock()
			return ErrSkipDocument
		}}
	handed := 0
	err := cl.Documents.Pull(ctx, p, func(context.Context, Document, *File) error {
		handed++
		return nil
	})
	rows, added := s.startRows(), s.added()
	all := rows + added
	bound := (paging.MaxPasses+1)*(all+1) + 2*all + 3
	if err != nil || s.lists > bound {
		t.Fatalf("Pull = %v after %d listing requests, want nil within %d (%d rows, %d added)", err, s.lists, bound, rows, added)
	}
	if handed != 0 || len(s.gets) != 0 {
		t.Fatalf("%d documents handed to fn, %d downloaded; every one was declined", handed, len(s.gets))
	}
	for _, id := range s.required() {
		if befores[id] != 1 {
			t.Fatalf("Before met %s %d times, want once", id, befores[id])
		}
	}
}
