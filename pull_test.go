package acctadmin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/goleak"
)

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

var errShredder = errors.New("shredder jammed")

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

func TestPullEndsWhenTheAPIIgnoresOffset(t *testing.T) {
	// The read listing (nothing leaves it) from an API that answers every
	// offset with the same full page: the pull ends, and says why.
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/download") {
			w.Header().Set("Content-Type", "application/pdf")
			io.WriteString(w, "%PDF-1.4")
			return
		}
		fixedPage(10, unreadJSON)(w, r)
	})
	c := newTestClient(t, srv)
	rec := newPullRecorder()
	err := c.Documents.Pull(context.Background(), &PullParams{DocumentListParams: DocumentListParams{Limit: 10, Status: DocumentRead}, Workers: 3}, rec.fn)
	if !errors.Is(err, ErrPagingIgnored) {
		t.Fatalf("got %v, want ErrPagingIgnored", err)
	}
	got := rec.counts()
	if len(got) != 10 {
		t.Fatalf("fn got %d documents, want the 10 listed", len(got))
	}
	lists := 0
	for _, r := range srv.requests() {
		if r.Path == "/documents" {
			lists++
		}
	}
	// Whatever the timing: a request follows the first one only after a
	// download answered (10 of them) or after an answer that moved the
	// offset on, and the third answer in a row at a later offset ends it.
	if lists > 14 {
		t.Fatalf("%d listing requests", lists)
	}
}

func TestPullPassesOverDocumentsWithoutAnID(t *testing.T) {
	// Two documents without an id head the unread listing; nothing can
	// take them out of it.
	m := newPostRoom(7, 8, time.Millisecond)
	m.idless = 2
	srv := newAPIServer(t, m.ServeHTTP)
	c := newTestClient(t, srv)
	rec := newPullRecorder()
	var last PullProgress
	err := c.Documents.Pull(context.Background(), &PullParams{DocumentListParams: DocumentListParams{Limit: 4}, Workers: 2,
		OnProgress: func(p PullProgress) { last = p }}, rec.fn)
	if err != nil {
		t.Fatal(err)
	}
	checkOnce(t, "fn", rec.counts(), m.ids)
	if last.Skipped != 2 || last.Done != 7 {
		t.Fatalf("last progress %+v, want 2 skipped and 7 done", last)
	}
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
