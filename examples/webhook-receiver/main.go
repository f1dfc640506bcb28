// Command webhook-receiver receives the callback events the API posts,
// verifies each one with webhook.NewVerifier(...).Handler, and logs it
// with log/slog.
//
// Usage:
//
//	webhook-receiver [-addr 127.0.0.1:8090] [-serve] [-register URL] [-redis redis://HOST:PORT/DB]
//
// Events are taken at the path /callbacks. Refused requests are logged
// too, with their status: 401 for a token that does not verify, 400 for a
// malformed request, 405 for a method other than POST, 503 for an event
// that another delivery is still processing (the API delivers it again).
//
// With no ACCTADMIN_* keys set it shows the whole round trip on the
// built-in fake API, so it runs anywhere with no setup: it starts the
// fake, registers its own URL there as a callback, makes the fake receive
// a document and an invoice, logs the two events the fake posts, and
// exits. With -serve it keeps serving afterwards, until interrupted.
//
//	go run ./examples/webhook-receiver
//
// With ACCTADMIN_SECRET_KEY set it serves on -addr until interrupted,
// verifying events with that key (and, when ACCTADMIN_ACCESS_KEY is set,
// refusing tokens whose header names another access key). -register URL
// also registers URL, the address at which the API reaches this server,
// as a callback when it starts (with ACCTADMIN_ACCESS_KEY and
// ACCTADMIN_BASE_URL, as NewClientFromEnv reads them) and removes it when
// it stops.
//
// An event delivered twice is processed once: the receiver remembers the
// events it is processing, and for 24 hours those it processed, in its own
// memory, or with -redis URL in Redis (package webhook/redisreplay), so
// that several receivers behind one load balancer share what they have
// seen and process each event once between them. The URL takes the redis:// or rediss:// form that
// redis.ParseURL reads; the receiver checks that Redis answers before it
// starts serving.
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
	"sync"
	"syscall"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/acctadmin/acctadmin-go/webhook/redisreplay"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "webhook-receiver:", err)
		}
		os.Exit(1)
	}
}

// callbackPath is where the server takes events.
const callbackPath = "/callbacks"

// The server's timeouts. A callback is one small POST: its headers and
// body arrive at once from a well-behaved sender, so anything slower is
// cut off instead of holding a connection and a goroutine. The handler
// bounds the body on its own (webhook.WithReadTimeout, 10 seconds);
// readTimeout is the server's outer bound on headers and body together.
// writeTimeout covers the handler's work and the answer; idleTimeout
// closes kept-alive connections that carry nothing.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 15 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 60 * time.Second
)

// eventWait bounds how long the round trip on the fake waits for its two
// events.
const eventWait = 10 * time.Second

// run receives events as the command line args say, logging to out.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("webhook-receiver", flag.ContinueOnError)
	fs.SetOutput(out)
	addr := fs.String("addr", "127.0.0.1:8090", "`address` to listen on")
	serve := fs.Bool("serve", false, "with no keys set, keep serving after the round trip on the fake API")
	register := fs.String("register", "", "register `URL` as a callback with the API while serving (needs the keys)")
	redisURL := fs.String("redis", "", "remember accepted events in the Redis at `URL` (redis://host:port/db), shared by several receivers")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	log := slog.New(slog.NewTextHandler(out, nil))
	cache, closeCache, err := replayCache(ctx, log, *redisURL)
	if err != nil {
		return err
	}
	defer closeCache()

	if os.Getenv(acctadmin.EnvSecretKey) == "" && os.Getenv(acctadmin.EnvAccessKey) == "" {
		if *register != "" {
			return errors.New("-register needs ACCTADMIN_ACCESS_KEY and ACCTADMIN_SECRET_KEY")
		}
		return roundTrip(ctx, log, cache, *addr, *serve)
	}
	secret := os.Getenv(acctadmin.EnvSecretKey)
	if secret == "" {
		return fmt.Errorf("%s is not set", acctadmin.EnvSecretKey)
	}
	return receive(ctx, log, cache, *addr, secret, os.Getenv(acctadmin.EnvAccessKey), *register)
}

// redisTimeout bounds the check that Redis answers at start.
const redisTimeout = 5 * time.Second

// replayCache returns the cache of accepted events: in memory, or in the
// Redis at redisURL when it is not empty. The function it returns closes
// the Redis client.
func replayCache(ctx context.Context, log *slog.Logger, redisURL string) (webhook.ReplayCache, func(), error) {
	if redisURL == "" {
		return webhook.NewMemoryReplayCache(10000, 24*time.Hour), func() {}, nil
	}
	opts, err := redis.ParseURL(redisURL)
	if err != nil {
		// The URL may carry a password: do not repeat it.
		return nil, nil, errors.New("-redis: not a redis:// URL")
	}
	rdb := redis.NewClient(opts)
	cache := redisreplay.New(rdb)
	pctx, cancel := context.WithTimeout(ctx, redisTimeout)
	defer cancel()
	if err := rdb.Ping(pctx).Err(); err != nil {
		rdb.Close()
		return nil, nil, fmt.Errorf("-redis: Redis at %s does not answer: %w", opts.Addr, err)
	}
	log.Info("remembering accepted events in Redis", "addr", opts.Addr, "db", opts.DB)
	return cache, func() { rdb.Close() }, nil
}

// receive serves events signed with secret until ctx is done.
func receive(ctx context.Context, log *slog.Logger, cache webhook.ReplayCache, addr, secret, accessKey, register string) error {
	h, err := newHandler([]byte(secret), accessKey, cache, log, nil)
	if err != nil {
		return err
	}
	srv, err := listen(log, addr, h)
	if err != nil {
		return err
	}
	defer srv.stop(log)

	if register != "" {
		c, err := acctadmin.NewClientFromEnv()
		if err != nil {
			return err
		}
		cb, err := c.Callbacks.Create(ctx, register)
		if err != nil {
			return fmt.Errorf("register %s: %w", register, err)
		}
		log.Info("callback registered", "url", cb.URL, "id", cb.ID)
		defer unregister(log, c, cb)
	}
	log.Info("serving until interrupted")
	<-ctx.Done()
	return nil
}

