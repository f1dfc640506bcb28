package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
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

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestTableInListingOrder(t *testing.T) {
	srv := acctadmintest.NewServer()
	t.Cleanup(srv.Close)
	t.Setenv(acctadmin.EnvAccessKey, srv.AccessKey)
	t.Setenv(acctadmin.EnvSecretKey, srv.SecretKey)
	t.Setenv(acctadmin.EnvBaseURL, srv.URL)

	today := acctadmin.DateOf(time.Now())
	zebra := srv.AddCompany(acctadmintest.CompanyInput{Name: "Zebra Labs LLC", HomeState: "Texas"})
	acme := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})
	for _, e := range []struct {
		company acctadmintest.Company
		days    int
		filing  string
		js      []string
	}{
		{zebra, 10, "Franchise Tax Report", nil},
		{acme, 45, "Annual Report", []string{"Utah"}},
		{acme, 0, "Beneficial Ownership Update", []string{"Utah", "Idaho"}},
		{zebra, 90, "Annual Report", nil},
		{acme, 91, "Annual Report", []string{"Idaho"}}, // one day too late
		{acme, -1, "Annual Report", []string{"Idaho"}}, // yesterday
	} {
		srv.AddComplianceEvent(acctadmintest.ComplianceEventInput{
			CompanyID:     e.company.ID,
			Filing:        e.filing,
			DueDate:       today.AddDays(e.days).In(time.UTC),
			Jurisdictions: e.js,
		})
	}

	var out bytes.Buffer
	if err := run(testContext(t), nil, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	d := func(n int) string { return today.AddDays(n).String() }
	want := "Due dates from " + d(0) + " to " + d(90) + "\n" +
		"\n" +
		"DUE         COMPANY                       FILING                        STATUS         JURISDICTIONS\n" +
		d(0) + "  Acme Widgets LLC              Beneficial Ownership Update   active         Utah, Idaho\n" +
		d(10) + "  Zebra Labs LLC                Franchise Tax Report          active         Texas\n" +
		d(45) + "  Acme Widgets LLC              Annual Report                 active         Utah\n" +
		d(90) + "  Zebra Labs LLC                Annual Report                 active         Texas\n" +
		"\n" +
		"4 due date(s) for 2 company(ies)\n"
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}

	out.Reset()
	if err := run(testContext(t), []string{"-days", "9"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "1 due date(s) for 1 company(ies)\n") {
		t.Errorf("-days 9:\n%s", out.String())
	}
}

func TestNothingDue(t *testing.T) {
	srv := acctadmintest.NewServer()
	t.Cleanup(srv.Close)
	t.Setenv(acctadmin.EnvAccessKey, srv.AccessKey)
	t.Setenv(acctadmin.EnvSecretKey, srv.SecretKey)
	t.Setenv(acctadmin.EnvBaseURL, srv.URL)
	var out bytes.Buffer
	if err := run(testContext(t), []string{"-days", "0"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "\n\nNothing is due.\n") {
		t.Errorf("got:\n%s", out.String())
	}
}

func TestDemoAccountWithNoSetup(t *testing.T) {
	t.Setenv(acctadmin.EnvAccessKey, "")
	t.Setenv(acctadmin.EnvSecretKey, "")
	t.Setenv(acctadmin.EnvBaseURL, "")
	count := func(args ...string) (int, string) {
		t.Helper()
		var out bytes.Buffer
		if err := run(testContext(t), args, &out); err != nil {
			t.Fatalf("run(%q): %v\n%s", args, err, out.String())
		}
		m := regexp.MustCompile(`(?m)^(\d+) due date\(s\) for \d+ company\(ies\)$`).FindStringSubmatch(out.String())
		if m == nil {
			t.Fatalf("no summary in:\n%s", out.String())
		}
		n, _ := strconv.Atoi(m[1])
		return n, out.String()
	}
	quarter, out := count()
	year, _ := count("-days", "365")
	if quarter == 0 || year <= quarter {
		t.Errorf("%d due in 90 days, %d in 365: want some, and more in a year", quarter, year)
	}
	today := acctadmin.DateOf(time.Now())
	for _, date := range regexp.MustCompile(`\d{4}-\d\d-\d\d`).FindAllString(out, -1) {
		d, err := acctadmin.ParseDate(date)
		if err != nil || d.Before(today) || d.After(today.AddDays(90)) {
			t.Errorf("date %s outside the next 90 days", date)
		}
	}
}

func TestBadArguments(t *testing.T) {
	for _, args := range [][]string{{"-days", "-1"}, {"-days", "x"}, {"extra"}} {
		if err := run(testContext(t), args, &bytes.Buffer{}); err == nil {
			t.Errorf("run(%q) = nil, want an error", args)
		}
	}
}

// manyEvents starts a fake with n events due in the next days behind a
// proxy that holds the requests hold picks, and points the environment at
// the proxy.
func manyEvents(t *testing.T, n int, hold func(*http.Request) bool) (*acctadmintest.Server, *exampletest.Proxy, []string) {
	t.Helper()
	srv := acctadmintest.NewServer()
	t.Cleanup(srv.Close)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})
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

// secondPage picks the request for the second page of events.
func secondPage(r *http.Request) bool {
	return r.URL.Path == "/compliance-events" && r.URL.Query().Get("offset") == "100"
}

// The first rows are printed while the second page is still on its way.
func TestRowsArePrintedAsPagesArrive(t *testing.T) {
	_, proxy, _ := manyEvents(t, 150, secondPage)
	text := exampletest.CheckStreams(t, proxy, func(ctx context.Context, out io.Writer) error { return run(ctx, nil, out) }, "Annual Report")
	if got := strings.Count(text, "Annual Report"); got != 150 {
		t.Fatalf("%d rows, want 150:\n%s", got, text)
	}
	if strings.Count(text, "COMPANY") != 1 || strings.Index(text, "COMPANY") > strings.Index(text, "Annual Report") {
		t.Fatalf("want one header, before the first row:\n%s", text)
	}
	if !strings.HasSuffix(text, "\n150 due date(s) for 1 company(ies)\n") {
		t.Fatalf("no summary:\n%s", text)
	}
}

// A refused listing prints the error alone: no title, no header.
func TestRefusedListingPrintsNoHeader(t *testing.T) {
	srv, _, _ := manyEvents(t, 3, func(*http.Request) bool { return false })
	srv.InjectFault(acctadmintest.Fault{Method: http.MethodGet, Path: "/compliance-events", Status: http.StatusForbidden, Count: 1})
	var out bytes.Buffer
	err := run(testContext(t), nil, &out)
	if err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("run = %v, want the API's 403", err)
	}
	if strings.Contains(out.String(), "COMPANY") || strings.Contains(out.String(), "Due dates") {
		t.Fatalf("a header was printed before the error:\n%s", out.String())
	}
}

// Cancelling the context (what Ctrl-C does, through signal.NotifyContext)
// stops the listing at once, even while a page is on its way.
func TestCancelStopsTheListing(t *testing.T) {
	_, proxy, _ := manyEvents(t, 150, secondPage)
	out := exampletest.CheckCancel(t, proxy, func(ctx context.Context, out io.Writer) error { return run(ctx, nil, out) })
	if strings.Contains(out, "due date(s)") {
		t.Fatalf("a cancelled listing printed its summary:\n%s", out)
	}
}
