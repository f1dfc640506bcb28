package acctadmin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	. "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

var soak = flag.Bool("soak", false, "run the full 10,000-call fault soak")

// soakLost is the message of the fault that answers 502 after applying a
// request, so that a client error can be told to come from it.
const soakLost = "answer lost after the write was applied"

// soakFaults are the faults of the soak, drawn in order for each request:
// together they fire on about 20% of requests. Retry-After is 0 but for
// a rare 1 s, so that the soak finishes.
func soakFaults() []acctadmintest.Fault {
	kinds := []acctadmintest.Fault{
		{Status: http.StatusInternalServerError},
		{Status: http.StatusServiceUnavailable},
		{Status: http.StatusTooManyRequests, RetryAfter: "0"},
		{DropConnection: true},
		{TruncateBody: true},
		{Latency: 200 * time.Millisecond},
		{AfterApply: true, Status: http.StatusBadGateway, Message: soakLost},
		{AfterApply: true, DropConnection: true},
	}
	// 1-(1-p)^8 = 0.2, less the share of the slow 429 below.
	const p = 0.0272
	for i := range kinds {
		kinds[i].Probability = p
	}
	return append(kinds, acctadmintest.Fault{Status: http.StatusTooManyRequests, RetryAfter: "1", Probability: 0.002})
}

// soakRecord is the outcome of one call of the soak.
type soakRecord struct {
	method string
	op     string
	// key names what a write touched, as soakWriteKey reads it back from
	// the request body or path.
	key string
	err error
	// created lists what a successful write answered it created.
	created []uuid.UUID
	// fileErr is the error of reading a file the call returned.
	fileErr error
}

// soakWorker runs calls for one goroutine and keeps what it created.
type soakWorker struct {
	t         *testing.T
	c         *Client
	id        int
	rng       *rand.Rand
	prefix    string
	n         int
	companies []uuid.UUID // created, not yet given services
	callbacks []uuid.UUID // created, not yet deleted
	docs      []uuid.UUID
	files     []uuid.UUID // resources with a file
	demoCo    []acctadmintest.Company
}

type soakOp struct {
	weight int
	method string
	name   string
	run    func(ctx context.Context, w *soakWorker) soakRecord
}

