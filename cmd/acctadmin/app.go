package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// app is one run of the command line: its streams, its global flags and
// the client they make.
type app struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// tty says whether stdout is a terminal.
	tty bool

	accessKey string
	secretKey string
	baseURL   string
	jsonOut   bool
	jq        string
	debug     bool
	timeout   time.Duration
	retries   int

	// dryRun is set by the --dry-run flag of a write command.
	dryRun bool
	// profile is the --profile flag; prof the profile read, once
	// (profileRead), nil when there is none.
	profile     string
	prof        *profile
	profileRead bool

	// helpErr is set when --help was asked of a command that does not
	// exist, such as companies add.
	helpErr error
}

// run runs the command line args and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, tty: isTerminal(stdout)}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		err = a.helpErr
	}
	if err == nil || errors.Is(err, errDryRun) {
		return 0
	}
	code, msg := describe(err)
	if msg != "" {
		// The SDK's errors name it already.
		fmt.Fprintln(stderr, "acctadmin: "+strings.TrimPrefix(oneLine(msg), "acctadmin: "))
	}
	return code
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// rootCommand builds the command tree.
func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "acctadmin",
		Short: "Work with the Account Administration API from the command line",
		Long: `acctadmin reads and changes an account of the Account Administration API:
services, mail and documents, compliance due dates, companies, invoices,
callbacks and resources, and sends any other route signed (acctadmin api).

The keys come from a profile stored by acctadmin auth login (--profile NAME,
else ACCTADMIN_PROFILE, else default), from ACCTADMIN_ACCESS_KEY and
ACCTADMIN_SECRET_KEY, or from --access-key and --secret-key; the API's address
likewise from the profile, ACCTADMIN_BASE_URL or --base-url. Flags beat the
environment, and the environment beats the profile.

Exit codes: 0 success, 1 an API or connection error, 2 invalid input or usage
(nothing sent), 3 not found, 4 keys refused, 5 due --fail-if-overdue found a
passed due date, 6 mail pull --fail-if-locked left payment-locked mail
waiting, 130 interrupted.`,
		Example: `  export ACCTADMIN_ACCESS_KEY=... ACCTADMIN_SECRET_KEY=...
  acctadmin services list
  acctadmin documents list --json --jq '.[].id'
  acctadmin due --within 30d --format ics > due.ics`,
		Version:       version,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          noArgs,
		RunE:          groupRun,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	pf := root.PersistentFlags()
	pf.StringVar(&a.profile, "profile", "", "the stored profile of keys to use (default $"+envProfile+", else default; see acctadmin auth)")
	pf.StringVar(&a.accessKey, "access-key", "", "access key (default $ACCTADMIN_ACCESS_KEY)")
	pf.StringVar(&a.secretKey, "secret-key", "", "secret key (default $ACCTADMIN_SECRET_KEY; prefer the variable, flags show in ps)")
	pf.StringVar(&a.baseURL, "base-url", "", "base URL of the API (default $ACCTADMIN_BASE_URL, else "+acctadmin.DefaultBaseURL+")")
	pf.BoolVar(&a.jsonOut, "json", false, "print JSON in the API's field names")
	pf.StringVar(&a.jq, "jq", "", "filter the JSON output with a jq `expression` (implies --json)")
	pf.BoolVar(&a.debug, "debug", false, "log every request attempt to stderr (never a key or a token)")
	pf.DurationVar(&a.timeout, "timeout", 30*time.Second, "bound on each request attempt")
	pf.IntVar(&a.retries, "retries", 3, "times a failed read is tried again (0 to 100)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	// --help of a subcommand that does not exist (companies add --help) is
	// the unknown command's error, not the help of its parent.
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if c.HasSubCommands() && c.Flags().Parsed() && c.Flags().NArg() > 0 {
			a.helpErr = noArgs(c, c.Flags().Args())
			return
		}
		help(c, args)
	})
	root.SetHelpCommand(&cobra.Command{
		Use:     "help [COMMAND]...",
		Short:   "Show the help of a command",
		Example: "  acctadmin help invoices pay",
		RunE: func(_ *cobra.Command, args []string) error {
			c, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 {
				return usageErrorf("no command %q; see acctadmin --help", "acctadmin "+strings.Join(args, " "))
			}
			return c.Help()
		},
	})

	root.AddCommand(
		a.servicesCommand(),
		a.documentsCommand(),
		a.mailCommand(),
		a.dueCommand(),
		a.companiesCommand(),
		a.invoicesCommand(),
		a.cardsCommand(),
		a.callbacksCommand(),
		a.resourcesCommand(),
		a.accountCommand(),
		a.authCommand(),
		a.filingProductsCommand(),
		a.websitesCommand(),
		a.apiCommand(),
		a.listenCommand(),
		a.triggerCommand(),
		a.fakeCommand(),
		completionCommand(root),
	)
	return root
}

