package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/webhook"
)

func newReplayVerifier(t *testing.T) *webhook.Verifier {
	t.Helper()
	return newVerifier(t,
		webhook.WithSecrets(testOldSecret),
		webhook.WithReplayCache(webhook.NewMemoryReplayCache(100, time.Hour)),
	)
}

// TestReplayRefused sends a first token, then a second one that carries
// the same event in another spelling, and expects the second refused.
func TestReplayRefused(t *testing.T) {
	camel := map[string]any{
		"eventName": "new-invoice", "invoiceId": testInvoiceID.String(),
		"companyId": testCompanyID.String(), "companyName": "Acme Widgets LLC",
	}
	cases := []struct {
		name          string
		first, second func(t *testing.T) string
	}{
		{"same token twice",
			func(t *testing.T) string { return sign(t, invoiceClaims()) },
			func(t *testing.T) string { return sign(t, invoiceClaims()) }},
		{"re-signed with HS512",
			func(t *testing.T) string { return sign(t, invoiceClaims()) },
			func(t *testing.T) string { return sign(t, invoiceClaims(), webhook.WithAlgorithm("HS512")) }},
		{"re-signed with the rotated secret",
			func(t *testing.T) string { return sign(t, invoiceClaims()) },
			func(t *testing.T) string { return signWith(t, invoiceClaims(), testOldSecret) }},
		{"re-signed with an access key header",
			func(t *testing.T) string { return sign(t, invoiceClaims()) },
			func(t *testing.T) string { return sign(t, invoiceClaims(), webhook.WithSignAccessKey(testAccessKey)) }},
		{"re-signed with an iat claim",
			func(t *testing.T) string { return sign(t, invoiceClaims()) },
			func(t *testing.T) string { return sign(t, with(invoiceClaims(), "iat", testNow.Unix())) }},
		{"re-signed with other claim spellings",
			func(t *testing.T) string { return sign(t, invoiceClaims()) },
			func(t *testing.T) string { return sign(t, camel) }},
		{"re-signed with upper-case ids",
			func(t *testing.T) string { return sign(t, invoiceClaims()) },
			func(t *testing.T) string {
				return sign(t, with(invoiceClaims(), "invoice_id", strings.ToUpper(testInvoiceID.String())))
			}},
		{"re-signed with a different company name",
			func(t *testing.T) string { return sign(t, invoiceClaims()) },
			func(t *testing.T) string { return sign(t, with(invoiceClaims(), "company_name", "Acme")) }},
		{"same jti with other content",
			func(t *testing.T) string { return sign(t, with(invoiceClaims(), "jti", "delivery-1")) },
			func(t *testing.T) string { return sign(t, with(documentClaims(), "jti", "delivery-1")) }},
		{"event without ids, same claims",
			func(t *testing.T) string { return sign(t, map[string]any{"event": "ping", "n": 1}) },
			func(t *testing.T) string {
				return sign(t, map[string]any{"n": 1, "event": "ping"}, webhook.WithAlgorithm("HS384"))
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := newReplayVerifier(t)
			ev, err := v.Verify(tc.first(t))
			require.NoError(t, err)
			require.NotNil(t, ev)

			second := tc.second(t)
			ev, err = v.Verify(second)
			assert.Nil(t, ev)
			requireOnly(t, err, webhook.ErrReplayed, second)
		})
	}
}

// TestReplayDistinctEventsAccepted checks that events which differ are
// all accepted by one cache.
func TestReplayDistinctEventsAccepted(t *testing.T) {
	v := newReplayVerifier(t)
	tokens := []string{
		sign(t, invoiceClaims()),
		sign(t, with(invoiceClaims(), "invoice_id", uuid.New().String())),
		sign(t, with(invoiceClaims(), "company_id", uuid.New().String())),
		sign(t, documentClaims()),
		sign(t, with(documentClaims(), "document_id", uuid.New().String())),
		sign(t, with(invoiceClaims(), "event", "invoice-paid")),
		sign(t, with(invoiceClaims(), "jti", "a")),
		sign(t, with(invoiceClaims(), "jti", "b")),
		sign(t, map[string]any{"event": "ping", "n": 1}),
		sign(t, map[string]any{"event": "ping", "n": 2}),
		sign(t, map[string]any{"invoice_id": "INV-1"}),
		sign(t, map[string]any{"invoice_id": "INV-2"}),
	}
	for i, tok := range tokens {
		ev, err := v.Verify(tok)
		require.NoError(t, err, "token %d", i)
		require.NotNil(t, ev, "token %d", i)
	}
}

