package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/internal/redisserver"
	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/google/uuid"
)

var (
	soakDocs   = flag.Int("soak.docs", 150, "documents arriving during TestSoakFleet (the full run: 5000)")
	soakSpread = flag.Duration("soak.spread", 8*time.Second, "time over which the documents of TestSoakFleet arrive (the full run: 100s)")
)

// The soak's settings: a sender that gives up on a callback sooner than
// some downloads take, rooms that take each other's claims over quickly.
const (
	senderTimeout = 400 * time.Millisecond
	slowDownload  = 700 * time.Millisecond
	claimTTL      = time.Second
	pullInterval  = 2 * time.Second
)

// TestSoakFleet runs the fleet as it runs in production, each part in its
// own process: three rooms (this program, built once) behind a load
// balancer, sharing one folder and one real redis-server, and the
// standalone fake API (cmd/acctadmin-fake) as the sender, with its faults
// on: dropped connections, 503s, truncated and slow downloads, failing
// listings, deliveries dropped or a second late. The balancer gives up on a callback after senderTimeout
// (shorter than the slow downloads), so the fake delivers again, and it
// delivers some callbacks a second time, late, to another room. During
// the run one room is killed with SIGKILL in the middle of a download and
// started again, and Redis is killed and started again empty.
//
// At the end every document is in the folder exactly once, byte-identical
// to what the fake serves, none missing, no temporary file left and the
// journal empty. The figures (documents, callbacks, downloads, wasted
// downloads, time) are logged; -soak.docs 5000 -soak.spread 100s is the
// full run.
func TestSoakFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak runs separate processes; not under -short")
	}
	start := time.Now()
	rds := redisserver.Start(t)
	bin := t.TempDir()
	build(t, bin, "mailroom", ".")
	build(t, bin, "acctadmin-fake", "../../cmd/acctadmin-fake")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	accessKey, secretKey := uuid.NewString(), strings.Repeat("5eC7", 16)
	fake := startProc(t, filepath.Join(bin, "acctadmin-fake"), []string{"-addr", "127.0.0.1:0", "-log-limit", "0",
		"-access-key", accessKey, "-secret-key", secretKey}, nil)
	baseURL := strings.TrimPrefix(fake.waitLine(t, "ACCTADMIN_BASE_URL="), "ACCTADMIN_BASE_URL=")
	ctl := &control{t: t, base: baseURL + "/_fake/"}

	dir := t.TempDir()
	lb := newBalancer()
	lbSrv := httptest.NewServer(lb)
	defer lbSrv.Close()
	defer lb.wait()
	env := []string{acctadmin.EnvAccessKey + "=" + accessKey, acctadmin.EnvSecretKey + "=" + secretKey, acctadmin.EnvBaseURL + "=" + baseURL}
	roomArgs := []string{"-dir", dir, "-addr", "127.0.0.1:0", "-redis", "redis://" + rds.Addr + "/0",
		"-callback-url", lbSrv.URL + "/callbacks", "-pull-interval", pullInterval.String(), "-claim-ttl", claimTTL.String()}
	startRoom := func(i int) *proc {
		p := startProc(t, filepath.Join(bin, "mailroom"), roomArgs, env)
		lb.set(i, strings.TrimPrefix(p.waitLine(t, "listening on "), "listening on "))
		return p
	}
	rooms := []*proc{startRoom(0), startRoom(1), startRoom(2)}

	// The account, and the faults of the API.
	ctl.post("companies", map[string]any{"name": "Soak Widgets LLC", "home_state": "Utah"})
	for _, f := range []map[string]any{
		{"method": "GET", "path": "/documents/:id/download", "probability": 0.02, "drop_connection": true},
		{"method": "GET", "path": "/documents/:id/download", "probability": 0.02, "status": 503},
		{"method": "GET", "path": "/documents/:id/download", "probability": 0.02, "truncate_body": true},
		{"method": "GET", "path": "/documents", "probability": 0.03, "status": 500},
	} {
		ctl.post("faults", f)
	}

	// The mail arrives over the run; one document in twenty is slow to
	// download (longer than the sender waits).
	n := *soakDocs
	var (
		mu   sync.Mutex
		ids  []uuid.UUID
		slow = map[uuid.UUID]bool{}
	)
	killAt, redisAt := n*2/5, n*3/5
	pace := *soakSpread / time.Duration(n)
	for i := range n {
		if ctx.Err() != nil {
			t.Fatal(ctx.Err())
		}
		typ := "Regular Mail"
		if i%25 == 0 {
			typ = "Delivered Service of Process"
		}
		id := uuid.New()
		if i%20 == 7 {
			// Added before the document, so that it is never fast.
			ctl.post("faults", map[string]any{"method": "GET", "path": "/documents/" + id.String() + "/download", "latency": slowDownload.String()})
			slow[id] = true
		}
		ctl.post("documents", map[string]any{"id": id, "company": "Soak Widgets LLC", "title": fmt.Sprintf("Letter %d", i), "pages": 1 + i%3, "type": typ})
		mu.Lock()
		ids = append(ids, id)
		mu.Unlock()
		// Now and then the fake's own delivery fails or comes late.
		if step := max(n/10, 1); i%step == step/3 {
			ctl.post("delivery-faults", map[string]any{"count": 3, "drop": true})
		} else if i%step == 2*step/3 {
			ctl.post("delivery-faults", map[string]any{"count": 3, "latency": "1s"})
		}
		switch i {
		case killAt:
			victim := lb.addr(1)
			killMidDownload(t, rooms[1], dir, func(id uuid.UUID) {
				// A document whose download takes 3 s, whose event the fake
				// sends late, and which room 1 is given first.
				ctl.post("faults", map[string]any{"method": "GET", "path": "/documents/" + id.String() + "/download", "latency": "3s"})
				ctl.post("delivery-faults", map[string]any{"count": 1, "latency": "4s"})
				ctl.post("documents", map[string]any{"id": id, "company": "Soak Widgets LLC", "title": "Killed mid-download"})
				mu.Lock()
				ids, slow[id] = append(ids, id), true
				mu.Unlock()
				go postEvent(victim, id, accessKey, secretKey)
			})
			rooms[1] = startRoom(1)
		case redisAt:
			rds.Kill()
			time.Sleep(200 * time.Millisecond)
			if err := rds.Resume(); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(pace)
	}

	// The faults stop; every document must be saved within a few pull
	// intervals.
	ctl.delete("faults")
	ctl.delete("delivery-faults")
	deadline := time.Now().Add(60*time.Second + 3*pullInterval)
	for {
		docs, _ := listFolder(t, dir)
		if len(docs) >= len(ids) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d documents saved", len(docs), len(ids))
		}
		time.Sleep(100 * time.Millisecond)
	}
	elapsed := time.Since(start)
	var totals [4]int
	for _, p := range rooms {
		st := p.stop(t)
		for i := range totals {
			totals[i] += st[i]
		}
	}

	// The figures, from the fake's request log.
	mine := map[uuid.UUID]bool{}
	for _, id := range ids {
		mine[id] = true
	}
	complete := map[uuid.UUID]int{}
	downloads := 0
	for _, r := range ctl.requests() {
		if r.Route != "/documents/:id/download" {
			continue
		}
		id, err := uuid.Parse(strings.TrimSuffix(strings.TrimPrefix(r.Path, "/documents/"), "/download"))
		if err != nil || !mine[id] {
			continue // not a document of the run
		}
		downloads++
		if r.Status == http.StatusOK && (!r.Faulted || slow[id]) {
			complete[id]++
		}
	}
	// Every document exactly once, byte-identical, nothing else left.
	docs, others := listFolder(t, dir)
	if len(docs) != len(ids) || len(others) != 0 {
		t.Fatalf("folder: %d documents of %d, others %v", len(docs), len(ids), others)
	}
	if pending, _ := os.ReadDir(filepath.Join(dir, ".mailroom", "pending")); len(pending) != 0 {
		t.Fatalf("journal left %d records", len(pending))
	}
	c, err := acctadmin.NewClient(accessKey, secretKey, acctadmin.WithBaseURL(baseURL))
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	for _, id := range ids {
		want := download(t, c, id)
		if got := docs[id]; !bytes.Equal(got, want) {
			t.Fatalf("document %s: %d bytes saved, the API serves %d", id, len(got), len(want))
		}
	}

	wasted := 0
	for _, k := range complete {
		wasted += max(0, k-1)
	}
	callbacks := lb.received.Load()
	t.Logf("soak: %d documents, %d callbacks (%d late duplicates), %d downloads, %d wasted (%.2f%%), %d after faults, in %s; rooms that stopped: saved=%d downloads=%d redownloads=%d",
		len(ids), callbacks, lb.duplicates.Load(), downloads, wasted, 100*float64(wasted)/float64(len(ids)), downloads-len(ids)-wasted, elapsed.Round(time.Millisecond),
		totals[0], totals[1], totals[2])
	if float64(wasted) > 0.01*float64(len(ids))+2 {
		t.Fatalf("%d wasted downloads for %d documents: over 1%%", wasted, len(ids))
	}
}