// completionCommand writes the completion script of a shell.
func completionCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Write the shell completion script of acctadmin",
		Long: `Write the completion script of acctadmin for a shell to standard output.

  bash:        source <(acctadmin completion bash)
  zsh:         acctadmin completion zsh > "${fpath[1]}/_acctadmin"
  fish:        acctadmin completion fish > ~/.config/fish/completions/acctadmin.fish
  powershell:  acctadmin completion powershell | Out-String | Invoke-Expression`,
		Example:   "  source <(acctadmin completion bash)",
		Args:      exactArgs(1),
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(out)
			}
			return usageErrorf("completion for bash, zsh, fish or powershell, not %q", args[0])
		},
	}
}

// group returns a command that only holds subcommands.
func group(use, short, example string, subs ...*cobra.Command) *cobra.Command {
	c := &cobra.Command{Use: use, Short: short, Example: example, Args: noArgs, RunE: groupRun}
	c.AddCommand(subs...)
	return c
}

// groupRun prints the help of a command without arguments; Args has
// refused any argument before.
func groupRun(cmd *cobra.Command, _ []string) error {
	return cmd.Help()
}

// noArgs refuses arguments, as an unknown command when the command has
// subcommands.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if cmd.HasSubCommands() {
		return usageErrorf("unknown command %q for %q; see %s --help", args[0], cmd.CommandPath(), cmd.CommandPath())
	}
	return usageErrorf("%s takes no arguments, got %q", cmd.CommandPath(), args[0])
}

// exactArgs wants exactly n arguments, named in the command's Use.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf("%s wants %d argument(s), got %d; usage: %s", cmd.CommandPath(), n, len(args), cmd.UseLine())
		}
		return nil
	}
}

// minArgs wants at least n arguments.
func minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usageErrorf("%s wants at least %d argument(s); usage: %s", cmd.CommandPath(), n, cmd.UseLine())
		}
		return nil
	}
}

// addDryRun gives a write command its --dry-run flag.
func (a *app) addDryRun(c *cobra.Command) *cobra.Command {
	c.Flags().BoolVar(&a.dryRun, "dry-run", false, "print the request that would be sent (token, card numbers, passwords and other secrets redacted) and send nothing")
	return c
}

// keys returns each key from its flag, else the environment, else the
// profile (--profile, ACCTADMIN_PROFILE, else default).
func (a *app) keys() (access, secret string, err error) {
	access, secret = a.accessKey, a.secretKey
	if access == "" {
		access = os.Getenv(acctadmin.EnvAccessKey)
	}
	if secret == "" {
		secret = os.Getenv(acctadmin.EnvSecretKey)
	}
	_, named := a.profileName()
	if access == "" || secret == "" || named {
		p, err := a.currentProfile()
		if err != nil {
			return "", "", err
		}
		if p != nil && access == "" {
			access = p.AccessKey
		}
		if p != nil && secret == "" {
			secret = p.SecretKey
		}
	}
	if access == "" || secret == "" {
		return "", "", usageErrorf("no keys: store them with `acctadmin auth login --access-key AK --secret-key-stdin`, or set %s and %s (or give --access-key and --secret-key)", acctadmin.EnvAccessKey, acctadmin.EnvSecretKey)
	}
	return access, secret, nil
}

