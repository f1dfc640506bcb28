package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/mailroom"
	"github.com/acctadmin/acctadmin-go/webhook"
	ics "github.com/arran4/golang-ical"
	"github.com/google/uuid"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain makes the test binary the acctadmin command too, for the
// scripts (testscript.Main).
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"acctadmin": main})
}

// TestScripts runs testdata/*.txtar, each against a fake of its own with
// the demo data (acctadmintest.NewServer), and a callback receiver that
// verifies what it gets with package webhook.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		Setup:               setupScript,
		Cmds:                scriptCmds,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
	})
}

// waitLimit bounds every wait of the scripts' commands.
const waitLimit = 30 * time.Second

// harness is what a script's commands reach: its fake and its receiver.
type harness struct {
	fake *acctadmintest.Server
	hook *receiver
	// unread are the documents unread when the script started, and locked
	// those of them that are payment-locked.
	unread, locked map[uuid.UUID]bool
	// marked are the documents saved when mark-saved ran.
	marked map[uuid.UUID]bool
}

// randomKey makes a key of hex digits (so that a script can use it as a
// regular expression).
func randomKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// setupScript starts the fake and the receiver, and puts their addresses
// and the keys into the script's environment.
func setupScript(env *testscript.Env) error {
	access, secret := "ak"+randomKey(), "sk"+randomKey()
	fake := acctadmintest.NewServer(
		acctadmintest.WithDemoData(),
		acctadmintest.WithControl(),
		acctadmintest.WithKeys(access, secret),
		acctadmintest.WithDeliveryRetry(2, 20*time.Millisecond),
	)
	env.Defer(fake.Close)
	hook, err := newReceiver(access, secret)
	if err != nil {
		return err
	}
	env.Defer(hook.close)
	h := &harness{fake: fake, hook: hook, unread: map[uuid.UUID]bool{}, locked: map[uuid.UUID]bool{}}
	for _, d := range fake.Documents() {
		if d.Status == acctadmintest.DocumentUnread {
			h.unread[d.ID] = true
			if d.PaymentLocked {
				h.locked[d.ID] = true
			}
		}
	}
	env.Values["harness"] = h
	// Under -race each command would sleep a second as it exits (the
	// race runtime's default); a race it finds still fails its exit code.
	env.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	env.Setenv("ACCTADMIN_BASE_URL", fake.URL)
	env.Setenv("ACCTADMIN_ACCESS_KEY", access)
	env.Setenv("ACCTADMIN_SECRET_KEY", secret)
	env.Setenv("HOOK_URL", hook.srv.URL)
	env.Setenv("COMPANY_ID", fake.Companies()[0].ID.String())
	env.Setenv("UNPAID_COMPANY", acctadmintest.DemoUnpaidCompany)
	env.Setenv("WEBSITE_URL", acctadmintest.DemoWebsiteURL)
	env.Setenv("CARD_ID", acctadmintest.DemoID("payment-method", 1).String())
	env.Setenv("UNREAD_COUNT", strconv.Itoa(len(h.unread)))
	env.Setenv("UNREAD_LOCKED_COUNT", strconv.Itoa(len(h.locked)))
	env.Setenv("UNREAD_UNLOCKED_COUNT", strconv.Itoa(len(h.unread)-len(h.locked)))
	locked := 0
	for _, d := range fake.Documents() {
		switch {
		case h.locked[d.ID] && locked == 0:
			env.Setenv("LOCKED_ID", d.ID.String())
			locked++
		case h.locked[d.ID] && locked == 1:
			env.Setenv("LOCKED_ID_2", d.ID.String())
			locked++
		case !d.PaymentLocked:
			env.Setenv("FREE_DOCUMENT_ID", d.ID.String())
		}
	}
	for i, d := range fake.Documents() {
		if i == 0 {
			env.Setenv("DOCUMENT_ID", d.ID.String())
		}
	}
	for _, inv := range fake.Invoices() {
		switch inv.Status {
		case acctadmintest.InvoiceUnpaid:
			if id := env.Getenv("UNPAID_INVOICE_ID"); id != "" {
				env.Setenv("OTHER_UNPAID_INVOICE_ID", id)
			}
			env.Setenv("UNPAID_INVOICE_ID", inv.ID.String())
		case acctadmintest.InvoiceCancelled:
			env.Setenv("CANCELLED_INVOICE_ID", inv.ID.String())
		}
	}
	for _, s := range fake.Services() {
		if s.Company == acctadmintest.DemoUnpaidCompany {
			env.Setenv("UNPAID_SERVICE_ID", s.ID.String())
		} else if s.Status == acctadmintest.ServiceActive {
			env.Setenv("SERVICE_ID", s.ID.String())
		}
	}
	for _, r := range fake.Resources() {
		if r.Kind == acctadmintest.ResourceDocument {
			env.Setenv("RESOURCE_ID", r.ID.String())
			break
		}
	}
	return nil
}

