package acctadmin

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

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
