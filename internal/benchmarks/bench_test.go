package benchmarks

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/internal/handwritten"
	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"go.uber.org/goleak"
)

// Fixed keys of the canned servers, which check only that a token is sent.
const (
	accessKey = "AK-bench-0123456789"
	secretKey = "SK-bench-secret-9876543210"
)

// newSDK returns an SDK client for baseURL that is closed with the
// benchmark.
func newSDK(b *testing.B, baseURL, access, secret string, opts ...acctadmin.Option) *acctadmin.Client {
	b.Helper()
	c, err := acctadmin.NewClient(access, secret, append([]acctadmin.Option{acctadmin.WithBaseURL(baseURL)}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.CloseIdleConnections)
	return c
}

// newHandwritten makes the hand-written client, with a transport of its
// own, as newSDK's client has: each variant of a benchmark then starts on
// fresh connections, and none inherits one that another variant's
// transfers have warmed (on loopback, a connection that has carried
// gigabytes reads a large file faster than a new one).
func newHandwritten(b *testing.B, baseURL, access, secret string) *handwritten.Client {
	b.Helper()
	c := handwritten.New(baseURL, access, secret)
	t := http.DefaultTransport.(*http.Transport).Clone()
	c.HTTP = &http.Client{Transport: t}
	b.Cleanup(t.CloseIdleConnections)
	return c
}

// cannedServer answers every request that carries a token with body, a
// JSON answer with its Content-Length. A fixed body keeps the server's
// own work small and the same for both clients, so that the difference
// measured is the clients'.
func cannedServer(b *testing.B, body []byte) *httptest.Server {
	length := []string{strconv.Itoa(len(body))}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		h := w.Header()
		h["Content-Type"] = []string{"application/json"}
		h["Content-Length"] = length
		_, _ = w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// callbacksBody is GET /callbacks with three callbacks.
var callbacksBody = []byte(`{"success":true,"timestamp":"2024-05-01 10:00:00 -0700","result":[` +
	`{"id":"3f1b7c2e-5d4a-4e8b-9c1d-2a3b4c5d6e7f","created_at":"2024-04-01 09:00:00 -0700","url":"https://hooks.example.com/acctadmin/1"},` +
	`{"id":"4a2c8d3f-6e5b-4f9c-8d2e-3b4c5d6e7f80","created_at":"2024-04-02 09:30:00 -0700","url":"https://hooks.example.com/acctadmin/2"},` +
	`{"id":"5b3d9e40-7f6c-4a0d-9e3f-4c5d6e7f8091","created_at":"2024-04-03 10:15:00 -0700","url":"https://hooks.example.com/acctadmin/3"}]}`)

// BenchmarkCallbacksList is the overhead of one small call over loopback:
// GET /callbacks answered with three callbacks by a canned server.
func BenchmarkCallbacksList(b *testing.B) {
	srv := cannedServer(b, callbacksBody)
	ctx := context.Background()
	b.Run("sdk", func(b *testing.B) {
		c := newSDK(b, srv.URL, accessKey, secretKey)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			cbs, err := c.Callbacks.List(ctx)
			if err != nil || len(cbs) != 3 {
				b.Fatal(len(cbs), err)
			}
		}
	})
	b.Run("handwritten", func(b *testing.B) {
		c := newHandwritten(b, srv.URL, accessKey, secretKey)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			cbs, err := c.ListCallbacks(ctx)
			if err != nil || len(cbs) != 3 {
				b.Fatal(len(cbs), err)
			}
		}
	})
}

