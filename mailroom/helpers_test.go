package mailroom

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/mailroom/internal/redislease"
	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// world is a fake API with one company, a client and a verifier for it.
type world struct {
	t       testing.TB
	fake    *acctadmintest.Server
	c       *acctadmin.Client // the rooms', through faults
	clean   *acctadmin.Client // the test's own
	faults  *faultyTransport
	v       *webhook.Verifier
	company acctadmintest.Company
}

func newWorld(t testing.TB, opts ...acctadmintest.Option) *world {
	t.Helper()
	fake := acctadmintest.NewServer(append([]acctadmintest.Option{acctadmintest.WithDeliveryRetry(6, 20*time.Millisecond), acctadmintest.WithStrictSigning()}, opts...)...)
	t.Cleanup(fake.Close)
	faults := &faultyTransport{next: http.DefaultTransport}
	c, err := acctadmin.NewClient(fake.AccessKey, fake.SecretKey, acctadmin.WithBaseURL(fake.URL),
		acctadmin.WithRetryWait(time.Millisecond, 5*time.Millisecond), acctadmin.WithHTTPClient(&http.Client{Transport: faults}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	clean, err := acctadmin.NewClient(fake.AccessKey, fake.SecretKey, acctadmin.WithBaseURL(fake.URL))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(clean.CloseIdleConnections)
	v, err := webhook.NewVerifier([]byte(fake.SecretKey), webhook.WithAccessKey(fake.AccessKey))
	if err != nil {
		t.Fatal(err)
	}
	co := fake.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})
	return &world{t: t, fake: fake, c: c, clean: clean, faults: faults, v: v, company: co}
}

// addDocument adds a document without sending its event to anyone (no
// callback is registered unless the test registers one).
func (w *world) addDocument(typ string) acctadmintest.Document {
	return w.fake.AddDocument(acctadmintest.DocumentInput{CompanyID: w.company.ID, Type: typ, Title: "Mail " + typ})
}

// pdf is the file the fake serves for a document, read without marking it
// read (the status is put back).
func (w *world) pdf(id uuid.UUID) []byte {
	w.t.Helper()
	d, _ := w.fake.Document(id)
	f, err := w.clean.Documents.Download(context.Background(), id)
	if err != nil {
		w.t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		w.t.Fatal(err)
	}
	w.fake.SetDocumentStatus(id, d.Status)
	return b
}

// downloads counts the download requests the fake received.
func (w *world) downloads() int {
	return w.fake.RequestCount(http.MethodGet, "/documents/:id/download")
}

func (w *world) room(store Store, opts ...Option) *Room {
	w.t.Helper()
	r, err := New(w.c, w.v, store, append([]Option{WithLogger(discardLogger())}, opts...)...)
	if err != nil {
		w.t.Fatal(err)
	}
	return r
}

// token signs a new-document event as the API does.
func (w *world) token(id uuid.UUID) string {
	w.t.Helper()
	tok, err := webhook.Sign(map[string]any{
		"event": "new-document", "document_id": id.String(),
		"company_id": w.company.ID.String(), "company_name": w.company.Name,
	}, []byte(w.fake.SecretKey), webhook.WithSignAccessKey(w.fake.AccessKey))
	if err != nil {
		w.t.Fatal(err)
	}
	return tok
}

// deliver posts the event of id to h and returns the status.
func (w *world) deliver(h http.Handler, id uuid.UUID) int {
	body, _ := json.Marshal(map[string]string{"data": w.token(id)})
	req := httptest.NewRequest(http.MethodPost, "/callbacks", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}

// savedFiles lists the folder: the documents saved (by the id that ends
// their name) and any other file at the top (temporary files). A document
// saved in two files fails the test.
func savedFiles(t testing.TB, dir string) (docs map[uuid.UUID][]byte, others []string) {
	t.Helper()
	docs = map[uuid.UUID][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() && name == ".mailroom" {
			continue
		}
		id, ok := fileID(name)
		if !ok {
			others = append(others, name)
			continue
		}
		if _, twice := docs[id]; twice {
			t.Fatalf("document %s saved in two files", id)
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		docs[id] = b
	}
	return docs, others
}

// faultyTransport fails the next downloads the rooms make: refused with
// 503 before they reach the API, or cut short after the API has marked
// the document read.
type faultyTransport struct {
	next http.RoundTripper

	mu       sync.Mutex
	refuse   int
	truncate int
	cuts     []cut         // cut short, one download each, before truncate
	hold     chan struct{} // when set, answers of downloads wait for it to close
}

// cut is a download whose answer announces announced bytes, sends the
// first sent bytes of the file, and then fails with err, as a connection
// closed mid-body does (io.ErrUnexpectedEOF).
type cut struct {
	announced int64
	sent      int
	err       error
}

// cutNext cuts the next download short, after the API has marked the
// document read.
func (f *faultyTransport) cutNext(c cut) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cuts = append(f.cuts, c)
}

// holdDownloads makes every download wait, once the API has answered it,
// until the returned function is called.
func (f *faultyTransport) holdDownloads() (release func()) {
	ch := make(chan struct{})
	f.mu.Lock()
	f.hold = ch
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		f.hold = nil
		f.mu.Unlock()
		close(ch)
	}
}

