package acctadmin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	. "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// TestConcurrentClientSharedBy64Goroutines shares one Client between 64
// goroutines that call every endpoint at once (run it with -race). Each
// goroutine checks that it gets what it asked for: the records of its own
// company filter, the document and resource it named, the callbacks and
// companies it created, the services it ordered and cancelled. The shared
// logger's records must stay whole, one per attempt.
func TestConcurrentClientSharedBy64Goroutines(t *testing.T) {
	const goroutines = 64
	srv := acctadmintest.NewServer(acctadmintest.WithDemoData(), acctadmintest.WithStrictSigning())
	defer srv.Close()
	var logs tpLog
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := NewClient(srv.AccessKey, srv.SecretKey, WithBaseURL(srv.URL), WithLogger(logger),
		WithRetryWait(time.Millisecond, 10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()

	// What the fake holds before, for the goroutines to check against.
	companies := srv.Companies()
	servicesOf, invoicesOf := map[uuid.UUID]int{}, map[uuid.UUID]int{}
	for _, s := range srv.Services() {
		servicesOf[s.CompanyID]++
	}
	for _, inv := range srv.Invoices() {
		invoicesOf[inv.CompanyID]++
	}
	var read, readOpen []acctadmintest.Document
	unread := map[uuid.UUID]bool{}
	for _, d := range srv.Documents() {
		if d.Status == acctadmintest.DocumentRead {
			read = append(read, d)
			if !d.PaymentLocked { // a locked one's file answers 402
				readOpen = append(readOpen, d)
			}
		} else {
			unread[d.ID] = true
		}
	}
	var files []acctadmintest.Resource
	for _, r := range srv.Resources() {
		if r.Kind == acctadmintest.ResourceDocument {
			files = append(files, r)
		}
	}
	sites := []string{acctadmintest.DemoWebsiteURL, acctadmintest.DemoBareWebsiteURL}
	states := []string{"Utah", "Idaho", "Nevada", "Wyoming", "Texas", "Oregon", "Colorado", "Montana"}
	start := DateOf(time.Now())
	prefix := "cc" + uuid.NewString()[:8]

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	kept := make([]uuid.UUID, goroutines) // each goroutine's callback left in place
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fail := func(format string, args ...any) { t.Errorf("goroutine %d: "+format, append([]any{g}, args...)...) }
			co := companies[g%len(companies)]

			// Listings filtered by this goroutine's company.
			svcs, err := c.Services.List(ctx, &ServiceListParams{CompanyID: co.ID})
			if err != nil || len(svcs) != servicesOf[co.ID] {
				fail("Services.List(%s) = %d services, %v; want %d", co.Name, len(svcs), err, servicesOf[co.ID])
			}
			n := 0
			for s, err := range c.Services.All(ctx, &ServiceListParams{Company: co.Name, Limit: 1}) {
				if err != nil || s.CompanyID != co.ID || s.Company != co.Name {
					fail("Services.All(%s) yielded %s of %s (%s), %v", co.Name, s.ID, s.Company, s.CompanyID, err)
					break
				}
				n++
			}
			if n != servicesOf[co.ID] {
				fail("Services.All(%s) yielded %d, want %d", co.Name, n, servicesOf[co.ID])
			}
			evs, err := c.ComplianceEvents.List(ctx, &ComplianceEventListParams{CompanyID: co.ID, StartDate: start.AddDays(-30), EndDate: start.AddDays(400)})
			for _, ev := range evs {
				if ev.Company != co.Name {
					fail("compliance events of %s hold one of %s", co.Name, ev.Company)
				}
			}
			if err != nil {
				fail("ComplianceEvents.List: %v", err)
			}
			for ev, err := range c.ComplianceEvents.All(ctx, &ComplianceEventListParams{Company: co.Name, StartDate: start.AddDays(-30), EndDate: start.AddDays(400), Limit: 2}) {
				if err != nil || ev.Company != co.Name {
					fail("ComplianceEvents.All(%s) yielded one of %s, %v", co.Name, ev.Company, err)
					break
				}
			}
			invs, err := c.Invoices.List(ctx, &InvoiceListParams{CompanyIDs: []uuid.UUID{co.ID}})
			if err != nil || len(invs) != invoicesOf[co.ID] {
				fail("Invoices.List(%s) = %d, %v; want %d", co.Name, len(invs), err, invoicesOf[co.ID])
			}
			n = 0
			for inv, err := range c.Invoices.All(ctx, &InvoiceListParams{Companies: []string{co.Name}, Limit: 1}) {
				if err != nil || inv.CompanyID != co.ID {
					fail("Invoices.All(%s) yielded one of %s, %v", co.Name, inv.CompanyID, err)
					break
				}
				n++
			}
			if n != invoicesOf[co.ID] {
				fail("Invoices.All(%s) yielded %d, want %d", co.Name, n, invoicesOf[co.ID])
			}

			// Records and files named by id.
			doc := readOpen[g%len(readOpen)]
			if d, err := c.Documents.Get(ctx, doc.ID); err != nil || d.ID != doc.ID || d.CompanyID != doc.CompanyID || d.Title != doc.Title {
				fail("Documents.Get(%s) = %+v, %v", doc.ID, d, err)
			}
			ccFile(t, g, "Documents.Page", "\x89PNG", func() (*File, error) { return c.Documents.Page(ctx, doc.ID, 0, &PageParams{DPI: 72}) })
			ccFile(t, g, "Documents.Download", "%PDF-", func() (*File, error) { return c.Documents.Download(ctx, doc.ID) })
			list, err := c.Documents.List(ctx, &DocumentListParams{Status: DocumentRead, Limit: 1 + g})
			if err != nil || len(list) != min(1+g, len(read)) {
				fail("Documents.List(read, limit %d) = %d, %v", 1+g, len(list), err)
			}
			seen := map[uuid.UUID]bool{}
			for d, err := range c.Documents.All(ctx, nil) {
				if err != nil || !unread[d.ID] || seen[d.ID] {
					fail("Documents.All yielded %s (unread %v, seen %v), %v", d.ID, unread[d.ID], seen[d.ID], err)
					break
				}
				seen[d.ID] = true
			}
			if len(seen) != len(unread) {
				fail("Documents.All yielded %d unread documents, want %d", len(seen), len(unread))
			}
			res := files[g%len(files)]
			if r, err := c.Resources.Get(ctx, res.ID); err != nil || r.ID != res.ID || r.Name != res.Name {
				fail("Resources.Get(%s) = %+v, %v", res.ID, r, err)
			}
			ccFile(t, g, "Resources.Page", "\x89PNG", func() (*File, error) { return c.Resources.Page(ctx, res.ID, 0, nil) })
			ccFile(t, g, "Resources.Download", "%PDF-", func() (*File, error) { return c.Resources.Download(ctx, res.ID) })
			if rs, err := c.Resources.List(ctx, &ResourceListParams{Jurisdiction: res.Jurisdiction}); err != nil || len(rs) == 0 {
				fail("Resources.List(%s) = %d, %v", res.Jurisdiction, len(rs), err)
			} else {
				for _, r := range rs {
					if r.Jurisdiction != res.Jurisdiction {
						fail("resources of %s hold one of %s", res.Jurisdiction, r.Jurisdiction)
					}
				}
			}
			n = 0
			for _, err := range c.Resources.All(ctx, &ResourceListParams{Limit: 7}) {
				if err != nil {
					fail("Resources.All: %v", err)
					break
				}
				n++
			}
			if n != len(srv.Resources()) {
				fail("Resources.All yielded %d, want %d", n, len(srv.Resources()))
			}

			// Websites and products of the site and state this goroutine names.
			site, state := sites[g%len(sites)], states[g%len(states)]
			if w, err := c.Websites.Get(ctx, site); err != nil || w.URL != site {
				fail("Websites.Get(%s) = %+v, %v", site, w, err)
			}
			if prods, err := c.FilingProducts.List(ctx, &FilingProductListParams{URL: acctadmintest.DemoWebsiteURL, Jurisdiction: state}); err != nil || len(prods) == 0 {
				fail("FilingProducts.List(%s) = %d, %v", state, len(prods), err)
			} else {
				for _, p := range prods {
					for _, m := range p.FilingMethods {
						if m.Jurisdiction != state {
							fail("filing methods in %s hold one in %s", state, m.Jurisdiction)
						}
					}
				}
			}
			if _, err := c.RegisteredAgentProducts.List(ctx, &RegisteredAgentProductListParams{URL: acctadmintest.DemoWebsiteURL}); err != nil {
				fail("RegisteredAgentProducts.List: %v", err)
			}

			// Writes: this goroutine's own callbacks, company and service.
			var mine []uuid.UUID
			for i := range 2 {
				u := fmt.Sprintf("https://hooks.example.com/%s/%d/%d", prefix, g, i)
				cb, err := c.Callbacks.Create(ctx, u)
				if err != nil || cb.URL != u {
					fail("Callbacks.Create(%s) = %+v, %v", u, cb, err)
					return
				}
				mine = append(mine, cb.ID)
			}
			all, err := c.Callbacks.List(ctx)
			found := 0
			for _, cb := range all {
				for i, id := range mine {
					if cb.ID == id {
						found++
						if want := fmt.Sprintf("https://hooks.example.com/%s/%d/%d", prefix, g, i); cb.URL != want {
							fail("callback %s has URL %s, want %s", id, cb.URL, want)
						}
					}
				}
			}
			if err != nil || found != 2 {
				fail("Callbacks.List holds %d of this goroutine's 2 callbacks, %v", found, err)
			}
			if err := c.Callbacks.Delete(ctx, mine[0]); err != nil {
				fail("Callbacks.Delete: %v", err)
			}
			kept[g] = mine[1]

			name := fmt.Sprintf("%s Concurrent %02d LLC", prefix, g)
			created, err := c.Companies.Create(ctx, CompanyCreateParams{Name: name, HomeState: state})
			if err != nil || len(created) != 1 || created[0].Name != name || created[0].HomeState != state {
				fail("Companies.Create(%s) = %+v, %v", name, created, err)
				return
			}
			own := created[0].ID
			if up, err := c.Companies.Update(ctx, CompanyUpdateParams{CompanyID: own, EntityType: "Corporation"}); err != nil || len(up) != 1 || up[0].ID != own || up[0].EntityType != "Corporation" {
				fail("Companies.Update(%s) = %+v, %v", own, up, err)
			}
			ordered, err := c.Services.Create(ctx, &ServiceCreateParams{CompanyID: own, Jurisdictions: []string{state}})
			if err != nil || len(ordered) != 1 || ordered[0].CompanyID != own || ordered[0].Jurisdiction != state {
				fail("Services.Create(%s, %s) = %+v, %v", own, state, ordered, err)
				return
			}
			svc, err := c.Services.RequestCancellation(ctx, ordered[0].ID)
			if err != nil || svc.ID != ordered[0].ID || svc.Status != ServiceCancelRequested {
				fail("RequestCancellation(%s) = %+v, %v", ordered[0].ID, svc, err)
			}
			if cos, err := c.Companies.List(ctx); err != nil || len(cos) < len(companies)+1 {
				fail("Companies.List = %d, %v", len(cos), err)
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatal("the goroutines did not finish within 2 minutes")
	}

	// Exactly each goroutine's second callback is left.
	cbs, err := c.Callbacks.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	left := map[uuid.UUID]bool{}
	for _, cb := range cbs {
		if strings.Contains(cb.URL, prefix) {
			left[cb.ID] = true
		}
	}
	for g, id := range kept {
		if !left[id] {
			t.Errorf("goroutine %d's kept callback %s is gone", g, id)
		}
	}
	if len(left) != goroutines {
		t.Errorf("%d callbacks left, want %d", len(left), goroutines)
	}

	// One whole log record per attempt and per answer: no line torn or
	// interleaved with another.
	requests := srv.TotalRequests()
	counts := map[string]int{}
	for i, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %d is not a whole record: %q", i+1, line)
		}
		msg, _ := rec["msg"].(string)
		method, _ := rec["method"].(string)
		path, _ := rec["path"].(string)
		if method == "" || !strings.HasPrefix(path, "/") || rec["attempt"] == nil {
			t.Errorf("log record %d lacks its method, path or attempt: %v", i+1, rec)
		}
		counts[msg]++
	}
	if counts["acctadmin: request"] != requests || counts["acctadmin: response"] != requests || counts["acctadmin: retrying"] != 0 {
		t.Errorf("log records %v, want %d requests and %d responses (the fake saw %d requests)", counts, requests, requests, requests)
	}
	t.Logf("%d goroutines made %d requests; %d log records, all whole", goroutines, requests, counts["acctadmin: request"]+counts["acctadmin: response"])
}

// ccFile opens a file, reads it whole, and checks its first bytes and
// length.
func ccFile(t *testing.T, g int, name, magic string, open func() (*File, error)) {
	f, err := open()
	if err != nil {
		t.Errorf("goroutine %d: %s: %v", g, name, err)
		return
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil || !strings.HasPrefix(string(b), magic) || int64(len(b)) != f.ContentLength {
		t.Errorf("goroutine %d: %s: read %d of %d bytes, %v", g, name, len(b), f.ContentLength, err)
	}
}
