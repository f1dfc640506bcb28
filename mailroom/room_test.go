package mailroom

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/google/uuid"
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
