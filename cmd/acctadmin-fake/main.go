// Command acctadmin-fake serves the in-memory fake of the Account
// Administration API (package acctadmintest) on a local address, for
// trying a client by hand or testing programs that are not written in Go.
//
// Usage:
//
//	acctadmin-fake [-addr 127.0.0.1:8089] [-access-key KEY] [-secret-key KEY] [-seed] [-no-quirks]
//	               [-latency 0s] [-no-control] [-read-timeout 30s] [-write-timeout 2m] [-idle-timeout 2m]
//	               [-log-limit 10000] [-survive-parent] [-strict-signing[=body|query]] [-query-in-path-claim] [-clock 2025-01-31T09:00:00Z]
//	               [-check-answers] [-rate-limit N] [-env] [-parent-pid PID]
//
// On startup it prints the base URL and the keys as environment
// assignments (ACCTADMIN_BASE_URL, ACCTADMIN_ACCESS_KEY,
// ACCTADMIN_SECRET_KEY) that the SDK's NewClientFromEnv reads; with -env
// as export lines, and its other lines as comments ("# "), for a shell.
// Keys not given are random. -seed fills the account with the demo data
// of acctadmintest.SeedDemo. It serves until SIGINT or SIGTERM, or until
// the process that started it exits (unless -survive-parent is given),
// then shuts down gracefully and prints "acctadmin-fake stopped". Stopping
// `go run ./cmd/acctadmin-fake` with SIGTERM therefore stops the server
// too, although go run does not pass the signal on: the server sees its
// parent gone within a quarter of a second. A harness killed with SIGKILL
// leaves go run's go command running, the server's parent: so when its
// parent is the go command, the server watches the go command's parent
// too (on Unix) and stops when that one exits. -parent-pid adds a process
// to watch: a harness whose process tree is deeper passes its own pid.
// The first line of the banner names the server's pid, "(pid N)", for a
// harness that stops it by pid.
//
// With -check-answers every answer is checked against the OpenAPI document
// (acctadmintest.OpenAPI, served at /_fake/openapi.yaml) and each mismatch
// is printed on a line that starts with "contract:".
//
// With -rate-limit N it allows N requests a second to the API's routes,
// as a real API limits an account: past that budget (a bucket of N
// requests refilled at N a second) it answers 429 with a Retry-After in
// whole seconds (acctadmintest.WithRateLimit). The control surface is not
// counted.
//
// With -addr 127.0.0.1:0 the system picks a free port. A harness reads
// the real address from the banner: the line that starts with
// "ACCTADMIN_BASE_URL=" holds the base URL (http://127.0.0.1:PORT), and it
// is printed only once the server accepts connections. The banner is
// written to standard output, one line each, unbuffered.
//
// The server is a test double for clients in any language: it accepts
// requests exactly as the provider's own example clients send them
// (jurisdictions as names or two-letter abbreviations, {} bodies signed
// as empty content). Request tokens are accepted in the three forms
// clients of the real API sign them (acctadmintest's "Signing forms");
// -strict-signing=query accepts the documented form alone (the hash of the
// raw query followed by the body), -strict-signing=body the body-only
// form, and a bare -strict-signing the form the SDK signs
// (acctadmintest.DefaultStrictSigning); with -query-in-path-claim the C#
// client's form is accepted too. Unless -no-control is given it also serves the
// control surface of acctadmintest.WithControl under /_fake/ on the same
// address, for loopback clients only and without a token: seed records
// (POST /_fake/companies, /_fake/services, /_fake/documents,
// /_fake/invoices; a document or an invoice sends its event to the
// registered callbacks), read the request log (GET /_fake/requests) and
// the event deliveries (GET /_fake/deliveries), inject and clear faults
// (POST and DELETE /_fake/faults) and reset (POST /_fake/reset). For
// example, with -seed:
//
//	curl -s -X POST localhost:8089/_fake/documents -d '{"company":"Acme Widgets LLC","title":"Annual report"}'
//
// The server bounds the time to read a request (-read-timeout, headers
// within 10s), to write an answer (-write-timeout; a download or an
// injected latency longer than that is cut off) and to keep an idle
// connection (-idle-timeout), so that a slow or silent client cannot hold
// a connection for ever. Its request, write and delivery logs keep the
// last -log-limit entries each (see acctadmintest.WithLogLimit), so that
// a long run's memory follows its data, not its traffic.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/internal/parentwatch"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "acctadmin-fake:", err)
		}
		os.Exit(2)
	}
}

// signingFlag is the value of -strict-signing: "query", "body", or, given
// bare ("true"), the SDK's form; "false" or unset accepts every form.
type signingFlag struct{ form acctadmintest.SigningForm }

func (s *signingFlag) String() string {
	if s == nil || s.form == 0 {
		return ""
	}
	return s.form.String()
}

func (s *signingFlag) Set(v string) error {
	switch v {
	case "query":
		s.form = acctadmintest.SignQueryAndBody
	case "body":
		s.form = acctadmintest.SignBodyOnly
	case "true":
		s.form = acctadmintest.DefaultStrictSigning
	case "false":
		s.form = 0
	default:
		return errors.New("must be query or body")
	}
	return nil
}

// IsBoolFlag lets -strict-signing be given bare.
func (s *signingFlag) IsBoolFlag() bool { return true }

// shutdownGrace bounds how long requests in progress may take to finish
// once the server is told to stop.
const shutdownGrace = 5 * time.Second

