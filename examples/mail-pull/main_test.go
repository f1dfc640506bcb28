package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/google/uuid"
	"go.uber.org/goleak"
)

// TestMain checks that the program leaves no goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// account starts a fake API with unread and read documents, and points the
// environment at it, as a user with keys would.
func account(t *testing.T, unread, read int) (*acctadmintest.Server, []acctadmintest.Document) {
	t.Helper()
	srv := acctadmintest.NewServer()
	t.Cleanup(srv.Close)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})
	start := time.Date(2026, time.March, 2, 9, 0, 0, 0, time.UTC)
	var docs []acctadmintest.Document
	for i := range unread + read {
		status := acctadmintest.DocumentUnread
		if i >= unread {
			status = acctadmintest.DocumentRead
		}
		d := srv.AddDocument(acctadmintest.DocumentInput{
			CompanyID: co.ID,
			Title:     fmt.Sprintf("Letter %02d", i+1),
			Pages:     1 + i%3,
			Status:    status,
			CreatedAt: start.Add(time.Duration(i) * time.Minute),
		})
		if status == acctadmintest.DocumentUnread {
			docs = append(docs, d)
		}
	}
	t.Setenv(acctadmin.EnvAccessKey, srv.AccessKey)
	t.Setenv(acctadmin.EnvSecretKey, srv.SecretKey)
	t.Setenv(acctadmin.EnvBaseURL, srv.URL)
	return srv, docs
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// folder lists the names in dir, sorted.
func folder(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// checkSaved checks that dir holds exactly one whole PDF per document and
// nothing else.
func checkSaved(t *testing.T, dir string, docs []acctadmintest.Document) {
	t.Helper()
	var want []string
	for _, d := range docs {
		want = append(want, d.ID.String()+".pdf")
	}
	sort.Strings(want)
	if got := folder(t, dir); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("folder holds\n%v\nwant\n%v", got, want)
	}
	for _, name := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte("%PDF-")) || !bytes.HasSuffix(b, []byte("%%EOF\n")) {
			t.Errorf("%s is not a whole PDF (%d bytes)", name, len(b))
		}
	}
}

// checkAllRead checks that the fake has no unread document left.
func checkAllRead(t *testing.T, srv *acctadmintest.Server) {
	t.Helper()
	for _, d := range srv.Documents() {
		if d.Status != acctadmintest.DocumentRead {
			t.Errorf("%s is still %s on the server", d.Title, d.Status)
		}
	}
}

// downloads counts the download requests the fake received, per document.
func downloads(srv *acctadmintest.Server) map[uuid.UUID]int {
	out := map[uuid.UUID]int{}
	for _, r := range srv.Requests() {
		if r.Route == "/documents/:id/download" {
			id, _ := uuid.Parse(strings.Split(r.Path, "/")[2])
			out[id]++
		}
	}
	return out
}

var progressLine = regexp.MustCompile(`^\[(\d+)\] (.+) -> (.+\.pdf) \((\d+) bytes\)$`)