// busyWork spins for d: the work a loop body does on each item. It spins
// rather than sleeps because time.Sleep cannot wait as little as 100µs on
// Linux (it waits about 1ms), and spinning keeps one of the two cores of
// the benchmark machine busy, as real per-item work would.
func busyWork(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

// Paging: 10,000 read documents, 50 pages of 200, from a fake that adds
// 20ms to every request, with 100µs of work per item.
const (
	pagingDocs    = 10000
	pagingPage    = 200
	pagingLatency = 20 * time.Millisecond
	itemWork      = 100 * time.Microsecond
)

// BenchmarkPagingRead reads every read document while working on each:
// the SDK fetches the next page while the loop works through the current
// one; the hand-written client asks for each page when it needs it.
func BenchmarkPagingRead(b *testing.B) {
	srv := acctadmintest.NewServer()
	b.Cleanup(srv.Close)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Holdings LLC", HomeState: "Utah"})
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < pagingDocs; i++ {
		srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, Status: acctadmintest.DocumentRead,
			CreatedAt: start.Add(time.Duration(i) * time.Minute)})
	}
	srv.SetLatency(pagingLatency)
	ctx := context.Background()

	b.Run("sdk", func(b *testing.B) {
		c := newSDK(b, srv.URL, srv.AccessKey, srv.SecretKey)
		var wait time.Duration
		for i := 0; i < b.N; i++ {
			n := 0
			last := time.Now()
			for _, err := range c.Documents.All(ctx, &acctadmin.DocumentListParams{Status: acctadmin.DocumentRead}) {
				wait += time.Since(last)
				if err != nil {
					b.Fatal(err)
				}
				busyWork(itemWork)
				n++
				last = time.Now()
			}
			wait += time.Since(last)
			if n != pagingDocs {
				b.Fatalf("visited %d documents, want %d", n, pagingDocs)
			}
		}
		reportWait(b, wait)
	})
	b.Run("handwritten", func(b *testing.B) {
		c := newHandwritten(b, srv.URL, srv.AccessKey, srv.SecretKey)
		var wait time.Duration
		for i := 0; i < b.N; i++ {
			n := 0
			for offset := 0; ; offset += pagingPage {
				start := time.Now()
				docs, err := c.ListDocuments(ctx, "read", pagingPage, offset)
				wait += time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				for range docs {
					busyWork(itemWork)
					n++
				}
				if len(docs) < pagingPage {
					break
				}
			}
			if n != pagingDocs {
				b.Fatalf("visited %d documents, want %d", n, pagingDocs)
			}
		}
		reportWait(b, wait)
	})
}

// reportWait reports how long, per operation, the loop waited for
// documents rather than working on them: for the hand-written client, the
// 51 round trips of its requests (50 full pages and the empty one that
// ends the listing); for the SDK, what the fetcher working ahead of the
// loop could not hide.
func reportWait(b *testing.B, wait time.Duration) {
	b.ReportMetric(wait.Seconds()*1000/float64(b.N), "wait-ms/op")
}

// unreadAccount starts the fake with n unread documents, a minute apart,
// whose PDFs are pdfSize bytes (the fake's own size when 0), and returns
// it with their ids. The fake is closed with the benchmark.
func unreadAccount(b *testing.B, n int, pdfSize int64) (*acctadmintest.Server, []uuid.UUID) {
	srv := acctadmintest.NewServer()
	b.Cleanup(srv.Close)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Holdings LLC", HomeState: "Utah"})
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	ids := make([]uuid.UUID, n)
	for i := range ids {
		ids[i] = srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, PDFSize: pdfSize,
			CreatedAt: start.Add(time.Duration(i) * time.Minute)}).ID
	}
	return srv, ids
}

