package acctadmin_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/mailroom"
)

// TestREADMESnippets keeps the README's code honest: every Go snippet in
// README.md must appear, line for line (indentation aside), in one of the
// files that the tests compile and run (the example files and programs).
func TestREADMESnippets(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, pattern := range []string{"example*_test.go", "readme_test.go", "../../webhook/example*_test.go", "../../examples/*/*.go"} {
		more, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, more...)
	}
	var corpus [][]string
	for _, name := range sources {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		corpus = append(corpus, codeLines(string(b)))
	}

	snippets := goSnippets(string(readme))
	if len(snippets) == 0 {
		t.Fatal("README.md has no Go snippet")
	}
	for _, s := range snippets {
		lines := codeLines(s.text)
		found := false
		for _, src := range corpus {
			if containsRun(src, lines) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("README.md:%d: this snippet appears in none of %v:\n%s", s.line, sources, s.text)
		}
	}
}

type snippet struct {
	line int // where its code starts in README.md
	text string
}

// goSnippets returns the fenced ```go blocks of a Markdown text.
func goSnippets(md string) []snippet {
	var out []snippet
	var cur *snippet
	var b strings.Builder
	sc := bufio.NewScanner(strings.NewReader(md))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur = &snippet{line: n + 1}
			b.Reset()
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.text = b.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return out
}