// receiver is a callback handler that verifies every event with package
// webhook and records it by path; at /fail it answers 500 once it has.
type receiver struct {
	srv *httptest.Server

	mu     sync.Mutex
	events map[string][]*webhook.Event
	// refused counts the requests that did not verify.
	refused int
}

func newReceiver(access, secret string) (*receiver, error) {
	v, err := webhook.NewVerifier([]byte(secret), webhook.WithAccessKey(access))
	if err != nil {
		return nil, err
	}
	r := &receiver{events: map[string][]*webhook.Event{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ev, err := v.VerifyRequest(req)
		r.mu.Lock()
		defer r.mu.Unlock()
		if err != nil {
			r.refused++
			http.Error(w, "refused", http.StatusUnauthorized)
			return
		}
		r.events[req.URL.Path] = append(r.events[req.URL.Path], ev)
		if req.URL.Path == "/fail" {
			// A handler that fails after it verified the event.
			http.Error(w, "failing", http.StatusInternalServerError)
		}
	}))
	return r, nil
}

func (r *receiver) close() { r.srv.Close() }

// received returns the events that arrived at path.
func (r *receiver) received(path string) []*webhook.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*webhook.Event(nil), r.events[path]...)
}

// scriptCmds are the scripts' own commands.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	// code N CMD ARGS...: runs CMD and wants exit code N; stdout and
	// stderr are then those of CMD.
	"code": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) < 2 || neg {
			ts.Fatalf("usage: code N command [args...]")
		}
		want, err := strconv.Atoi(args[0])
		ts.Check(err)
		err = ts.Exec(args[1], args[2:]...)
		got := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			got = ee.ExitCode()
		} else if err != nil {
			ts.Fatalf("%s: %v", args[1], err)
		}
		if got != want {
			ts.Fatalf("%s exited %d, want %d", args[1], got, want)
		}
	},
	// stdout-env VAR: sets VAR to the last command's standard output,
	// trimmed.
	"stdout-env": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: stdout-env VAR")
		}
		ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile("stdout")))
	},
	// fake-count METHOD ROUTE N: the fake received N requests of ROUTE
	// (a pattern as acctadmintest.Routes lists it).
	"fake-count": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 3 {
			ts.Fatalf("usage: fake-count METHOD ROUTE N")
		}
		h := ts.Value("harness").(*harness)
		want, err := strconv.Atoi(args[2])
		ts.Check(err)
		got := h.fake.RequestCount(args[0], args[1])
		if (got == want) == neg {
			ts.Fatalf("%s %s: %d requests, want %s%d", args[0], args[1], got, map[bool]string{true: "not ", false: ""}[neg], want)
		}
	},
	// fake-writes ROUTE N: the fake applied N writes of ROUTE.
	"fake-writes": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: fake-writes ROUTE N")
		}
		h := ts.Value("harness").(*harness)
		want, err := strconv.Atoi(args[1])
		ts.Check(err)
		got := 0
		for _, w := range h.fake.Writes() {
			if w.Route == args[0] {
				got++
			}
		}
		if got != want {
			ts.Fatalf("%d writes of %s, want %d", got, args[0], want)
		}
	},
	// fake-fault ROUTE LATENCY: every GET of ROUTE waits LATENCY.
	"fake-fault": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: fake-fault ROUTE LATENCY")
		}
		d, err := time.ParseDuration(args[1])
		ts.Check(err)
		ts.Value("harness").(*harness).fake.InjectFault(acctadmintest.Fault{Method: http.MethodGet, Path: args[0], Latency: d})
	},
	// fake-status ROUTE STATUS [COUNT]: GETs of ROUTE are answered STATUS
	// (COUNT times; 0 or none: until cleared).
	"fake-status": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) < 2 {
			ts.Fatalf("usage: fake-status ROUTE STATUS [COUNT]")
		}
		status, err := strconv.Atoi(args[1])
		ts.Check(err)
		count := 0
		if len(args) > 2 {
			count, err = strconv.Atoi(args[2])
			ts.Check(err)
		}
		ts.Value("harness").(*harness).fake.InjectFault(acctadmintest.Fault{Method: http.MethodGet, Path: args[0], Status: status, Count: count})
	},
	// fake-truncate ROUTE COUNT: the next COUNT GETs of ROUTE send half
	// their body and close the connection.
	"fake-truncate": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: fake-truncate ROUTE COUNT")
		}
		count, err := strconv.Atoi(args[1])
		ts.Check(err)
		ts.Value("harness").(*harness).fake.InjectFault(acctadmintest.Fault{Method: http.MethodGet, Path: args[0], TruncateBody: true, Count: count})
	},
	// fake-fail-write METHOD ROUTE STATUS|drop: the next request of ROUTE
	// is applied, and then answered STATUS, or its connection dropped, so
	// that its outcome is unknown to the client.
	"fake-fail-write": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 3 {
			ts.Fatalf("usage: fake-fail-write METHOD ROUTE STATUS|drop")
		}
		f := acctadmintest.Fault{Method: args[0], Path: args[1], Count: 1, AfterApply: true}
		if args[2] == "drop" {
			f.DropConnection = true
		} else {
			status, err := strconv.Atoi(args[2])
			ts.Check(err)
			f.Status = status
		}
		ts.Value("harness").(*harness).fake.InjectFault(f)
	},
	// unlock-all: pays for every document that was payment-locked when
	// the script started, through the SDK, with the demo card.
	"unlock-all": func(ts *testscript.TestScript, neg bool, args []string) {
		h := ts.Value("harness").(*harness)
		c, err := acctadmin.NewClient(h.fake.AccessKey, h.fake.SecretKey, acctadmin.WithBaseURL(h.fake.URL))
		ts.Check(err)
		for id := range h.locked {
			_, err := c.Documents.Unlock(context.Background(), id, acctadmintest.DemoID("payment-method", 1))
			ts.Check(err)
		}
		fmt.Fprintf(ts.Stdout(), "%d documents unlocked\n", len(h.locked))
	},
	// echo-env VAR: prints the value of VAR, for stdin stdout.
	"echo-env": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: echo-env VAR")
		}
		fmt.Fprintln(ts.Stdout(), ts.Getenv(args[0]))
	},
	// file-mode PATH MODE: PATH has the permission bits MODE (octal).
	"file-mode": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: file-mode PATH MODE")
		}
		st, err := os.Stat(ts.MkAbs(args[0]))
		ts.Check(err)
		want, err := strconv.ParseUint(args[1], 8, 32)
		ts.Check(err)
		if got := st.Mode().Perm(); uint64(got) != want {
			ts.Fatalf("%s: mode %o, want %o", args[0], got, want)
		}
	},
	// fake-reset-requests: empties the fake's request log and counts.
	"fake-reset-requests": func(ts *testscript.TestScript, neg bool, args []string) {
		ts.Value("harness").(*harness).fake.ResetRequests()
	},
	"fake-clear-faults": func(ts *testscript.TestScript, neg bool, args []string) {
		ts.Value("harness").(*harness).fake.ClearFaults()
	},
	// fake-overdue DAYS: adds an active compliance event of the first
	// company due DAYS days ago.
	"fake-overdue": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: fake-overdue DAYS")
		}
		days, err := strconv.Atoi(args[0])
		ts.Check(err)
		h := ts.Value("harness").(*harness)
		h.fake.AddComplianceEvent(acctadmintest.ComplianceEventInput{
			CompanyID: h.fake.Companies()[0].ID,
			DueDate:   time.Now().AddDate(0, 0, -days),
			Filing:    "Late Annual Report",
		})
	},
	// wait-request METHOD ROUTE N: waits until the fake has received N
	// requests of ROUTE.
	"wait-request": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 3 {
			ts.Fatalf("usage: wait-request METHOD ROUTE N")
		}
		h := ts.Value("harness").(*harness)
		n, err := strconv.Atoi(args[2])
		ts.Check(err)
		waitFor(ts, fmt.Sprintf("%d requests %s %s", n, args[0], args[1]), func() bool {
			return h.fake.RequestCount(args[0], args[1]) >= n
		})
	},
	// free-port VAR: sets VAR to a loopback port that was free a moment
	// ago.
	"free-port": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: free-port VAR")
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		port := ln.Addr().(*net.TCPAddr).Port
		ts.Check(ln.Close())
		ts.Setenv(args[0], strconv.Itoa(port))
	},
	// wait-listening ADDR: waits until ADDR accepts connections.
	"wait-listening": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: wait-listening ADDR")
		}
		waitFor(ts, args[0]+" to listen", func() bool {
			c, err := net.DialTimeout("tcp", args[0], time.Second)
			if err != nil {
				return false
			}
			c.Close()
			return true
		})
	},
	// wait-files DIR N: waits until DIR holds N saved documents.
	"wait-files": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: wait-files DIR N")
		}
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		dir := ts.MkAbs(args[0])
		waitFor(ts, fmt.Sprintf("%d documents in %s", n, dir), func() bool {
			ids, _ := savedIDs(dir)
			return len(ids) >= n
		})
	},
	// mail-complete DIR: DIR holds exactly the documents that were unread
	// and not payment-locked when the script started, each in one file
	// with the readable name mailroom.Dir gives it, and its journal is
	// empty.
	"mail-complete": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: mail-complete DIR")
		}
		h := ts.Value("harness").(*harness)
		dir := ts.MkAbs(args[0])
		ids, err := savedIDs(dir)
		ts.Check(err)
		for id, n := range ids {
			if n != 1 {
				ts.Fatalf("document %s saved in %d files", id, n)
			}
			if !h.unread[id] || h.locked[id] {
				ts.Fatalf("document %s saved, but it was not unread, or payment-locked", id)
			}
		}
		for id := range h.unread {
			if ids[id] == 0 && !h.locked[id] {
				ts.Fatalf("document %s was unread and is not saved (%d of %d saved)", id, len(ids), len(h.unread)-len(h.locked))
			}
		}
		ts.Check(checkNames(h.fake, dir))
		pending, _ := os.ReadDir(filepath.Join(dir, ".mailroom", "pending"))
		if len(pending) != 0 {
			ts.Fatalf("the journal still holds %d record(s)", len(pending))
		}
		fmt.Fprintf(ts.Stdout(), "%d documents saved once each\n", len(ids))
	},
	// unlocked-saved DIR N: the fake received N unlock requests, each of
	// a different document that was unread and payment-locked when the
	// script started, and no longer is; DIR holds each of them once, and
	// every other document it holds was unread and not locked; its journal
	// is empty.
	"unlocked-saved": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: unlocked-saved DIR N")
		}
		h := ts.Value("harness").(*harness)
		want, err := strconv.Atoi(args[1])
		ts.Check(err)
		paid := map[uuid.UUID]int{}
		for _, r := range h.fake.Requests() {
			if r.Method != http.MethodPost || r.Route != "/documents/unlock/:id" {
				continue
			}
			id, err := uuid.Parse(strings.Split(r.Path, "/")[3])
			ts.Check(err)
			paid[id]++
			if paid[id] > 1 {
				ts.Fatalf("document %s: unlock sent twice", id)
			}
			if d, _ := h.fake.Document(id); !h.locked[id] || d.PaymentLocked {
				ts.Fatalf("document %s: unlocked, but it was not locked, or still is", id)
			}
		}
		if len(paid) != want {
			ts.Fatalf("%d documents unlocked, want %d", len(paid), want)
		}
		dir := ts.MkAbs(args[0])
		ids, err := savedIDs(dir)
		ts.Check(err)
		for id, n := range ids {
			if n != 1 || !h.unread[id] || (h.locked[id] && paid[id] == 0) {
				ts.Fatalf("document %s saved in %d files; unread at the start %v, locked %v, unlocked %v", id, n, h.unread[id], h.locked[id], paid[id] > 0)
			}
		}
		for id := range paid {
			if ids[id] != 1 {
				ts.Fatalf("document %s unlocked, and not saved", id)
			}
		}
		pending, _ := os.ReadDir(filepath.Join(dir, ".mailroom", "pending"))
		if len(pending) != 0 {
			ts.Fatalf("the journal still holds %d record(s)", len(pending))
		}
		fmt.Fprintf(ts.Stdout(), "%d documents unlocked once each and saved\n", len(paid))
	},
	// unlock-record DIR: records in DIR, as the mail room does before it
	// pays, an unlock of a document still payment-locked, as if an earlier
	// run had tried it; prints its id.
	"unlock-record": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: unlock-record DIR")
		}
		h := ts.Value("harness").(*harness)
		for _, d := range h.fake.Documents() {
			if !h.locked[d.ID] || !d.PaymentLocked {
				continue
			}
			first, err := mailroom.Dir(ts.MkAbs(args[0])).(mailroom.UnlockRecorder).BeginUnlock(context.Background(), d.ID)
			ts.Check(err)
			if !first {
				ts.Fatalf("document %s: an unlock was recorded already", d.ID)
			}
			fmt.Fprintln(ts.Stdout(), d.ID)
			return
		}
		ts.Fatalf("no document is still payment-locked")
	},
	// locked-listed N: the last command's standard output lists each
	// document that was unread and payment-locked when the script started
	// once, with its date, company, type and id, and N of them.
	"locked-listed": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: locked-listed N")
		}
		h := ts.Value("harness").(*harness)
		want, err := strconv.Atoi(args[0])
		ts.Check(err)
		line := regexp.MustCompile(`^  \d{4}-\d\d-\d\d  (.+)  (.+)  ([0-9a-f-]{36})  \d+\.\d\d$`)
		listed := map[uuid.UUID]int{}
		for _, l := range strings.Split(ts.ReadFile("stdout"), "\n") {
			m := line.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			id := uuid.MustParse(m[3])
			d, _ := h.fake.Document(id)
			if !h.locked[id] || m[1] != d.CompanyName || m[2] != d.Type {
				ts.Fatalf("listed %q, not a payment-locked unread document as the fake has it", l)
			}
			listed[id]++
		}
		for id := range h.locked {
			if listed[id] != 1 {
				ts.Fatalf("document %s listed %d times, want once", id, listed[id])
			}
		}
		if len(listed) != want {
			ts.Fatalf("%d documents listed, want %d", len(listed), want)
		}
	},
	// mark-saved DIR: remembers the documents DIR holds now and empties
	// the fake's request log, for no-redownload.
	"mark-saved": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: mark-saved DIR")
		}
		h := ts.Value("harness").(*harness)
		ids, err := savedIDs(ts.MkAbs(args[0]))
		ts.Check(err)
		h.marked = map[uuid.UUID]bool{}
		for id := range ids {
			h.marked[id] = true
		}
		h.fake.ResetRequests()
		fmt.Fprintf(ts.Stdout(), "%d documents saved before\n", len(ids))
	},
	// no-redownload: since mark-saved, no document saved then was
	// downloaded again; prints how many downloads there were.
	"no-redownload": func(ts *testscript.TestScript, neg bool, args []string) {
		h := ts.Value("harness").(*harness)
		if h.marked == nil {
			ts.Fatalf("no-redownload needs mark-saved first")
		}
		n := 0
		for _, r := range h.fake.Requests() {
			if r.Route != "/documents/:id/download" {
				continue
			}
			n++
			id, err := uuid.Parse(strings.Split(r.Path, "/")[2])
			ts.Check(err)
			if h.marked[id] {
				ts.Fatalf("document %s was saved before, and downloaded again", id)
			}
		}
		fmt.Fprintf(ts.Stdout(), "%d downloads since, none of a saved document\n", n)
	},
	// hook-wait PATH N EVENT [COMPANY]: waits until the receiver has
	// verified N events named EVENT (of the company named COMPANY) at PATH,
	// and prints them.
	"hook-wait": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 3 && len(args) != 4 {
			ts.Fatalf("usage: hook-wait PATH N EVENT [COMPANY]")
		}
		h := ts.Value("harness").(*harness)
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		var got []*webhook.Event
		waitFor(ts, fmt.Sprintf("%d %s events at %s", n, args[2], args[0]), func() bool {
			got = got[:0]
			for _, ev := range h.hook.received(args[0]) {
				if ev.Name == args[2] && (len(args) == 3 || ev.CompanyName == args[3]) {
					got = append(got, ev)
				}
			}
			return len(got) >= n
		})
		for _, ev := range got {
			id := ev.DocumentID
			if ev.Name == webhook.EventNewInvoice {
				id = ev.InvoiceID
			}
			fmt.Fprintf(ts.Stdout(), "verified %s %s company %s %s\n", ev.Name, id, ev.CompanyID, ev.CompanyName)
		}
		h.hook.mu.Lock()
		refused := h.hook.refused
		h.hook.mu.Unlock()
		if refused > 0 {
			ts.Fatalf("the receiver refused %d request(s)", refused)
		}
	},
	// ics-check FILE N: FILE is an iCalendar file that parses back with N
	// (a number, or a file holding one) all-day events, each with a UID, a DTSTAMP and a reminder a week
	// before, every line ended by CRLF and at most 75 octets long.
	"ics-check": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: ics-check FILE N")
		}
		want, err := strconv.Atoi(args[1])
		if err != nil {
			b, rerr := os.ReadFile(ts.MkAbs(args[1]))
			ts.Check(rerr)
			want, err = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		ts.Check(err)
		data, err := os.ReadFile(ts.MkAbs(args[0]))
		ts.Check(err)
		ts.Check(checkICS(data, want))
		fmt.Fprintf(ts.Stdout(), "%d events\n", want)
	},
	// ics-same-uids FILE1 FILE2: both files hold the same UIDs.
	"ics-same-uids": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: ics-same-uids FILE1 FILE2")
		}
		var sets [2][]string
		for i, f := range args {
			data, err := os.ReadFile(ts.MkAbs(f))
			ts.Check(err)
			cal, err := ics.ParseCalendar(bytes.NewReader(data))
			ts.Check(err)
			for _, ev := range cal.Events() {
				sets[i] = append(sets[i], ev.Id())
			}
			sort.Strings(sets[i])
		}
		if strings.Join(sets[0], " ") != strings.Join(sets[1], " ") || len(sets[0]) == 0 {
			ts.Fatalf("UIDs differ:\n%v\n%v", sets[0], sets[1])
		}
	},
}

