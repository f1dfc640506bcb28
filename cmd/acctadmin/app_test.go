package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
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
		"invoices pay", "callbacks create", "callbacks delete", "callbacks ensure", "api", "trigger",
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
		{apiErr(401), 4, "check ACCTADMIN_ACCESS_KEY"},
		{apiErr(403), 4, "check ACCTADMIN_ACCESS_KEY"},
		{apiErr(500), 1, "try again later"},
		{apiErr(429), 1, "wait a minute"},
		{apiErr(400), 1, "400"},
		{&acctadmin.TransportError{Method: "GET", Path: "/x", Attempts: 1, Err: errors.New("refused")}, 1, "check ACCTADMIN_BASE_URL"},
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
