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
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/google/uuid"
	"pgregory.net/rapid"
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

// A Save that fails, whether the download fails mid-stream or Dir's own
// create, write, sync, close or link does, returns that error and leaves
// nothing: no document, no temporary file, no call past the failure (no
// folder sync), and Has does not report the document.
func TestDirLeavesNothingOfAFailedSave(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail string // the file system call that fails, if any
		body io.Reader
		want error
	}{
		{name: "the download", body: &failingReader{n: 5000}, want: io.ErrUnexpectedEOF},
		{name: "create", fail: "create", body: strings.NewReader("a document"), want: errInjected},
		{name: "write", fail: "write", body: strings.NewReader("a document"), want: errInjected},
		{name: "sync", fail: "sync", body: strings.NewReader("a document"), want: errInjected},
		{name: "close", fail: "close", body: strings.NewReader("a document"), want: errInjected},
		{name: "link", fail: "link", body: strings.NewReader("a document"), want: errInjected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := Dir(dir)
			l := logFS(t, s, tc.fail)
			id := uuid.New()
			if err := s.Save(context.Background(), acctadmin.Document{ID: id}, tc.body); !errors.Is(err, tc.want) {
				t.Fatalf("Save = %v, want %v", err, tc.want)
			}
			if docs, others := savedFiles(t, dir); len(docs) != 0 || len(others) != 0 {
				t.Fatalf("left %d documents, %v", len(docs), others)
			}
			if calls := l.log(); slices.ContainsFunc(calls, func(c string) bool { return strings.HasPrefix(c, "syncdir") }) {
				t.Fatalf("calls %q go on past the failure", calls)
			}
			if has, _ := s.Has(context.Background(), id); has {
				t.Fatal("Has reports a document whose save failed")
			}
		})
	}
}

