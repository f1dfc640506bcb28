package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
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

// onTheFake clears the environment so that run uses the built-in fake.
func onTheFake(t *testing.T) context.Context {
	t.Helper()
	t.Setenv(acctadmin.EnvAccessKey, "")
	t.Setenv(acctadmin.EnvSecretKey, "")
	t.Setenv(acctadmin.EnvBaseURL, "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// rows returns the table rows of run's output: the lines after the header
// and before the count.
func rows(t *testing.T, out string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "COMPANY ") {
			return lines[i+1 : len(lines)-1]
		}
	}
	t.Fatalf("no table header in:\n%s", out)
	return nil
}

func TestListsEveryServiceOfTheDemoAccount(t *testing.T) {
	ctx := onTheFake(t)
	var out bytes.Buffer
	if err := run(ctx, nil, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	got := rows(t, out.String())
	// The demo account has 12 services across 6 companies.
	if len(got) != 12 {
		t.Fatalf("got %d rows, want 12:\n%s", len(got), out.String())
	}
	if !strings.HasSuffix(out.String(), "12 service(s)\n") {
		t.Errorf("output does not end with the count:\n%s", out.String())
	}
	for _, want := range []string{"Acme Widgets LLC", "Foxglove Studio LLC", "awaiting-client-input", "cancel-requested", "registered-agent"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestCompanyFlagFilters(t *testing.T) {
	ctx := onTheFake(t)
	var out bytes.Buffer
	if err := run(ctx, []string{"-company", "Acme Widgets LLC"}, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	got := rows(t, out.String())
	if len(got) != 3 {
		t.Fatalf("got %d rows, want Acme's 3:\n%s", len(got), out.String())
	}
	for _, r := range got {
		if !strings.HasPrefix(r, "Acme Widgets LLC ") {
			t.Errorf("row of another company: %q", r)
		}
	}
}

func TestUnknownCompanyIsAnError(t *testing.T) {
	ctx := onTheFake(t)
	var out bytes.Buffer
	err := run(ctx, []string{"-company", "No Such Company"}, &out)
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("run = %v, want the API's 404", err)
	}
	// An error before any row prints no table header.
	if strings.Contains(out.String(), "COMPANY") {
		t.Fatalf("a table header was printed before the error:\n%s", out.String())
	}
}

// manyServices starts a fake with n services of one company behind a
// proxy that holds the requests hold picks, and points the environment at
// the proxy.
func manyServices(t *testing.T, n int, hold func(*http.Request) bool) (*acctadmintest.Server, *exampletest.Proxy, []string) {
	t.Helper()
	srv := acctadmintest.NewServer()
	t.Cleanup(srv.Close)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})
	start := time.Date(2026, time.March, 2, 9, 0, 0, 0, time.UTC)
	for i := range n {
		srv.AddService(acctadmintest.ServiceInput{CompanyID: co.ID, Jurisdiction: "Utah", CreatedAt: start.Add(time.Duration(i) * time.Minute)})
	}
	proxy := exampletest.NewProxy(t, srv.URL, hold)
	env := exampletest.UseAccount(t, srv.AccessKey, srv.SecretKey, proxy.URL)
	return srv, proxy, env
}

// secondPage picks the request for the second page of services.
func secondPage(r *http.Request) bool {
	return r.URL.Path == "/services" && r.URL.Query().Get("offset") == "100"
}

// The first rows are printed while the second page is still on its way.
func TestRowsArePrintedAsPagesArrive(t *testing.T) {
	_, proxy, _ := manyServices(t, 150, secondPage)
	text := exampletest.CheckStreams(t, proxy, func(ctx context.Context, out io.Writer) error { return run(ctx, nil, out) }, "Acme Widgets LLC")
	if got := len(rows(t, text)); got != 150 {
		t.Fatalf("%d rows, want 150:\n%s", got, text)
	}
	if strings.Count(text, "COMPANY") != 1 || strings.Index(text, "COMPANY") > strings.Index(text, "Acme Widgets LLC") {
		t.Fatalf("want one header, before the first row:\n%s", text)
	}
}

// A first page refused by the API prints the error alone, with no header.
func TestRefusedFirstPagePrintsNoHeader(t *testing.T) {
	srv, _, _ := manyServices(t, 150, func(*http.Request) bool { return false })
	srv.InjectFault(acctadmintest.Fault{Method: http.MethodGet, Path: "/services", Status: http.StatusNotFound, Count: 1})
	var out bytes.Buffer
	err := run(context.Background(), nil, &out)
	if err == nil || !strings.Contains(err.Error(), "404") || strings.Contains(out.String(), "COMPANY") {
		t.Fatalf("first page refused: run = %v, output:\n%s", err, out.String())
	}
}

// Cancelling the context (what Ctrl-C does, through signal.NotifyContext)
// stops the listing at once, even while a page is on its way.
func TestCancelStopsTheListing(t *testing.T) {
	_, proxy, _ := manyServices(t, 150, secondPage)
	out := exampletest.CheckCancel(t, proxy, func(ctx context.Context, out io.Writer) error { return run(ctx, nil, out) })
	if strings.Contains(out, "service(s)") {
		t.Fatalf("a cancelled listing printed its count:\n%s", out)
	}
}
