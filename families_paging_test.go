package acctadmin

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acctadmin/acctadmin-go/internal/paging"
	"github.com/google/uuid"
	"pgregory.net/rapid"
)

// Paging and Pull, proven on generated servers.
//
// TestPagingOnGeneratedServers draws a documents API from a family of
// servers that misbehave the way real ones do, and a consumer, and checks
// the invariant of the unread listing: a consumer that ends without an
// error was handed, exactly once, every document that was unread when it
// started and that nobody else read; one that ends with an error was
// handed no document twice, and a Pull names in PullError.Unfinished
// exactly the documents it handed out whose fn did not return nil;
// ErrPagingIgnored comes only from a server that ignores the offset and
// answered with a page exactly as long as the limit. And the cost: the
// listing requests stay within costBound, the minimum on the servers that
// page honestly and change only by the consumer's downloads.
//
// The family: pages capped below the limit asked (by a server that
// honours the offset: one that caps and ignores the offset shows its first
// rows whatever is asked, and no client can tell that from a short
// listing); rows listed twice, next
// to each other or a row or two apart (so within and across pages), among
// the documents there from the start (new ones come after them); rows
// without an id, or with one that is not a UUID; a listing served from a
// replica that trails the read marks by up to 3 refreshes (one refresh
// per listing request, never going back); documents added (at the end of
// the listing) and read by others while the walk runs; the offset, the
// limit, or both ignored (the whole listing in every answer, which ends
// a walk without ErrPagingIgnored when it is longer than the limit);
// downloads that are slow, that fail (404, 503), or that are cut short mid-body.
// The consumers: All with a Download in the body, All reading only, All
// with a break, Pull with 1 to 32 workers, whose fn may return an error,
// panic or call runtime.Goexit, with a cancel, a Skip filter and
// OnProgress.
//
// The server is an http.RoundTripper (no sockets), so a case takes about a
// millisecond. `go test -run TestPagingOnGeneratedServers` runs genChecks
// (1000) cases; `-rapid.checks=20000` runs that many, `-rapid.seed=N`
// replays one.

// genServer is one server of the family.
type genServer struct {
	cap          int  // the most rows a page holds; 0 for no cap
	ignoreOffset bool // every answer starts at the first row
	ignoreLimit  bool // every answer runs to the end
	lag          int  // the replica trails the read marks by up to lag refreshes
	othersEvery  int  // others read or add a document every othersEvery listing requests; 0 never
	// othersOnlyAdd makes others add documents, never read one.
	othersOnlyAdd bool
	// dupGap lists a document twice: its second row comes dupGap rows
	// after the first (0: right after it).
	dupGap int
	// padFirst opens every answer with the listing's first row, besides
	// the rows the limit asks for: a full page is one row longer than the
	// limit, and is not the rest of the listing.
	padFirst bool
	// failEvery fails one download in failEvery (404 or 503, or cut
	// short mid-body); 0 never.
	failEvery int
	// fullPage is set once an answer held exactly the rows the limit
	// asked for: only then may the client take the offset for ignored.
	fullPage bool

	mu      sync.Mutex
	rng     *genRand
	docs    []*genDoc // in listing order
	lists   int       // listing requests
	replica int       // the replica sees the read marks made before this listing request
	byID    map[uuid.UUID]*genDoc
	initial int               // the documents there from the start come first in docs
	gets    map[uuid.UUID]int // downloads answered, by document
	readers int               // downloads so far, to number the failing ones
}

type genDoc struct {
	id       uuid.UUID
	title    string
	dup      bool
	readAt   int  // the listing request count when it was marked read; -1 while unread
	byOthers bool // read, or added, by others
	initial  bool // unread when the consumer started
	// rawID, for a document without an id, is the JSON of the id it is
	// listed with: null, or one that is not a UUID.
	rawID string
}

// unusableIDs are the ids a document without a usable one is listed with.
var unusableIDs = []string{`null`, `"legacy-42"`, `""`, `42`, `{"n":1}`}

// genRand is a small deterministic generator the server draws its
// choices from while it runs (its seed comes from rapid).
type genRand struct{ s uint64 }

