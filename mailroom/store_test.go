package mailroom

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/google/uuid"
)

func TestDirSavesOnceAndWhole(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mail")
	s := Dir(dir)
	ctx := context.Background()
	id := uuid.New()
	if has, err := s.Has(ctx, id); err != nil || has {
		t.Fatalf("Has before Save = %v, %v", has, err)
	}
	if err := s.Save(ctx, acctadmin.Document{ID: id}, strings.NewReader("first")); err != nil {
		t.Fatal(err)
	}
	if has, err := s.Has(ctx, id); err != nil || !has {
		t.Fatalf("Has after Save = %v, %v", has, err)
	}
	err := s.Save(ctx, acctadmin.Document{ID: id}, strings.NewReader("second"))
	if !errors.Is(err, ErrAlreadySaved) {
		t.Fatalf("second Save = %v, want ErrAlreadySaved", err)
	}
	docs, others := savedFiles(t, dir)
	if len(docs) != 1 || string(docs[id]) != "first" || len(others) != 0 {
		t.Fatalf("folder: %d documents (%q), others %v", len(docs), docs[id], others)
	}
	if _, err := os.Stat(filepath.Join(dir, id.String()+".pdf")); err != nil {
		t.Fatalf("the file is not named <id>.pdf: %v", err)
	}
}

// failingReader fails after handing out some bytes, as a download cut
// mid-stream does.
type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.ErrUnexpectedEOF
	}
	k := min(len(p), r.n)
	copy(p, bytes.Repeat([]byte("x"), k))
	r.n -= k
	return k, nil
}

func TestDirLeavesNothingOfAFailedSave(t *testing.T) {
	dir := t.TempDir()
	s := Dir(dir)
	id := uuid.New()
	err := s.Save(context.Background(), acctadmin.Document{ID: id}, &failingReader{n: 5000})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("Save = %v, want the reader's error", err)
	}
	docs, others := savedFiles(t, dir)
	if len(docs) != 0 || len(others) != 0 {
		t.Fatalf("left behind: %d documents, %v", len(docs), others)
	}
	if has, _ := s.Has(context.Background(), id); has {
		t.Fatal("Has reports a document whose save failed")
	}
}

// Dir's Save writes the document under a temporary name, syncs that
// file, closes it, links it to its final name, removes the temporary name
// and syncs the folder, in this order: once Save returns, a power cut
// loses neither the file's bytes nor its name.
func TestDirSyncsTheFileBeforeTheLinkAndTheFolderAfter(t *testing.T) {
	dir := t.TempDir()
	s := Dir(dir)
	ctx := context.Background()
	l := logFS(t, s, "")
	id := uuid.New()
	if err := s.Save(ctx, acctadmin.Document{ID: id}, strings.NewReader("a document")); err != nil {
		t.Fatal(err)
	}
	calls := l.log()
	if len(calls) < 2 || !strings.HasPrefix(calls[1], "write ") {
		t.Fatalf("calls %q, want a temporary file created and written first", calls)
	}
	tmp := strings.TrimPrefix(calls[1], "write ")
	if filepath.Dir(tmp) != dir || !strings.HasPrefix(filepath.Base(tmp), tempPrefix()) {
		t.Fatalf("temporary file %q, want one of this process in %s", tmp, dir)
	}
	final := filepath.Join(dir, id.String()+".pdf")
	want := []string{"create " + dir, "write " + tmp, "sync " + tmp, "close " + tmp, "link " + tmp + " " + final, "remove " + tmp, "syncdir " + dir}
	if !slices.Equal(calls, want) {
		t.Fatalf("Save did\n\t%s\nwant\n\t%s", strings.Join(calls, "\n\t"), strings.Join(want, "\n\t"))
	}
	if b, err := os.ReadFile(final); err != nil || string(b) != "a document" {
		t.Fatalf("saved %q, %v", b, err)
	}
}

// A Save whose write, sync, close or link fails returns that error and
// leaves nothing: no document, no temporary file.
func TestDirLeavesNothingWhenAWriteFails(t *testing.T) {
	for _, op := range []string{"create", "write", "sync", "close", "link"} {
		dir := t.TempDir()
		s := Dir(dir)
		l := logFS(t, s, op)
		id := uuid.New()
		err := s.Save(context.Background(), acctadmin.Document{ID: id}, strings.NewReader("a document"))
		if !errors.Is(err, errInjected) {
			t.Fatalf("%s failing: Save = %v, want the injected failure", op, err)
		}
		if docs, others := savedFiles(t, dir); len(docs) != 0 || len(others) != 0 {
			t.Fatalf("%s failing: left %d documents, %v", op, len(docs), others)
		}
		if calls := l.log(); slices.ContainsFunc(calls, func(c string) bool { return strings.HasPrefix(c, "syncdir") }) {
			t.Fatalf("%s failing: calls %q go on past the failure", op, calls)
		}
	}
}

func TestDirRemovesTemporaryFilesOfDeadProcesses(t *testing.T) {
	dir := t.TempDir()
	dead := deadPID(t)
	names := map[string]bool{ // name: removed
		".tmp-" + hostname + "-" + strconv.Itoa(dead) + "-123":        true,  // this host, dead
		".tmp-" + hostname + "-" + strconv.Itoa(os.Getpid()) + "-456": false, // this process
		".tmp-otherhost-" + strconv.Itoa(dead) + "-789":               false, // elsewhere, fresh
		".tmp-oldhost-1-1": true,  // elsewhere, old
		"notes.txt":        false, // not ours
	}
	for name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * staleTemp)
	if err := os.Chtimes(filepath.Join(dir, ".tmp-oldhost-1-1"), old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := Dir(dir).Has(context.Background(), uuid.New()); err != nil {
		t.Fatal(err)
	}
	for name, removed := range names {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone := errors.Is(err, os.ErrNotExist); gone != removed {
			t.Errorf("%s: removed %v, want %v", name, gone, removed)
		}
	}
}

// deadPID returns the id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		t.Skipf("cannot start /bin/true: %v", err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	return p.Pid
}

func TestDirJournal(t *testing.T) {
	s := Dir(t.TempDir()).(Journal)
	ctx := context.Background()
	a, b := uuid.New(), uuid.New()
	for i, id := range []uuid.UUID{a, b, a} {
		again, err := s.Begin(ctx, id)
		if err != nil || again != (i == 2) {
			t.Fatalf("Begin #%d = %v, %v", i, again, err)
		}
	}
	got, err := s.Pending(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []uuid.UUID{a, b}
	sortIDs(got)
	sortIDs(want)
	if !slices.Equal(got, want) {
		t.Fatalf("Pending = %v, want %v", got, want)
	}
	if err := s.End(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := s.End(ctx, a); err != nil {
		t.Fatalf("ending twice: %v", err)
	}
	if got, _ := s.Pending(ctx); !slices.Equal(got, []uuid.UUID{b}) {
		t.Fatalf("Pending after End = %v", got)
	}
}

func sortIDs(ids []uuid.UUID) {
	slices.SortFunc(ids, func(x, y uuid.UUID) int { return strings.Compare(x.String(), y.String()) })
}

func TestDirRefusesAFolderItCannotCreate(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := Dir(filepath.Join(file, "mail"))
	if _, err := s.Has(context.Background(), uuid.New()); err == nil {
		t.Fatal("Has on a folder under a file succeeded")
	}
	if err := s.Save(context.Background(), acctadmin.Document{ID: uuid.New()}, strings.NewReader("x")); err == nil {
		t.Fatal("Save on a folder under a file succeeded")
	}
}