// waitFor polls cond until it holds, for at most waitLimit.
func waitFor(ts *testscript.TestScript, what string, cond func() bool) {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			ts.Fatalf("waited %s for %s", waitLimit, what)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// savedName is the end of the name mailroom.Dir gives a document's file:
// its id.
var savedName = regexp.MustCompile(`([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.pdf$`)

// checkNames checks that every document in dir is in a file named for
// people: its date, then mailroom.FileName of its company, type, title
// and id, as the fake has them.
func checkNames(fake *acctadmintest.Server, dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	date := regexp.MustCompile(`^\d{4}-\d\d-\d\d `)
	for _, e := range entries {
		m := savedName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		d, ok := fake.Document(uuid.MustParse(m[1]))
		if !ok {
			return fmt.Errorf("%s: no such document", e.Name())
		}
		want := mailroom.FileName(acctadmin.Document{ID: d.ID, CompanyName: d.CompanyName, Type: d.Type, Title: d.Title})
		if !date.MatchString(e.Name()) || e.Name()[len("2006-01-02 "):] != want {
			return fmt.Errorf("file %q, want the document's date and %q", e.Name(), want)
		}
	}
	return nil
}

// savedIDs counts the files of each document id in dir.
func savedIDs(dir string) (map[uuid.UUID]int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	ids := map[uuid.UUID]int{}
	for _, e := range entries {
		m := savedName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		ids[uuid.MustParse(m[1])]++
	}
	return ids, nil
}

// checkICS checks an iCalendar file of due dates.
func checkICS(data []byte, want int) error {
	if !bytes.HasSuffix(data, []byte("\r\n")) {
		return errors.New("the file does not end with CRLF")
	}
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\r\n")), []byte("\r\n")) {
		if bytes.ContainsAny(line, "\r\n") {
			return fmt.Errorf("line %d has a bare CR or LF", i+1)
		}
		if len(line) > 75 {
			return fmt.Errorf("line %d is %d octets long, over 75", i+1, len(line))
		}
	}
	cal, err := ics.ParseCalendar(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("parsing the calendar back: %w", err)
	}
	events := cal.Events()
	if len(events) != want {
		return fmt.Errorf("%d events, want %d", len(events), want)
	}
	uids := map[string]bool{}
	for _, ev := range events {
		uid := ev.Id()
		if uid == "" || uids[uid] {
			return fmt.Errorf("event UID %q empty or repeated", uid)
		}
		uids[uid] = true
		start := ev.GetProperty(ics.ComponentPropertyDtStart)
		if start == nil || len(start.ICalParameters["VALUE"]) != 1 || start.ICalParameters["VALUE"][0] != "DATE" {
			return fmt.Errorf("event %s: DTSTART is not a date", uid)
		}
		if _, err := ev.GetAllDayStartAt(); err != nil {
			return fmt.Errorf("event %s: %v", uid, err)
		}
		if ev.GetProperty(ics.ComponentPropertyDtstamp) == nil || ev.GetProperty(ics.ComponentPropertySummary) == nil {
			return fmt.Errorf("event %s: no DTSTAMP or SUMMARY", uid)
		}
		alarms := ev.Alarms()
		if len(alarms) != 1 {
			return fmt.Errorf("event %s: %d alarms, want 1", uid, len(alarms))
		}
		trig := alarms[0].GetProperty(ics.ComponentPropertyTrigger)
		if trig == nil || trig.Value != "-P7D" {
			return fmt.Errorf("event %s: the alarm is not a week before", uid)
		}
		if alarms[0].GetProperty(ics.ComponentPropertyAction) == nil {
			return fmt.Errorf("event %s: the alarm has no ACTION", uid)
		}
	}
	return nil
}