// TestReplayRecordsOnlyVerifiedEvents checks that a token refused for any
// reason leaves no trace in the cache: the valid delivery that follows is
// accepted.
func TestReplayRecordsOnlyVerifiedEvents(t *testing.T) {
	claims := mustJSON(invoiceClaims())
	refused := []struct {
		name  string
		token string
		want  error
	}{
		{"bad signature", rawToken(`{"alg":"HS256"}`, claims, "HS256", []byte("wrong")), webhook.ErrInvalidSignature},
		{"expired", sign(t, with(invoiceClaims(), "exp", testNow.Add(-time.Hour).Unix())), webhook.ErrExpired},
		{"not yet valid", sign(t, with(invoiceClaims(), "nbf", testNow.Add(time.Hour).Unix())), webhook.ErrNotYetValid},
		{"wrong access key", sign(t, invoiceClaims(), webhook.WithSignAccessKey("AK-other")), webhook.ErrAccessKey},
		{"refused algorithm", enc(`{"alg":"none"}`) + "." + enc(claims) + ".", webhook.ErrAlgorithm},
	}
	v := newVerifier(t,
		webhook.WithAccessKey(testAccessKey),
		webhook.WithReplayCache(webhook.NewMemoryReplayCache(100, time.Hour)),
	)
	for _, r := range refused {
		_, err := v.Verify(r.token)
		requireOnly(t, err, r.want, r.token)
	}
	ev, err := v.Verify(sign(t, invoiceClaims()))
	require.NoError(t, err)
	assert.Equal(t, testInvoiceID, ev.InvoiceID)
}

func TestForget(t *testing.T) {
	v := newReplayVerifier(t)
	tok := sign(t, invoiceClaims())
	ev, err := v.Verify(tok)
	require.NoError(t, err)

	_, err = v.Verify(tok)
	requireOnly(t, err, webhook.ErrReplayed, tok)

	require.NoError(t, v.Forget(context.Background(), ev))
	again, err := v.Verify(tok)
	require.NoError(t, err)
	assert.Equal(t, testInvoiceID, again.InvoiceID)

	// Forgetting what was never recorded changes nothing.
	require.NoError(t, v.Forget(context.Background(), nil))
	require.NoError(t, v.Forget(context.Background(), &webhook.Event{Name: webhook.EventNewInvoice}))
	_, err = v.Verify(tok)
	requireOnly(t, err, webhook.ErrReplayed, tok)
}

func TestNoReplayCacheAcceptsRepeats(t *testing.T) {
	v := newVerifier(t)
	tok := sign(t, invoiceClaims())
	for i := 0; i < 3; i++ {
		ev, err := v.Verify(tok)
		require.NoError(t, err)
		assert.Equal(t, testInvoiceID, ev.InvoiceID)
		require.NoError(t, v.Forget(context.Background(), ev)) // no cache: a no-op
	}
}

// failingCache is a ReplayCache whose Add always fails.
type failingCache struct{ removed []string }

var errCacheDown = errors.New("cache is down")

func (c *failingCache) Add(context.Context, string) (bool, error) { return false, errCacheDown }
func (c *failingCache) Remove(_ context.Context, key string) error {
	c.removed = append(c.removed, key)
	return nil
}

func TestReplayCacheError(t *testing.T) {
	c := &failingCache{}
	v := newVerifier(t, webhook.WithReplayCache(c))
	ev, err := v.Verify(sign(t, invoiceClaims()))
	assert.Nil(t, ev)
	require.ErrorIs(t, err, errCacheDown)
	assert.EqualError(t, err, "webhook: replay cache: cache is down")
	for _, s := range sentinels {
		assert.NotErrorIs(t, err, s)
	}
	assert.Empty(t, c.removed)
}

// TestReplayConcurrentDeliveries delivers one event from many goroutines
// at once: exactly one delivery is accepted.
func TestReplayConcurrentDeliveries(t *testing.T) {
	v := newReplayVerifier(t)
	tok := sign(t, invoiceClaims())
	const n = 32
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = v.Verify(tok)
		}()
	}
	wg.Wait()
	accepted, replayed := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			accepted++
		case errors.Is(err, webhook.ErrReplayed):
			replayed++
		}
	}
	assert.Equal(t, 1, accepted)
	assert.Equal(t, n-1, replayed)
}

func TestMemoryReplayCache(t *testing.T) {
	ctx := context.Background()
	c := webhook.NewMemoryReplayCache(2, time.Hour)
	add := func(key string) bool {
		t.Helper()
		ok, err := c.Add(ctx, key)
		require.NoError(t, err)
		return ok
	}
	assert.True(t, add("a"))
	assert.False(t, add("a"))
	assert.True(t, add("b"))
	assert.True(t, add("c"), "adding to a full cache evicts the oldest key")
	assert.True(t, add("a"), "a was evicted")
	assert.False(t, add("c"))

	require.NoError(t, c.Remove(ctx, "c"))
	assert.True(t, add("c"))
	require.NoError(t, c.Remove(ctx, "never-added"))
	assert.False(t, add("c"))
}

func TestMemoryReplayCacheZeroValue(t *testing.T) {
	ctx := context.Background()
	var c webhook.MemoryReplayCache
	require.NoError(t, c.Remove(ctx, "x"))
	ok, err := c.Add(ctx, "x")
	require.NoError(t, err)
	assert.True(t, ok)
	ok, err = c.Add(ctx, "x")
	require.NoError(t, err)
	assert.False(t, ok)
}