func (f *faultyTransport) fail(n int, truncate bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if truncate {
		f.truncate += n
	} else {
		f.refuse += n
	}
}

func (f *faultyTransport) clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refuse, f.truncate, f.cuts = 0, 0, nil
}

// RoundTrip implements http.RoundTripper.
func (f *faultyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(req.URL.Path, "/download") {
		return f.next.RoundTrip(req)
	}
	f.mu.Lock()
	hold := f.hold
	refuse := f.refuse > 0
	var c *cut
	if !refuse && len(f.cuts) > 0 {
		c = &f.cuts[0]
		f.cuts = f.cuts[1:]
	}
	truncate := !refuse && c == nil && f.truncate > 0
	if refuse {
		f.refuse--
	} else if truncate {
		f.truncate--
	}
	f.mu.Unlock()
	if refuse {
		return &http.Response{StatusCode: http.StatusServiceUnavailable, Status: "503 Service Unavailable",
			Header: http.Header{"Content-Type": {"application/json"}}, Request: req, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Body: io.NopCloser(strings.NewReader(`{"success":false,"message":"unavailable"}`))}, nil
	}
	resp, err := f.next.RoundTrip(req)
	if hold != nil {
		<-hold
	}
	if err != nil || (!truncate && c == nil) {
		return resp, err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if c != nil {
		resp.ContentLength = c.announced
		resp.Header.Set("Content-Length", strconv.FormatInt(c.announced, 10))
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(b[:min(c.sent, len(b))]), errReader{c.err}))
		return resp, nil
	}
	resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(b[:len(b)/2]), errReader{io.ErrUnexpectedEOF}))
	return resp, nil
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// fakeTicker is a room's clock of the claim renewals that ticks when the
// test says: set it as Room.ticker.
type fakeTicker struct {
	mu      sync.Mutex
	periods []time.Duration // asked for, in order
	c       chan time.Time
	stopped int
}

func newFakeTicker() *fakeTicker { return &fakeTicker{c: make(chan time.Time)} }

func (f *fakeTicker) ticker(d time.Duration) (<-chan time.Time, func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.periods = append(f.periods, d)
	return f.c, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.stopped++
	}
}

// tick ticks once, and returns once the room has taken the tick.
func (f *fakeTicker) tick() { f.c <- time.Now() }

func (f *fakeTicker) state() (periods []time.Duration, stopped int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.periods...), f.stopped
}

// claimLog is a go-redis hook that records the answered calls of the
// lease script that takes or renews a claim (redislease's Acquire: a
// script run with one key, the owner and the TTL; a release passes no
// TTL), in order.
type claimLog struct {
	mu    sync.Mutex
	takes []claimTake
}

// claimTake is one answered call of the claim script.
type claimTake struct {
	key, owner string
	ttlMillis  int64
	held       bool
}

func (l *claimLog) DialHook(next redis.DialHook) redis.DialHook { return next }

func (l *claimLog) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (l *claimLog) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		args := cmd.Args()
		name := strings.ToLower(cmd.Name())
		isTake := len(args) == 6 && (name == "evalsha" || name == "eval") &&
			strings.HasPrefix(fmt.Sprint(args[3]), keyPrefix+"claim:")
		c, ok := cmd.(*redis.Cmd)
		if err != nil || !isTake || !ok {
			return err
		}
		n, _ := c.Int64()
		ttl, _ := strconv.ParseInt(fmt.Sprint(args[5]), 10, 64)
		l.mu.Lock()
		defer l.mu.Unlock()
		l.takes = append(l.takes, claimTake{key: fmt.Sprint(args[3]), owner: fmt.Sprint(args[4]), ttlMillis: ttl, held: n == 1})
		return err
	}
}

// of returns the calls recorded for the claim of id.
func (l *claimLog) of(id uuid.UUID) []claimTake {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []claimTake
	for _, c := range l.takes {
		if c.key == claimKey(id) {
			out = append(out, c)
		}
	}
	return out
}