// Dir's Save writes the document under a temporary name, syncs that
// file, closes it, links it to its readable name, removes the temporary
// name, syncs the folder, records the id and syncs the folder of the
// records, in this order: once Save returns, a power cut loses neither the
// file's bytes nor its name, and the record never survives a file that
// did not.
func TestDirSyncsTheFileBeforeTheLinkAndTheFolderAfter(t *testing.T) {
	dir := t.TempDir()
	s := Dir(dir)
	ctx := context.Background()
	if _, err := s.Has(ctx, uuid.New()); err != nil { // the folders made
		t.Fatal(err)
	}
	l := logFS(t, s, "")
	d := acmeReport()
	if err := s.Save(ctx, d, strings.NewReader("a document")); err != nil {
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
	final := filepath.Join(dir, "2026-05-30 Acme Widgets LLC - Annual Report - "+d.ID.String()+".pdf")
	saved := filepath.Join(dir, ".mailroom", "saved")
	want := []string{
		"create " + dir, "write " + tmp, "sync " + tmp, "close " + tmp,
		"link " + tmp + " " + final, "remove " + tmp, "syncdir " + dir,
		"mark " + filepath.Join(saved, d.ID.String()), "syncdir " + saved,
	}
	if !slices.Equal(calls, want) {
		t.Fatalf("Save did\n\t%s\nwant\n\t%s", strings.Join(calls, "\n\t"), strings.Join(want, "\n\t"))
	}
	if b, err := os.ReadFile(final); err != nil || string(b) != "a document" {
		t.Fatalf("saved %q, %v", b, err)
	}
}

// acmeReport is a document with every field a name is made of.
func acmeReport() acctadmin.Document {
	return acctadmin.Document{
		ID: uuid.New(), CreatedAt: time.Date(2026, 5, 30, 14, 0, 0, 0, time.UTC),
		CompanyName: "Acme Widgets LLC", Type: "Annual Report", Title: "Annual Report",
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

func TestFileName(t *testing.T) {
	id := uuid.MustParse("1f0c2a4e-7d5b-4c3a-9e8f-0123456789ab")
	day := time.Date(2026, 5, 30, 9, 30, 0, 0, time.UTC)
	long := strings.Repeat("é", 100) // 200 bytes
	for _, c := range []struct {
		name string
		d    acctadmin.Document
		want string
	}{
		{"every field", acctadmin.Document{CreatedAt: day, CompanyName: "Acme Widgets LLC", Type: "Annual Report", Title: "Annual report"},
			"2026-05-30 Acme Widgets LLC - Annual Report - " + id.String() + ".pdf"},
		{"a title that says more", acctadmin.Document{CreatedAt: day, CompanyName: "Acme Widgets LLC", Type: "Regular Mail", Title: "Notice of Levy"},
			"2026-05-30 Acme Widgets LLC - Regular Mail - Notice of Levy - " + id.String() + ".pdf"},
		{"no field", acctadmin.Document{}, id.String() + ".pdf"},
		{"a date alone", acctadmin.Document{CreatedAt: day}, "2026-05-30 - " + id.String() + ".pdf"},
		{"no company", acctadmin.Document{CreatedAt: day, Type: "Regular Mail"}, "2026-05-30 Regular Mail - " + id.String() + ".pdf"},
		{"separators", acctadmin.Document{CompanyName: "A/B\\C Corp", Type: `Notice: "Final"? <1|2*>`},
			"A_B_C Corp - Notice_ _Final__ _1_2__ - " + id.String() + ".pdf"},
		{"control characters and spaces", acctadmin.Document{CompanyName: "Acme\x00\x1b Widgets\n\tLLC  ", Type: "\u200bRegular\u202e Mail\x7f"},
			"Acme Widgets LLC - Regular Mail - " + id.String() + ".pdf"},
		{"leading and trailing dots", acctadmin.Document{CompanyName: "..hidden.", Type: " . "}, "hidden - " + id.String() + ".pdf"},
		{"a path", acctadmin.Document{CompanyName: "../../etc/passwd"}, "_.._etc_passwd - " + id.String() + ".pdf"},
		{"unicode", acctadmin.Document{CompanyName: "Société Générale 日本", Type: "Avis – reçu"},
			"Société Générale 日本 - Avis – reçu - " + id.String() + ".pdf"},
		{"invalid UTF-8", acctadmin.Document{CompanyName: "Ac\xffme\xc3"}, "Acme - " + id.String() + ".pdf"},
		{"very long", acctadmin.Document{CompanyName: long, Type: strings.Repeat("x", 100)},
			strings.Repeat("é", 30) + " - " + strings.Repeat("x", 60) + " - " + id.String() + ".pdf"},
		{"cut inside a rune", acctadmin.Document{CompanyName: "a" + long, Type: "日本" + strings.Repeat("語", 30)},
			"a" + strings.Repeat("é", 29) + " - 日本" + strings.Repeat("語", 18) + " - " + id.String() + ".pdf"},
	} {
		c.d.ID = id
		if got := FileName(c.d); got != c.want {
			t.Errorf("%s: FileName = %q, want %q", c.name, got, c.want)
		}
	}
}

// Every name FileName makes is one safe file name that ends with the id,
// whatever the document says, and Dir saves the document under it.
func TestFileNameIsSafeForAnyDocument(t *testing.T) {
	dir := t.TempDir()
	s := Dir(dir)
	rapid.Check(t, func(t *rapid.T) {
		d := acctadmin.Document{
			ID:          uuid.UUID(rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "id")),
			CompanyName: rapid.OneOf(rapid.String(), rapid.StringOfN(rapid.RuneFrom([]rune("éü日本🙂 ./")), 20, 100, -1)).Draw(t, "company"),
			Type:        rapid.OneOf(rapid.String(), rapid.StringMatching(`[./\\ \x00-\x1f]{0,80}`)).Draw(t, "type"),
			Title:       rapid.StringN(0, 300, -1).Draw(t, "title"),
		}
		if rapid.Bool().Draw(t, "dated") {
			d.CreatedAt = time.Unix(rapid.Int64Range(0, 4e9).Draw(t, "date"), 0).UTC()
		}
		name := FileName(d)
		checkFileName(t, name, d.ID, 240)
		err := s.Save(context.Background(), d, strings.NewReader("x"))
		if err != nil && !errors.Is(err, ErrAlreadySaved) {
			t.Fatalf("Save under %q: %v", name, err)
		}
		if err == nil {
			if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != "x" {
				t.Fatalf("file %q: %q, %v", name, b, err)
			}
		}
		if has, err := s.Has(context.Background(), d.ID); err != nil || !has {
			t.Fatalf("Has after Save = %v, %v", has, err)
		}
	})
}

// checkFileName fails t unless name is one safe file name of at most max
// bytes that ends with id.
func checkFileName(t interface{ Fatalf(string, ...any) }, name string, id uuid.UUID, max int) {
	if got, ok := fileID(name); !ok || got != id {
		t.Fatalf("name %q does not end with the id %s", name, id)
	}
	switch {
	case len(name) > max:
		t.Fatalf("name %q is %d bytes long, over %d", name, len(name), max)
	case !utf8.ValidString(name):
		t.Fatalf("name %q is not UTF-8", name)
	case strings.HasPrefix(name, ".") || strings.HasPrefix(name, " "):
		t.Fatalf("name %q starts with a dot or a space", name)
	case strings.ContainsAny(name, `/\<>:"|?*`):
		t.Fatalf("name %q holds a separator", name)
	case strings.IndexFunc(name, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) >= 0:
		t.Fatalf("name %q holds a control character", name)
	case strings.Contains(name, "  "):
		t.Fatalf("name %q holds a run of spaces", name)
	}
	for _, part := range strings.Split(strings.TrimSuffix(name, id.String()+".pdf"), " - ") {
		if len(part) > maxPart+len("2026-05-30 ") {
			t.Fatalf("name %q has a part of %d bytes", name, len(part))
		}
	}
}

func TestDirWithNames(t *testing.T) {
	dir := t.TempDir()
	id := uuid.MustParse("1f0c2a4e-7d5b-4c3a-9e8f-0123456789ab")
	for _, c := range []struct{ name, want string }{
		{"Case 42/filing", "Case 42_filing - " + id.String() + ".pdf"},
		{"", id.String() + ".pdf"},
		{"..", id.String() + ".pdf"},
		{"scan.pdf", "scan - " + id.String() + ".pdf"},
		{"filed as " + id.String(), "filed as " + id.String() + ".pdf"},
		{strings.Repeat("ü", 100), strings.Repeat("ü", 75) + " - " + id.String() + ".pdf"},
	} {
		s := Dir(filepath.Join(dir, strconv.Itoa(len(c.name))+c.name[:min(len(c.name), 3)]),
			WithNames(func(d acctadmin.Document) string { return c.name }))
		if err := s.Save(context.Background(), acctadmin.Document{ID: id}, strings.NewReader("x")); err != nil {
			t.Fatal(err)
		}
		folder := s.(*dirStore).path
		docs, others := savedFiles(t, folder)
		if len(docs) != 1 || len(others) != 0 {
			t.Fatalf("name %q: %d documents, others %v", c.name, len(docs), others)
		}
		if _, err := os.Stat(filepath.Join(folder, c.want)); err != nil {
			t.Errorf("name %q: want the file %q: %v", c.name, c.want, err)
		}
	}
}

// A folder written before readable names (<id>.pdf) is saved as it is:
// Has finds its files, and Save refuses them, whatever their new name.
func TestDirRecognisesTheFilesOfOldFolders(t *testing.T) {
	dir := t.TempDir()
	old := acmeReport()
	if err := os.WriteFile(filepath.Join(dir, old.ID.String()+".pdf"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Dir(dir)
	ctx := context.Background()
	if has, err := s.Has(ctx, old.ID); err != nil || !has {
		t.Fatalf("Has of an old file = %v, %v", has, err)
	}
	if err := s.Save(ctx, old, strings.NewReader("new")); !errors.Is(err, ErrAlreadySaved) {
		t.Fatalf("Save of an old file = %v, want ErrAlreadySaved", err)
	}
	// A file put there by an older program while this store runs.
	late := uuid.New()
	if err := os.WriteFile(filepath.Join(dir, late.String()+".pdf"), []byte("late"), 0o644); err != nil {
		t.Fatal(err)
	}
	if has, err := s.Has(ctx, late); err != nil || !has {
		t.Fatalf("Has of a file of an older program = %v, %v", has, err)
	}
	docs, others := savedFiles(t, dir)
	if len(docs) != 2 || string(docs[old.ID]) != "old" || len(others) != 0 {
		t.Fatalf("folder: %d documents (%q), others %v", len(docs), docs[old.ID], others)
	}
}

// A Save stopped after the link and before the record (a crash there,
// simulated by the record failing) leaves one file; the next Save of the
// document completes the record and refuses it, and a store started
// afterwards (another process) finds it saved without a Save, even when
// the document's name has changed since.
func TestDirCompletesTheRecordAfterACrash(t *testing.T) {
	ctx := context.Background()
	for _, crash := range []string{"mark", "syncdir"} {
		dir := t.TempDir()
		s := Dir(dir)
		if _, err := s.Has(ctx, uuid.New()); err != nil {
			t.Fatal(err)
		}
		l := logFS(t, s, "")
		d := acmeReport()
		l.fail = crash
		if err := s.Save(ctx, d, strings.NewReader("first")); !errors.Is(err, errInjected) {
			t.Fatalf("%s failing: Save = %v, want the injected failure", crash, err)
		}
		l.fail = ""
		if crash == "mark" {
			if has, _ := s.Has(ctx, d.ID); has {
				t.Fatalf("%s failing: Has true without the record", crash)
			}
		}
		err := s.Save(ctx, d, strings.NewReader("second"))
		if !errors.Is(err, ErrAlreadySaved) {
			t.Fatalf("%s failing: the next Save = %v, want ErrAlreadySaved", crash, err)
		}
		if has, err := s.Has(ctx, d.ID); err != nil || !has {
			t.Fatalf("%s failing: Has after the next Save = %v, %v", crash, has, err)
		}
		docs, others := savedFiles(t, dir)
		if len(docs) != 1 || string(docs[d.ID]) != "first" || len(others) != 0 {
			t.Fatalf("%s failing: %d documents (%q), others %v", crash, len(docs), docs[d.ID], others)
		}
	}

	// The other process: it finds the file, records it, and refuses the
	// document under its new name.
	dir := t.TempDir()
	s := Dir(dir)
	logFS(t, s, "mark")
	d := acmeReport()
	if err := s.Save(ctx, d, strings.NewReader("first")); !errors.Is(err, errInjected) {
		t.Fatalf("Save = %v, want the injected failure", err)
	}
	next := Dir(dir)
	if has, err := next.Has(ctx, d.ID); err != nil || !has {
		t.Fatalf("Has of a store started after the crash = %v, %v", has, err)
	}
	d.CompanyName = "Acme Widgets Inc"
	if err := next.Save(ctx, d, strings.NewReader("second")); !errors.Is(err, ErrAlreadySaved) {
		t.Fatalf("Save under a new name = %v, want ErrAlreadySaved", err)
	}
	if docs, others := savedFiles(t, dir); len(docs) != 1 || string(docs[d.ID]) != "first" || len(others) != 0 {
		t.Fatalf("%d documents (%q), others %v", len(docs), docs[d.ID], others)
	}
	if _, err := os.Stat(filepath.Join(dir, ".mailroom", "saved", d.ID.String())); err != nil {
		t.Fatalf("no record: %v", err)
	}
}

// Two stores on one folder (two processes) saving the same documents at
// once: each document is saved by exactly one Save, into one file, and
// both stores then have it.
func TestDirSharedByTwoStores(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	stores := [2]Store{Dir(dir), Dir(dir)}
	var docs []acctadmin.Document
	for i := range 20 {
		d := acmeReport()
		d.Title = "Notice " + strconv.Itoa(i)
		docs = append(docs, d)
	}
	for _, d := range docs {
		var errs [2]error
		var wg sync.WaitGroup
		for i, s := range stores {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.Save(ctx, d, strings.NewReader(d.Title+" from "+strconv.Itoa(i)))
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, ErrAlreadySaved):
				t.Fatalf("Save = %v", err)
			}
		}
		if won != 1 {
			t.Fatalf("%s saved by %d stores: %v", d.ID, won, errs)
		}
		for i, s := range stores {
			if has, err := s.Has(ctx, d.ID); err != nil || !has {
				t.Fatalf("store %d: Has = %v, %v", i, has, err)
			}
		}
	}
	saved, others := savedFiles(t, dir)
	if len(saved) != len(docs) || len(others) != 0 {
		t.Fatalf("%d documents for %d, others %v", len(saved), len(docs), others)
	}
	for _, d := range docs {
		if b := string(saved[d.ID]); b != d.Title+" from 0" && b != d.Title+" from 1" {
			t.Fatalf("%s holds %q", d.ID, b)
		}
	}
}
