// Command compliance-calendar prints the compliance due dates of the next
// days (90 unless -days says otherwise) as a table, in the order the API
// lists them (by due date on the fake), each row as soon as its page
// arrives. Ctrl-C stops it.
//
// Usage:
//
//	compliance-calendar [-days 90]
//
// With no ACCTADMIN_ACCESS_KEY set it reads the due dates of the built-in
// fake API's demo account, so it runs anywhere with no setup:
//
//	go run ./examples/compliance-calendar
//	go run ./examples/compliance-calendar -days 365
//
// With ACCTADMIN_ACCESS_KEY and ACCTADMIN_SECRET_KEY set (and
// ACCTADMIN_BASE_URL, optionally) it reads that account's due dates. It
// only reads.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "compliance-calendar:", err)
		}
		os.Exit(1)
	}
}

// run prints the due dates from today as the command line args say.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("compliance-calendar", flag.ContinueOnError)
	fs.SetOutput(out)
	days := fs.Int("days", 90, "how many days ahead to look, from today")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if *days < 0 {
		return fmt.Errorf("-days must not be negative, got %d", *days)
	}

	c, done, err := newClient(out)
	if err != nil {
		return err
	}
	defer done()

	today := acctadmin.DateOf(time.Now())
	params := &acctadmin.ComplianceEventListParams{StartDate: today, EndDate: today.AddDays(*days)}
	title := fmt.Sprintf("Due dates from %s to %s\n\n", params.StartDate, params.EndDate)

	// Rows are printed as the pages arrive, each as soon as it is read, in
	// the order the API lists the events, in columns of fixed width (a
	// longer value pushes the rest of its row along). The title and the
	// header come with the first row, so an error before any row prints
	// the error alone.
	const row = "%-10s  %-28s  %-28s  %-13s  %s\n"
	n := 0
	companies := map[string]bool{}
	for e, err := range c.ComplianceEvents.All(ctx, params) {
		if err != nil {
			return fmt.Errorf("compliance events: %w", err)
		}
		if n == 0 {
			fmt.Fprint(out, title)
			fmt.Fprintf(out, row, "DUE", "COMPANY", "FILING", "STATUS", "JURISDICTIONS")
		}
		fmt.Fprintf(out, row, e.DueDate, e.Company, e.Filing, e.Status, strings.Join(e.Jurisdictions, ", "))
		n++
		companies[e.Company] = true
	}
	if n == 0 {
		fmt.Fprint(out, title)
		fmt.Fprintln(out, "Nothing is due.")
		return nil
	}
	fmt.Fprintf(out, "\n%d due date(s) for %d company(ies)\n", n, len(companies))
	return nil
}

// newClient returns a client for the account in the environment, or, when
// ACCTADMIN_ACCESS_KEY is not set, for the built-in fake API with its demo
// account; done releases what it started.
func newClient(out io.Writer) (c *acctadmin.Client, done func(), err error) {
	if os.Getenv(acctadmin.EnvAccessKey) != "" {
		c, err = acctadmin.NewClientFromEnv()
		return c, func() {}, err
	}
	fake := acctadmintest.NewServer(acctadmintest.WithDemoData())
	fmt.Fprintf(out, "No %s set: reading the demo account of the built-in fake API\n", acctadmin.EnvAccessKey)
	c, err = acctadmin.NewClient(fake.AccessKey, fake.SecretKey, acctadmin.WithBaseURL(fake.URL))
	if err != nil {
		fake.Close()
		return nil, nil, err
	}
	return c, fake.Close, nil
}
