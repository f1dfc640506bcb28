package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/internal/exampletest"
	"go.uber.org/goleak"
)

// TestMain checks that the program leaves no goroutine behind. Started by
// a test as the program itself, it runs main instead.
func TestMain(m *testing.M) {
	exampletest.RunMainIfChild(main)
	goleak.VerifyTestMain(m)
}

func TestTourOnTheFake(t *testing.T) {
	t.Setenv(acctadmin.EnvAccessKey, "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		`touring the built-in fake API at http://127\.0\.0\.1:\d+`,
		`1\. Services \(first 5\):`,
		`2\. Compliance due dates, \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d:`,
		`\d+ due in all`,
		`3\. Mail: [1-9]\d* unread documents`,
		`downloaded ".+" \(\d+ pages, [1-9]\d* bytes\)`,
		`4\. Callback registered: http://127\.0\.0\.1:\d+/callbacks`,
		`verified event "new-document": document [0-9a-f-]{36} of .+`,
	} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("output lacks %s:\n%s", want, out.String())
		}
	}
}

// The tour downloads a document into a temporary folder and removes it:
// run in a fresh TMPDIR, it leaves that folder empty.
func TestTourLeavesNoTemporaryFolder(t *testing.T) {
	t.Setenv(acctadmin.EnvAccessKey, "")
	tmp := filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "downloaded ") || !strings.Contains(out.String(), tmp) {
		t.Fatalf("no download into %s reported:\n%s", tmp, out.String())
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Fatalf("the tour left %d entries in TMPDIR, first %s", len(left), left[0].Name())
	}
}

// account starts a fake with n compliance events behind a proxy that holds
// the requests hold picks, and points the environment at the proxy, as a
// user with keys would.
func account(t *testing.T, n int, hold func(*http.Request) bool) (*acctadmintest.Server, *exampletest.Proxy, []string) {
	t.Helper()
	srv := acctadmintest.NewServer()
	t.Cleanup(srv.Close)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})
	srv.AddService(acctadmintest.ServiceInput{CompanyID: co.ID, Jurisdiction: "Utah"})
	today := acctadmin.DateOf(time.Now())
	for i := range n {
		srv.AddComplianceEvent(acctadmintest.ComplianceEventInput{
			CompanyID: co.ID, Filing: "Annual Report", DueDate: today.AddDays(i % 60).In(time.UTC),
		})
	}
	proxy := exampletest.NewProxy(t, srv.URL, hold)
	env := exampletest.UseAccount(t, srv.AccessKey, srv.SecretKey, proxy.URL)
	return srv, proxy, env
}

// The due dates are printed as their pages arrive.
func TestDueDatesArePrintedAsPagesArrive(t *testing.T) {
	_, proxy, _ := account(t, 150, func(r *http.Request) bool {
		return r.URL.Path == "/compliance-events" && r.URL.Query().Get("offset") == "100"
	})
	text := exampletest.CheckStreams(t, proxy, run, "Annual Report")
	if !strings.Contains(text, "150 due in all") {
		t.Fatalf("no count:\n%s", text)
	}
}

// A refused listing of due dates prints the error alone, without the
// section's heading.
func TestRefusedDueDatesPrintNoHeading(t *testing.T) {
	srv, _, _ := account(t, 3, func(*http.Request) bool { return false })
	srv.InjectFault(acctadmintest.Fault{Method: http.MethodGet, Path: "/compliance-events", Status: http.StatusForbidden, Count: 1})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	err := run(ctx, &out)
	if err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("run = %v, want the API's 403", err)
	}
	if strings.Contains(out.String(), "2. Compliance") {
		t.Fatalf("the heading was printed before the error:\n%s", out.String())
	}
}
