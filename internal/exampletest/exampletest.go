// Package exampletest holds what the tests of the example programs share:
// a loopback proxy that holds chosen requests until the test lets them
// through, a writer that reports when a line it waits for is written, and
// a way to run a program's main in a child process and interrupt it as
// Ctrl-C does.
package exampletest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
)

// Proxy is a loopback HTTP server that forwards every request to a target
// (the fake API), except that it holds the requests its hold function
// picks until Release is called or the request's client gives up.
type Proxy struct {
	// URL is the proxy's base URL, to give as ACCTADMIN_BASE_URL.
	URL string

	srv      *httptest.Server
	hold     func(*http.Request) bool
	held     chan string
	release  chan struct{}
	released sync.Once
}

// NewProxy starts a proxy in front of target. The proxy is closed, and
// any held request let through, when the test ends.
func NewProxy(t testing.TB, target string, hold func(*http.Request) bool) *Proxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{hold: hold, held: make(chan string, 64), release: make(chan struct{})}
	forward := httputil.NewSingleHostReverseProxy(u)
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.hold(r) {
			select {
			case p.held <- r.URL.RequestURI():
			default:
			}
			select {
			case <-p.release:
			case <-r.Context().Done():
				return
			}
		}
		forward.ServeHTTP(w, r)
	}))
	p.URL = p.srv.URL
	t.Cleanup(func() {
		p.Release()
		p.srv.Close()
	})
	return p
}

// Held returns a channel that receives the path and query of each request
// as it is held (up to 64 not yet received).
func (p *Proxy) Held() <-chan string { return p.held }

// Release lets every held request, and every later one, through.
func (p *Proxy) Release() { p.released.Do(func() { close(p.release) }) }

// Lines is an io.Writer, safe for concurrent use, that keeps what is
// written and reports when a line containing a given text is complete.
type Lines struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	waitFor string
	seen    chan struct{}
	once    sync.Once
}

// NewLines returns a Lines whose Seen channel is closed once a complete
// line containing waitFor has been written.
func NewLines(waitFor string) *Lines {
	return &Lines{waitFor: waitFor, seen: make(chan struct{})}
}

// Write implements io.Writer.
func (l *Lines) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, _ := l.buf.Write(b)
	for _, line := range strings.SplitAfter(l.buf.String(), "\n") {
		if strings.HasSuffix(line, "\n") && strings.Contains(line, l.waitFor) {
			l.once.Do(func() { close(l.seen) })
			break
		}
	}
	return n, nil
}

// Seen is closed once a complete line containing the awaited text is
// written.
func (l *Lines) Seen() <-chan struct{} { return l.seen }

// String returns everything written so far.
func (l *Lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// childEnv names the variable that makes a test binary run the program's
// main instead of its tests.
const childEnv = "ACCTADMIN_EXAMPLE_RUN_MAIN"

// RunMainIfChild runs main and exits when the test binary was started by
// StartMain; otherwise it returns at once. Call it first in TestMain.
func RunMainIfChild(main func()) {
	if os.Getenv(childEnv) != "1" {
		return
	}
	main()
	os.Exit(0)
}

// Child is the program's main running in a child process.
type Child struct {
	cmd    *exec.Cmd
	stdout lockedBuffer
	stderr lockedBuffer
	done   chan struct{}
	err    error
}

// StartMain starts the test binary as the program, with args and env
// added to the test's environment. The child is killed, by its pid, if it
// is still running when the test ends.
func StartMain(t testing.TB, env []string, args ...string) *Child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := &Child{done: make(chan struct{})}
	c.cmd = exec.Command(exe, args...)
	c.cmd.Env = append(append(os.Environ(), childEnv+"=1"), env...)
	c.cmd.Stdout, c.cmd.Stderr = &c.stdout, &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		select {
		case <-c.done:
		default:
			_ = c.cmd.Process.Kill()
			<-c.done
		}
	})
	return c
}