// roundTrip starts the fake API, registers the server as its callback,
// makes the fake send a new-document and a new-invoice event, and waits
// for both; with serve it then keeps serving until ctx is done.
func roundTrip(ctx context.Context, log *slog.Logger, cache webhook.ReplayCache, addr string, serve bool) error {
	fake := acctadmintest.NewServer()
	defer fake.Close()
	log.Info("no ACCTADMIN_* keys set: receiving events from the built-in fake API", "api", fake.URL)

	var mu sync.Mutex
	var once sync.Once
	seen := map[string]bool{}
	both := make(chan struct{})
	h, err := newHandler([]byte(fake.SecretKey), fake.AccessKey, cache, log, func(ev *webhook.Event) {
		mu.Lock()
		defer mu.Unlock()
		seen[ev.Name] = true
		if seen[webhook.EventNewDocument] && seen[webhook.EventNewInvoice] {
			once.Do(func() { close(both) })
		}
	})
	if err != nil {
		return err
	}
	srv, err := listen(log, addr, h)
	if err != nil {
		return err
	}
	defer srv.stop(log)

	c, err := acctadmin.NewClient(fake.AccessKey, fake.SecretKey, acctadmin.WithBaseURL(fake.URL))
	if err != nil {
		return err
	}
	cb, err := c.Callbacks.Create(ctx, srv.url)
	if err != nil {
		return fmt.Errorf("register callback: %w", err)
	}
	log.Info("callback registered", "url", cb.URL, "id", cb.ID)
	defer unregister(log, c, cb)

	co := fake.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah", EntityType: "LLC"})
	fake.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, Title: "Annual Report Reminder", Pages: 2})
	fake.AddInvoice(acctadmintest.InvoiceInput{CompanyID: co.ID, Items: []acctadmintest.InvoiceItem{
		{Price: "119.00", Description: "Registered agent service, Utah"},
	}})

	timer := time.NewTimer(eventWait)
	defer timer.Stop()
	select {
	case <-both:
		log.Info("both events received and verified")
	case <-timer.C:
		return fmt.Errorf("the two events did not arrive within %s", eventWait)
	case <-ctx.Done():
		return ctx.Err()
	}
	if serve {
		log.Info("serving until interrupted")
		<-ctx.Done()
	}
	return nil
}

// newHandler returns the server's handler: events at callbackPath are
// verified with secret (and accessKey, when not empty), logged, and passed
// to seen (when not nil); every refused request is logged with its status.
// cache remembers the events accepted, so that one delivered twice is
// acknowledged and not processed again.
func newHandler(secret []byte, accessKey string, cache webhook.ReplayCache, log *slog.Logger, seen func(*webhook.Event)) (http.Handler, error) {
	opts := []webhook.Option{webhook.WithReplayCache(cache)}
	if accessKey != "" {
		opts = append(opts, webhook.WithAccessKey(accessKey))
	}
	v, err := webhook.NewVerifier(secret, opts...)
	if err != nil {
		return nil, err
	}
	events := v.Handler(func(ctx context.Context, ev *webhook.Event) error {
		attrs := []any{"event", ev.Name}
		for _, id := range []struct {
			key string
			id  uuid.UUID
		}{{"invoice_id", ev.InvoiceID}, {"document_id", ev.DocumentID}, {"company_id", ev.CompanyID}} {
			if id.id != uuid.Nil {
				attrs = append(attrs, id.key, id.id)
			}
		}
		attrs = append(attrs, "company", ev.CompanyName)
		log.InfoContext(ctx, "event verified", attrs...)
		if seen != nil {
			seen(ev)
		}
		return nil // an error would answer 500, and the API would deliver again
	})

	mux := http.NewServeMux()
	mux.Handle(callbackPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		events.ServeHTTP(rec, r)
		if rec.status >= 300 {
			log.Warn("request refused", "method", r.Method, "status", rec.status, "remote", r.RemoteAddr)
		}
	}))
	return mux, nil
}

// statusRecorder notes the status code a handler answers.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// Unwrap gives http.ResponseController the connection's writer, so that
// the webhook handler can set its read deadline through the recorder.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// server is the HTTP server of the receiver.
type server struct {
	*http.Server
	url  string // the callback URL it serves
	done chan error
}

// listen starts serving h on addr.
func listen(log *slog.Logger, addr string, h http.Handler) (*server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &server{
		Server: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: readHeaderTimeout,
			ReadTimeout:       readTimeout,
			WriteTimeout:      writeTimeout,
			IdleTimeout:       idleTimeout,
		},
		url:  "http://" + ln.Addr().String() + callbackPath,
		done: make(chan error, 1),
	}
	go func() { s.done <- s.Serve(ln) }()
	log.Info("listening", "url", s.url)
	return s, nil
}

// stop shuts the server down, letting requests in progress finish.
func (s *server) stop(log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		s.Close()
	}
	if err := <-s.done; !errors.Is(err, http.ErrServerClosed) {
		log.Error("server stopped", "err", err)
	}
}

// unregister removes a callback registered at start.
func unregister(log *slog.Logger, c *acctadmin.Client, cb *acctadmin.Callback) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Callbacks.Delete(ctx, cb.ID); err != nil {
		log.Warn("could not remove the callback", "url", cb.URL, "err", err)
		return
	}
	log.Info("callback removed", "url", cb.URL)
}