func soakOps() []soakOp {
	get := func(weight int, name string, run func(ctx context.Context, w *soakWorker) error) soakOp {
		return soakOp{weight, http.MethodGet, name, func(ctx context.Context, w *soakWorker) soakRecord {
			return soakRecord{err: run(ctx, w)}
		}}
	}
	file := func(weight int, name string, open func(ctx context.Context, w *soakWorker) (*File, error), magic string) soakOp {
		return soakOp{weight, http.MethodGet, name, func(ctx context.Context, w *soakWorker) soakRecord {
			f, err := open(ctx, w)
			if err != nil {
				return soakRecord{err: err}
			}
			defer f.Close()
			var head bytes.Buffer
			n, rerr := io.Copy(&head, f)
			if rerr == nil && (!strings.HasPrefix(head.String(), magic) || f.ContentLength >= 0 && n != f.ContentLength) {
				w.t.Errorf("%s: read %d of %d bytes starting %q", name, n, f.ContentLength, head.Bytes()[:min(8, head.Len())])
			}
			return soakRecord{fileErr: rerr}
		}}
	}
	return []soakOp{
		get(6, "services list", func(ctx context.Context, w *soakWorker) error {
			co := w.demoCo[w.rng.IntN(len(w.demoCo))]
			list, err := w.c.Services.List(ctx, &ServiceListParams{CompanyID: co.ID, Limit: 1 + w.rng.IntN(100)})
			for _, s := range list {
				if s.CompanyID != co.ID {
					w.t.Errorf("services of %s hold one of %s", co.ID, s.CompanyID)
				}
			}
			return err
		}),
		get(3, "services all", func(ctx context.Context, w *soakWorker) error {
			co := w.demoCo[w.rng.IntN(len(w.demoCo))]
			for s, err := range w.c.Services.All(ctx, &ServiceListParams{CompanyID: co.ID, Limit: 2}) {
				if err != nil {
					return err
				}
				if s.CompanyID != co.ID {
					w.t.Errorf("services of %s hold one of %s", co.ID, s.CompanyID)
				}
			}
			return nil
		}),
		get(5, "documents list", func(ctx context.Context, w *soakWorker) error {
			status := []DocumentStatus{DocumentRead, DocumentUnread}[w.rng.IntN(2)]
			list, err := w.c.Documents.List(ctx, &DocumentListParams{Status: status, Limit: 1 + w.rng.IntN(200)})
			for _, d := range list {
				if d.Status != status {
					w.t.Errorf("%s listing holds a %s document", status, d.Status)
				}
			}
			return err
		}),
		get(2, "documents all", func(ctx context.Context, w *soakWorker) error {
			// Downloads by the other goroutines add to the read listing
			// as it is paged, so a document may come twice; none may be
			// unread.
			for d, err := range w.c.Documents.All(ctx, &DocumentListParams{Status: DocumentRead, Limit: 40}) {
				if err != nil {
					return err
				}
				if d.Status != DocumentRead {
					w.t.Errorf("read listing holds a %s document", d.Status)
				}
			}
			return nil
		}),
		get(5, "documents get", func(ctx context.Context, w *soakWorker) error {
			id := w.docs[w.rng.IntN(len(w.docs))]
			d, err := w.c.Documents.Get(ctx, id)
			if err == nil && d.ID != id {
				w.t.Errorf("Documents.Get(%s) = %s", id, d.ID)
			}
			return err
		}),
		file(3, "documents page", func(ctx context.Context, w *soakWorker) (*File, error) {
			return w.c.Documents.Page(ctx, w.docs[w.rng.IntN(len(w.docs))], 0, &PageParams{DPI: 72})
		}, "\x89PNG"),
		file(3, "documents download", func(ctx context.Context, w *soakWorker) (*File, error) {
			return w.c.Documents.Download(ctx, w.docs[w.rng.IntN(len(w.docs))])
		}, "%PDF-"),
		get(4, "resources list", func(ctx context.Context, w *soakWorker) error {
			_, err := w.c.Resources.List(ctx, &ResourceListParams{Limit: 1 + w.rng.IntN(200), Offset: w.rng.IntN(20)})
			return err
		}),
		get(3, "resources get", func(ctx context.Context, w *soakWorker) error {
			id := w.files[w.rng.IntN(len(w.files))]
			r, err := w.c.Resources.Get(ctx, id)
			if err == nil && r.ID != id {
				w.t.Errorf("Resources.Get(%s) = %s", id, r.ID)
			}
			return err
		}),
		file(2, "resources download", func(ctx context.Context, w *soakWorker) (*File, error) {
			return w.c.Resources.Download(ctx, w.files[w.rng.IntN(len(w.files))])
		}, "%PDF-"),
		get(4, "compliance events", func(ctx context.Context, w *soakWorker) error {
			start := DateOf(time.Now())
			_, err := w.c.ComplianceEvents.List(ctx, &ComplianceEventListParams{StartDate: start, EndDate: start.AddDays(400), Limit: 1 + w.rng.IntN(100)})
			return err
		}),
		get(2, "compliance events all", func(ctx context.Context, w *soakWorker) error {
			start := DateOf(time.Now())
			for _, err := range w.c.ComplianceEvents.All(ctx, &ComplianceEventListParams{StartDate: start, EndDate: start.AddDays(400), Limit: 25}) {
				if err != nil {
					return err
				}
			}
			return nil
		}),
		get(3, "websites get", func(ctx context.Context, w *soakWorker) error {
			site, err := w.c.Websites.Get(ctx, acctadmintest.DemoWebsiteURL)
			if err == nil && site.URL != acctadmintest.DemoWebsiteURL {
				w.t.Errorf("Websites.Get = %q", site.URL)
			}
			return err
		}),
		get(4, "callbacks list", func(ctx context.Context, w *soakWorker) error {
			_, err := w.c.Callbacks.List(ctx)
			return err
		}),
		get(3, "companies list", func(ctx context.Context, w *soakWorker) error {
			list, err := w.c.Companies.List(ctx)
			if err == nil && len(list) < len(w.demoCo) {
				w.t.Errorf("Companies.List gave %d companies", len(list))
			}
			return err
		}),
		get(3, "invoices list", func(ctx context.Context, w *soakWorker) error {
			co := w.demoCo[w.rng.IntN(len(w.demoCo))]
			list, err := w.c.Invoices.List(ctx, &InvoiceListParams{CompanyIDs: []uuid.UUID{co.ID}})
			for _, inv := range list {
				if inv.CompanyID != co.ID {
					w.t.Errorf("invoices of %s hold one of %s", co.ID, inv.CompanyID)
				}
			}
			return err
		}),
		get(1, "invoices all", func(ctx context.Context, w *soakWorker) error {
			for _, err := range w.c.Invoices.All(ctx, &InvoiceListParams{Limit: 5}) {
				if err != nil {
					return err
				}
			}
			return nil
		}),
		get(3, "filing products", func(ctx context.Context, w *soakWorker) error {
			list, err := w.c.FilingProducts.List(ctx, &FilingProductListParams{URL: acctadmintest.DemoWebsiteURL, Jurisdiction: "Utah"})
			if err == nil && len(list) == 0 {
				w.t.Error("no filing products")
			}
			return err
		}),
		get(2, "registered-agent products", func(ctx context.Context, w *soakWorker) error {
			_, err := w.c.RegisteredAgentProducts.List(ctx, &RegisteredAgentProductListParams{URL: acctadmintest.DemoWebsiteURL})
			return err
		}),
		{7, http.MethodPost, "callbacks create", func(ctx context.Context, w *soakWorker) soakRecord {
			// A loopback port nothing listens on: the services the soak
			// orders make invoices whose events the fake delivers to every
			// callback, and a host name would send each delivery to the
			// resolver, whose lookups outlive the fake.
			u := fmt.Sprintf("http://127.0.0.1:9/hooks/%s/%d/%d", w.prefix, w.id, w.n)
			r := soakRecord{key: "callback " + u}
			cb, err := w.c.Callbacks.Create(ctx, u)
			if r.err = err; err == nil {
				if cb.URL != u {
					w.t.Errorf("Callbacks.Create(%s) = %s", u, cb.URL)
				}
				r.created = []uuid.UUID{cb.ID}
				w.callbacks = append(w.callbacks, cb.ID)
			}
			return r
		}},
		{6, http.MethodPost, "companies create", func(ctx context.Context, w *soakWorker) soakRecord {
			name := fmt.Sprintf("%s Soak %d-%d LLC", w.prefix, w.id, w.n)
			r := soakRecord{key: "company " + name}
			list, err := w.c.Companies.Create(ctx, CompanyCreateParams{Name: name, HomeState: "Utah", EntityType: "LLC"})
			if r.err = err; err == nil {
				if len(list) != 1 || list[0].Name != name {
					w.t.Errorf("Companies.Create(%s) = %+v", name, list)
				}
				for _, co := range list {
					r.created = append(r.created, co.ID)
					w.companies = append(w.companies, co.ID)
				}
			}
			return r
		}},
		{5, http.MethodPost, "services create", func(ctx context.Context, w *soakWorker) soakRecord {
			if len(w.companies) == 0 {
				return soakRecord{err: errSoakSkip}
			}
			co := w.companies[0]
			w.companies = w.companies[1:]
			r := soakRecord{key: "services " + co.String()}
			list, err := w.c.Services.Create(ctx, &ServiceCreateParams{CompanyID: co, Jurisdictions: []string{"Idaho"}})
			if r.err = err; err == nil {
				if len(list) != 1 || list[0].CompanyID != co || list[0].Jurisdiction != "Idaho" {
					w.t.Errorf("Services.Create(%s) = %+v", co, list)
				}
				for _, s := range list {
					r.created = append(r.created, s.ID)
				}
			}
			return r
		}},
		{7, http.MethodDelete, "callbacks delete", func(ctx context.Context, w *soakWorker) soakRecord {
			if len(w.callbacks) == 0 {
				return soakRecord{err: errSoakSkip}
			}
			id := w.callbacks[0]
			w.callbacks = w.callbacks[1:]
			return soakRecord{key: "delete " + id.String(), err: w.c.Callbacks.Delete(ctx, id)}
		}},
	}
}

