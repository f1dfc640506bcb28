package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"go.uber.org/goleak"
)

// TestMain checks that the program leaves no goroutine behind.
func TestMain(m *testing.M) {
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
}

func TestBadArguments(t *testing.T) {
	ctx := onTheFake(t)
	for _, args := range [][]string{{"-nope"}, {"extra"}} {
		if err := run(ctx, args, &bytes.Buffer{}); err == nil {
			t.Errorf("run(%q) = nil, want an error", args)
		}
	}
}