// base returns the base URL from the flag, else the environment, else the
// profile, else the production API.
func (a *app) base() string {
	if a.baseURL != "" {
		return a.baseURL
	}
	if u := os.Getenv(acctadmin.EnvBaseURL); u != "" {
		return u
	}
	if p, err := a.currentProfile(); err == nil && p != nil && p.BaseURL != "" {
		return p.BaseURL
	}
	return acctadmin.DefaultBaseURL
}

// client makes the SDK client of the run.
func (a *app) client() (*acctadmin.Client, error) {
	access, secret, err := a.keys()
	if err != nil {
		return nil, err
	}
	opts := []acctadmin.Option{
		acctadmin.WithBaseURL(a.base()),
		acctadmin.WithUserAgent("acctadmin-cli/" + version),
		acctadmin.WithTimeout(a.timeout),
	}
	if a.retries < 0 || a.retries > 100 {
		return nil, usageErrorf("--retries must be from 0 to 100, got %d", a.retries)
	}
	if !a.dryRun {
		opts = append(opts, acctadmin.WithMaxRetries(a.retries))
	}
	if a.debug {
		opts = append(opts, acctadmin.WithLogger(slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	}
	if a.dryRun {
		opts = append(opts,
			acctadmin.WithHTTPClient(&http.Client{Transport: &dryRunTransport{out: a.stdout, next: http.DefaultTransport}}),
			acctadmin.WithMaxRetries(0))
	}
	c, err := acctadmin.NewClient(access, secret, opts...)
	if err != nil {
		return nil, usageError{err}
	}
	return c, nil
}

// errDryRun stops a request that --dry-run printed.
var errDryRun = errors.New("dry run: nothing sent")

// dryRunTransport prints each write request, with its token and the
// values of its secret fields (card numbers, CVCs, passwords, secret
// keys, tokens) redacted, instead of sending it; reads go through.
type dryRunTransport struct {
	out  io.Writer
	next http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *dryRunTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet {
		return t.next.RoundTrip(req)
	}
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", req.Method, redactQuery(req.URL).String())
	fmt.Fprintf(&b, "Authorization: Bearer [redacted]\n")
	if ct := req.Header.Get("Content-Type"); ct != "" {
		fmt.Fprintf(&b, "Content-Type: %s\n", ct)
	}
	if len(bytes.TrimSpace(body)) > 0 {
		fmt.Fprintf(&b, "\n%s\n", redactBody(bytes.TrimSpace(body)))
	}
	fmt.Fprint(t.out, b.String())
	return nil, errDryRun
}

// parseID reads an id argument: a UUID, or an exit-2 error naming what it
// is the id of.
func parseID(what, s string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, usageErrorf("%q is not a %s id: ids are UUIDs such as 4d9c2f0e-8b1a-4c3d-9e5f-0a1b2c3d4e5f", s, what)
	}
	return id, nil
}

// usageError is invalid input or usage: exit 2, nothing sent.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usageErrorf makes a usageError.
func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// exitError ends the run with a code and an optional message.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

// hintError is an API error with what to do about it.
type hintError struct {
	err  error
	hint string
	// check, for a write whose outcome is unknown, names the acctadmin
	// command that shows whether it took effect.
	check string
	// always, when set, is said of any error but an unknown outcome, in
	// place of the hint of its kind: what the command knows to do (run
	// mail pull again).
	always string
}

func (e hintError) Error() string { return e.err.Error() }
func (e hintError) Unwrap() error { return e.err }

// withHint adds what to do to err (nil stays nil).
func withHint(err error, hint string) error {
	if err == nil {
		return nil
	}
	return hintError{err: err, hint: hint}
}

// withCheck adds to err, for when the outcome of a write is unknown, what
// shows whether it took effect: an acctadmin command (nil stays nil).
func withCheck(err error, check string) error {
	if err == nil {
		return nil
	}
	return hintError{err: err, check: check}
}

// withAdvice adds to err what to do whatever the error (nil stays nil).
func withAdvice(err error, advice string) error {
	if err == nil {
		return nil
	}
	return hintError{err: err, always: advice}
}

// sdkOutcome starts the end of an SDK error whose outcome is unknown: the
// SDK then names the Go method that shows what happened, which the
// command line replaces with its own command.
const sdkOutcome = "; outcome unknown, the request may have taken effect"

// outcomeUnknown is the message of a write whose outcome is unknown: the
// SDK's error without its Go advice, then check, the acctadmin command
// that shows whether it took effect.
func outcomeUnknown(msg, check string) string {
	if i := strings.LastIndex(msg, sdkOutcome); i >= 0 {
		msg = msg[:i]
	}
	if check == "" {
		check = "look at what it would have changed (the get or list command of it)"
	}
	return msg + "; the outcome is unknown, the request may have taken effect: " + check + " before you try again"
}

// describe maps an error to its exit code and its one-line message. A
// command's hint is for what it may say: a record not found, or an answer
// that is not what the route gives; a connection error, refused keys or a
// failing API get their own, whatever the command.
func describe(err error) (int, string) {
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code, ee.msg
	}
	hint, check, always := "", "", ""
	var he hintError
	if errors.As(err, &he) {
		hint, check, always = he.hint, he.check, he.always
	}
	msg := err.Error()
	var ue usageError
	var te *acctadmin.TransportError
	var de *acctadmin.DecodeError
	var ae *acctadmin.APIError
	switch {
	case errors.As(err, &ue):
		return 2, msg
	case errors.Is(err, acctadmin.ErrInvalidParams):
		return 2, msg + "; nothing was sent"
	case errors.Is(err, context.Canceled):
		return 130, "interrupted"
	case errors.Is(err, acctadmin.ErrOutcomeUnknown):
		return 1, outcomeUnknown(msg, check)
	case errors.Is(err, acctadmin.ErrNotFound):
		if hint == "" {
			hint = "check the id or the path"
		}
		return 3, msg + "; " + hint
	case errors.Is(err, acctadmin.ErrPaymentDeclined):
		return 1, msg + "; the card was declined: nothing was paid; pay with another card (the stored cards: `acctadmin cards list`)"
	case errors.As(err, &ae) && ae.Path == "/auth/login" && (ae.StatusCode == 401 || ae.StatusCode == 403):
		return 4, msg + "; the e-mail or the password was refused: check the login"
	case errors.Is(err, acctadmin.ErrUnauthorized), errors.Is(err, acctadmin.ErrForbidden):
		return 4, msg + "; " + keysHint
	case always != "":
		return 1, msg + "; " + always
	case errors.Is(err, acctadmin.ErrServer):
		return 1, msg + "; the API is failing: try again later"
	case errors.Is(err, acctadmin.ErrRateLimited):
		return 1, msg + "; wait a minute and try again"
	case errors.As(err, &te):
		return 1, msg + "; check the API's address (--base-url or " + acctadmin.EnvBaseURL + ") and the network"
	case errors.As(err, &de):
		if hint == "" {
			hint = "the answer is not what this route should give; see it with --debug or `acctadmin api`"
		}
	}
	if hint != "" {
		msg += "; " + hint
	}
	return 1, msg
}

// keysHint says what to check when the API refuses the keys.
const keysHint = "check the keys: " + acctadmin.EnvAccessKey + " and " + acctadmin.EnvSecretKey + " (or --access-key and --secret-key), and the API's address (--base-url or " + acctadmin.EnvBaseURL + "); `acctadmin auth status` checks the stored profiles"

// oneLine folds a message onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