// drainWithAll reads every unread document whole the way a user does with
// the SDK alone: Documents.All, and a Download of each document in the
// loop body. It returns the documents and bytes read.
func drainWithAll(ctx context.Context, b *testing.B, c *acctadmin.Client) (n int, total int64) {
	for d, err := range c.Documents.All(ctx, nil) {
		if err != nil {
			b.Fatal(err)
		}
		f, err := c.Documents.Download(ctx, d.ID)
		if err != nil {
			b.Fatal(err)
		}
		w, err := io.Copy(io.Discard, f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		n++
		total += w
	}
	return n, total
}

// markUnread makes the documents ids unread again.
func markUnread(srv *acctadmintest.Server, ids []uuid.UUID) {
	for _, id := range ids {
		srv.SetDocumentStatus(id, acctadmintest.DocumentUnread)
	}
}

// unreadDocs is the size of the unread listing that BenchmarkUnreadDrain
// drains.
const unreadDocs = 1000

// BenchmarkUnreadDrain downloads every unread document while paging the
// unread listing, which each download shrinks. It reports how many
// documents each client visited, how many listing requests it made, and
// how many per page of documents visited, and the time per document
// visited. The fake adds no latency here.
func BenchmarkUnreadDrain(b *testing.B) {
	srv, ids := unreadAccount(b, unreadDocs, 0)
	ctx := context.Background()

	// run drains the listing b.N times with drain, which returns the
	// number of documents it visited, and reports the counts.
	run := func(b *testing.B, drain func() int) {
		visited, lists := 0, 0
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			markUnread(srv, ids)
			srv.ResetRequests()
			b.StartTimer()
			visited += drain()
			lists += srv.RequestCount(http.MethodGet, "/documents")
		}
		pages := (visited/b.N + pagingPage - 1) / pagingPage
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(max(visited, 1)), "ns/doc")
		b.ReportMetric(float64(visited)/float64(b.N), "visited/op")
		b.ReportMetric(float64(lists)/float64(b.N), "list-reqs/op")
		b.ReportMetric(float64(lists)/float64(b.N)/float64(max(pages, 1)), "list-reqs/page")
	}

	b.Run("sdk", func(b *testing.B) {
		c := newSDK(b, srv.URL, srv.AccessKey, srv.SecretKey)
		run(b, func() int {
			n, _ := drainWithAll(ctx, b, c)
			return n
		})
	})
	b.Run("handwritten", func(b *testing.B) {
		c := newHandwritten(b, srv.URL, srv.AccessKey, srv.SecretKey)
		run(b, func() int {
			n := 0
			for offset := 0; ; offset += pagingPage {
				docs, err := c.ListDocuments(ctx, "unread", pagingPage, offset)
				if err != nil {
					b.Fatal(err)
				}
				for _, d := range docs {
					if _, err := c.DownloadDocument(ctx, d.ID); err != nil {
						b.Fatal(err)
					}
					n++
				}
				if len(docs) < pagingPage {
					break
				}
			}
			return n
		})
	})
}

// Pull: 1,000 unread documents of 64 KiB from a fake that adds 30 ms to
// every request (listings and downloads alike).
const (
	pullDocs    = 1000
	pullSize    = 64 << 10
	pullLatency = 30 * time.Millisecond
	pullWorkers = 8
)

// BenchmarkPull drains the unread listing, reading every document whole:
// Documents.Pull with 8 workers against the sequential loop a user writes
// with the SDK alone, All and a Download of each document in the loop
// body. Both visit every document once; both are measured in the same run
// against the same fake, whose documents are made unread again between
// iterations.
func BenchmarkPull(b *testing.B) {
	srv, ids := unreadAccount(b, pullDocs, pullSize)
	srv.SetLatency(pullLatency)
	ctx := context.Background()

	// run drains the listing b.N times with drain, which returns the
	// documents and bytes it read.
	run := func(b *testing.B, drain func() (int, int64)) {
		b.SetBytes(pullDocs * pullSize)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			markUnread(srv, ids)
			b.StartTimer()
			n, bytes := drain()
			if n != pullDocs || bytes < pullDocs*pullSize {
				b.Fatalf("read %d documents, %d bytes; want %d documents of at least %d bytes", n, bytes, pullDocs, pullSize)
			}
		}
	}

	b.Run("sdk", func(b *testing.B) {
		c := newSDK(b, srv.URL, srv.AccessKey, srv.SecretKey)
		run(b, func() (int, int64) {
			var n atomic.Int64
			var last acctadmin.PullProgress
			err := c.Documents.Pull(ctx, &acctadmin.PullParams{Workers: pullWorkers,
				OnProgress: func(p acctadmin.PullProgress) { last = p },
			}, func(ctx context.Context, d acctadmin.Document, f *acctadmin.File) error {
				_, err := io.Copy(io.Discard, f)
				n.Add(1)
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			return int(n.Load()), last.Bytes
		})
	})
	b.Run("sequential", func(b *testing.B) {
		c := newSDK(b, srv.URL, srv.AccessKey, srv.SecretKey)
		run(b, func() (int, int64) { return drainWithAll(ctx, b, c) })
	})
}

// heapWatch samples the heap in use (the runtime/metrics equivalent of
// MemStats.HeapInuse, read without stopping the world) every millisecond
// and keeps its peak.
type heapWatch struct {
	base uint64
	mu   sync.Mutex
	peak uint64
	stop chan struct{}
	done chan struct{}
}

func heapInUse() uint64 {
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
	}
	metrics.Read(s)
	return s[0].Value.Uint64() + s[1].Value.Uint64()
}