func (r *genRand) intn(n int) int {
	r.s ^= r.s << 13
	r.s ^= r.s >> 7
	r.s ^= r.s << 17
	return int(r.s % uint64(n))
}

func drawServer(t *rapid.T) *genServer {
	s := &genServer{
		rng:  &genRand{s: rapid.Uint64Min(1).Draw(t, "seed")},
		byID: map[uuid.UUID]*genDoc{}, gets: map[uuid.UUID]int{},
	}
	switch rapid.IntRange(0, 6).Draw(t, "paging") {
	case 0:
		s.ignoreOffset = true
	case 1:
		s.ignoreLimit = true
	case 2:
		// The whole listing in every answer, longer than the limit or not.
		s.ignoreOffset, s.ignoreLimit = true, true
	}
	// A server that caps its pages and ignores the offset shows its first
	// rows whatever is asked: no client can tell its listing from a short
	// one, so the family leaves that pair out.
	if !s.ignoreOffset && rapid.Bool().Draw(t, "capped") {
		s.cap = rapid.IntRange(1, 9).Draw(t, "cap")
	}
	s.lag = rapid.IntRange(0, 3).Draw(t, "lag")
	if rapid.Bool().Draw(t, "others") {
		s.othersEvery = rapid.IntRange(1, 6).Draw(t, "othersEvery")
	}
	s.dupGap = rapid.IntRange(0, 2).Draw(t, "dupGap")
	if rapid.IntRange(0, 3).Draw(t, "failing") == 0 {
		s.failEvery = rapid.IntRange(3, 40).Draw(t, "failEvery")
	}
	n := rapid.IntRange(0, 60).Draw(t, "documents")
	dups := rapid.IntRange(0, 3).Draw(t, "dupRate") // one document in dups+1... none for 0
	// A server that pads its pages with the listing's first row sends
	// pages longer than the limit while it honours limit and offset. One
	// that also lists a row twice can answer two offsets running with the
	// same long page, as a server that ignores limit and offset does
	// (that page then taken for the whole listing): the family leaves
	// that pair out.
	if !s.ignoreOffset && !s.ignoreLimit && s.cap == 0 && dups == 0 {
		s.padFirst = rapid.IntRange(0, 3).Draw(t, "padFirst") == 0
	}
	idless := rapid.IntRange(0, 3).Draw(t, "idless")
	for i := range n {
		d := &genDoc{id: uuid.NewSHA1(uuid.NameSpaceOID, []byte("gen"+strconv.Itoa(i))), title: "letter " + strconv.Itoa(i), readAt: -1, initial: true}
		d.dup = dups > 0 && s.rng.intn(dups+1) == 0
		s.docs = append(s.docs, d)
		s.byID[d.id] = d
	}
	for i := range idless {
		at := s.rng.intn(len(s.docs) + 1)
		d := &genDoc{title: "no id " + strconv.Itoa(i), readAt: -1, rawID: rapid.SampledFrom(unusableIDs).Draw(t, "rawID")}
		s.docs = slices.Insert(s.docs, at, d)
	}
	s.initial = len(s.docs)
	return s
}

// required is the documents every consumer that ends without an error
// must have been handed: unread at the start, with an id, and not read by
// others.
func (s *genServer) required() []uuid.UUID {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []uuid.UUID
	for _, d := range s.docs {
		if d.initial && d.id != uuid.Nil && !d.byOthers {
			ids = append(ids, d.id)
		}
	}
	return ids
}

// rows is the unread listing as the replica shows it: a document read
// before the replica's refresh is out; a document listed twice shows its
// second row dupGap rows later.
func (s *genServer) rows() []*genDoc {
	var rows []*genDoc
	var later []*genDoc // second rows, in the order they are due
	var due []int       // for each, the index in docs it follows
	for i, d := range s.docs {
		if !(d.readAt >= 0 && d.readAt < s.replica) {
			rows = append(rows, d)
			if d.dup {
				later = append(later, d)
				due = append(due, min(i+s.dupGap, s.initial-1))
			}
		}
		for len(later) > 0 && due[0] <= i {
			rows = append(rows, later[0])
			later, due = later[1:], due[1:]
		}
	}
	return rows
}

