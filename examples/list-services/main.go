// Command list-services prints every service of the account as a table,
// reading the listing page after page with ServicesClient.All and printing
// each row as soon as its page arrives. Ctrl-C stops it.
//
// Usage:
//
//	list-services [-company NAME]
//
// With no ACCTADMIN_ACCESS_KEY set it lists the services of the built-in
// fake API's demo account, so it runs anywhere with no setup:
//
//	go run ./examples/list-services
//	go run ./examples/list-services -company "Acme Widgets LLC"
//
// With ACCTADMIN_ACCESS_KEY and ACCTADMIN_SECRET_KEY set (and
// ACCTADMIN_BASE_URL, optionally) it lists the services of that account.
// It only reads.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "list-services:", err)
		}
		os.Exit(1)
	}
}

// run lists the services as the command line args say, writing the table
// to out.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("list-services", flag.ContinueOnError)
	fs.SetOutput(out)
	company := fs.String("company", "", "list only the services of the company of this `name`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}

	c, done, err := newClient(out)
	if err != nil {
		return err
	}
	defer done()

	// Rows are printed as the pages arrive, each as soon as it is read, in
	// columns of fixed width (a longer value pushes the rest of its row
	// along). The header comes with the first row, so an error before any
	// row prints the error alone.
	const row = "%-28s  %-16s  %-21s  %-16s  %s\n"
	n := 0
	for s, err := range c.Services.All(ctx, &acctadmin.ServiceListParams{Company: *company}) {
		if err != nil {
			return fmt.Errorf("list services: %w", err)
		}
		if n == 0 {
			fmt.Fprintf(out, row, "COMPANY", "JURISDICTION", "STATUS", "TYPE", "CREATED")
		}
		fmt.Fprintf(out, row, s.Company, s.Jurisdiction, s.Status, s.Type, s.CreatedAt.Format(time.DateOnly))
		n++
	}
	fmt.Fprintf(out, "%d service(s)\n", n)
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
	fmt.Fprintf(out, "No %s set: listing the demo account of the built-in fake API\n\n", acctadmin.EnvAccessKey)
	c, err = acctadmin.NewClient(fake.AccessKey, fake.SecretKey, acctadmin.WithBaseURL(fake.URL))
	if err != nil {
		fake.Close()
		return nil, nil, err
	}
	return c, fake.Close, nil
}
