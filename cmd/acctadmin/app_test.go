package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/spf13/cobra"
)

// TestEveryCommandHasAnExample walks the command tree: every command's
// --help shows an example.
func TestEveryCommandHasAnExample(t *testing.T) {
	a := &app{ctx: context.Background()}
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		n++
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s has no example", c.CommandPath())
		}
		if strings.TrimSpace(c.Short) == "" {
			t.Errorf("%s has no short help", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(a.rootCommand())
	if n < 30 {
		t.Errorf("walked %d commands, want the whole tree (30 or more)", n)
	}
}

// TestEveryWriteHasDryRun: every command that may send a write takes
// --dry-run.
func TestEveryWriteHasDryRun(t *testing.T) {
	a := &app{ctx: context.Background()}
	root := a.rootCommand()
	writes := []string{
		"services create", "services cancel-request", "companies create", "companies update",
		"invoices pay", "documents unlock", "callbacks create", "callbacks delete", "callbacks ensure", "api", "trigger",
	}
	for _, w := range writes {
		c, _, err := root.Find(strings.Fields(w))
		if err != nil || c.CommandPath() != "acctadmin "+w {
			t.Fatalf("no command %q: %v", w, err)
		}
		if c.Flags().Lookup("dry-run") == nil {
			t.Errorf("%s has no --dry-run", w)
		}
	}
}

// TestDescribe maps each kind of error to its exit code, with one line
// that says what to do.
func TestDescribe(t *testing.T) {
	apiErr := func(status int) error {
		return &acctadmin.APIError{StatusCode: status, Method: "GET", Path: "/x", Message: http.StatusText(status)}
	}
	cases := []struct {
		err  error
		code int
		want string
	}{
		{usageErrorf("bad flag"), 2, "bad flag"},
		{&acctadmin.ValidationError{Field: "limit", Reason: "too big"}, 2, "nothing was sent"},
		{apiErr(404), 3, "check the id"},
		{withHint(apiErr(404), "list them"), 3, "list them"},
		{apiErr(401), 4, "check the keys: ACCTADMIN_ACCESS_KEY"},
		{apiErr(403), 4, "check the keys: ACCTADMIN_ACCESS_KEY"},
		{apiErr(500), 1, "try again later"},
		{apiErr(429), 1, "wait a minute"},
		{apiErr(400), 1, "400"},
		{&acctadmin.TransportError{Method: "GET", Path: "/x", Attempts: 1, Err: errors.New("refused")}, 1, "check the API's address (--base-url or ACCTADMIN_BASE_URL)"},
		{fmt.Errorf("wrapped: %w", context.Canceled), 130, "interrupted"},
		{exitError{5, "overdue"}, 5, "overdue"},
	}
	for _, c := range cases {
		code, msg := describe(c.err)
		if code != c.code || !strings.Contains(msg, c.want) {
			t.Errorf("describe(%v) = %d %q, want %d and %q", c.err, code, msg, c.code, c.want)
		}
	}
}

// TestRunInterrupted: a run whose context ends (Ctrl-C) exits 130 with a
// summary, here a mail pull that cannot start its first request.
func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	t.Setenv(acctadmin.EnvAccessKey, "access")
	t.Setenv(acctadmin.EnvSecretKey, "secret")
	t.Setenv(acctadmin.EnvBaseURL, "http://127.0.0.1:1")
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"mail", "pull", t.TempDir()}, nil, &stdout, &stderr)
	if code != 130 {
		t.Fatalf("exit %d, want 130; stderr %q", code, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "interrupted: 0 document(s) saved into ") {
		t.Errorf("stdout %q, want the summary", stdout.String())
	}
	if !strings.Contains(stderr.String(), "run `acctadmin mail pull") || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("stderr %q, want one line that says to run again", stderr.String())
	}
}