// waitFor polls cond, every millisecond, until it holds or 10 seconds
// have passed (a bound for a failure, not a measure); it reports whether
// it held.
func waitFor(cond func() bool) bool {
	for range 10_000 {
		if cond() {
			return true
		}
		time.Sleep(time.Millisecond)
	}
	return cond()
}

// claimsOf returns the claims of a room with owner token owner on rdb.
func claimsOf(rdb redis.UniversalClient, owner string, ttl time.Duration) *redisClaims {
	return &redisClaims{leases: redislease.New(rdb, maxRedisTimeout), prefix: keyPrefix, owner: owner, ttl: ttl}
}

// claimKey is the Redis key of the claim on id.
func claimKey(id uuid.UUID) string { return keyPrefix + "claim:" + id.String() }

// fsLog is a Dir's fileSystem that does what next does and records each
// call, in order ("write" once for consecutive writes); fail makes the
// call it names (as "sync", "link") fail instead, with errInjected.
type fsLog struct {
	next fileSystem
	fail string

	mu    sync.Mutex
	calls []string
}

var errInjected = errors.New("injected failure")

// logFS puts an fsLog in the place of the file system of the Dir store s.
func logFS(t testing.TB, s Store, fail string) *fsLog {
	t.Helper()
	d, ok := s.(*dirStore)
	if !ok {
		t.Fatalf("store is %T, not Dir's", s)
	}
	l := &fsLog{next: d.fs, fail: fail}
	d.fs = l
	return l
}

func (l *fsLog) record(op string, names ...string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	call := strings.Join(append([]string{op}, names...), " ")
	if n := len(l.calls); op != "write" || n == 0 || l.calls[n-1] != call {
		l.calls = append(l.calls, call)
	}
	if op == l.fail {
		return errInjected
	}
	return nil
}

func (l *fsLog) log() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.calls...)
}

func (l *fsLog) CreateTemp(dir, pattern string) (tempFile, error) {
	if err := l.record("create", dir); err != nil {
		return nil, err
	}
	f, err := l.next.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return &loggedFile{f: f, l: l}, nil
}

func (l *fsLog) Link(oldname, newname string) error {
	if err := l.record("link", oldname, newname); err != nil {
		return err
	}
	return l.next.Link(oldname, newname)
}

func (l *fsLog) Remove(name string) error {
	if err := l.record("remove", name); err != nil {
		return err
	}
	return l.next.Remove(name)
}

func (l *fsLog) Mark(name string) error {
	if err := l.record("mark", name); err != nil {
		return err
	}
	return l.next.Mark(name)
}

func (l *fsLog) SyncDir(path string) error {
	if err := l.record("syncdir", path); err != nil {
		return err
	}
	return l.next.SyncDir(path)
}

// loggedFile is a temporary file whose calls an fsLog records.
type loggedFile struct {
	f tempFile
	l *fsLog
}

func (f *loggedFile) Write(p []byte) (int, error) {
	if err := f.l.record("write", f.f.Name()); err != nil {
		return 0, err
	}
	return f.f.Write(p)
}

func (f *loggedFile) Sync() error {
	if err := f.l.record("sync", f.f.Name()); err != nil {
		return err
	}
	return f.f.Sync()
}

func (f *loggedFile) Close() error {
	err := f.l.record("close", f.f.Name())
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (f *loggedFile) Name() string { return f.f.Name() }

// cancelingStore is a store whose next Save reads the whole document, then
// calls cancel (the caller's context's) and returns the context's error
// as a store that honours its context does: a save cut short by the
// context, with nothing wrong with the store or the download.
type cancelingStore struct {
	Store
	Journal

	mu     sync.Mutex
	cancel func() // for the next Save; nil: Save saves
}

func (s *cancelingStore) cancelNext(cancel func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancel = cancel
}

func (s *cancelingStore) Save(ctx context.Context, d acctadmin.Document, r io.Reader) error {
	s.mu.Lock()
	cancel := s.cancel
	s.cancel = nil
	s.mu.Unlock()
	if cancel == nil {
		return s.Store.Save(ctx, d, r)
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		return err
	}
	cancel()
	<-ctx.Done()
	return fmt.Errorf("saving a document: %w", ctx.Err())
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func redisClient(t testing.TB, addr string) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: 300 * time.Millisecond,
		ReadTimeout: 300 * time.Millisecond, WriteTimeout: 300 * time.Millisecond, MaxRetries: 1})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}