// errSoakSkip marks a write that had nothing to act on yet; another call
// is made instead.
var errSoakSkip = errors.New("nothing to act on")

// soakWriteKey reads back the key of a write from what the fake saw.
func soakWriteKey(method, path string, body []byte) string {
	switch {
	case method == http.MethodPost && path == "/callbacks":
		var b struct{ URL string }
		_ = json.Unmarshal(body, &b)
		return "callback " + b.URL
	case method == http.MethodPost && path == "/companies":
		var b struct{ Companies []struct{ Name string } }
		if json.Unmarshal(body, &b) == nil && len(b.Companies) == 1 {
			return "company " + b.Companies[0].Name
		}
	case method == http.MethodPost && path == "/services":
		var b struct {
			CompanyID string `json:"company_id"`
		}
		_ = json.Unmarshal(body, &b)
		return "services " + b.CompanyID
	case method == http.MethodDelete && strings.HasPrefix(path, "/callbacks/"):
		return "delete " + strings.TrimPrefix(path, "/callbacks/")
	}
	return method + " " + path
}

// soakClass names the outcome of a call for the summary, and fails the
// test on an error of no SDK type.
func soakClass(t *testing.T, op string, err error) string {
	t.Helper()
	var apiErr *APIError
	var te *TransportError
	var de *DecodeError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &apiErr):
		return fmt.Sprintf("APIError %d", apiErr.StatusCode)
	case errors.As(err, &te):
		return "TransportError"
	case errors.As(err, &de):
		return "DecodeError"
	}
	t.Errorf("%s: error %v is of no SDK type (%T)", op, err, err)
	return "untyped"
}