// TestDryRunTransportRedactsTheToken: the request printed has no token.
func TestDryRunTransportRedactsTheToken(t *testing.T) {
	var out bytes.Buffer
	tr := &dryRunTransport{out: &out}
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/invoices/pay", strings.NewReader(`{"a":1}`))
	req.Header.Set("Authorization", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig")
	req.Header.Set("Content-Type", "application/json")
	if _, err := tr.RoundTrip(req); !errors.Is(err, errDryRun) {
		t.Fatalf("RoundTrip: %v, want errDryRun", err)
	}
	want := "POST http://127.0.0.1:1/invoices/pay\nAuthorization: Bearer [redacted]\nContent-Type: application/json\n\n{\"a\":1}\n"
	if out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

// commandMention is "acctadmin" and the words after it, in a hint or a
// help text.
var commandMention = regexp.MustCompile("(`|^\\s*|\\$ |<\\()acctadmin((?: [a-z][a-z0-9-]*)*)")

// checkMention reports what is wrong with words after "acctadmin": the
// words that name commands must lead to a command, and a command that has
// subcommands must not be followed by a word that is none of them. strict
// wants the first word to be a command (a hint, an example); otherwise a
// mention whose first word is no command is prose ("acctadmin reads...").
func checkMention(root *cobra.Command, words []string, strict bool) string {
	c := root
	for i, w := range words {
		var next *cobra.Command
		for _, sub := range c.Commands() {
			if sub.Name() == w || sub.HasAlias(w) {
				next = sub
			}
		}
		if next == nil {
			if !c.HasSubCommands() || (i == 0 && !strict) {
				return ""
			}
			return fmt.Sprintf("%q is not a command of %q", w, c.CommandPath())
		}
		c = next
	}
	if strict && c == root {
		return "names no command"
	}
	return ""
}

// TestMentionsNameRealCommands: every acctadmin command that a help text,
// an example or a hint of the source names exists, down to its last word
// (no `acctadmin companies add` where the command is create).
func TestMentionsNameRealCommands(t *testing.T) {
	a := &app{ctx: context.Background()}
	root := a.rootCommand()
	check := func(where, text string, strict bool) int {
		n := 0
		for _, line := range strings.Split(text, "\n") {
			for _, m := range commandMention.FindAllStringSubmatch(line, -1) {
				words := strings.Fields(m[2])
				if len(words) == 0 {
					continue
				}
				n++
				if msg := checkMention(root, words, strict || m[1] == "`"); msg != "" {
					t.Errorf("%s: %q: %s", where, strings.TrimSpace(m[0]), msg)
				}
			}
		}
		return n
	}
	var walk func(c *cobra.Command)
	mentions := 0
	walk = func(c *cobra.Command) {
		mentions += check(c.CommandPath()+" --help", c.Short+"\n"+c.Long, false)
		mentions += check(c.CommandPath()+" example", c.Example, true)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
			}
			mentions += check(fset.Position(lit.Pos()).String(), s, false)
			return true
		})
	}
	if mentions < 50 {
		t.Errorf("checked %d mentions, want every one of the tree and the source (50 or more)", mentions)
	}
	for _, bad := range [][]string{{"companies", "add"}, {"unlock", "ID"}, {"invoices", "refund", "ID"}} {
		if checkMention(root, bad, true) == "" {
			t.Errorf("acctadmin %s: taken for a command", strings.Join(bad, " "))
		}
	}
}

// TestDescribeHintsFitTheError: a command's hint is said of what it is
// for (a record not found), never of a connection error, refused keys or
// a failing API, which have their own; advice is said of any error but
// refused keys.
func TestDescribeHintsFitTheError(t *testing.T) {
	conn := &acctadmin.TransportError{Method: "GET", Path: "/services", Attempts: 1, Err: errors.New("connection refused")}
	api := func(status int, path string) error {
		return &acctadmin.APIError{StatusCode: status, Method: "POST", Path: path, Message: http.StatusText(status)}
	}
	cases := []struct {
		err       error
		code      int
		want, not string
	}{
		{withHint(conn, "list the companies with `acctadmin companies list`"), 1, "check the API's address (--base-url or ACCTADMIN_BASE_URL) and the network", "companies list"},
		{withHint(api(404, "/services"), "list the companies with `acctadmin companies list`"), 3, "; list the companies with `acctadmin companies list`", "network"},
		{withHint(api(500, "/services"), "list the companies"), 1, "; the API is failing: try again later", "list the companies"},
		{withHint(api(401, "/services"), "list the companies"), 4, "; check the keys: ", "list the companies"},
		{api(401, "/auth/login"), 4, "; the e-mail or the password was refused: check the login", "ACCESS_KEY"},
		{withAdvice(conn, "run the same command again"), 1, "; run the same command again", "network"},
		{withAdvice(api(401, "/documents"), "run the same command again"), 4, "check the keys", "same command"},
	}
	for _, c := range cases {
		code, msg := describe(c.err)
		if code != c.code || !strings.HasSuffix(msg, c.want) && !strings.Contains(msg, c.want) || strings.Contains(msg, c.not) {
			t.Errorf("describe(%v) = %d %q, want %d, %q and not %q", c.err, code, msg, c.code, c.want, c.not)
		}
	}
}

// TestVersionStamped builds the command as .goreleaser.yaml does, with the
// version stamped by -ldflags -X main.version, and runs --version: it says
// the stamped version, not the SDK's.
func TestVersionStamped(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command to build with: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "acctadmin")
	build := exec.Command(goTool, "build", "-ldflags", "-X main.version=9.8.7-stamp", "-o", bin, ".")
	build.Env = os.Environ()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("acctadmin --version: %v", err)
	}
	if got, want := string(out), "acctadmin version 9.8.7-stamp\n"; got != want {
		t.Errorf("acctadmin --version printed %q, want %q", got, want)
	}
}