// build builds the command in pkg into dir/name.
func build(t *testing.T, dir, name, pkg string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
}

// proc is a process the test started, with its output.
type proc struct {
	cmd   *exec.Cmd
	lines chan string // every output line, until the process ends
	done  chan struct{}

	mu  sync.Mutex
	out []string
}

func startProc(t *testing.T, bin string, args, env []string) *proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, lines: make(chan string, 1024), done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		pw.Close()
	}()
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			p.mu.Lock()
			p.out = append(p.out, sc.Text())
			p.mu.Unlock()
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Signal(syscall.SIGKILL) // by the pid it was started with
		}
		<-p.done
	})
	return p
}

// waitLine waits for a line starting with prefix and returns it.
func (p *proc) waitLine(t *testing.T, prefix string) string {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l := <-p.lines:
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-p.done:
			t.Fatalf("%s ended before printing %q:\n%s", p.cmd.Path, prefix, p.output())
		case <-timeout:
			t.Fatalf("%s did not print %q:\n%s", p.cmd.Path, prefix, p.output())
		}
	}
}

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.out, "\n")
}

// stop stops a room with SIGTERM and returns its totals: saved,
// downloads, redownloads, kept out.
func (p *proc) stop(t *testing.T) [4]int {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(40 * time.Second):
		t.Fatalf("a room did not stop:\n%s", p.output())
	}
	var st [4]int
	for _, l := range strings.Split(p.output(), "\n") {
		if strings.HasPrefix(l, "stopped: ") {
			if _, err := fmt.Sscanf(l, "stopped: saved=%d downloads=%d redownloads=%d kept_out=%d", &st[0], &st[1], &st[2], &st[3]); err != nil {
				t.Fatalf("stats line %q: %v", l, err)
			}
			return st
		}
	}
	t.Fatalf("a room stopped without its totals:\n%s", p.output())
	return st
}