// others reads an unread document, or adds one at the end.
func (s *genServer) others() {
	if !s.othersOnlyAdd && s.rng.intn(2) == 0 {
		var unread []*genDoc
		for _, d := range s.docs {
			if d.readAt < 0 && d.id != uuid.Nil {
				unread = append(unread, d)
			}
		}
		if len(unread) > 0 {
			d := unread[s.rng.intn(len(unread))]
			d.readAt, d.byOthers = s.lists, true
		}
		return
	}
	d := &genDoc{id: uuid.NewSHA1(uuid.NameSpaceOID, []byte("new"+strconv.Itoa(len(s.byID)))), title: "new letter", readAt: -1, byOthers: true}
	s.docs = append(s.docs, d)
	s.byID[d.id] = d
}

func (s *genServer) list(q map[string][]string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists++
	if s.othersEvery > 0 && s.lists%s.othersEvery == 0 {
		s.others()
	}
	// The replica refreshes to somewhere within lag of now, never back.
	s.replica = max(s.replica, s.lists-s.rng.intn(s.lag+1))
	limit, _ := strconv.Atoi(first(q["limit"]))
	offset, _ := strconv.Atoi(first(q["offset"]))
	if s.ignoreOffset {
		offset = 0
	}
	size := limit
	if s.cap > 0 {
		size = min(size, s.cap)
	}
	rows := s.rows()
	offset = min(offset, len(rows))
	end := min(offset+size, len(rows))
	if s.ignoreLimit {
		end = len(rows)
	}
	s.fullPage = s.fullPage || end-offset == limit
	page := rows[offset:end]
	if s.padFirst && len(rows) > 0 {
		page = append([]*genDoc{rows[0]}, page...)
	}
	var b strings.Builder
	b.WriteString(`{"success":true,"result":[`)
	for i, d := range page {
		if i > 0 {
			b.WriteByte(',')
		}
		if d.id == uuid.Nil {
			fmt.Fprintf(&b, `{"id":%s,"title":%q}`, d.rawID, d.title)
		} else {
			fmt.Fprintf(&b, `{"id":%q,"title":%q,"status":"unread"}`, d.id, d.title)
		}
	}
	b.WriteString(`]}`)
	return b.String()
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// genPDF is the content of document id's file.
func genPDF(id uuid.UUID) string { return "%PDF-1.4 " + id.String() }

// download answers a download: the document is marked read as the answer
// starts, as the API does. how says whether it fails: 0 no, 1 a 404
// before anything, 2 a 503 before anything, 3 cut short mid-body; slow
// asks the body to yield as it is read.
func (s *genServer) download(id uuid.UUID) (status int, cut, slow bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.readers++
	d := s.byID[id]
	if d == nil {
		return http.StatusNotFound, false, false
	}
	how := 0
	if s.failEvery > 0 && s.readers%s.failEvery == 0 {
		how = 1 + s.rng.intn(3)
	}
	switch how {
	case 1:
		return http.StatusNotFound, false, false
	case 2:
		return http.StatusServiceUnavailable, false, false
	}
	if d.readAt < 0 {
		d.readAt = s.lists
	}
	s.gets[id]++
	return http.StatusOK, how == 3, s.rng.intn(4) == 0
}

// RoundTrip serves a request of the client.
func (s *genServer) RoundTrip(r *http.Request) (*http.Response, error) {
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Request: r, ProtoMajor: 1, ProtoMinor: 1}
	if r.URL.Path == "/documents" {
		resp.Header.Set("Content-Type", "application/json")
		resp.Body = io.NopCloser(strings.NewReader(s.list(r.URL.Query())))
		return resp, nil
	}
	parts := strings.Split(r.URL.Path, "/")
	id, err := uuid.Parse(parts[2])
	if err != nil || len(parts) != 4 || parts[3] != "download" {
		return nil, fmt.Errorf("unexpected request %s", r.URL.Path)
	}
	status, cut, slow := s.download(id)
	if status != http.StatusOK {
		resp.StatusCode = status
		resp.Header.Set("Content-Type", "application/json")
		resp.Body = io.NopCloser(strings.NewReader(`{"success":false,"message":"refused"}`))
		return resp, nil
	}
	resp.Header.Set("Content-Type", "application/pdf")
	body := genPDF(id)
	resp.ContentLength = int64(len(body))
	resp.Body = &genBody{r: strings.NewReader(body), cut: cut, slow: slow, ctx: r.Context()}
	return resp, nil
}

