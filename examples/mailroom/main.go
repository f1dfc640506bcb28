// Command mailroom saves every document of the account (its mail) into a
// folder, exactly once, the moment it arrives, under a name a person can
// read that ends with the document's id ("2026-05-30 Acme Widgets LLC -
// Annual Report - <id>.pdf"): it receives the API's new-document
// callbacks, downloads and saves each document before it answers, and
// pulls every minute whatever the callbacks missed. Several of it can share one folder and one Redis behind a load
// balancer, and any of them can be killed at any moment.
//
// Usage:
//
//	mailroom [-dir ./mail] [-addr 127.0.0.1:8091] [-callback-url URL] [-redis redis://HOST:PORT/DB]
//	         [-pull-interval 1m] [-claim-ttl 30s] [-workers 4]
//
// It is package mailroom as a program: mailroom.Dir(-dir) is the store,
// the room's handler serves /callbacks on -addr, and Run registers
// -callback-url (the public address at which the API reaches /callbacks,
// through a load balancer for a fleet) exactly once, then pulls every
// -pull-interval. With -redis the room shares its claims with every room
// on that Redis; without it, run one room per folder. It prints the
// address it listens on ("listening on http://...", useful with -addr
// 127.0.0.1:0), a line per saved document, an alert line for a
// "Delivered Service of Process" or "High Priority" document, a line per
// new invoice (its event comes to the same /callbacks: one URL serves
// every event), and its totals when it stops.
//
// SIGINT or SIGTERM stops it gracefully: it stops taking callbacks,
// lets the downloads in progress finish and save (for at most 30
// seconds), and returns. A kill at any other moment loses nothing: the
// next start (or another room) fetches again what was downloaded and not
// saved.
//
// It reads the account's keys from ACCTADMIN_ACCESS_KEY and
// ACCTADMIN_SECRET_KEY (and ACCTADMIN_BASE_URL, optionally). With no keys
// set it runs a round trip on the built-in fake API, so that it runs
// anywhere with no setup: it starts the fake, receives three documents by
// callback into a new temporary folder (unless -dir is given), then an
// invoice's event at the same URL, prints them, and exits.
//
//	go run ./examples/mailroom
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/mailroom"
	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/redis/go-redis/v9"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "mailroom:", err)
		}
		os.Exit(1)
	}
}

// The server's bounds: a callback is a small POST, and its answer waits
// for the document's download and save, which the room bounds itself.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 15 * time.Second
	idleTimeout       = 60 * time.Second
	// shutdownGrace bounds the wait for downloads in progress at a stop.
	shutdownGrace = 30 * time.Second
	// redisCheck bounds the check that Redis answers at start.
	redisCheck = 5 * time.Second
	// demoWait bounds the round trip on the fake.
	demoWait = 30 * time.Second
)

// options are the command line's.
type options struct {
	dir, addr, callbackURL, redisURL string
	interval, ttl                    time.Duration
	workers                          int
	dirGiven                         bool
}

func parse(args []string, out io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("mailroom", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&o.dir, "dir", "./mail", "`folder` to save the documents in")
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8091", "`address` to take callbacks on, at /callbacks")
	fs.StringVar(&o.callbackURL, "callback-url", "", "public `URL` of /callbacks to register with the API (none: pull only)")
	fs.StringVar(&o.redisURL, "redis", "", "share claims with every room on the Redis at `URL` (redis://host:port/db)")
	fs.DurationVar(&o.interval, "pull-interval", mailroom.DefaultPullInterval, "time between two pulls of what callbacks missed")
	fs.DurationVar(&o.ttl, "claim-ttl", mailroom.DefaultClaimTTL, "how soon the claims of a room that died are taken over")
	fs.IntVar(&o.workers, "workers", mailroom.DefaultWorkers, "documents a pull downloads at once, 1 to 32")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	fs.Visit(func(f *flag.Flag) { o.dirGiven = o.dirGiven || f.Name == "dir" })
	return o, nil
}

// run runs the room as the command line args say, logging to out.
func run(ctx context.Context, args []string, out io.Writer) error {
	o, err := parse(args, out)
	if err != nil {
		return err
	}
	// The log and the program's own lines come from several goroutines.
	out = &lockedWriter{w: out}
	log := slog.New(slog.NewTextHandler(out, nil))
	if os.Getenv(acctadmin.EnvAccessKey) == "" && os.Getenv(acctadmin.EnvSecretKey) == "" {
		return demo(ctx, log, out, o)
	}
	c, err := acctadmin.NewClientFromEnv()
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()
	v, err := webhook.NewVerifier([]byte(os.Getenv(acctadmin.EnvSecretKey)), webhook.WithAccessKey(os.Getenv(acctadmin.EnvAccessKey)))
	if err != nil {
		return err
	}
	return serve(ctx, log, out, c, v, o)
}

