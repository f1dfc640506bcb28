package redisreplay_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/internal/redisserver"
	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/acctadmin/acctadmin-go/webhook/redisreplay"
)

var testSecret = []byte("redisreplay-test-secret-0123456789")

// newClient returns a go-redis client of srv with short timeouts, so that
// an outage shows within a fraction of a second, closed when t ends.
func newClient(t testing.TB, srv *redisserver.Server) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{
		Addr:         srv.Addr,
		DialTimeout:  250 * time.Millisecond,
		ReadTimeout:  time.Second,
		WriteTimeout: time.Second,
		MaxRetries:   1,
		PoolSize:     32,
	})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// event returns the claims of a new-invoice event with a fresh invoice id.
func event() map[string]any {
	return map[string]any{
		"event":        webhook.EventNewInvoice,
		"invoice_id":   uuid.NewString(),
		"company_id":   uuid.NewString(),
		"company_name": "Acme Widgets LLC",
	}
}

func sign(t testing.TB, claims map[string]any) string {
	t.Helper()
	tok, err := webhook.Sign(claims, testSecret)
	require.NoError(t, err)
	return tok
}

// receiver is one receiver of a fleet: a verifier on a Redis cache, its
// Handler on a loopback server, and a count of the events its function
// processed.
type receiver struct {
	cache     *redisreplay.Cache
	verifier  *webhook.Verifier
	srv       *httptest.Server
	processed atomic.Int64
}

// newReceiver starts a receiver whose function passes each event to fn
// (when not nil) and then counts it.
func newReceiver(t testing.TB, rdb redis.UniversalClient, fn func(context.Context, *webhook.Event) error, opts ...redisreplay.Option) *receiver {
	t.Helper()
	r := &receiver{cache: redisreplay.New(rdb, opts...)}
	v, err := webhook.NewVerifier(testSecret, webhook.WithReplayCache(r.cache))
	require.NoError(t, err)
	r.verifier = v
	r.srv = httptest.NewServer(v.Handler(func(ctx context.Context, ev *webhook.Event) error {
		if fn != nil {
			if err := fn(ctx, ev); err != nil {
				return err
			}
		}
		r.processed.Add(1)
		return nil
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// post delivers token to r and returns the status, or 0 when the request
// failed.
func (r *receiver) post(t testing.TB, token string) int {
	t.Helper()
	resp, err := r.srv.Client().Post(r.srv.URL, "application/jwt", strings.NewReader(token))
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode
}

// serveToken serves one delivery of token to h, with no network, and
// returns the status.
func serveToken(h http.Handler, token string) int {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/callbacks", strings.NewReader(token)))
	return w.Code
}

// roundTrips is a go-redis hook that counts the commands sent, each one
// round trip, and the commands of pipelines, each pipeline one round trip.
type roundTrips struct{ n atomic.Int64 }

func (h *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}
func (h *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmds)
	}
}

// key is a replay key of the shape the verifier gives, 64 hex digits.
func key(c byte) string { return strings.Repeat(string(c), 64) }

// claim claims k for owner with lease and returns what it found.
func claim(t *testing.T, c *redisreplay.Cache, k, owner string, lease time.Duration) webhook.ClaimState {
	t.Helper()
	st, err := c.Claim(context.Background(), k, owner, lease)
	require.NoError(t, err)
	return st
}

// pttl returns the remaining time to live of a key.
func pttl(t *testing.T, rdb *redis.Client, k string) time.Duration {
	t.Helper()
	d, err := rdb.PTTL(context.Background(), k).Result()
	require.NoError(t, err)
	return d
}

// eventually calls f every 20 ms until it returns true, for at most 10
// seconds.
func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !f() {
		require.True(t, time.Now().Before(deadline), what)
		time.Sleep(20 * time.Millisecond)
	}
}
