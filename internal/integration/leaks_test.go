package acctadmin_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	. "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// lkConns follows the server side of every connection through its
// http.ConnState hook.
type lkConns struct {
	mu     sync.Mutex
	states map[net.Conn]http.ConnState
	opened int
}

func (c *lkConns) track(conn net.Conn, s http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s == http.StateNew {
		c.opened++
	}
	if s == http.StateClosed || s == http.StateHijacked {
		delete(c.states, conn)
		return
	}
	c.states[conn] = s
}

// count returns how many connections are active and idle.
func (c *lkConns) count() (active, idle int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.states {
		if s == http.StateIdle {
			idle++
		} else {
			active++
		}
	}
	return active, idle
}

// settle waits until want reports true of the counts, or fails.
func (c *lkConns) settle(t *testing.T, what string, want func(active, idle int) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		active, idle := c.count()
		if want(active, idle) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d connections still active and %d idle", what, active, idle)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestNoLeaksAfterAbandonedCalls abandons calls every way a caller can:
// breaking out of All loops (with the next page on its way), cancelling a
// context while a page is awaited, while a retry waits, and in the middle
// of a download, and closing a multi-MiB file after a few KiB. No
// connection stays active; once the client's idle connections are closed
// none stays open; and once the server is closed no goroutine started by
// the test is left.
func TestNoLeaksAfterAbandonedCalls(t *testing.T) {
	before := goleak.IgnoreCurrent()

	fake := acctadmintest.NewFake(acctadmintest.WithDemoData(), acctadmintest.WithStrictSigning())
	company := fake.Companies()[0]
	big := fake.AddDocument(acctadmintest.DocumentInput{CompanyID: company.ID, Title: "Big scan", Pages: 3, Status: acctadmintest.DocumentRead, PDFSize: 16 << 20})
	conns := &lkConns{states: map[net.Conn]http.ConnState{}}
	ts := httptest.NewUnstartedServer(fake)
	ts.Config.ConnState = conns.track
	ts.Start()
	serverClosed := false
	closeServer := func() {
		if !serverClosed {
			serverClosed = true
			// A handler blocked writing to a client that stopped reading
			// (the leak this test looks for) would hold Close forever.
			cut := time.AfterFunc(time.Second, ts.CloseClientConnections)
			ts.Close()
			cut.Stop()
			fake.Close()
		}
	}
	defer closeServer()

	c, err := NewClient(fake.AccessKey, fake.SecretKey, WithBaseURL(ts.URL), WithRetryWait(time.Millisecond, 10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	t.Run("break out of All loops", func(t *testing.T) {
		n := 0
		for _, err := range c.Services.All(ctx, &ServiceListParams{Limit: 2}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			break // page 2 is on its way
		}
		for _, err := range c.Resources.All(ctx, &ResourceListParams{Limit: 5}) {
			if err != nil {
				t.Fatal(err)
			}
			if n++; n == 4 {
				break // three resources in, mid-page
			}
		}
		for _, err := range c.Documents.All(ctx, nil) { // the shrinking listing
			if err != nil {
				t.Fatal(err)
			}
			n++
			break
		}
		start := DateOf(time.Now())
		for _, err := range c.ComplianceEvents.All(ctx, &ComplianceEventListParams{StartDate: start, EndDate: start.AddDays(365), Limit: 3}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			break
		}
		for _, err := range c.Invoices.All(ctx, &InvoiceListParams{Limit: 2}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			break
		}
		if n != 7 {
			t.Errorf("the loop bodies ran %d times, want 1+3+1+1+1", n)
		}
	})

	t.Run("cancel while the next page is awaited", func(t *testing.T) {
		// The first page comes at once; the second takes 5 s.
		fake.InjectFault(acctadmintest.Fault{Method: http.MethodGet, Path: "/services", Count: 1})
		fake.InjectFault(acctadmintest.Fault{Method: http.MethodGet, Path: "/services", Count: 1, Latency: 5 * time.Second})
		defer fake.ClearFaults()
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		items, errs := 0, []error{}
		start := time.Now()
		for _, err := range c.Services.All(cctx, &ServiceListParams{Limit: 2}) {
			if err != nil {
				errs = append(errs, err)
				continue
			}
			items++
			cancel()
		}
		if items != 2 || len(errs) != 1 {
			t.Fatalf("%d items and errors %v, want the first page and one error", items, errs)
		}
		te := tpTransportError(t, errs[0])
		if !errors.Is(errs[0], context.Canceled) {
			t.Errorf("error %v (cause %v), want it to be context.Canceled", te, te.Err)
		}
		if waited := time.Since(start); waited > 4*time.Second {
			t.Errorf("the loop ended after %s: the cancel did not end the wait", waited)
		}
	})

	t.Run("cancel while a retry waits", func(t *testing.T) {
		fake.InjectFault(acctadmintest.Fault{Method: http.MethodGet, Path: "/callbacks", Status: http.StatusTooManyRequests, RetryAfter: "30"})
		defer fake.ClearFaults()
		// Cancelled, not a deadline: a Retry-After past the deadline ends
		// the call at once, without a wait to cut short.
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		time.AfterFunc(100*time.Millisecond, cancel)
		_, err := c.Callbacks.List(cctx)
		if te := tpTransportError(t, err); !errors.Is(err, context.Canceled) || te.Attempts != 1 {
			t.Errorf("err = %v, want the cancel after 1 attempt", err)
		}
	})

	t.Run("cancel mid-download", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		f, err := c.Documents.Download(cctx, big.ID)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if f.ContentLength != 16<<20 {
			t.Errorf("ContentLength = %d, want 16 MiB", f.ContentLength)
		}
		head := make([]byte, 16<<10)
		if _, err := io.ReadFull(f, head); err != nil || string(head[:5]) != "%PDF-" {
			t.Fatalf("first 16 KiB: %q, %v", head[:8], err)
		}
		cancel()
		n, err := io.Copy(io.Discard, f)
		if !errors.Is(err, context.Canceled) || n >= 16<<20-16<<10 {
			t.Errorf("after the cancel read %d more bytes and %v, want context.Canceled before the end", n, err)
		}
	})

	t.Run("close a file early", func(t *testing.T) {
		for range 3 {
			f, err := c.Documents.Download(ctx, big.ID)
			if err != nil {
				t.Fatal(err)
			}
			head := make([]byte, 4<<10)
			if _, err := io.ReadFull(f, head); err != nil || string(head[:5]) != "%PDF-" {
				t.Fatalf("first 4 KiB: %q, %v", head[:8], err)
			}
			if err := f.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}
		f, err := c.Resources.Page(ctx, fake.Resources()[0].ID, 0, &PageParams{DPI: 300})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil { // unread
			t.Errorf("Close: %v", err)
		}
	})

	// Nothing is still in flight: every connection left is idle in the
	// client's pool; closing the pool closes them all.
	conns.settle(t, "after the abandoned calls", func(active, _ int) bool { return active == 0 })
	c.CloseIdleConnections()
	conns.settle(t, "after CloseIdleConnections", func(active, idle int) bool { return active == 0 && idle == 0 })
	t.Logf("%d connections opened in all, none left open", conns.opened)

	closeServer()
	if err := goleak.Find(before); err != nil {
		t.Fatal(err)
	}
}