// watchHeap collects garbage, then starts sampling.
func watchHeap() *heapWatch {
	runtime.GC()
	w := &heapWatch{stop: make(chan struct{}), done: make(chan struct{})}
	w.base = heapInUse()
	w.peak = w.base
	go func() {
		defer close(w.done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
				w.sample()
			}
		}
	}()
	return w
}

func (w *heapWatch) sample() {
	v := heapInUse()
	w.mu.Lock()
	w.peak = max(w.peak, v)
	w.mu.Unlock()
}

// growth takes a last sample, stops the watch and returns the peak growth
// of the heap over its start, in bytes.
func (w *heapWatch) growth() uint64 {
	w.sample()
	close(w.stop)
	<-w.done
	return w.peak - w.base
}

// downloadSize is the size of the PDF that BenchmarkDownload256MiB reads.
const downloadSize = 256 << 20

// BenchmarkDownload256MiB downloads a 256 MiB PDF from the fake: the SDK
// streams it (io.Copy to io.Discard), the hand-written client reads it
// whole (io.ReadAll), and handwritten-copy, the throughput reference,
// streams it with a hand-signed request and a plain io.Copy. Each reports
// the peak growth of the heap in use during a download, in MiB.
func BenchmarkDownload256MiB(b *testing.B) {
	srv := acctadmintest.NewServer()
	b.Cleanup(srv.Close)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Holdings LLC", HomeState: "Utah"})
	doc := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, PDFSize: downloadSize})
	ctx := context.Background()

	// run downloads b.N times with get, which returns the bytes it read
	// and keeps what it holds alive until it returns.
	run := func(b *testing.B, get func(*heapWatch) int64) {
		b.SetBytes(downloadSize)
		b.ReportAllocs()
		var peak uint64
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			w := watchHeap()
			b.StartTimer()
			n := get(w)
			b.StopTimer()
			peak = max(peak, w.growth())
			if n != downloadSize {
				b.Fatalf("read %d bytes, want %d", n, downloadSize)
			}
			b.StartTimer()
		}
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	}

	b.Run("sdk", func(b *testing.B) {
		c := newSDK(b, srv.URL, srv.AccessKey, srv.SecretKey)
		run(b, func(*heapWatch) int64 {
			f, err := c.Documents.Download(ctx, doc.ID)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			n, err := io.Copy(io.Discard, f)
			if err != nil {
				b.Fatal(err)
			}
			return n
		})
	})
	b.Run("handwritten", func(b *testing.B) {
		c := newHandwritten(b, srv.URL, srv.AccessKey, srv.SecretKey)
		run(b, func(w *heapWatch) int64 {
			pdf, err := c.DownloadDocument(ctx, doc.ID.String())
			if err != nil {
				b.Fatal(err)
			}
			w.sample() // while pdf is still held
			return int64(len(pdf))
		})
	})
	b.Run("handwritten-copy", func(b *testing.B) {
		c := newHandwritten(b, srv.URL, srv.AccessKey, srv.SecretKey)
		run(b, func(*heapWatch) int64 {
			resp, err := c.Do(ctx, http.MethodGet, "/documents/"+doc.ID.String()+"/download", nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer resp.Body.Close()
			n, err := io.Copy(io.Discard, resp.Body)
			if err != nil {
				b.Fatal(err)
			}
			return n
		})
	})
}

// reuseCalls is how many GETs one BenchmarkConnectionReuse operation makes.
const reuseCalls = 1000