// Interrupt sends the child os.Interrupt, as Ctrl-C in a terminal does.
func (c *Child) Interrupt() error { return c.cmd.Process.Signal(os.Interrupt) }

// Wait waits up to timeout for the child to exit and returns its exit
// code (-1 if a signal ended it), stdout and stderr; ok is false if it did
// not exit in time.
func (c *Child) Wait(timeout time.Duration) (code int, stdout, stderr string, ok bool) {
	select {
	case <-c.done:
	case <-time.After(timeout):
		return 0, c.stdout.String(), c.stderr.String(), false
	}
	return c.cmd.ProcessState.ExitCode(), c.stdout.String(), c.stderr.String(), true
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Run is a program's run function with its arguments bound.
type Run func(ctx context.Context, out io.Writer) error

// CheckStreams runs run with the proxy holding a later page, and checks
// that a row (a line containing rowText) is printed while that page is
// held, that a page is held at all, and that run then ends without an
// error. It returns what run printed.
func CheckStreams(t *testing.T, proxy *Proxy, run Run, rowText string) string {
	t.Helper()
	out := NewLines(rowText)
	errc := make(chan error, 1)
	go func() { errc <- run(context.Background(), out) }()

	select {
	case <-out.Seen():
	case <-time.After(10 * time.Second):
		proxy.Release()
		<-errc
		t.Fatalf("no row was printed while a later page was held; output:\n%s", out.String())
	}
	select {
	case <-proxy.Held():
	case err := <-errc:
		t.Fatalf("run ended (%v) before asking for the held page", err)
	}
	proxy.Release()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// CheckCancel runs run, cancels its context once the proxy holds a
// request, and checks that run returns context.Canceled within 10s. It
// returns what run printed.
func CheckCancel(t *testing.T, proxy *Proxy, run Run) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := NewLines("\x00")
	errc := make(chan error, 1)
	go func() { errc <- run(ctx, out) }()
	select {
	case <-proxy.Held():
	case <-time.After(10 * time.Second):
		t.Fatal("no request was held")
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("run = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not stop within 10s of the cancellation")
	}
	return out.String()
}

// CheckInterrupt starts the program's main in a child process with env
// added to its environment, sends it os.Interrupt (Ctrl-C) once the proxy
// holds one of its requests, and checks that it stops within 10s with
// exit status 1 and a message on stderr holding each of wantErr. It
// returns what the program printed on stdout.
func CheckInterrupt(t *testing.T, proxy *Proxy, env []string, wantErr ...string) string {
	t.Helper()
	child := StartMain(t, env)
	select {
	case <-proxy.Held():
	case <-time.After(30 * time.Second):
		t.Fatal("the program sent no request that the proxy holds")
	}
	if err := child.Interrupt(); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr, ok := child.Wait(10 * time.Second)
	if !ok {
		t.Fatalf("the program did not stop within 10s of Ctrl-C; stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if code != 1 {
		t.Fatalf("exit status %d, want 1; stderr:\n%s", code, stderr)
	}
	for _, want := range wantErr {
		if !strings.Contains(stderr, want) {
			t.Fatalf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	return stdout
}

// UseAccount points the environment at an account, as a user with keys
// would set it, for the rest of the test, and returns the same settings as
// NAME=value pairs for StartMain.
func UseAccount(t *testing.T, accessKey, secretKey, baseURL string) []string {
	t.Helper()
	env := map[string]string{
		acctadmin.EnvAccessKey: accessKey,
		acctadmin.EnvSecretKey: secretKey,
		acctadmin.EnvBaseURL:   baseURL,
	}
	var pairs []string
	for _, name := range []string{acctadmin.EnvAccessKey, acctadmin.EnvSecretKey, acctadmin.EnvBaseURL} {
		t.Setenv(name, env[name])
		pairs = append(pairs, name+"="+env[name])
	}
	return pairs
}