func TestPullsEveryUnreadDocumentExactlyOnce(t *testing.T) {
	srv, docs := account(t, 7, 3)
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run(testContext(t), []string{"-dir", dir}, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	checkSaved(t, dir, docs)
	checkAllRead(t, srv)
	for _, d := range docs {
		if n := downloads(srv)[d.ID]; n != 1 {
			t.Errorf("%s downloaded %d times", d.Title, n)
		}
	}

	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(docs)+1 {
		t.Fatalf("want a line per document and a summary, got:\n%s", out.String())
	}
	// A line per document, numbered in the order they finished (several
	// download at once), each naming a different document's file.
	named := map[string]bool{}
	for _, d := range docs {
		named[filepath.Join(dir, d.ID.String()+".pdf")] = true
	}
	for i, l := range lines[:len(docs)] {
		m := progressLine.FindStringSubmatch(l)
		if m == nil || m[1] != fmt.Sprint(i+1) || !named[m[3]] {
			t.Errorf("progress line %d reads %q", i+1, l)
			continue
		}
		delete(named, m[3])
	}
	if !strings.HasPrefix(lines[len(lines)-1], "7 document(s) downloaded (") {
		t.Errorf("summary reads %q", lines[len(lines)-1])
	}

	// A second run finds nothing to do.
	out.Reset()
	if err := run(testContext(t), []string{"-dir", dir}, &out); err != nil {
		t.Fatalf("second run: %v", err)
	}
	if !strings.HasPrefix(out.String(), "0 document(s) downloaded") {
		t.Errorf("second run:\n%s", out.String())
	}
	checkSaved(t, dir, docs)
}

// cancelAfter cancels a context once n progress lines went through it, as
// a crash or a Ctrl-C would stop the program between two documents.
type cancelAfter struct {
	w      io.Writer
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	if bytes.HasPrefix(p, []byte("[")) {
		if c.n--; c.n == 0 {
			c.cancel()
		}
	}
	return c.w.Write(p)
}

func TestResumesAfterBeingStopped(t *testing.T) {
	srv, docs := account(t, 30, 0)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(testContext(t))
	var out bytes.Buffer
	err := run(ctx, []string{"-dir", dir, "-workers", "6"}, &cancelAfter{w: &out, n: 3, cancel: cancel})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped run = %v, want context.Canceled\n%s", err, out.String())
	}
	if !regexp.MustCompile(`(?m)^stopped: \d+ document\(s\) downloaded`).MatchString(out.String()) {
		t.Fatalf("no summary after the stop:\n%s", out.String())
	}
	// Whole files for what was finished, and a .part file for every
	// document the server marked read and that is not whole: nothing the
	// API took out of the unread listing is forgotten.
	whole, parts := 0, map[uuid.UUID]bool{}
	for _, name := range folder(t, dir) {
		switch {
		case strings.HasSuffix(name, ".pdf.part"):
			parts[uuid.MustParse(strings.TrimSuffix(name, ".pdf.part"))] = true
		case strings.HasSuffix(name, ".pdf"):
			whole++
		}
	}
	if whole < 3 || whole == len(docs) {
		t.Fatalf("%d whole files after stopping at the third of %d", whole, len(docs))
	}
	for _, d := range srv.Documents() {
		if d.Status == acctadmintest.DocumentRead && !parts[d.ID] && !exists(filepath.Join(dir, d.ID.String()+".pdf")) {
			t.Fatalf("%s was marked read but left no file", d.Title)
		}
	}

	out.Reset()
	if err := run(testContext(t), []string{"-dir", dir}, &out); err != nil {
		t.Fatalf("second run: %v\n%s", err, out.String())
	}
	checkSaved(t, dir, docs)
	checkAllRead(t, srv)
	// A download cut short by the stop is made again by id, and only those.
	for _, d := range docs {
		if n := downloads(srv)[d.ID]; n != 1 && !(n == 2 && parts[d.ID]) {
			t.Errorf("%s downloaded %d times over both runs (left as .part: %v)", d.Title, n, parts[d.ID])
		}
	}
	want := fmt.Sprintf("%d document(s) downloaded", len(docs)-whole)
	if !strings.Contains(out.String(), want) {
		t.Errorf("second run, want %q:\n%s", want, out.String())
	}
}

func TestProgressLineOnATerminal(t *testing.T) {
	_, docs := account(t, 12, 0)
	dir := t.TempDir()
	var out bytes.Buffer
	if err := runTo(testContext(t), []string{"-dir", dir}, &out, true); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	checkSaved(t, dir, docs)
	// One line, rewritten in place, then the summary on a line of its own.
	if strings.Count(out.String(), "\n") != 1 || strings.Count(out.String(), "\r\033[K") != len(docs)+1 {
		t.Fatalf("output %q", out.String())
	}
	if !strings.Contains(out.String(), "\r\033[K12 document(s), ") || !regexp.MustCompile(`\r\x1b\[K12 document\(s\) downloaded \(\d+ bytes\) into .+\n$`).MatchString(out.String()) {
		t.Fatalf("output %q", out.String())
	}
}

