package mailroom

import (
	"bytes"
	"context"
	"errors"
	"io"
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
	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/google/uuid"
	"pgregory.net/rapid"
)

func TestHandlerSavesTheDocumentBeforeAnswering(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	var alerted []string
	var mu sync.Mutex
	r := w.room(Dir(dir), WithOnSaved(func(_ context.Context, d acctadmin.Document) {
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
	if pending, _ := Dir(dir).(Journal).Pending(context.Background()); len(pending) != 0 {
		t.Fatalf("journal left %v", pending)
	}
}

func TestHandlerAnswersARedeliveryDuringTheSaveRetryably(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	r := w.room(Dir(dir))
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
	code := w.deliver(h, doc.ID)
	release()
	if code < 500 {
		t.Fatalf("redelivery during the save answered %d, want a retryable 5xx", code)
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
}

func TestHandlerAcknowledgesWhatItNeedNotSave(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	r := w.room(Dir(dir), WithKeepOut(func(d acctadmin.Document) bool { return d.Type == "Annual Report" }))
	h := r.Handler()
	kept := w.addDocument("Annual Report")
	if code := w.deliver(h, kept.ID); code != http.StatusOK {
		t.Fatalf("kept-out document answered %d", code)
	}
	if code := w.deliver(h, uuid.New()); code != http.StatusOK {
		t.Fatalf("unknown document answered %d", code)
	}
	if n := w.downloads(); n != 0 {
		t.Fatalf("%d downloads of documents kept out or gone", n)
	}
	if d, _ := w.fake.Document(kept.ID); d.Status != acctadmintest.DocumentUnread {
		t.Fatalf("kept-out document is %s", d.Status)
	}
	if st := r.Stats(); st.KeptOut != 1 || st.Saved != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestHandlerKeepsAFailedDownloadInTheJournal(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	r := w.room(Dir(dir))
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
	pending, err := Dir(dir).(Journal).Pending(context.Background())
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
	if pending, _ := Dir(dir).(Journal).Pending(context.Background()); len(pending) != 0 {
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
	r := w.room(Dir(dir))
	h := r.Handler()
	broken, healthy := w.addDocument("Regular Mail"), w.addDocument("Regular Mail")
	w.faults.cutNext(cut{announced: 100_000, sent: 9, err: io.ErrUnexpectedEOF})
	if code := w.deliver(h, broken.ID); code != http.StatusInternalServerError {
		t.Fatalf("a cut download answered %d, want 500", code)
	}
	if pending, _ := Dir(dir).(Journal).Pending(context.Background()); !slices.Equal(pending, []uuid.UUID{broken.ID}) {
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
		r := w.room(Dir(dir))
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
		if pending, _ := Dir(dir).(Journal).Pending(context.Background()); !slices.Equal(pending, []uuid.UUID{broken.ID}) {
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
	store := &cancelingStore{Store: Dir(dir), Journal: Dir(dir).(Journal)}
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
	if pending, _ := Dir(dir).(Journal).Pending(context.Background()); len(pending) != 0 {
		t.Fatalf("journal left %v", pending)
	}
}

func TestPullSavesTheUnreadMailAndKeepsOutWhatItIsTold(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	other := w.fake.AddCompany(acctadmintest.CompanyInput{Name: "Other Co", HomeState: "Idaho"})
	var want []uuid.UUID
	for i := range 450 {
		switch i % 9 {
		case 0:
			w.fake.AddDocument(acctadmintest.DocumentInput{CompanyID: other.ID})
		case 1:
			w.addDocument("Annual Report")
		default:
			want = append(want, w.addDocument("Regular Mail").ID)
		}
	}
	r := w.room(Dir(dir), WithWorkers(8), WithKeepOut(func(d acctadmin.Document) bool {
		return d.Type == "Annual Report" || d.CompanyID == other.ID
	}))
	if err := r.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	docs, others := savedFiles(t, dir)
	if len(docs) != len(want) || len(others) != 0 {
		t.Fatalf("saved %d of %d, others %v", len(docs), len(want), others)
	}
	for _, id := range want {
		if _, ok := docs[id]; !ok {
			t.Fatalf("document %s not saved", id)
		}
	}
	if n := w.downloads(); n != len(want) {
		t.Fatalf("%d downloads for %d documents", n, len(want))
	}
	// What was kept out is still unread, and a second pull downloads
	// nothing.
	unread := 0
	for _, d := range w.fake.Documents() {
		if d.Status == acctadmintest.DocumentUnread {
			unread++
		}
	}
	if unread != 100 {
		t.Fatalf("%d documents left unread, want the 100 kept out", unread)
	}
	if err := r.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := w.downloads(); n != len(want) {
		t.Fatalf("a second pull downloaded again: %d downloads", n)
	}
}

// refusingStore fails every Save while refuse is set; Check tells.
type refusingStore struct {
	Store
	Journal
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
	store := &refusingStore{Store: Dir(dir), Journal: Dir(dir).(Journal), refuse: true}
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
	if err := r.Pull(context.Background()); !errors.Is(err, errRefusing) {
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
		r := w.room(Dir(dir), WithCallbackURL(hook), WithPullInterval(time.Hour))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- r.Run(ctx) }()
		for range 5000 {
			if has, _ := Dir(dir).Has(ctx, doc.ID); has || round == 1 {
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
	if has, _ := Dir(dir).Has(context.Background(), doc.ID); !has {
		t.Fatal("Run did not pull the document")
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	w := newWorld(t)
	store := Dir(t.TempDir())
	cases := map[string][]Option{
		"interval":  {WithPullInterval(0)},
		"ttl":       {WithClaimTTL(time.Millisecond)},
		"workers":   {WithWorkers(0)},
		"workers33": {WithWorkers(33)},
		"timeout":   {WithDownloadTimeout(-time.Second)},
		"url":       {WithCallbackURL("ftp://x")},
		"redis":     {WithRedis(nil)},
		"logger":    {WithLogger(nil)},
	}
	for name, opts := range cases {
		if _, err := New(w.c, w.v, store, opts...); err == nil {
			t.Errorf("%s: New accepted a bad option", name)
		}
	}
	if _, err := New(w.c, w.v, struct{ Store }{store}); err == nil {
		t.Error("New accepted a store with no journal and no Redis")
	}
	if _, err := New(nil, w.v, store); err == nil {
		t.Error("New accepted a nil client")
	}
}

func TestJournalRecordOfASavedDocumentIsFinishedWithOnSaved(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	var seen []uuid.UUID
	r := w.room(Dir(dir), WithOnSaved(func(_ context.Context, d acctadmin.Document) { seen = append(seen, d.ID) }))
	doc := w.addDocument("High Priority")
	ctx := context.Background()
	// A room saved the document and died before it told WithOnSaved and
	// ended its record.
	if err := Dir(dir).Save(ctx, acctadmin.Document{ID: doc.ID}, bytes.NewReader(w.pdf(doc.ID))); err != nil {
		t.Fatal(err)
	}
	if _, err := Dir(dir).(Journal).Begin(ctx, doc.ID); err != nil {
		t.Fatal(err)
	}
	w.fake.SetDocumentStatus(doc.ID, acctadmintest.DocumentRead)
	if err := r.Pull(ctx); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []uuid.UUID{doc.ID}) {
		t.Fatalf("WithOnSaved saw %v", seen)
	}
	if pending, _ := Dir(dir).(Journal).Pending(ctx); len(pending) != 0 {
		t.Fatalf("journal left %v", pending)
	}
	if n := w.downloads(); n != 1 { // the test's own, in w.pdf
		t.Fatalf("%d downloads", n)
	}
}

func TestHandlerAcknowledgesOtherEvents(t *testing.T) {
	w := newWorld(t)
	r := w.room(Dir(t.TempDir()))
	for name, claims := range map[string]map[string]any{
		"invoice":     {"event": "new-invoice", "invoice_id": uuid.NewString(), "company_id": w.company.ID.String()},
		"no document": {"event": "new-document", "company_id": w.company.ID.String()},
	} {
		tok, err := webhook.Sign(claims, []byte(w.fake.SecretKey), webhook.WithSignAccessKey(w.fake.AccessKey))
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodPost, "/callbacks", strings.NewReader(`{"data":"`+tok+`"}`))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		r.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Errorf("%s: answered %d", name, rec.Code)
		}
	}
	// A request that does not verify is refused, as webhook.Handler does.
	req := httptest.NewRequest(http.MethodPost, "/callbacks", strings.NewReader(`{"data":"x.y.z"}`))
	rec := httptest.NewRecorder()
	r.Handler().ServeHTTP(rec, req)
	if rec.Code/100 != 4 {
		t.Errorf("a forged callback answered %d", rec.Code)
	}
	if n := w.downloads(); n != 0 {
		t.Fatalf("%d downloads", n)
	}
}

func TestPullGetsPastADocumentWhoseDownloadKeepsFailing(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	r := w.room(Dir(dir), WithWorkers(1))
	stuck := w.addDocument("Regular Mail")
	var rest []uuid.UUID
	for range 11 {
		rest = append(rest, w.addDocument("Regular Mail").ID)
	}
	w.fake.InjectFault(acctadmintest.Fault{Method: http.MethodGet, Path: "/documents/" + stuck.ID.String() + "/download", Status: http.StatusServiceUnavailable})
	// The first pull stops at the failed download, which the journal keeps.
	var pe *acctadmin.PullError
	if err := r.Pull(context.Background()); !errors.As(err, &pe) || !errors.Is(err, acctadmin.ErrServer) || pe.Document != stuck.ID {
		t.Fatalf("first Pull = %v, want a PullError for %s", err, stuck.ID)
	}
	if pending, _ := Dir(dir).(Journal).Pending(context.Background()); !slices.Equal(pending, []uuid.UUID{stuck.ID}) {
		t.Fatalf("journal %v, want the failed document", pending)
	}
	// The next pull tries it again from the journal, and the listing's
	// Before leaves it alone, so the rest is saved.
	if err := r.Pull(context.Background()); !errors.Is(err, acctadmin.ErrServer) {
		t.Fatalf("second Pull = %v, want the journal's failure", err)
	}
	docs, others := savedFiles(t, dir)
	if len(docs) != len(rest) || len(others) != 0 {
		t.Fatalf("saved %d of %d, others %v", len(docs), len(rest), others)
	}
	for _, id := range rest {
		if !bytes.Equal(docs[id], w.pdf(id)) {
			t.Fatalf("document %s not saved whole", id)
		}
	}
	w.fake.ClearFaults()
	if err := r.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	if docs, _ := savedFiles(t, dir); !bytes.Equal(docs[stuck.ID], w.pdf(stuck.ID)) {
		t.Fatal("the document was not saved once its download worked")
	}
	if pending, _ := Dir(dir).(Journal).Pending(context.Background()); len(pending) != 0 {
		t.Fatalf("journal left %v", pending)
	}
	// The stuck document: once by the first pull, then from the journal by
	// each pull after it; the rest once each.
	if st := r.Stats(); st.Saved != 12 || st.Downloads != 12+2 || st.Redownloads != 2 {
		t.Fatalf("stats %+v", st)
	}
}

// TestPullGetsPastADocumentWhoseDownloadIsGone: a document the unread
// listing keeps showing but whose download answers 404 stops no pull:
// each Pull saves the rest, leaves nothing in the journal, and tries the
// gone document once, in case its file comes later.
func TestPullGetsPastADocumentWhoseDownloadIsGone(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	r := w.room(Dir(dir), WithWorkers(2))
	var gone, rest []uuid.UUID
	for i := range 12 {
		d := w.addDocument("Regular Mail")
		if i == 3 || i == 8 {
			gone = append(gone, d.ID)
			w.fake.InjectFault(acctadmintest.Fault{Method: http.MethodGet, Path: "/documents/" + d.ID.String() + "/download", Status: http.StatusNotFound})
			continue
		}
		rest = append(rest, d.ID)
	}
	downloads := int64(0)
	for pull := 1; pull <= 2; pull++ {
		if err := r.Pull(context.Background()); err != nil {
			t.Fatalf("Pull %d = %v, want nil", pull, err)
		}
		docs, others := savedFiles(t, dir)
		if len(docs) != len(rest) || len(others) != 0 {
			t.Fatalf("Pull %d saved %d of %d, others %v", pull, len(docs), len(rest), others)
		}
		for _, id := range rest {
			if !bytes.Equal(docs[id], w.pdf(id)) {
				t.Fatalf("document %s not saved whole", id)
			}
		}
		if pending, _ := Dir(dir).(Journal).Pending(context.Background()); len(pending) != 0 {
			t.Fatalf("Pull %d left %v in the journal", pull, pending)
		}
		// Each pull tries each gone document once, or twice when the
		// other worker's download of it failed while the first 404 stopped
		// the listing (it is then tried from the journal), and a document
		// of the rest that was in flight then is fetched again from the
		// journal: at most 2 downloads more per restart.
		st := r.Stats()
		extra := st.Downloads - downloads
		if pull == 1 {
			extra -= 10
		}
		if st.Saved != 10 || extra < 2 || extra > 2+2*2 {
			t.Fatalf("Pull %d: stats %+v, %d downloads beyond the saved ones", pull, st, extra)
		}
		downloads = st.Downloads
	}
	for _, id := range gone {
		if d, ok := w.fake.Document(id); !ok || d.Status != acctadmintest.DocumentUnread {
			t.Fatalf("gone document %s: %+v, want it unread", id, d)
		}
	}
	// Its file comes: the next pull saves it.
	w.fake.ClearFaults()
	if err := r.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	if docs, _ := savedFiles(t, dir); len(docs) != 12 || !bytes.Equal(docs[gone[0]], w.pdf(gone[0])) {
		t.Fatalf("saved %d documents once the files came, want 12", len(docs))
	}
}

func TestPullLeavesADocumentAnotherDeliveryIsSaving(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	r := w.room(Dir(dir))
	doc := w.addDocument("Regular Mail")
	other := w.addDocument("Regular Mail")
	// A delivery holds the claim on doc, and has not downloaded it yet:
	// the listing shows it unread, and the pull's Before leaves it alone.
	release, err := r.claim(context.Background(), doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Pull(context.Background()); err != nil {
		t.Fatalf("Pull = %v", err)
	}
	if n := w.downloads(); n != 1 {
		t.Fatalf("%d downloads, want the other document's only", n)
	}
	if d, _ := w.fake.Document(doc.ID); d.Status != acctadmintest.DocumentUnread {
		t.Fatal("the claimed document was downloaded")
	}
	if pending, _ := Dir(dir).(Journal).Pending(context.Background()); len(pending) != 0 {
		t.Fatalf("journal %v", pending)
	}
	release()
	if err := r.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	docs, _ := savedFiles(t, dir)
	if len(docs) != 2 || !bytes.Equal(docs[doc.ID], w.pdf(doc.ID)) || !bytes.Equal(docs[other.ID], w.pdf(other.ID)) {
		t.Fatalf("saved %d documents", len(docs))
	}
}

// While a download runs, the room renews its claim every third of the
// claim TTL (its rule: WithClaimTTL), well before it expires: each tick of
// the room's clock renews the claim, to the full TTL, and the clock ticks
// at most every TTL/3. Once the download is saved, the clock stops and
// the claim is released.
func TestAClaimIsRenewedEveryThirdOfItsTTL(t *testing.T) {
	srv := redisserver.Start(t)
	w := newWorld(t)
	rdb := redisClient(t, srv.Addr)
	log := &claimLog{}
	rdb.AddHook(log)
	ttl := 900 * time.Millisecond
	r := w.room(Dir(t.TempDir()), WithRedis(rdb), WithClaimTTL(ttl))
	clock := newFakeTicker()
	r.ticker = clock.ticker
	doc := w.addDocument("Regular Mail")
	release := w.faults.holdDownloads()
	answered := make(chan int, 1)
	go func() { answered <- w.deliver(r.Handler(), doc.ID) }()
	if !waitFor(func() bool { return w.downloads() == 1 }) {
		release()
		t.Fatal("the download never started")
	}
	periods, _ := clock.state()
	if len(periods) != 1 || periods[0] <= 0 || periods[0] > ttl/3 {
		release()
		t.Fatalf("the renewals' clock ticks every %v, want one clock ticking at most every %v (TTL/3)", periods, ttl/3)
	}
	const renewals = 3
	for i := 1; i <= renewals; i++ {
		clock.tick()
		if !waitFor(func() bool { return len(log.of(doc.ID)) == 1+i }) {
			release()
			t.Fatalf("tick %d: %d calls of the claim, want the take and %d renewals", i, len(log.of(doc.ID)), i)
		}
	}
	release()
	if code := <-answered; code != http.StatusOK {
		t.Fatalf("the callback answered %d", code)
	}
	takes := log.of(doc.ID)
	for i, c := range takes {
		if !c.held || c.ttlMillis != ttl.Milliseconds() || c.owner != takes[0].owner {
			t.Fatalf("call %d of the claim: %+v, want the room's own claim held for %v", i, c, ttl)
		}
	}
	if _, stopped := clock.state(); stopped != 1 {
		t.Fatalf("the renewals' clock was stopped %d times after the save, want once", stopped)
	}
	if n, err := rdb.Exists(context.Background(), claimKey(doc.ID)).Result(); err != nil || n != 0 {
		t.Fatalf("the claim is left after the save: %d, %v", n, err)
	}
}
