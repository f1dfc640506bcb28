// Command callpath counts the SDK functions one call runs.
//
// A call's path is measured as two runs of a binary built with count-mode
// coverage of the root package and of the module's internal packages it
// imports (internal/paging): the first makes the call once, the second
// twice, each against a local httptest server. Every function (a function
// literal counts as one) with a block that ran more often in the second
// run is on the path; one-time setup (making the client, the first use of
// a pool) runs as often in both and is left out. The functions are listed
// by file (an internal package's by its path, internal/paging/walk.go),
// and counted twice: the root package alone, and with those packages.
// .ci/callpath drives it:
//
//	.ci/callpath Documents.Get Invoices.Pay Documents.All
//
// The subcommands, as the script uses them:
//
//	callpath drive -call Documents.Get -n 2   make the call n times
//	callpath diff -dir . once.txt twice.txt   list the functions on the path
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/google/uuid"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: callpath drive -call NAME -n N | callpath diff -dir DIR once.txt twice.txt")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "drive":
		err = driveMain(os.Args[2:])
	case "diff":
		err = diffMain(os.Args[2:])
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "callpath:", err)
		os.Exit(1)
	}
}

func driveMain(args []string) error {
	fs := flag.NewFlagSet("drive", flag.ContinueOnError)
	name := fs.String("call", "", "the call: "+strings.Join(callNames(), ", "))
	n := fs.Int("n", 1, "how many times to make it")
	if err := fs.Parse(args); err != nil {
		return err
	}
	call, ok := calls[*name]
	if !ok {
		return fmt.Errorf("unknown call %q (want one of %s)", *name, strings.Join(callNames(), ", "))
	}
	srv := httptest.NewServer(http.HandlerFunc(serve))
	defer srv.Close()
	c, err := acctadmin.NewClient("AK-callpath", "SK-callpath", acctadmin.WithBaseURL(srv.URL))
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()
	for i := 0; i < *n; i++ {
		if err := call(context.Background(), c); err != nil {
			return fmt.Errorf("%s: %w", *name, err)
		}
	}
	fmt.Fprintf(os.Stderr, "%s x%d: %d requests\n", *name, *n, requests.Load())
	return nil
}

func diffMain(args []string) error {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	dir := fs.String("dir", ".", "the root package's directory")
	pkg := fs.String("pkg", "github.com/acctadmin/acctadmin-go", "the root package's import path")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return errors.New("diff wants two profiles: once, then twice")
	}
	path, err := onPath(*dir, *pkg, fs.Arg(0), fs.Arg(1))
	if err != nil {
		return err
	}
	var root []function
	for _, f := range path {
		fmt.Printf("  %-30s %s\n", f.File, f.Name)
		if !strings.Contains(f.File, "/") {
			root = append(root, f)
		}
	}
	fmt.Printf("root package: %s\n", tally(root))
	fmt.Printf("with its internal packages: %s\n", tally(path))
	return nil
}

// tally says how many functions fns holds, in how many files, and how
// many in each file.
func tally(fns []function) string {
	files := map[string]int{}
	for _, f := range fns {
		files[f.File]++
	}
	names := make([]string, 0, len(files))
	for f, n := range files {
		names = append(names, fmt.Sprintf("%s %d", f, n))
	}
	sort.Strings(names)
	return fmt.Sprintf("%d functions in %d files (%s)", len(fns), len(files), strings.Join(names, ", "))
}

// calls are the calls the tool measures, by the name of their method.
var calls = map[string]func(context.Context, *acctadmin.Client) error{
	"Documents.Get": func(ctx context.Context, c *acctadmin.Client) error {
		d, err := c.Documents.Get(ctx, docID(0))
		if err == nil && d.ID != docID(0) {
			err = fmt.Errorf("got document %s", d.ID)
		}
		return err
	},
	"Invoices.Pay": func(ctx context.Context, c *acctadmin.Client) error {
		paid, err := c.Invoices.Pay(ctx, &acctadmin.InvoicePayParams{InvoiceIDs: []uuid.UUID{invoiceID}, PaymentMethodID: cardID})
		if err == nil && (len(paid) != 1 || paid[0].ID != invoiceID) {
			err = fmt.Errorf("got %d invoices", len(paid))
		}
		return err
	},
	// Documents.All over two pages: the server holds three documents, and
	// the walk reads them two at a time.
	"Documents.All": func(ctx context.Context, c *acctadmin.Client) error {
		n := 0
		for d, err := range c.Documents.All(ctx, &acctadmin.DocumentListParams{Limit: 2}) {
			if err != nil {
				return err
			}
			if d.ID != docID(n) {
				return fmt.Errorf("document %d is %s", n, d.ID)
			}
			n++
		}
		if n != len(documents) {
			return fmt.Errorf("walked %d documents, want %d", n, len(documents))
		}
		return nil
	},
}

func callNames() []string {
	names := make([]string, 0, len(calls))
	for n := range calls {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
