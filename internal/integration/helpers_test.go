package acctadmin_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// The helpers below are those of the root package's tests (transport_test.go,
// pull_test.go) that the tests here need too.

// tpLog is a JSON slog handler's output, kept for the test to read back.
type tpLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *tpLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *tpLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func tpTransportError(t *testing.T, err error) *acctadmin.TransportError {
	t.Helper()
	var te *acctadmin.TransportError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v (%T), want a *TransportError", err, err)
	}
	return te
}

// maxPullWorkers is the most workers PullParams.Workers allows.
const maxPullWorkers = 32

func maps[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// pullRecorder is an fn for Pull that reads each file whole and counts
// the documents it was given.
type pullRecorder struct {
	mu    sync.Mutex
	got   map[uuid.UUID]int
	bytes int64
}

func newPullRecorder() *pullRecorder { return &pullRecorder{got: map[uuid.UUID]int{}} }

func (p *pullRecorder) fn(ctx context.Context, d acctadmin.Document, f *acctadmin.File) error {
	b, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.got[d.ID]++
	p.bytes += int64(len(b))
	return nil
}

func (p *pullRecorder) counts() map[uuid.UUID]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps(p.got)
}

// checkOnce checks that want is exactly the set of documents handed out,
// each once.
func checkOnce(t *testing.T, what string, got map[uuid.UUID]int, want []uuid.UUID) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d distinct documents, want %d", what, len(got), len(want))
	}
	for _, id := range want {
		if got[id] != 1 {
			t.Fatalf("%s: document %s handed out %d times", what, id, got[id])
		}
	}
}

// fakeWithContract starts the fake with demo data and fails the test on
// any answer of the fake that breaks its OpenAPI document.
func fakeWithContract(t *testing.T) (*acctadmintest.Server, *acctadmin.Client) {
	t.Helper()
	srv := acctadmintest.NewServer(acctadmintest.WithDemoData(), acctadmintest.WithStrictSigning(), acctadmintest.WithContractChecks(func(err error) { t.Error(err) }))
	t.Cleanup(srv.Close)
	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL),
		acctadmin.WithRetryWait(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return srv, c
}

// fakeClient starts a fake with the demo account and a client for it.
func fakeClient(t *testing.T, opts ...acctadmintest.Option) (*acctadmintest.Server, *acctadmin.Client) {
	t.Helper()
	// Every request the SDK sends passes the contract (the fake refuses
	// what does not), and every answer the fake gives is held against it.
	srv := acctadmintest.NewServer(append([]acctadmintest.Option{
		acctadmintest.WithDemoData(),
		acctadmintest.WithStrictSigning(),
		acctadmintest.WithContractChecks(func(err error) { t.Error(err) }),
	}, opts...)...)
	t.Cleanup(srv.Close)
	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey,
		acctadmin.WithBaseURL(srv.URL), acctadmin.WithRetryWait(time.Millisecond, 10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return srv, c
}

func companyNamed(t *testing.T, srv *acctadmintest.Server, name string) acctadmintest.Company {
	t.Helper()
	for _, co := range srv.Companies() {
		if co.Name == name {
			return co
		}
	}
	t.Fatalf("no company %q in the fake", name)
	return acctadmintest.Company{}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// must stops the example on an error. A program would handle it, and
// would not try a checkout again after ErrOutcomeUnknown without first
// looking at the invoices.
func must[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}