// BenchmarkConnectionReuse makes 1,000 sequential GETs of a document, of
// which every 10th names an unknown document (404) and every 7th is first
// answered 503 (the SDK retries it; the hand-written client takes it as
// an error), and reports the TCP connections the fake accepted for them.
// The root package's TestConnectionReuseUnderErrors asserts the SDK's
// count.
func BenchmarkConnectionReuse(b *testing.B) {
	srv := acctadmintest.NewServer()
	b.Cleanup(srv.Close)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Holdings LLC", HomeState: "Utah"})
	doc := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID})
	unknown := uuid.MustParse("00000000-0000-4000-8000-000000000001")
	ctx := context.Background()

	// run makes the calls b.N times with get, which returns whether the
	// answer was the 404 of an unknown document, and reports connections.
	run := func(b *testing.B, closeIdle func(), get func(id uuid.UUID) (notFound bool)) {
		b.ReportAllocs()
		conns := 0
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			closeIdle()
			before := srv.ConnectionsOpened()
			b.StartTimer()
			for n := 1; n <= reuseCalls; n++ {
				id := doc.ID
				switch {
				case n%10 == 0:
					id = unknown
				case n%7 == 0:
					srv.InjectFault(acctadmintest.Fault{Method: http.MethodGet, Path: "/documents/:id", Status: http.StatusServiceUnavailable, Count: 1})
				}
				if notFound := get(id); notFound != (id == unknown) {
					b.Fatalf("call %d: not found %v", n, notFound)
				}
			}
			b.StopTimer()
			conns += srv.ConnectionsOpened() - before
			b.StartTimer()
		}
		b.ReportMetric(float64(conns)/float64(b.N), "conns/op")
	}

	b.Run("sdk", func(b *testing.B) {
		c := newSDK(b, srv.URL, srv.AccessKey, srv.SecretKey, acctadmin.WithRetryWait(0, 0))
		run(b, c.CloseIdleConnections, func(id uuid.UUID) bool {
			_, err := c.Documents.Get(ctx, id)
			if err != nil && !errors.Is(err, acctadmin.ErrNotFound) {
				b.Fatal(err)
			}
			return err != nil
		})
	})
	b.Run("handwritten", func(b *testing.B) {
		c := newHandwritten(b, srv.URL, srv.AccessKey, srv.SecretKey)
		run(b, c.HTTP.CloseIdleConnections, func(id uuid.UUID) bool {
			_, err := c.GetDocument(ctx, id.String())
			var se *handwritten.StatusError
			if err != nil && !errors.As(err, &se) {
				b.Fatal(err)
			}
			return se != nil && se.StatusCode == http.StatusNotFound
		})
	})
}

// BenchmarkWebhookVerify verifies a callback token as the API sends them
// (new-document, made by webhook.Sign with the access key in its header):
// the webhook package's Verifier, which also checks the token's form,
// refuses duplicate keys and maps the claims onto an Event, against a
// plain jwt.Parse limited to HS256 that reads the same four claims.
func BenchmarkWebhookVerify(b *testing.B) {
	secret := []byte(secretKey)
	token, err := webhook.Sign(map[string]any{
		"event":        webhook.EventNewDocument,
		"document_id":  "6f1c0001-8d2e-4b7a-9c3d-00000000f1ab",
		"company_id":   "0b6c1d2e-3f40-4a5b-8c6d-7e8f9a0b1c2d",
		"company_name": "Acme Holdings LLC",
	}, secret, webhook.WithSignAccessKey(accessKey))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("sdk", func(b *testing.B) {
		v, err := webhook.NewVerifier(secret, webhook.WithAccessKey(accessKey))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			ev, err := v.Verify(token)
			if err != nil || ev.DocumentID == uuid.Nil {
				b.Fatal(ev, err)
			}
		}
	})
	b.Run("handwritten", func(b *testing.B) {
		keyFunc := func(*jwt.Token) (any, error) { return secret, nil }
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			t, err := jwt.Parse(token, keyFunc, jwt.WithValidMethods([]string{"HS256"}))
			if err != nil {
				b.Fatal(err)
			}
			claims := t.Claims.(jwt.MapClaims)
			event, _ := claims["event"].(string)
			docID, _ := claims["document_id"].(string)
			companyID, _ := claims["company_id"].(string)
			name, _ := claims["company_name"].(string)
			if event == "" || docID == "" || companyID == "" || name == "" {
				b.Fatal(claims)
			}
		}
	})
}

// TestMain checks that the benchmarks leave no goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
