// Command acctadmin-fake serves the in-memory fake of the Account
// Administration API (package acctadmintest) on a local address, for
// trying a client by hand or testing programs that are not written in Go.
//
// Usage:
//
//	acctadmin-fake [-addr 127.0.0.1:8089] [-access-key KEY] [-secret-key KEY] [-seed] [-no-quirks] [-latency 0s]
//
// On startup it prints the base URL and the keys as environment
// assignments (ACCTADMIN_BASE_URL, ACCTADMIN_ACCESS_KEY,
// ACCTADMIN_SECRET_KEY) that the SDK's NewClientFromEnv reads. Keys not
// given are random. -seed fills the account with the demo data of
// acctadmintest.SeedDemo. It serves until SIGINT or SIGTERM, then shuts
// down gracefully.
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
	"syscall"
	"time"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
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
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}

	opts := []acctadmintest.Option{
		acctadmintest.WithKeys(*accessKey, *secretKey),
		acctadmintest.WithLatency(*latency),
	}
	if *seed {
		opts = append(opts, acctadmintest.WithDemoData())
	}
	if *noQuirks {
		opts = append(opts, acctadmintest.WithoutQuirks())
	}
	fake := acctadmintest.NewFake(opts...)
	defer fake.Close()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           fake,
		ConnState:         fake.ConnState,
		ReadHeaderTimeout: 10 * time.Second,
	}
	fmt.Fprintf(stdout, "acctadmin-fake listening on http://%s\n", ln.Addr())
	fmt.Fprintf(stdout, "ACCTADMIN_BASE_URL=http://%s\n", ln.Addr())
	fmt.Fprintf(stdout, "ACCTADMIN_ACCESS_KEY=%s\n", fake.AccessKey)
	fmt.Fprintf(stdout, "ACCTADMIN_SECRET_KEY=%s\n", fake.SecretKey)

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
	fmt.Fprintln(stdout, "acctadmin-fake stopped")
	return err
}