// killMidDownload kills the room p with SIGKILL while it downloads a
// document: start adds the document and hands it to p, and p is killed
// once its journal record is there (or after 10 s, which the log says).
func killMidDownload(t *testing.T, p *proc, dir string, start func(uuid.UUID)) {
	t.Helper()
	id := uuid.New()
	start(id)
	record := filepath.Join(dir, ".mailroom", "pending", id.String())
	found := false
	for range 1000 {
		if _, err := os.Stat(record); err == nil {
			found = true
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	t.Logf("room killed with SIGKILL (mid-download: %v)", found)
}

// postEvent posts a new-document event for id to the room at addr, signed
// as the API signs it.
func postEvent(addr string, id uuid.UUID, accessKey, secretKey string) {
	tok, err := webhook.Sign(map[string]any{"event": "new-document", "document_id": id.String()},
		[]byte(secretKey), webhook.WithSignAccessKey(accessKey))
	if err != nil {
		return
	}
	resp, err := http.Post(addr+"/callbacks", "application/json", strings.NewReader(`{"data":"`+tok+`"}`))
	if err == nil {
		resp.Body.Close()
	}
}

// listFolder reads the saved documents and the other names at the top of
// the folder.
func listFolder(t *testing.T, dir string) (map[uuid.UUID][]byte, []string) {
	t.Helper()
	docs := map[uuid.UUID][]byte{}
	var others []string
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() == ".mailroom" {
			continue
		}
		// The name ends with the document's id.
		base, ok := strings.CutSuffix(e.Name(), ".pdf")
		id, err := uuid.Parse(base[max(len(base)-36, 0):])
		if err != nil || !ok || id.String() != base[max(len(base)-36, 0):] {
			others = append(others, e.Name())
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		docs[id] = b
	}
	return docs, others
}

func download(t *testing.T, c *acctadmin.Client, id uuid.UUID) []byte {
	t.Helper()
	f, err := c.Documents.Download(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// control drives the fake's control surface.
type control struct {
	t    *testing.T
	base string
}

func (c *control) do(method, path string, body any) []byte {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.base+path, rd)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		c.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return b
}

func (c *control) post(path string, body any) []byte { return c.do(http.MethodPost, path, body) }
func (c *control) delete(path string)                { c.do(http.MethodDelete, path, nil) }

type loggedRequest struct {
	Path    string `json:"path"`
	Route   string `json:"route"`
	Status  int    `json:"status"`
	Faulted bool   `json:"faulted"`
}

func (c *control) requests() []loggedRequest {
	var out []loggedRequest
	if err := json.Unmarshal(c.do(http.MethodGet, "requests", nil), &out); err != nil {
		c.t.Fatal(err)
	}
	return out
}

// balancer spreads callbacks over the rooms, round robin, giving up on
// each after senderTimeout, and delivers one in ten a second time, late,
// to another room.
type balancer struct {
	mu    sync.Mutex
	addrs [3]string
	next  int
	wg    sync.WaitGroup

	received, duplicates atomic.Int64
	client               *http.Client
}

func newBalancer() *balancer {
	return &balancer{client: &http.Client{Timeout: senderTimeout}}
}

func (b *balancer) set(i int, addr string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.addrs[i] = addr
}

func (b *balancer) addr(i int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.addrs[i]
}

func (b *balancer) pick() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next++
	return b.addrs[b.next%len(b.addrs)]
}

func (b *balancer) forward(addr string, body []byte) int {
	resp, err := b.client.Post(addr+"/callbacks", "application/json", bytes.NewReader(body))
	if err != nil {
		return http.StatusGatewayTimeout
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// ServeHTTP implements http.Handler.
func (b *balancer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	b.received.Add(1)
	if rand.IntN(10) == 0 {
		b.duplicates.Add(1)
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			time.Sleep(time.Duration(200+rand.IntN(1800)) * time.Millisecond)
			b.forward(b.pick(), body)
		}()
	}
	w.WriteHeader(b.forward(b.pick(), body))
}

func (b *balancer) wait() { b.wg.Wait() }