// genBody is a file's body: slow ones yield between reads, cut ones break
// off half way.
type genBody struct {
	r         *strings.Reader
	cut, slow bool
	ctx       context.Context
}

func (b *genBody) Read(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	if b.slow {
		runtime.Gosched()
		p = p[:min(len(p), 7)]
	}
	if b.cut && b.r.Len() < int(b.r.Size())/2 {
		return 0, io.ErrUnexpectedEOF
	}
	return b.r.Read(p)
}

func (b *genBody) Close() error { return nil }

// genConsumer is one consumer of the family.
type genConsumer struct {
	kind     string // "all+download", "all", "all+break", "pull"
	limit    int
	workers  int
	breakAt  int // All stops after this many documents
	failAt   int // fn (or the loop) fails at this document, counted from 1; 0 never
	failHow  string
	cancelAt int // the context is cancelled at this document; 0 never
	skipOdd  bool
}

func drawConsumer(t *rapid.T) genConsumer {
	c := genConsumer{kind: rapid.SampledFrom([]string{"all+download", "all", "all+break", "pull", "pull", "pull"}).Draw(t, "consumer")}
	c.limit = rapid.SampledFrom([]int{1, 2, 3, 5, 8, 20, 200}).Draw(t, "limit")
	switch c.kind {
	case "all+break":
		c.breakAt = rapid.IntRange(1, 30).Draw(t, "breakAt")
	case "pull":
		c.workers = rapid.IntRange(1, 32).Draw(t, "workers")
		if rapid.IntRange(0, 2).Draw(t, "fnFails") == 0 {
			c.failAt = rapid.IntRange(1, 40).Draw(t, "failAt")
			c.failHow = rapid.SampledFrom([]string{"error", "panic", "goexit"}).Draw(t, "failHow")
		}
		if rapid.IntRange(0, 4).Draw(t, "cancels") == 0 {
			c.cancelAt = rapid.IntRange(1, 40).Draw(t, "cancelAt")
		}
		c.skipOdd = rapid.IntRange(0, 4).Draw(t, "skips") == 0
	}
	return c
}

// genOutcome is what a consumer was handed and how it ended.
type genOutcome struct {
	mu      sync.Mutex
	handed  map[uuid.UUID]int // documents handed over (yielded, or given to fn)
	ok      map[uuid.UUID]bool
	kept    map[uuid.UUID]bool // kept out by Skip
	err     error
	panic   any
	stopped bool // the consumer stopped on its own (break, its own error)
}

func (o *genOutcome) hand(id uuid.UUID) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.handed[id]++
	return len(o.handed)
}

// init makes the outcome's maps.
func (o *genOutcome) init() {
	o.handed, o.ok, o.kept = map[uuid.UUID]int{}, map[uuid.UUID]bool{}, map[uuid.UUID]bool{}
}

// take is what every generated Pull consumer's fn does first: it records
// the document as handed over, cancels the pull at the cancelAt-th
// document (when cancelAt > 0), and reads the file whole, checking it is
// the document's. It returns how many documents were handed over so far.
func (o *genOutcome) take(d Document, f *File, cancelAt int, cancel func()) (int, error) {
	n := o.hand(d.ID)
	if cancelAt > 0 && n == cancelAt {
		cancel()
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return n, err
	}
	if string(b) != genPDF(d.ID) {
		return n, fmt.Errorf("document %s: read %q", d.ID, b)
	}
	return n, nil
}

// skipOdd keeps out the documents whose id's last byte is odd.
func skipOdd(d Document) bool { return d.ID[15]%2 == 1 }