// TestFaultSoak drives the client against the fake with faults on about a
// fifth of all requests: failing statuses, 429 with Retry-After, dropped
// connections, truncated bodies, latency spikes, and answers lost after a
// write was applied. Reads end in a result or a typed error; no write is
// applied twice; afterwards the account holds exactly the writes that
// reported success plus those whose answer a fault lost, each accounted
// for. 1,000 calls by default; -soak runs 10,000.
func TestFaultSoak(t *testing.T) {
	calls := 1_000
	if *soak {
		calls = 10_000
	}
	const workers = 8
	srv := acctadmintest.NewServer(acctadmintest.WithDemoData(), acctadmintest.WithSeed(20240501), acctadmintest.WithStrictSigning())
	defer srv.Close()
	c, err := NewClient(srv.AccessKey, srv.SecretKey, WithBaseURL(srv.URL), WithRetryWait(time.Millisecond, 10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()

	var docs, files []uuid.UUID
	for _, d := range srv.Documents() {
		if !d.PaymentLocked { // a locked one's file answers 402, no fault
			docs = append(docs, d.ID)
		}
	}
	for _, r := range srv.Resources() {
		if r.Kind == acctadmintest.ResourceDocument {
			files = append(files, r.ID)
		}
	}
	demoCo := srv.Companies()
	prefix := "soak" + uuid.NewString()[:8]

	for _, f := range soakFaults() {
		srv.InjectFault(f)
	}
	ops := soakOps()
	total := 0
	for _, op := range ops {
		total += op.weight
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var next atomic.Int64
	records := make([][]soakRecord, workers)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &soakWorker{t: t, c: c, id: i, rng: rand.New(rand.NewPCG(uint64(i), 7)), prefix: prefix, docs: docs, files: files, demoCo: demoCo}
			for next.Add(1) <= int64(calls) && ctx.Err() == nil {
				w.n++
				for {
					pick := w.rng.IntN(total)
					var op soakOp
					for _, op = range ops {
						if pick < op.weight {
							break
						}
						pick -= op.weight
					}
					r := op.run(ctx, w)
					if r.err == errSoakSkip {
						continue
					}
					r.method, r.op = op.method, op.name
					records[i] = append(records[i], r)
					break
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	srv.ClearFaults()
	if ctx.Err() != nil {
		t.Fatal("the soak did not finish within its 10-minute guard")
	}

	// Every call ended in a result or a typed error; reads failed only as
	// the faults make them fail.
	classes := map[string]int{}
	var all []soakRecord
	for _, rs := range records {
		all = append(all, rs...)
	}
	if len(all) != calls {
		t.Fatalf("%d calls recorded, want %d", len(all), calls)
	}
	for _, r := range all {
		class := soakClass(t, r.op, r.err)
		classes[r.method+" "+class]++
		if r.fileErr != nil {
			classes["file read error"]++
			if !errors.Is(r.fileErr, io.ErrUnexpectedEOF) {
				t.Errorf("%s: reading the file failed with %v (%T), want io.ErrUnexpectedEOF", r.op, r.fileErr, r.fileErr)
			}
		}
		var apiErr *APIError
		if r.method == http.MethodGet && errors.As(r.err, &apiErr) {
			switch apiErr.StatusCode {
			case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable:
			default:
				t.Errorf("%s: %v: no fault answers that", r.op, r.err)
			}
		}
	}

	// What the fake applied: no write twice, no id created twice.
	writes := map[string][]acctadmintest.Write{}
	createdBy := map[uuid.UUID]string{}
	for _, w := range srv.Writes() {
		key := soakWriteKey(w.Method, w.Path, w.Body)
		writes[key] = append(writes[key], w)
		for _, id := range w.Created {
			if prev, dup := createdBy[id]; dup {
				t.Errorf("id %s created twice: by %s and by %s", id, prev, key)
			}
			createdBy[id] = key
		}
	}
	sent := map[string]int{}
	faulted := map[string]bool{}
	requests := srv.Requests()
	statuses := map[string]int{}
	faults := 0
	for _, r := range requests {
		if r.Method != http.MethodGet {
			key := soakWriteKey(r.Method, r.Path, r.Body)
			sent[key]++
			faulted[key] = faulted[key] || r.Faulted
		}
		if r.Faulted {
			faults++
			statuses[fmt.Sprint(r.Status)]++
		}
	}

	// Every write the client made, against what the fake applied.
	applied := map[string]bool{}
	lost := 0
	for _, r := range all {
		if r.method == http.MethodGet {
			continue
		}
		ws := writes[r.key]
		applied[r.key] = len(ws) == 1
		if len(ws) > 1 {
			t.Errorf("%s applied %d times", r.key, len(ws))
		}
		if r.method == http.MethodPost && sent[r.key] > 1 {
			t.Errorf("%s sent %d times: a POST is never retried once it may have arrived", r.key, sent[r.key])
		}
		var apiErr *APIError
		isAPI := errors.As(r.err, &apiErr)
		switch {
		case r.err == nil:
			if len(ws) != 1 {
				t.Errorf("%s reported success but was applied %d times", r.key, len(ws))
				continue
			}
			if r.method == http.MethodPost && !sameIDs(r.created, ws[0].Created) {
				t.Errorf("%s answered ids %v, the fake created %v", r.key, r.created, ws[0].Created)
			}
		case len(ws) == 1:
			// Applied, yet reported as an error: a fault must have lost
			// the answer after the write was applied.
			lost++
			if !faulted[r.key] {
				t.Errorf("%s was applied and reported %v, but no fault fired on it", r.key, r.err)
			}
			var te *TransportError
			switch {
			case errors.As(r.err, &te):
			case isAPI && apiErr.StatusCode == http.StatusBadGateway && apiErr.Message == soakLost:
			case isAPI && apiErr.StatusCode == http.StatusNotFound && r.method == http.MethodDelete:
				// A retried DELETE whose first attempt was applied.
			case isAPI && r.method == http.MethodDelete && sent[r.key] > 1:
				// A DELETE applied by an attempt whose answer was lost, then
				// retried into faults: the caller sees the last attempt's answer.
			default:
				t.Errorf("%s was applied but reported %v, which no fault after applying answers", r.key, r.err)
			}
		default:
			// Not applied: the fault came first.
			if sent[r.key] > 0 && !faulted[r.key] {
				t.Errorf("%s was not applied and reported %v, but no fault fired on it", r.key, r.err)
			}
			if isAPI && apiErr.Message == soakLost {
				t.Errorf("%s reported a lost answer but was not applied", r.key)
			}
		}
	}

	// Reads after the soak, without faults, see exactly what was applied.
	ctx = context.Background()
	wantCallbacks := map[string]bool{}
	for _, r := range all {
		if strings.HasPrefix(r.key, "callback ") && applied[r.key] {
			id := writes[r.key][0].Created[0]
			if !applied["delete "+id.String()] {
				wantCallbacks[id.String()+" "+strings.TrimPrefix(r.key, "callback ")] = true
			}
		}
	}
	cbs, err := c.Callbacks.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gotCallbacks := map[string]bool{}
	for _, cb := range cbs {
		if strings.Contains(cb.URL, prefix) {
			gotCallbacks[cb.ID.String()+" "+cb.URL] = true
		}
	}
	if !equalSets(gotCallbacks, wantCallbacks) {
		t.Errorf("callbacks after the soak: %d, want the %d applied and not deleted", len(gotCallbacks), len(wantCallbacks))
	}
	companies, err := c.Companies.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gotCompanies, wantCompanies := map[string]bool{}, map[string]bool{}
	ours := map[uuid.UUID]bool{}
	for _, co := range companies {
		if strings.HasPrefix(co.Name, prefix) {
			gotCompanies[co.ID.String()+" "+co.Name] = true
			ours[co.ID] = true
		}
	}
	wantServices := map[string]bool{}
	for key, ws := range writes {
		if name, ok := strings.CutPrefix(key, "company "); ok && strings.HasPrefix(name, prefix) {
			wantCompanies[ws[0].Created[0].String()+" "+name] = true
		}
		if strings.HasPrefix(key, "services ") {
			for _, id := range ws[0].Created {
				wantServices[id.String()] = true
			}
		}
	}
	if !equalSets(gotCompanies, wantCompanies) {
		t.Errorf("companies after the soak: %d, want the %d applied", len(gotCompanies), len(wantCompanies))
	}
	gotServices := map[string]bool{}
	for s, err := range c.Services.All(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if ours[s.CompanyID] {
			gotServices[s.ID.String()] = true
		}
	}
	if !equalSets(gotServices, wantServices) {
		t.Errorf("services after the soak: %d, want the %d applied", len(gotServices), len(wantServices))
	}

	if faults*10 < len(requests) {
		t.Errorf("faults fired on %d of %d requests: the soak did not test much", faults, len(requests))
	}
	keys := make([]string, 0, len(classes))
	for k := range classes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var summary strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&summary, "\n  %-28s %d", k, classes[k])
	}
	t.Logf("%d calls by %d goroutines in %s: %d requests, %d faulted (%.1f%%; by status answered, 0 for a dropped connection: %v); "+
		"%d writes applied, %d of them reported as errors after a lost answer; %d callbacks, %d companies, %d services at the end; outcomes:%s",
		calls, workers, elapsed.Round(time.Millisecond), len(requests), faults, 100*float64(faults)/float64(len(requests)), statuses,
		len(srv.Writes()), lost, len(gotCallbacks), len(gotCompanies), len(gotServices), summary.String())
}

func sameIDs(a, b []uuid.UUID) bool {
	if len(a) != len(b) {
		return false
	}
	set := map[uuid.UUID]bool{}
	for _, id := range a {
		set[id] = true
	}
	for _, id := range b {
		if !set[id] {
			return false
		}
	}
	return true
}

func equalSets(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