// ctxCache is a ReplayCache that records the contexts it is given, and
// whose Remove fails with removeErr, removeFails times.
type ctxCache struct {
	webhook.MemoryReplayCache
	mu           sync.Mutex
	addCtx       []context.Context
	removeCtx    []context.Context
	removeCtxErr []error // ctx.Err() when Remove was called
	removeErr    error
	removeFails  int // Remove fails with removeErr this many times, or always when negative
}

func (c *ctxCache) Add(ctx context.Context, key string) (bool, error) {
	c.mu.Lock()
	c.addCtx = append(c.addCtx, ctx)
	c.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return c.MemoryReplayCache.Add(ctx, key)
}

func (c *ctxCache) Remove(ctx context.Context, key string) error {
	c.mu.Lock()
	c.removeCtx = append(c.removeCtx, ctx)
	c.removeCtxErr = append(c.removeCtxErr, ctx.Err())
	c.mu.Unlock()
	if c.removeErr != nil && c.removeFails != 0 {
		c.removeFails--
		return c.removeErr
	}
	return c.MemoryReplayCache.Remove(ctx, key)
}

type ctxKey struct{}

// TestReplayCacheGetsTheContext checks that the caller's context reaches
// the cache: VerifyContext's, VerifyRequest's request context, and
// Forget's, and that a cancelled one stops Add with an error that wraps
// context.Canceled and matches no sentinel.
func TestReplayCacheGetsTheContext(t *testing.T) {
	c := &ctxCache{}
	v := newVerifier(t, webhook.WithReplayCache(c))
	ctx := context.WithValue(context.Background(), ctxKey{}, "caller")

	ev, err := v.VerifyContext(ctx, sign(t, invoiceClaims()))
	require.NoError(t, err)
	require.NoError(t, v.Forget(ctx, ev))
	r := newRequest(sign(t, documentClaims())).WithContext(ctx)
	_, err = v.VerifyRequest(r)
	require.NoError(t, err)
	require.Len(t, c.addCtx, 2)
	require.Len(t, c.removeCtx, 1)
	for _, got := range append(c.addCtx, c.removeCtx...) {
		assert.Equal(t, "caller", got.Value(ctxKey{}))
	}

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tok := sign(t, with(invoiceClaims(), "jti", "fresh"))
	ev, err = v.VerifyContext(cancelled, tok)
	assert.Nil(t, ev)
	require.ErrorIs(t, err, context.Canceled)
	assert.EqualError(t, err, "webhook: replay cache: context canceled")
	for _, s := range sentinels {
		assert.NotErrorIs(t, err, s)
	}
	ev, err = v.VerifyContext(ctx, tok)
	require.NoError(t, err, "a cancelled Add recorded nothing")
	assert.Equal(t, "fresh", ev.ID)

	//lint:ignore SA1012 a nil context is the case under test
	_, err = v.VerifyContext(nil, tok)
	require.EqualError(t, err, "webhook: nil context")
	//lint:ignore SA1012 a nil context is the case under test
	require.EqualError(t, v.Forget(nil, ev), "webhook: nil context")
}

// TestForgetReportsCacheErrors checks that Forget wraps the cache's error,
// and that when fn fails Handler answers 500 and keeps trying to forget
// the event while the cache fails, with a context that outlives the
// request's but has a deadline, so that the redelivery is processed.
func TestForgetReportsCacheErrors(t *testing.T) {
	c := &ctxCache{removeErr: errCacheDown, removeFails: 1}
	v := newVerifier(t, webhook.WithReplayCache(c))
	ev, err := v.Verify(sign(t, invoiceClaims()))
	require.NoError(t, err)
	err = v.Forget(context.Background(), ev)
	require.ErrorIs(t, err, errCacheDown)
	assert.EqualError(t, err, "webhook: replay cache: cache is down")

	c.removeFails = 3
	reqCtx, cancel := context.WithCancel(context.Background())
	var calls int
	h := v.Handler(func(context.Context, *webhook.Event) error {
		calls++
		if calls == 1 {
			cancel() // the sender hangs up while the function runs
			return errors.New("processing failed")
		}
		return nil
	})
	tok := sign(t, documentClaims())
	w := serve(h, newRequest(tok).WithContext(reqCtx))
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	require.Len(t, c.removeCtx, 1+4, "three failed removals, then one that worked")
	for i := 1; i < len(c.removeCtx); i++ {
		assert.NoError(t, c.removeCtxErr[i], "Forget ran with the request's cancellation")
		_, hasDeadline := c.removeCtx[i].Deadline()
		assert.True(t, hasDeadline, "Forget is bounded")
	}
	assert.Equal(t, http.StatusOK, serve(h, newRequest(tok)).Code)
	assert.Equal(t, 2, calls, "the redelivery was processed")
}
