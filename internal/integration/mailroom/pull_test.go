package mailroom_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
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
)

func TestPullSavesTheMailPastADocumentWithAnUnusableID(t *testing.T) {
	// Five unread documents and, third in the listing, one whose id is
	// "legacy-42": it cannot be downloaded, and must not hold up the five.
	var mu sync.Mutex
	var ids []uuid.UUID
	read := map[uuid.UUID]bool{}
	for i := range 5 {
		ids = append(ids, uuid.NewSHA1(uuid.NameSpaceOID, []byte{byte(i)}))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if id, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/documents/"), "/download"); ok {
			read[uuid.MustParse(id)] = true
			w.Header().Set("Content-Type", "application/pdf")
			io.WriteString(w, "%PDF-1.4 "+id)
			return
		}
		if r.URL.Path != "/documents" {
			http.NotFound(w, r)
			return
		}
		var rows []string
		for i, id := range ids {
			if i == 2 {
				rows = append(rows, `{"id":"legacy-42","status":"unread","title":"legacy"}`)
			}
			if !read[id] {
				rows = append(rows, `{"id":"`+id.String()+`","status":"unread","title":"mail"}`)
			}
		}
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		offset = min(offset, len(rows))
		rows = rows[offset:min(offset+limit, len(rows))]
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"success":true,"result":[`+strings.Join(rows, ",")+`]}`)
	}))
	defer srv.Close()
	c, err := acctadmin.NewClient("key", "secret", acctadmin.WithBaseURL(srv.URL), acctadmin.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	v, err := webhook.NewVerifier([]byte("secret"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r, err := mailroom.New(c, v, mailroom.Dir(dir), mailroom.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	for run := range 3 {
		if err := r.Pull(context.Background()); err != nil {
			t.Fatalf("pull %d: %v", run, err)
		}
	}
	docs, others := savedFiles(t, dir)
	if len(docs) != 5 || len(others) != 0 {
		t.Fatalf("saved %d documents, want the 5 with an id; others %v", len(docs), others)
	}
	for _, id := range ids {
		if string(docs[id]) != "%PDF-1.4 "+id.String() {
			t.Fatalf("document %s saved as %q", id, docs[id])
		}
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
	r := w.room(mailroom.Dir(dir), mailroom.WithWorkers(8), mailroom.WithKeepOut(func(d acctadmin.Document) bool {
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

func TestJournalRecordOfASavedDocumentIsFinishedWithOnSaved(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	var seen []uuid.UUID
	r := w.room(mailroom.Dir(dir), mailroom.WithOnSaved(func(_ context.Context, d acctadmin.Document) { seen = append(seen, d.ID) }))
	doc := w.addDocument("High Priority")
	ctx := context.Background()
	// A room saved the document and died before it told WithOnSaved and
	// ended its record.
	if err := mailroom.Dir(dir).Save(ctx, acctadmin.Document{ID: doc.ID}, bytes.NewReader(w.pdf(doc.ID))); err != nil {
		t.Fatal(err)
	}
	if _, err := mailroom.Dir(dir).(mailroom.Journal).Begin(ctx, doc.ID); err != nil {
		t.Fatal(err)
	}
	w.fake.SetDocumentStatus(doc.ID, acctadmintest.DocumentRead)
	if err := r.Pull(ctx); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []uuid.UUID{doc.ID}) {
		t.Fatalf("WithOnSaved saw %v", seen)
	}
	if pending, _ := mailroom.Dir(dir).(mailroom.Journal).Pending(ctx); len(pending) != 0 {
		t.Fatalf("journal left %v", pending)
	}
	if n := w.downloads(); n != 1 { // the test's own, in w.pdf
		t.Fatalf("%d downloads", n)
	}
}

func TestPullGetsPastADocumentWhoseDownloadKeepsFailing(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	r := w.room(mailroom.Dir(dir), mailroom.WithWorkers(1))
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
	if pending, _ := mailroom.Dir(dir).(mailroom.Journal).Pending(context.Background()); !slices.Equal(pending, []uuid.UUID{stuck.ID}) {
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
	if pending, _ := mailroom.Dir(dir).(mailroom.Journal).Pending(context.Background()); len(pending) != 0 {
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
	r := w.room(mailroom.Dir(dir), mailroom.WithWorkers(2))
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
		if pending, _ := mailroom.Dir(dir).(mailroom.Journal).Pending(context.Background()); len(pending) != 0 {
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
	srv := redisserver.Start(t)
	rdb := redisClient(t, srv.Addr)
	w := newWorld(t)
	dir := t.TempDir()
	r := w.room(mailroom.Dir(dir), mailroom.WithRedis(rdb))
	doc := w.addDocument("Regular Mail")
	other := w.addDocument("Regular Mail")
	// A delivery of another room holds the claim on doc (its key in
	// Redis, under that room's token), and has not downloaded it yet: the
	// listing shows it unread, and the pull's Before leaves it alone.
	if held, err := holdClaim(context.Background(), rdb, doc.ID, "other-room", time.Minute); err != nil || !held {
		t.Fatalf("take = %v, %v", held, err)
	}
	release := func() {
		if err := rdb.Del(context.Background(), claimKey(doc.ID)).Err(); err != nil {
			t.Fatal(err)
		}
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
	if pending, _ := mailroom.Dir(dir).(mailroom.Journal).Pending(context.Background()); len(pending) != 0 {
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