func (c genConsumer) run(s *genServer) *genOutcome {
	o := &genOutcome{}
	o.init()
	cl := newGenClient(s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	params := &DocumentListParams{Limit: c.limit}
	if c.kind != "pull" {
		n := 0
		for d, err := range cl.Documents.All(ctx, params) {
			if err != nil {
				o.err = err
				break
			}
			if d.ID == uuid.Nil {
				continue
			}
			n = o.hand(d.ID)
			if c.kind == "all+download" {
				f, err := cl.Documents.Download(ctx, d.ID)
				if err != nil {
					o.stopped = true
					break
				}
				b, err := io.ReadAll(f)
				f.Close()
				if err != nil || string(b) != genPDF(d.ID) {
					o.stopped = true
					break
				}
			}
			o.ok[d.ID] = true
			if c.breakAt > 0 && n >= c.breakAt {
				o.stopped = true
				break
			}
		}
		return o
	}
	p := &PullParams{DocumentListParams: *params, Workers: c.workers}
	if c.skipOdd {
		p.Skip = skipOdd
		p.OnProgress = func(pr PullProgress) {
			if pr.Err == nil && skipOdd(pr.Document) {
				o.mu.Lock()
				o.kept[pr.Document.ID] = true
				o.mu.Unlock()
			}
		}
	}
	o.pull(ctx, cl, p, func(ctx context.Context, d Document, f *File) error {
		n, err := o.take(d, f, c.cancelAt, cancel)
		if err != nil {
			return err
		}
		if c.failAt > 0 && n == c.failAt {
			return breakDown(c.failHow, "fn broke at "+d.ID.String(), errShredder)
		}
		return nil
	})
	return o
}

// breakDown is how a generated function fails: it panics with msg, calls
// runtime.Goexit, or returns err, as how says.
func breakDown(how, msg string, err error) error {
	switch how {
	case "panic":
		panic(msg)
	case "goexit":
		runtime.Goexit()
	}
	return err
}

// pull runs Pull with fn, as every generated Pull consumer does: it
// records the error, a panic that reached the caller, and each document
// fn returned nil for.
func (o *genOutcome) pull(ctx context.Context, cl *Client, p *PullParams, fn func(context.Context, Document, *File) error) {
	defer func() { o.panic = recover() }()
	o.err = cl.Documents.Pull(ctx, p, func(ctx context.Context, d Document, f *File) error {
		if err := fn(ctx, d, f); err != nil {
			return err
		}
		o.mu.Lock()
		o.ok[d.ID] = true
		o.mu.Unlock()
		return nil
	})
}

// newGenClient is a client whose requests s answers in process, with no
// retries, for a generated case.
func newGenClient(s http.RoundTripper) *Client {
	cl, err := NewClient(testAccessKey, testSecretKey, WithBaseURL("http://api.test"),
		WithHTTPClient(&http.Client{Transport: s}), WithMaxRetries(0))
	if err != nil {
		panic(err)
	}
	return cl
}

// check checks the invariant of the family on one case.
func (c genConsumer) check(t *rapid.T, s *genServer, o *genOutcome) {
	for id, n := range o.handed {
		if n != 1 {
			t.Fatalf("document %s handed over %d times", id, n)
		}
	}
	if o.panic != nil {
		if c.failHow != "panic" || !strings.HasPrefix(fmt.Sprint(o.panic), "fn broke at ") {
			t.Fatalf("Pull panicked with %v", o.panic)
		}
		return
	}
	// ErrPagingIgnored: only from a server that ignores the offset, and
	// that answered with a page as long as the limit (one longer is the
	// whole listing, however often it comes back).
	if errors.Is(o.err, ErrPagingIgnored) && !(s.ignoreOffset && s.fullPage) {
		t.Fatalf("ErrPagingIgnored from a server that honours the offset, or never sent a full page (%+v)", s.describe())
	}
	// Every answer of the family is one the SDK reads: a record whose id
	// cannot be used costs itself, not the page.
	if de := (*DecodeError)(nil); errors.As(o.err, &de) {
		t.Fatalf("a listing answer did not decode: %v (%s)", o.err, s.describe())
	}
	if c.kind == "pull" {
		c.checkPull(t, s, o)
	}
	if o.err != nil || o.stopped {
		return
	}
	for _, id := range s.required() {
		if o.handed[id] != 1 && !o.kept[id] {
			t.Fatalf("nil error, but document %s was never handed over (%d of %d handed; %s)", id, len(o.handed), len(s.required()), s.describe())
		}
	}
}

func (c genConsumer) checkPull(t *rapid.T, s *genServer, o *genOutcome) {
	for id := range o.kept {
		if o.handed[id] != 0 || s.gets[id] != 0 {
			t.Fatalf("document %s kept out, but handed to fn %d times and downloaded %d times", id, o.handed[id], s.gets[id])
		}
	}
	if o.err == nil {
		if c.failAt > 0 && len(o.handed) >= c.failAt {
			t.Fatalf("fn failed at document %d, and Pull returned nil", c.failAt)
		}
		return
	}
	var pe *PullError
	if !errors.As(o.err, &pe) {
		t.Fatalf("Pull returned %v (%T), want a *PullError", o.err, o.err)
	}
	var want []uuid.UUID
	for id := range o.handed {
		if !o.ok[id] {
			want = append(want, id)
		}
	}
	got := slices.Clone(pe.Unfinished)
	// A download that failed never reached fn, but was asked for: it is
	// unfinished too.
	for _, id := range pe.Unfinished {
		if o.ok[id] {
			t.Fatalf("document %s finished, but in Unfinished", id)
		}
	}
	got = slices.DeleteFunc(got, func(id uuid.UUID) bool { return o.handed[id] == 0 })
	sortIDs(got)
	sortIDs(want)
	if !slices.Equal(got, want) {
		t.Fatalf("Unfinished (of those fn had) %v, want %v; err %v", got, want, o.err)
	}
	if pe.Done != len(o.ok) {
		t.Fatalf("PullError.Done %d, fn returned nil %d times", pe.Done, len(o.ok))
	}
}

func (s *genServer) describe() string {
	return fmt.Sprintf("cap %d, ignore offset %v, ignore limit %v, pad first %v, lag %d, others every %d, dup gap %d, fail every %d, %d listing requests",
		s.cap, s.ignoreOffset, s.ignoreLimit, s.padFirst, s.lag, s.othersEvery, s.dupGap, s.failEvery, s.lists)
}

// genChecks is how many cases TestPagingOnGeneratedServers runs when
// -rapid.checks is not given: a case takes about a millisecond.
const genChecks = 1000

func TestPagingOnGeneratedServers(t *testing.T) {
	if !flagGiven("rapid.checks") {
		defer setFlag(t, "rapid.checks", strconv.Itoa(genChecks))()
	}
	rapid.Check(t, func(t *rapid.T) {
		s := drawServer(t)
		c := drawConsumer(t)
		c.check(t, s, runCase(t, s.describe, c, func() *genOutcome { return c.run(s) }))
		c.checkCost(t, s)
	})
}

// startRows is how many rows the listing showed at the start: every
// document there from the start, a document listed twice counted twice.
func (s *genServer) startRows() int {
	n := 0
	for _, d := range s.docs[:s.initial] {
		n++
		if d.dup {
			n++
		}
	}
	return n
}

// wellBehaved reports whether s pages honestly and changes only by the
// consumer's own downloads, each answered at once.
func (s *genServer) wellBehaved() bool {
	for _, d := range s.docs {
		if d.dup {
			return false
		}
	}
	return s.cap == 0 && !s.ignoreOffset && !s.ignoreLimit && !s.padFirst && s.lag == 0 && s.othersEvery == 0 && s.failEvery == 0
}

// costBound is the most listing requests c may cost on s. On a
// well-behaved server: All (reading only or downloading) pages + 1, Pull
// pages + 2; two more when no answer can hold two rows (a listing of one
// row, or pages of one): an answer of one row cannot tell the end from a
// server that caps its pages at one row. On the others, the bound stated
// in RELIABILITY.md, over R, the rows listed at the start and those
// others added: (paging.MaxPasses + 1) × (R + 1) + 2R + 3. A careful pass costs
// at most one request a row it goes over, plus its last; a request that
// goes over no row hands out a new one (R in all) or, in Pull, waits for
// a download to answer first (R in all); the trusting pass before it
// costs at most R + 3.
func (c genConsumer) costBound(s *genServer) int {
	rows := s.startRows()
	pages := (rows + c.limit - 1) / c.limit
	if s.wellBehaved() {
		b := pages + 1
		if c.kind == "pull" {
			b++
		}
		if rows <= 1 || c.limit == 1 {
			// No answer holds two rows: a row left in the listing at
			// its end is looked past, then checked again.
			b += 2
		}
		return b
	}
	all := rows + s.added()
	return (paging.MaxPasses+1)*(all+1) + 2*all + 3
}

// added is how many documents others added.
func (s *genServer) added() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.docs) - s.initial
}