// run serves the fake as the command line args say until ctx is done.
// It writes the startup banner to stdout.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("acctadmin-fake", flag.ContinueOnError)
	fs.SetOutput(stdout)
	addr := fs.String("addr", "127.0.0.1:8089", "address to listen on")
	accessKey := fs.String("access-key", "", "access key requests must carry (random when empty)")
	secretKey := fs.String("secret-key", "", "secret key that signs requests and events (random when empty)")
	seed := fs.Bool("seed", false, "fill the account with demo data")
	noQuirks := fs.Bool("no-quirks", false, "answer without the real API's wire inconsistencies")
	latency := fs.Duration("latency", 0, "delay added to every request")
	noControl := fs.Bool("no-control", false, "do not serve the control surface under /_fake/")
	readTimeout := fs.Duration("read-timeout", 30*time.Second, "longest time to read a request, body included")
	writeTimeout := fs.Duration("write-timeout", 2*time.Minute, "longest time to handle a request and write its answer")
	idleTimeout := fs.Duration("idle-timeout", 2*time.Minute, "longest time a connection may wait idle for its next request")
	logLimit := fs.Int("log-limit", 10000, "entries each of the request, write and delivery logs keeps (0: all)")
	checkAnswers := fs.Bool("check-answers", false, "check every answer against the OpenAPI document and print each mismatch")
	clock := fs.String("clock", "", "start the fake's clock at this RFC 3339 time (it runs on from there)")
	var strictSigning signingFlag
	fs.Var(&strictSigning, "strict-signing", "accept request tokens in one form alone: query (the hash of the raw query and the body), body (the hash of the body), or, bare, the SDK's form")
	queryInPath := fs.Bool("query-in-path-claim", false, "with -strict-signing, also accept tokens whose path claim carries the query, as the C# example client signs")
	rateLimit := fs.Int("rate-limit", 0, "requests a second the API's routes allow, answering 429 past them (0: no limit)")
	surviveParent := fs.Bool("survive-parent", false, "keep serving when the process that started the server exits")
	env := fs.Bool("env", false, "print the settings as export lines, and the other lines as comments")
	parentPID := fs.Int("parent-pid", 0, "also stop when the process of this pid exits (a harness passes its own)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if *readTimeout <= 0 || *writeTimeout <= 0 || *idleTimeout <= 0 {
		return errors.New("-read-timeout, -write-timeout and -idle-timeout must be positive")
	}

	if *logLimit < 0 {
		return errors.New("-log-limit must not be negative")
	}
	if *rateLimit < 0 {
		return errors.New("-rate-limit must not be negative")
	}
	if !*surviveParent {
		var cancel context.CancelFunc
		ctx, cancel = parentwatch.Context(ctx)
		defer cancel()
	}
	if *parentPID < 0 {
		return errors.New("-parent-pid must not be negative")
	}
	if *parentPID > 0 {
		var cancel context.CancelFunc
		ctx, cancel = parentwatch.Process(ctx, *parentPID)
		defer cancel()
	}
	opts := []acctadmintest.Option{
		acctadmintest.WithKeys(*accessKey, *secretKey),
		acctadmintest.WithLatency(*latency),
		acctadmintest.WithLogLimit(*logLimit),
		acctadmintest.WithRateLimit(*rateLimit),
	}
	if *seed {
		opts = append(opts, acctadmintest.WithDemoData())
	}
	if *noQuirks {
		opts = append(opts, acctadmintest.WithoutQuirks())
	}
	if !*noControl {
		opts = append(opts, acctadmintest.WithControl())
	}
	if strictSigning.form != 0 {
		opts = append(opts, acctadmintest.WithStrictSigning(strictSigning.form))
	}
	if *queryInPath {
		opts = append(opts, acctadmintest.WithQueryInPathClaim())
	}
	if *checkAnswers {
		var mu sync.Mutex
		opts = append(opts, acctadmintest.WithContractChecks(func(err error) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintln(stdout, "contract:", err)
		}))
	}
	var start time.Time
	if *clock != "" {
		t, err := time.Parse(time.RFC3339, *clock)
		if err != nil {
			return fmt.Errorf("-clock must be an RFC 3339 time like 2025-01-31T09:00:00Z: %w", err)
		}
		start = t
	}
	fake := acctadmintest.NewFake(opts...)
	defer fake.Close()
	if !start.IsZero() {
		fake.SetClock(start)
		if *seed {
			// The demo's times are relative to the clock: seed again at
			// the clock's start.
			fake.Reset()
			fake.SeedDemo()
		}
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           fake,
		ConnState:         fake.ConnState,
		ReadHeaderTimeout: min(10*time.Second, *readTimeout),
		ReadTimeout:       *readTimeout,
		WriteTimeout:      *writeTimeout,
		IdleTimeout:       *idleTimeout,
	}
	// With -env every line is one a shell takes as it is: the settings
	// as export lines, the rest as comments.
	comment, assign := "", ""
	if *env {
		comment, assign = "# ", "export "
	}
	fmt.Fprintf(stdout, "%sacctadmin-fake listening on http://%s (pid %d)\n", comment, ln.Addr(), os.Getpid())
	if !*noControl {
		fmt.Fprintf(stdout, "%scontrol surface (loopback clients only) on http://%s%s\n", comment, ln.Addr(), acctadmintest.ControlPrefix)
	}
	fmt.Fprintf(stdout, "%sACCTADMIN_BASE_URL=http://%s\n", assign, ln.Addr())
	fmt.Fprintf(stdout, "%sACCTADMIN_ACCESS_KEY=%s\n", assign, fake.AccessKey)
	fmt.Fprintf(stdout, "%sACCTADMIN_SECRET_KEY=%s\n", assign, fake.SecretKey)

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err = srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = srv.Close()
	}
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	fmt.Fprintln(stdout, comment+"acctadmin-fake stopped")
	return err
}