func TestPartFileExistsBeforeTheDownloadIsSent(t *testing.T) {
	// A process killed once the request is out, before any byte is
	// written, still leaves the .part file that the next run resumes from.
	dir := t.TempDir()
	id := uuid.New()
	crash := errors.New("killed")
	var partAtSend bool
	m := &partMarker{dir: &dir, next: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		partAtSend = exists(filepath.Join(dir, id.String()+".pdf.part"))
		return nil, crash
	})}
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:1/documents/"+id.String()+"/download", nil)
	if _, err := m.RoundTrip(req); !errors.Is(err, crash) || !partAtSend {
		t.Fatalf("RoundTrip = %v; .part there when sent: %v", err, partAtSend)
	}
	// Other requests create nothing.
	for _, path := range []string{"/documents", "/documents/" + id.String(), "/resources/" + uuid.NewString() + "/download"} {
		req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:1"+path, nil)
		m.RoundTrip(req)
	}
	if got := folder(t, dir); len(got) != 1 || got[0] != id.String()+".pdf.part" {
		t.Fatalf("folder holds %v", got)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestResumesADownloadCutShort(t *testing.T) {
	srv, docs := account(t, 5, 0)
	// The connection breaks halfway through the first file, after the
	// server has marked the document read: it is no longer in the unread
	// listing, and only the .part file remembers it.
	srv.InjectFault(acctadmintest.Fault{Method: "GET", Path: "/documents/:id/download", Count: 1, TruncateBody: true})
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run(testContext(t), []string{"-dir", dir}, &out); err == nil {
		t.Fatalf("run on a broken download succeeded:\n%s", out.String())
	}
	// The cut document is left as a .part file (the others downloaded at
	// the same time may have finished).
	var cut []string
	for _, name := range folder(t, dir) {
		if strings.HasSuffix(name, ".pdf.part") {
			cut = append(cut, name)
		}
	}
	if len(cut) != 1 {
		t.Fatalf("after the failure the folder holds %v, want one .part file", folder(t, dir))
	}
	whole := len(folder(t, dir)) - 1
	if d, _ := srv.Document(uuid.MustParse(strings.TrimSuffix(cut[0], ".pdf.part"))); d.Status != acctadmintest.DocumentRead {
		t.Fatalf("the cut download left the document %s; the test means to cover a document already marked read", d.Status)
	}

	out.Reset()
	if err := run(testContext(t), []string{"-dir", dir}, &out); err != nil {
		t.Fatalf("second run: %v\n%s", err, out.String())
	}
	checkSaved(t, dir, docs)
	checkAllRead(t, srv)
	if !strings.Contains(out.String(), fmt.Sprintf("%d document(s) downloaded", 5-whole)) || !strings.Contains(out.String(), "1 of them left unfinished by an earlier run") {
		t.Errorf("second run:\n%s", out.String())
	}
}

func TestSkipsDocumentsAlreadySaved(t *testing.T) {
	srv, docs := account(t, 3, 0)
	dir := t.TempDir()
	kept := filepath.Join(dir, docs[1].ID.String()+".pdf")
	if err := os.WriteFile(kept, []byte("%PDF-1.4 saved earlier\n%%EOF\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(testContext(t), []string{"-dir", dir}, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	checkSaved(t, dir, docs)
	// Pull downloads what the unread listing holds (which marks it read);
	// the file saved earlier is kept as it is.
	if n := downloads(srv)[docs[1].ID]; n != 1 {
		t.Errorf("a document already saved was downloaded %d times", n)
	}
	checkAllRead(t, srv)
	if b, _ := os.ReadFile(kept); !bytes.Contains(b, []byte("saved earlier")) {
		t.Error("a file already saved was overwritten")
	}
	if !strings.Contains(out.String(), "2 document(s) downloaded") || !strings.Contains(out.String(), "; 1 already there") {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestDemoAccountWithNoSetup(t *testing.T) {
	t.Setenv(acctadmin.EnvAccessKey, "")
	t.Setenv(acctadmin.EnvSecretKey, "")
	t.Setenv(acctadmin.EnvBaseURL, "")
	demo := acctadmintest.NewFake(acctadmintest.WithDemoData())
	unread, locked := 0, 0
	for _, d := range demo.Documents() {
		if d.Status == acctadmintest.DocumentUnread && d.PaymentLocked {
			locked++
		} else if d.Status == acctadmintest.DocumentUnread {
			unread++
		}
	}
	demo.Close()
	if locked == 0 {
		t.Fatal("the demo account has no unread payment-locked document")
	}

	var out bytes.Buffer
	if err := run(testContext(t), nil, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	m := regexp.MustCompile(`(?m)^(\d+) document\(s\) downloaded \(\d+ bytes\) into ([^;]+)(;.*)?$`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no summary in:\n%s", out.String())
	}
	dir := m[2]
	t.Cleanup(func() { os.RemoveAll(dir) })
	if !strings.HasPrefix(dir, os.TempDir()) {
		t.Errorf("with no keys and no -dir the demo mail went to %s, not a temporary folder", dir)
	}
	if m[1] != fmt.Sprint(unread) || len(folder(t, dir)) != unread {
		t.Errorf("downloaded %s, folder holds %d, the demo account has %d unread and not locked", m[1], len(folder(t, dir)), unread)
	}
	if !strings.Contains(out.String(), fmt.Sprintf("; %d payment-locked, left unread", locked)) {
		t.Errorf("the %d payment-locked documents are not in the summary:\n%s", locked, out.String())
	}
}

func TestBadArguments(t *testing.T) {
	for _, args := range [][]string{{"-nope"}, {"extra"}} {
		if err := run(testContext(t), args, &bytes.Buffer{}); err == nil {
			t.Errorf("run(%q) = nil, want an error", args)
		}
	}
}

// A payment-locked document is left unread with no .part file, and one
// left as a .part file by an earlier run is dropped rather than failing
// the run; the summary counts both.
func TestLeavesPaymentLockedDocumentsUnread(t *testing.T) {
	srv, docs := account(t, 3, 0)
	co := srv.Companies()[0]
	locked := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, Title: "Held", PaymentLocked: true})
	older := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, Title: "Held before", PaymentLocked: true})
	dir := t.TempDir()
	_, part := paths(dir, older.ID)
	if err := os.WriteFile(part, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(testContext(t), []string{"-dir", dir}, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	checkSaved(t, dir, docs)
	if !strings.Contains(out.String(), "3 document(s) downloaded") || !strings.Contains(out.String(), "; 2 payment-locked, left unread") {
		t.Errorf("output:\n%s", out.String())
	}
	for _, id := range []uuid.UUID{locked.ID, older.ID} {
		if d, _ := srv.Document(id); d.Status != acctadmintest.DocumentUnread {
			t.Errorf("locked document %s is %s", id, d.Status)
		}
	}
	if n := downloads(srv)[locked.ID]; n != 0 {
		t.Errorf("the locked document's download was asked for %d times", n)
	}
}
