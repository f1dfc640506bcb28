package acctadmintest_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// ctTB is a testing.TB whose Cleanup functions the test runs itself, to
// see what they do.
type ctTB struct {
	testing.TB
	cleanups []func()
}

func (t *ctTB) Cleanup(f func()) { t.cleanups = append(t.cleanups, f) }

func (t *ctTB) runCleanups() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

// waitLog collects the waits the client logs before its retries.
type waitLog struct{ waits []time.Duration }

func (l *waitLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *waitLog) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "wait" {
			l.waits = append(l.waits, a.Value.Duration())
		}
		return true
	})
	return nil
}
func (l *waitLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *waitLog) WithGroup(string) slog.Handler      { return l }

// NewClient hands a test a client of a started server: its calls reach
// the server, signed in the SDK's form alone (strict signing: a token of
// another form is refused); a 503 burst is retried after waits of 1 to
// 10 ms, not the default 250 ms and more; the test's cleanup closes the
// server.
func TestNewClient(t *testing.T) {
	tb := &ctTB{TB: t}
	var waits waitLog
	c, srv := acctadmintest.NewClient(tb, acctadmintest.WithSeed(7),
		acctadmintest.WithClientOptions(acctadmin.WithLogger(slog.New(&waits))))
	srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})

	srv.InjectFault(acctadmintest.Fault{Method: http.MethodGet, Path: "/companies", Count: 3, Status: http.StatusServiceUnavailable})
	companies, err := c.Companies.List(context.Background())
	require.NoError(t, err)
	require.Len(t, companies, 1)
	require.Equal(t, "Acme Widgets LLC", companies[0].Name)
	require.Equal(t, 4, srv.RequestCount(http.MethodGet, "/companies"), "three 503s retried, then the answer")
	require.Len(t, waits.waits, 3)
	for _, w := range waits.waits {
		require.True(t, w >= time.Millisecond && w <= 10*time.Millisecond, "a retry waited %v", w)
	}

	// Strict signing: the token of the C# client (the query in the path
	// claim) is refused.
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/companies?limit=5", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+signJWT(t, srv.AccessKey, srv.SecretKey, "/companies?limit=5", nil))
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	tb.runCleanups()
	_, err = c.Companies.List(context.Background())
	var te *acctadmin.TransportError
	require.True(t, errors.As(err, &te), "after the cleanup the server is closed: err = %v", err)
}

// NewClient passes the client options of WithClientOptions after its own:
// here a hook sees the calls.
func TestNewClientWithClientOptions(t *testing.T) {
	var ops []string
	c, _ := acctadmintest.NewClient(t, acctadmintest.WithClientOptions(acctadmin.WithHooks(acctadmin.Hooks{
		CallEnd: func(_ context.Context, ci acctadmin.CallInfo) { ops = append(ops, ci.Operation) },
	})))
	_, err := c.Companies.List(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"Companies.List"}, ops)
}