// serve runs the room on c until ctx is done.
func serve(ctx context.Context, log *slog.Logger, out io.Writer, c *acctadmin.Client, v *webhook.Verifier, o options) error {
	opts := []mailroom.Option{
		mailroom.WithLogger(log),
		mailroom.WithPullInterval(o.interval),
		mailroom.WithClaimTTL(o.ttl),
		mailroom.WithWorkers(o.workers),
		mailroom.WithOnSaved(func(_ context.Context, d acctadmin.Document) {
			if d.Type == "Delivered Service of Process" || d.Type == "High Priority" {
				log.Warn("ALERT: urgent mail saved", "document", d.ID, "type", d.Type, "company", d.CompanyName)
			}
			log.Info("saved", "document", d.ID)
		}),
		// One callback URL serves every event: the room saves the new
		// documents and hands the others on.
		mailroom.WithEvents(func(_ context.Context, ev *webhook.Event) error {
			if ev.Name == webhook.EventNewInvoice {
				log.Info("new invoice", "invoice", ev.InvoiceID, "company", ev.CompanyName)
			}
			return nil // an error answers 500, so that the API delivers again
		}),
	}
	if o.callbackURL != "" {
		opts = append(opts, mailroom.WithCallbackURL(o.callbackURL))
	}
	if o.redisURL != "" {
		rdb, err := dialRedis(ctx, o.redisURL)
		if err != nil {
			return err
		}
		defer rdb.Close()
		opts = append(opts, mailroom.WithRedis(rdb))
	}
	room, err := mailroom.New(c, v, mailroom.Dir(o.dir), opts...)
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("POST /callbacks", room.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout, IdleTimeout: idleTimeout}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(out, "listening on http://%s\n", ln.Addr())

	runCtx, stopRun := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- room.Run(runCtx) }()

	select {
	case err = <-served:
	case <-ctx.Done():
	}
	// Stop taking callbacks and let those in progress save their
	// documents; then stop the pulls.
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if serr := srv.Shutdown(sctx); serr != nil && err == nil {
		err = serr
	}
	stopRun()
	<-ran
	st := room.Stats()
	fmt.Fprintf(out, "stopped: saved=%d downloads=%d redownloads=%d kept_out=%d\n", st.Saved, st.Downloads, st.Redownloads, st.KeptOut)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// dialRedis connects to the Redis at rawURL and checks that it answers.
func dialRedis(ctx context.Context, rawURL string) (*redis.Client, error) {
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		// The URL may carry a password: do not repeat it.
		return nil, errors.New("-redis: not a redis:// URL")
	}
	rdb := redis.NewClient(opts)
	pctx, cancel := context.WithTimeout(ctx, redisCheck)
	defer cancel()
	if err := rdb.Ping(pctx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("-redis: Redis at %s does not answer: %w", opts.Addr, err)
	}
	return rdb, nil
}

// demo runs the room on the built-in fake API until three documents sent
// by callback are saved.
func demo(ctx context.Context, log *slog.Logger, out io.Writer, o options) error {
	fake := acctadmintest.NewServer()
	defer fake.Close()
	fmt.Fprintf(out, "No %s set: saving the mail of the built-in fake API\n", acctadmin.EnvAccessKey)
	if !o.dirGiven {
		dir, err := os.MkdirTemp("", "mailroom-")
		if err != nil {
			return err
		}
		o.dir = dir
	}
	c, err := acctadmin.NewClient(fake.AccessKey, fake.SecretKey, acctadmin.WithBaseURL(fake.URL))
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()
	v, err := webhook.NewVerifier([]byte(fake.SecretKey), webhook.WithAccessKey(fake.AccessKey))
	if err != nil {
		return err
	}
	// The room registers its own address: listen first to learn it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	o.addr = ln.Addr().String()
	ln.Close()
	o.callbackURL = "http://" + o.addr + "/callbacks"

	ctx, cancel := context.WithTimeout(ctx, demoWait)
	var wg sync.WaitGroup
	wg.Add(1)
	var serveErr error
	go func() {
		defer wg.Done()
		serveErr = serve(ctx, log, out, c, v, o)
	}()
	defer func() {
		cancel()
		wg.Wait()
	}()

	// Once the callback is registered, mail arrives.
	for len(fake.Callbacks()) == 0 {
		select {
		case <-ctx.Done():
			return fmt.Errorf("the callback was not registered: %w", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	co := fake.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})
	// Each file's name ends with its document's id.
	var want []string
	for _, typ := range []string{"Regular Mail", "Delivered Service of Process", "Annual Report"} {
		d := fake.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, Type: typ, Title: typ})
		want = append(want, d.ID.String()+".pdf")
	}
	for _, name := range want {
		for {
			if matches, _ := filepath.Glob(filepath.Join(o.dir, "*"+name)); len(matches) == 1 {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s was not saved: %w", name, ctx.Err())
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	fmt.Fprintf(out, "saved %d documents in %s\n", len(want), o.dir)
	// An invoice's event comes to the same URL.
	fake.AddInvoice(acctadmintest.InvoiceInput{CompanyID: co.ID, Items: []acctadmintest.InvoiceItem{{Price: "149.00", Description: "Annual report filing"}}})
	if _, err := fake.WaitDeliveries(ctx, len(want)+1); err != nil {
		return fmt.Errorf("the invoice's event was not delivered: %w", err)
	}
	cancel()
	wg.Wait()
	if serveErr != nil && !errors.Is(serveErr, context.Canceled) && !errors.Is(serveErr, context.DeadlineExceeded) {
		return serveErr
	}
	return nil
}

// lockedWriter writes to w one call at a time.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write implements io.Writer.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