// codeLines returns the non-blank lines of src with surrounding space
// trimmed.
func codeLines(src string) []string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// containsRun reports whether want appears in src as consecutive lines.
func containsRun(src, want []string) bool {
	if len(want) == 0 {
		return true
	}
	for i := 0; i+len(want) <= len(src); i++ {
		match := true
		for j, w := range want {
			if src[i+j] != w {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// TestREADMECommands checks the shell commands the README gives: each
// "go test" line of its first sh block is run by .ci/run as written, none
// of them needs the race detector (which needs cgo and a C compiler), and
// .ci/run keeps a race-detector run of its own.
func TestREADMECommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "```sh\n")
	if !ok {
		t.Fatal("README.md has no sh block")
	}
	block, _, _ = strings.Cut(block, "```")
	ciLines := codeLines(string(ci))
	var tests []string
	for _, line := range codeLines(block) {
		cmd, _, _ := strings.Cut(line, "#")
		cmd = strings.TrimSpace(cmd)
		if !strings.HasPrefix(cmd, "go test") {
			continue
		}
		tests = append(tests, cmd)
		if strings.Contains(cmd, "-race") {
			t.Errorf("README.md's test command %q needs cgo and a C compiler", cmd)
		}
		if !slices.Contains(ciLines, cmd) {
			t.Errorf(".ci/run does not run the README's test command %q", cmd)
		}
	}
	if len(tests) != 1 || tests[0] != "go test github.com/acctadmin/acctadmin-go/..." {
		t.Errorf("README.md's test commands = %q, want [go test github.com/acctadmin/acctadmin-go/...]", tests)
	}
	if !slices.Contains(ciLines, "go test -race github.com/acctadmin/acctadmin-go/...") {
		t.Error(".ci/run no longer runs the tests with the race detector")
	}
}

// TestLicense checks that the module carries the MIT license and that the
// README names it.
func TestLicense(t *testing.T) {
	license, err := os.ReadFile("../../LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"MIT License", "Copyright (c) 2026 The acctadmin-go authors", "THE SOFTWARE IS PROVIDED \"AS IS\""} {
		if !strings.Contains(string(license), want) {
			t.Errorf("LICENSE lacks %q", want)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "MIT: see [LICENSE](LICENSE)") {
		t.Error("README.md does not name the license")
	}
}

// readmeMailDirEnv names the folder into which the test binary, started
// again by TestREADMEMailSurvivesAKill, runs the mail code named by
// readmeMailCodeEnv instead of the tests.
const (
	readmeMailDirEnv  = "ACCTADMIN_TEST_README_MAIL_DIR"
	readmeMailCodeEnv = "ACCTADMIN_TEST_README_MAIL_CODE"
)

// mailCode are the ways the docs show to pull the mail as files, by name:
// the README's and docs/mail.md's loop of your own.
var mailCode = map[string]func(ctx context.Context, c *acctadmin.Client, dir string){
	"README.md":    readmeMail,
	"docs/mail.md": guideMail,
}

// TestMain runs the tests, or, in a process that TestREADMEMailSurvivesAKill
// started, one of the docs' mail code alone.
func TestMain(m *testing.M) {
	if dir := os.Getenv(readmeMailDirEnv); dir != "" {
		c, err := acctadmin.NewClientFromEnv()
		if err != nil {
			log.Fatal(err)
		}
		mailCode[os.Getenv(readmeMailCodeEnv)](context.Background(), c, dir)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// readmeMail is the README's code for pulling the mail as files, as
// written there ("2. Pull the mail as files"); TestREADMESnippets checks
// that it still is.
func readmeMail(ctx context.Context, c *acctadmin.Client, dir string) {
	room, err := mailroom.New(c, nil, mailroom.Dir(dir)) // nil: no callbacks, it only pulls
	if err != nil {
		log.Fatal(err)
	}
	if err := room.Pull(ctx); err != nil { // killed midway? run it again: nothing lost, nothing twice
		log.Fatal(err)
	}
}

// guideMail is docs/mail.md's loop of All and Download ("One goroutine"),
// as written there; TestREADMEMailSurvivesAKill checks that it still is.
func guideMail(ctx context.Context, c *acctadmin.Client, dir string) {
	store := mailroom.Dir(dir)          // written whole or not at all
	journal := store.(mailroom.Journal) // Dir keeps a journal in the folder
	save := func(d acctadmin.Document) error {
		if _, err := journal.Begin(ctx, d.ID); err != nil { // before the download marks it read
			return err
		}
		f, err := c.Documents.Download(ctx, d.ID)
		if err != nil {
			return err // the record stays: the next run fetches it again
		}
		defer f.Close()
		err = store.Save(ctx, d, f) // temporary name, fsync, then the final name
		if err != nil && !errors.Is(err, mailroom.ErrAlreadySaved) {
			return err
		}
		return journal.End(ctx, d.ID)
	}
	left, err := journal.Pending(ctx) // downloaded by a run that died, maybe not saved
	if err != nil {
		log.Fatal(err)
	}
	for _, id := range left {
		d, err := c.Documents.Get(ctx, id)
		switch {
		case errors.Is(err, acctadmin.ErrNotFound):
			err = journal.End(ctx, id) // gone from the API: nothing to save
		case err == nil:
			err = save(*d)
		}
		if err != nil {
			log.Fatal(err)
		}
	}
	for d, err := range c.Documents.All(ctx, nil) {
		if err == nil {
			err = save(d)
		}
		if err != nil {
			log.Fatal(err)
		}
	}
}

// TestREADMEMailSurvivesAKill runs the docs' mail code (the README's, and
// docs/mail.md's loop of your own) in a process of its own, kills it
// (SIGKILL) while the API holds the answer to the third download (the
// document is marked read by then), runs it again, and checks that every
// document is saved, each in one file.
func TestREADMEMailSurvivesAKill(t *testing.T) {
	guide, err := os.ReadFile("../../docs/mail.md")
	if err != nil {
		t.Fatal(err)
	}
	_, loop, _ := strings.Cut(string(guide), "## One goroutine")
	self, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if snippets := goSnippets(loop); len(snippets) == 0 || !containsRun(codeLines(string(self)), codeLines(snippets[0].text)) {
		t.Fatal("docs/mail.md's loop (One goroutine) is not guideMail's code")
	}
	for name := range mailCode {
		t.Run(name, func(t *testing.T) { killAndRerun(t, name) })
	}
}

// killAndRerun is TestREADMEMailSurvivesAKill for the mail code named name.
func killAndRerun(t *testing.T, name string) {
	f := acctadmintest.NewFake()
	t.Cleanup(f.Close)
	acme := f.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})
	var ids []uuid.UUID
	for i := range 6 {
		d := f.AddDocument(acctadmintest.DocumentInput{
			CompanyID: acme.ID,
			Title:     fmt.Sprintf("Notice %d", i+1),
			CreatedAt: start.Add(time.Duration(i) * time.Minute),
		})
		ids = append(ids, d.ID)
	}

	// The third download is applied (its document marked read) and its
	// answer held until the client goes away.
	held := make(chan uuid.UUID, 1)
	unblock := make(chan struct{})
	var downloads atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/download") && downloads.Add(1) == 3 {
			f.ServeHTTP(httptest.NewRecorder(), r)
			id, _ := uuid.Parse(path.Base(path.Dir(r.URL.Path))) // /documents/<id>/download
			held <- id
			select {
			case <-r.Context().Done():
			case <-unblock:
			}
			return
		}
		f.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(unblock) }) // before srv.Close, which waits for the held answer

	dir := t.TempDir()
	run := func(ctx context.Context) *exec.Cmd {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(),
			readmeMailDirEnv+"="+dir,
			readmeMailCodeEnv+"="+name,
			acctadmin.EnvAccessKey+"="+f.AccessKey,
			acctadmin.EnvSecretKey+"="+f.SecretKey,
			acctadmin.EnvBaseURL+"="+srv.URL)
		return cmd
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first := run(ctx)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	var heldID uuid.UUID
	select {
	case heldID = <-held:
	case <-ctx.Done():
		_ = first.Process.Kill()
		_ = first.Wait()
		t.Fatal("the third download never came")
	}
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	if d, _ := f.Document(heldID); d.Status != acctadmintest.DocumentRead {
		t.Fatalf("the document whose download was cut is %s, want read", d.Status)
	}

	if out, err := run(ctx).CombinedOutput(); err != nil {
		t.Fatalf("second run: %v\n%s", err, out)
	}

	store := mailroom.Dir(dir)
	saved := 0
	for _, id := range ids {
		has, err := store.Has(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if has {
			saved++
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if saved != len(ids) || len(files) != len(ids) {
		t.Errorf("after a kill and a second run: %d of %d documents saved, in %d files; want all, one file each", saved, len(ids), len(files))
	}
}
