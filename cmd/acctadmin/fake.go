package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/internal/parentwatch"
	"github.com/spf13/cobra"
)

func (a *app) fakeCommand() *cobra.Command {
	var addr, clock string
	var seed, env, noQuirks, noControl, surviveParent, checkAnswers bool
	var latency time.Duration
	cmd := &cobra.Command{
		Use:   "fake [--seed] [--addr HOST:PORT] [--env]",
		Short: "Serve the fake API (package acctadmintest) on a local address",
		Long: `Serve the in-memory fake of the API (package acctadmintest), as
cmd/acctadmin-fake does, with its control surface under /_fake/ for loopback
clients (acctadmin trigger uses it). --seed fills the account with the demo
data. --access-key and --secret-key fix its keys; keys not given are random
(the ACCTADMIN_* variables are not read).

Once it accepts connections it prints the ACCTADMIN_BASE_URL,
ACCTADMIN_ACCESS_KEY and ACCTADMIN_SECRET_KEY lines that point acctadmin (and
the SDK's NewClientFromEnv) at it; with --env as export lines a shell can
paste or eval. It serves until Ctrl-C, SIGTERM, or the exit of the process
that started it (unless --survive-parent).`,
		Example: `  # in one terminal:
  acctadmin fake --seed --env
  # in another, paste the three export lines it printed, then:
  acctadmin services list`,
		Args: noArgs,
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8089", "address to listen on (port 0: any free port)")
	f.BoolVar(&seed, "seed", false, "fill the account with demo data")
	f.BoolVar(&env, "env", false, "print the variables as export lines")
	f.BoolVar(&noQuirks, "no-quirks", false, "answer without the real API's wire inconsistencies")
	f.BoolVar(&noControl, "no-control", false, "do not serve the control surface under /_fake/")
	f.BoolVar(&surviveParent, "survive-parent", false, "keep serving when the process that started it exits")
	f.DurationVar(&latency, "latency", 0, "delay added to every request")
	f.StringVar(&clock, "clock", "", "start the fake's clock at this RFC 3339 `time` (it runs on from there)")
	f.BoolVar(&checkAnswers, "check-answers", false, "check every answer against the OpenAPI document; print each mismatch on stderr")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := a.ctx
		var start time.Time
		if clock != "" {
			t, err := time.Parse(time.RFC3339, clock)
			if err != nil {
				return usageErrorf("--clock %q: want an RFC 3339 time such as 2025-01-31T09:00:00Z", clock)
			}
			start = t
		}
		if !surviveParent {
			var cancel context.CancelFunc
			ctx, cancel = parentwatch.Context(ctx)
			defer cancel()
		}
		opts := []acctadmintest.Option{
			// --access-key and --secret-key fix the fake's keys; the
			// environment's are a client's and are not read here.
			acctadmintest.WithKeys(a.accessKey, a.secretKey),
			acctadmintest.WithLatency(latency),
			acctadmintest.WithLogLimit(10000),
		}
		if seed {
			opts = append(opts, acctadmintest.WithDemoData())
		}
		if noQuirks {
			opts = append(opts, acctadmintest.WithoutQuirks())
		}
		if !noControl {
			opts = append(opts, acctadmintest.WithControl())
		}
		if checkAnswers {
			var mu sync.Mutex
			opts = append(opts, acctadmintest.WithContractChecks(func(err error) {
				mu.Lock()
				defer mu.Unlock()
				fmt.Fprintln(a.stderr, "contract:", err)
			}))
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return usageErrorf("fake: %v; choose another --addr (port 0 picks a free one)", err)
		}
		fake := acctadmintest.NewFake(opts...)
		defer fake.Close()
		if !start.IsZero() {
			fake.SetClock(start)
			if seed {
				// The demo's times are relative to the clock: seed again
				// at the clock's start.
				fake.Reset()
				fake.SeedDemo()
			}
		}
		srv := &http.Server{
			Handler:           fake,
			ConnState:         fake.ConnState,
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       30 * time.Second,
			WriteTimeout:      2 * time.Minute,
			IdleTimeout:       2 * time.Minute,
		}
		base := "http://" + ln.Addr().String()
		prefix := ""
		if env {
			prefix = "export "
			fmt.Fprintf(a.stdout, "# acctadmin fake listening on %s; Ctrl-C stops it\n", base)
		} else {
			fmt.Fprintf(a.stdout, "acctadmin fake listening on %s\n", base)
		}
		if !noControl {
			fmt.Fprintf(a.stdout, "%scontrol surface (loopback clients only) on %s%s\n", map[bool]string{true: "# ", false: ""}[env], base, acctadmintest.ControlPrefix)
		}
		fmt.Fprintf(a.stdout, "%s%s=%s\n", prefix, acctadmin.EnvBaseURL, base)
		fmt.Fprintf(a.stdout, "%s%s=%s\n", prefix, acctadmin.EnvAccessKey, fake.AccessKey)
		fmt.Fprintf(a.stdout, "%s%s=%s\n", prefix, acctadmin.EnvSecretKey, fake.SecretKey)
		served := make(chan error, 1)
		go func() { served <- srv.Serve(ln) }()
		select {
		case err := <-served:
			return err
		case <-ctx.Done():
		}
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = srv.Shutdown(sctx)
		if errors.Is(err, context.DeadlineExceeded) {
			err = srv.Close()
		}
		if serr := <-served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
			err = serr
		}
		fmt.Fprintln(a.stderr, "acctadmin fake stopped")
		return err
	}
	return cmd
}