// checkCost checks the listing requests c cost on s against costBound.
func (c genConsumer) checkCost(t *rapid.T, s *genServer) {
	s.mu.Lock()
	lists := s.lists
	s.mu.Unlock()
	if b := c.costBound(s); lists > b {
		t.Fatalf("%d listing requests, want at most %d (%s consumer, limit %d, %d rows at the start; %s)", lists, b, c.kind, c.limit, s.startRows(), s.describe())
	}
}

// runCase runs one generated case on a goroutine of its own and returns
// its outcome; a case that has not ended after 20 s (a bound for a hang,
// not a measure) fails, with the server and the consumer it drew and
// every goroutine's stack.
func runCase[O any](t *rapid.T, server func() string, consumer any, run func() O) O {
	done := make(chan O, 1)
	go func() { done <- run() }()
	select {
	case o := <-done:
		return o
	case <-time.After(20 * time.Second):
		buf := make([]byte, 1<<20)
		t.Fatalf("no end after 20 s (%s, %+v)\n%s", server(), consumer, buf[:runtime.Stack(buf, true)])
		panic("unreachable")
	}
}

// TestGeneratedServerFamily checks the generated server itself on a few
// hand-made cases, so that the property above tests the client and not a
// broken server.
func TestGeneratedServerFamily(t *testing.T) {
	mk := func(n int) *genServer {
		s := &genServer{rng: &genRand{s: 1}, byID: map[uuid.UUID]*genDoc{}, gets: map[uuid.UUID]int{}}
		for i := range n {
			d := &genDoc{id: numberedID(i), title: strconv.Itoa(i), readAt: -1, initial: true}
			s.docs = append(s.docs, d)
			s.byID[d.id] = d
		}
		s.initial = n
		return s
	}
	titles := func(s *genServer) string {
		var b bytes.Buffer
		for _, d := range s.rows() {
			b.WriteString(d.title)
		}
		return b.String()
	}
	s := mk(4)
	s.docs[1].dup = true
	if got := titles(s); got != "01123" {
		t.Fatalf("a row twice, gap 0: %q", got)
	}
	s.dupGap = 2
	if got := titles(s); got != "01231" {
		t.Fatalf("a row twice, gap 2: %q", got)
	}
	// Read at listing request 1: the replica shows it until its refresh
	// passes request 1.
	s = mk(3)
	s.docs[0].readAt = 1
	s.replica = 1
	if got := titles(s); got != "012" {
		t.Fatalf("lagging replica: %q", got)
	}
	s.replica = 2
	if got := titles(s); got != "12" {
		t.Fatalf("refreshed replica: %q", got)
	}
	// A cap below the limit, and the offset ignored.
	s = mk(10)
	s.cap = 3
	if got := s.list(map[string][]string{"limit": {"5"}, "offset": {"4"}}); strings.Count(got, `"id"`) != 3 || !strings.Contains(got, numberedID(4).String()) {
		t.Fatalf("capped page: %s", got)
	}
	s.ignoreOffset = true
	if got := s.list(map[string][]string{"limit": {"5"}, "offset": {"4"}}); !strings.Contains(got, numberedID(0).String()) {
		t.Fatalf("offset ignored: %s", got)
	}
}

// flagGiven reports whether the flag name was set on the command line.
func flagGiven(name string) bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// setFlag sets the flag name to v and returns what puts it back.
func setFlag(t *testing.T, name, v string) func() {
	f := flag.Lookup(name)
	if f == nil {
		t.Fatalf("no flag %s", name)
	}
	old := f.Value.String()
	if err := f.Value.Set(v); err != nil {
		t.Fatal(err)
	}
	return func() { _ = f.Value.Set(old) }
}
