package mailroom_test

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
	"github.com/acctadmin/acctadmin-go/mailroom"
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

func (w *world) room(store mailroom.Store, opts ...mailroom.Option) *mailroom.Room {
	w.t.Helper()
	r, err := mailroom.New(w.c, w.v, store, append([]mailroom.Option{mailroom.WithLogger(discardLogger())}, opts...)...)
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

// keyPrefix begins the mail room's Redis keys (mailroom.WithRedis).
const keyPrefix = "acctadmin:mailroom:"

// claimKey is the Redis key of the claim on id.
func claimKey(id uuid.UUID) string { return keyPrefix + "claim:" + id.String() }

// holdClaim puts the claim on id in Redis under owner's token for ttl, as
// a room of another process does when it takes it; it reports whether the
// key was free.
func holdClaim(ctx context.Context, rdb redis.Cmdable, id uuid.UUID, owner string, ttl time.Duration) (bool, error) {
	err := rdb.SetArgs(ctx, claimKey(id), owner, redis.SetArgs{Mode: "NX", TTL: ttl}).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	return err == nil, err
}

// cancelingStore is a store whose next Save reads the whole document, then
// calls cancel (the caller's context's) and returns the context's error
// as a store that honours its context does: a save cut short by the
// context, with nothing wrong with the store or the download.
type cancelingStore struct {
	mailroom.Store
	mailroom.Journal

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

// fileID returns the id that ends the saved file name name, before
// ".pdf", as the mail room names its files (mailroom.Dir).
func fileID(name string) (uuid.UUID, bool) {
	base, ok := strings.CutSuffix(name, ".pdf")
	if !ok || len(base) < 36 {
		return uuid.Nil, false
	}
	id, err := uuid.Parse(base[len(base)-36:])
	return id, err == nil && id.String() == base[len(base)-36:]
}

// hostname is this host's name as the mail room writes it in the names
// of its temporary files (.tmp-HOST-PID-...).
var hostname = func() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "unknown"
	}
	return strings.NewReplacer("-", "_", "/", "_", string(filepath.Separator), "_").Replace(h)
}()

// deadPID returns the id of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		t.Skipf("cannot start /bin/true: %v", err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	return p.Pid
}
