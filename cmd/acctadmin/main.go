// Command acctadmin is the command line of the Account Administration API:
// services, mail and documents, compliance due dates, companies, invoices,
// callbacks, resources and any other route, from a shell. It is built on
// the SDK (github.com/acctadmin/acctadmin-go) alone: every request is the
// SDK's, signed and retried as the SDK does.
//
// Install it from a clone of the repository:
//
//	cd cmd/acctadmin && go install .
//
// It reads the keys from a profile that acctadmin auth login stored in the
// user's config folder (--profile NAME, else ACCTADMIN_PROFILE, else
// default), from ACCTADMIN_ACCESS_KEY and ACCTADMIN_SECRET_KEY, or from
// --access-key and --secret-key, and the API's address likewise from the
// profile, ACCTADMIN_BASE_URL or --base-url (the production API when none
// says). Flags beat the environment, which beats the profile.
//
// # Output
//
// Listings print an aligned table, read every page (--limit N stops after
// N records), and print money exactly as the API wrote it, with at least
// two decimals (200.10), and dates as YYYY-MM-DD. --json prints the records
// as one JSON array (a single record as one object) in the API's own field
// names: the record as the API sent it where the SDK keeps it (companies,
// invoices, the account), otherwise the SDK's record, which uses the API's
// names. --jq EXPR implies --json and filters it with gojq; a number the
// API wrote keeps its text (200.10) unless jq computes a new one.
//
// # Exit codes
//
//	0  success
//	1  any other error of the API or of the connection
//	2  invalid input or usage: a bad id, a missing flag, a refused write
//	   without --yes (nothing is sent)
//	3  not found
//	4  the API refused the keys (401 or 403)
//	5  due --fail-if-overdue found a due date that has passed
//	6  mail pull --fail-if-locked left payment-locked documents waiting
//	130  interrupted (Ctrl-C); mail pull prints what it saved first
//
// Every error is one line on standard error that says what failed and what
// to do.
//
// # Writes
//
// Every write takes --dry-run, which prints the request the SDK would send,
// its token and secret fields (card numbers, CVCs, passwords, secret keys,
// tokens) redacted, and sends nothing (reads that a write needs first,
// such as the listing of callbacks ensure, are sent). invoices pay moves
// money and refuses to run without --yes; it then prints what it would pay.
//
// No output of the command, --debug included, shows a key or a token:
// --debug logs the SDK's attempts through its WithLogger, which never
// logs credentials.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(mainExit())
}

// mainExit runs the command line of the process and returns its exit code.
func mainExit() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// The first Ctrl-C stops the command cleanly; a second one, while
		// it finishes, kills it.
		<-ctx.Done()
		stop()
	}()
	return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}
