package webhook_test

import (
	"context"
	"errors"
	"fmt"
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
// the same event in another spelling, and expects the second refused: as
// in progress while the first is not committed, as a replay once it is.
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
			got, err := v.Verify(second)
			assert.Nil(t, got)
			requireOnly(t, err, webhook.ErrInProgress, second)

			require.NoError(t, v.Commit(context.Background(), ev))
			got, err = v.Verify(second)
			assert.Nil(t, got)
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

// TestForgetAndCommit walks one event through its marks: claimed (a second
// delivery is in progress), forgotten (the next delivery claims it),
// committed (every later delivery is a replay, and forgetting it changes
// nothing).
func TestForgetAndCommit(t *testing.T) {
	ctx := context.Background()
	v := newReplayVerifier(t)
	tok := sign(t, invoiceClaims())
	ev, err := v.Verify(tok)
	require.NoError(t, err)

	_, err = v.Verify(tok)
	requireOnly(t, err, webhook.ErrInProgress, tok)

	require.NoError(t, v.Forget(ctx, ev))
	again, err := v.Verify(tok)
	require.NoError(t, err)
	assert.Equal(t, testInvoiceID, again.InvoiceID)

	require.NoError(t, v.Forget(ctx, ev), "a stale delivery's release is a no-op")
	_, err = v.Verify(tok)
	requireOnly(t, err, webhook.ErrInProgress, tok)

	require.NoError(t, v.Commit(ctx, again))
	_, err = v.Verify(tok)
	requireOnly(t, err, webhook.ErrReplayed, tok)
	require.NoError(t, v.Forget(ctx, again), "releasing a done event")
	_, err = v.Verify(tok)
	requireOnly(t, err, webhook.ErrReplayed, tok)

	// Settling what was never claimed changes nothing.
	for _, ev := range []*webhook.Event{nil, {Name: webhook.EventNewInvoice}} {
		require.NoError(t, v.Forget(ctx, ev))
		require.NoError(t, v.Commit(ctx, ev))
	}
	_, err = v.Verify(tok)
	requireOnly(t, err, webhook.ErrReplayed, tok)
}

// TestLeaseEnds claims an event and never settles it, as a receiver that
// died would: deliveries are in progress until the lease ends, and then
// the event is accepted again.
func TestLeaseEnds(t *testing.T) {
	v := newVerifier(t,
		webhook.WithReplayCache(webhook.NewMemoryReplayCache(10, time.Hour)),
		webhook.WithLease(50*time.Millisecond))
	tok := sign(t, invoiceClaims())
	_, err := v.Verify(tok)
	require.NoError(t, err)
	_, err = v.Verify(tok)
	requireOnly(t, err, webhook.ErrInProgress, tok)

	deadline := time.Now().Add(10 * time.Second)
	for {
		ev, err := v.Verify(tok)
		if err == nil {
			assert.Equal(t, testInvoiceID, ev.InvoiceID)
			break
		}
		requireOnly(t, err, webhook.ErrInProgress, tok)
		require.True(t, time.Now().Before(deadline), "the lease never ended")
		time.Sleep(10 * time.Millisecond)
	}
}

func TestNoReplayCacheAcceptsRepeats(t *testing.T) {
	v := newVerifier(t)
	tok := sign(t, invoiceClaims())
	for i := 0; i < 3; i++ {
		ev, err := v.Verify(tok)
		require.NoError(t, err)
		assert.Equal(t, testInvoiceID, ev.InvoiceID)
		require.NoError(t, v.Forget(context.Background(), ev)) // no cache: a no-op
		require.NoError(t, v.Commit(context.Background(), ev))
	}
}

// failingCache is a ReplayCache whose Claim always fails, or answers
// state without an error when state is set.
type failingCache struct {
	state   webhook.ClaimState
	settled []string
}

var errCacheDown = errors.New("cache is down")

func (c *failingCache) Claim(context.Context, string, string, time.Duration) (webhook.ClaimState, error) {
	if c.state != 0 {
		return c.state, nil
	}
	return 0, errCacheDown
}

func (c *failingCache) Commit(_ context.Context, key string) error {
	c.settled = append(c.settled, key)
	return nil
}

func (c *failingCache) Release(_ context.Context, key, _ string) error {
	c.settled = append(c.settled, key)
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
	assert.Empty(t, c.settled)
}

// TestReplayCacheAnswersNoState checks that a cache answering a claim
// state that is none of the three, without an error, fails closed: an
// error that is neither a replay nor in progress.
func TestReplayCacheAnswersNoState(t *testing.T) {
	for _, st := range []webhook.ClaimState{-1, 4, 1 << 30} {
		c := &failingCache{state: st}
		v := newVerifier(t, webhook.WithReplayCache(c))
		ev, err := v.Verify(sign(t, invoiceClaims()))
		assert.Nil(t, ev)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "webhook: replay cache: claim answered")
		for _, s := range sentinels {
			assert.NotErrorIs(t, err, s)
		}
		rec := &recorder{}
		w := serve(v.Handler(rec.handle), newRequest(sign(t, invoiceClaims())))
		assert.Equal(t, http.StatusServiceUnavailable, w.Code)
		assert.Empty(t, rec.events)
	}
}

// TestReplayConcurrentDeliveries delivers one event from many goroutines
// at once: exactly one delivery is accepted, the others find it in
// progress.
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
	accepted, busy := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			accepted++
		case errors.Is(err, webhook.ErrInProgress):
			busy++
		}
	}
	assert.Equal(t, 1, accepted)
	assert.Equal(t, n-1, busy)
}

func TestMemoryReplayCache(t *testing.T) {
	ctx := context.Background()
	c := webhook.NewMemoryReplayCache(2, time.Hour)
	claim := func(key, owner string) webhook.ClaimState {
		t.Helper()
		st, err := c.Claim(ctx, key, owner, time.Hour)
		require.NoError(t, err)
		return st
	}
	commit := func(key string) { t.Helper(); require.NoError(t, c.Commit(ctx, key)) }
	assert.Equal(t, webhook.ClaimNew, claim("a", "1"))
	assert.Equal(t, webhook.ClaimInProgress, claim("a", "2"))
	commit("a")
	assert.Equal(t, webhook.ClaimDone, claim("a", "2"))
	assert.Equal(t, webhook.ClaimNew, claim("b", "1"))
	commit("b")
	commit("c") // a commit without a claim records the key all the same
	assert.Equal(t, webhook.ClaimDone, claim("c", "1"))
	assert.Equal(t, webhook.ClaimNew, claim("a", "1"), "committing a third key evicted the oldest")
	assert.Equal(t, webhook.ClaimDone, claim("b", "1"))

	require.NoError(t, c.Release(ctx, "a", "2"), "not a's owner: nothing happens")
	assert.Equal(t, webhook.ClaimInProgress, claim("a", "2"))
	require.NoError(t, c.Release(ctx, "a", "1"))
	assert.Equal(t, webhook.ClaimNew, claim("a", "2"))
	require.NoError(t, c.Release(ctx, "never-claimed", "1"))
	require.NoError(t, c.Release(ctx, "b", "1"), "releasing a done key")
	assert.Equal(t, webhook.ClaimDone, claim("b", "1"))

	for _, lease := range []time.Duration{0, -time.Second} {
		_, err := c.Claim(ctx, "z", "1", lease)
		require.Error(t, err, "lease %v", lease)
	}
}

func TestMemoryReplayCacheZeroValue(t *testing.T) {
	ctx := context.Background()
	var c webhook.MemoryReplayCache
	require.NoError(t, c.Release(ctx, "x", "o"))
	st, err := c.Claim(ctx, "x", "o", time.Minute)
	require.NoError(t, err)
	assert.Equal(t, webhook.ClaimNew, st)
	require.NoError(t, c.Commit(ctx, "x"))
	st, err = c.Claim(ctx, "x", "p", time.Minute)
	require.NoError(t, err)
	assert.Equal(t, webhook.ClaimDone, st)
}

func TestClaimStateString(t *testing.T) {
	for st, want := range map[webhook.ClaimState]string{
		webhook.ClaimNew: "new", webhook.ClaimInProgress: "in progress", webhook.ClaimDone: "done", 0: "invalid", 9: "invalid",
	} {
		assert.Equal(t, want, st.String())
	}
}

// ctxCache is a ReplayCache that records the contexts it is given, and
// whose Commit and Release fail with settleErr, settleFails times.
type ctxCache struct {
	webhook.MemoryReplayCache
	mu          sync.Mutex
	claimCtx    []context.Context
	settleCtx   []context.Context
	settleErrs  []error // ctx.Err() when Commit or Release was called
	commits     int
	releases    int
	settleErr   error
	settleFails int // Commit and Release fail with settleErr this many times, or always when negative
}

func (c *ctxCache) Claim(ctx context.Context, key, owner string, lease time.Duration) (webhook.ClaimState, error) {
	c.mu.Lock()
	c.claimCtx = append(c.claimCtx, ctx)
	c.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return c.MemoryReplayCache.Claim(ctx, key, owner, lease)
}

// settle records a Commit or Release and reports whether it should fail.
func (c *ctxCache) settle(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.settleCtx = append(c.settleCtx, ctx)
	c.settleErrs = append(c.settleErrs, ctx.Err())
	if c.settleErr != nil && c.settleFails != 0 {
		c.settleFails--
		return c.settleErr
	}
	return nil
}

func (c *ctxCache) Commit(ctx context.Context, key string) error {
	if err := c.settle(ctx); err != nil {
		return err
	}
	c.mu.Lock()
	c.commits++
	c.mu.Unlock()
	return c.MemoryReplayCache.Commit(ctx, key)
}

func (c *ctxCache) Release(ctx context.Context, key, owner string) error {
	if err := c.settle(ctx); err != nil {
		return err
	}
	c.mu.Lock()
	c.releases++
	c.mu.Unlock()
	return c.MemoryReplayCache.Release(ctx, key, owner)
}

type ctxKey struct{}

// TestReplayCacheGetsTheContext checks that the caller's context reaches
// the cache: VerifyContext's, VerifyRequest's and Handler's request
// context, Commit's and Forget's, each carrying the event; and that a
// cancelled one stops Claim with an error that wraps context.Canceled and
// matches no sentinel.
func TestReplayCacheGetsTheContext(t *testing.T) {
	c := &ctxCache{}
	v := newVerifier(t, webhook.WithReplayCache(c))
	ctx := context.WithValue(context.Background(), ctxKey{}, "caller")

	ev, err := v.VerifyContext(ctx, sign(t, invoiceClaims()))
	require.NoError(t, err)
	require.NoError(t, v.Forget(ctx, ev))
	require.NoError(t, v.Commit(ctx, ev))
	r := newRequest(sign(t, documentClaims())).WithContext(ctx)
	_, err = v.VerifyRequest(r)
	require.NoError(t, err)
	var inFn context.Context
	h := v.Handler(func(ctx context.Context, _ *webhook.Event) error {
		inFn = ctx
		return nil
	})
	w := serve(h, newRequest(sign(t, with(invoiceClaims(), "jti", "handler"))).WithContext(ctx))
	require.Equal(t, http.StatusOK, w.Code)
	require.Len(t, c.claimCtx, 3)
	require.Len(t, c.settleCtx, 3, "Forget, Commit, and the handler's Commit")
	for i, got := range append(c.claimCtx, c.settleCtx...) {
		assert.Equal(t, "caller", got.Value(ctxKey{}), "context %d", i)
		ev, ok := webhook.FromContext(got)
		if assert.True(t, ok, "context %d carries the event", i) {
			assert.NotEmpty(t, ev.Name)
		}
	}
	assert.Equal(t, "caller", inFn.Value(ctxKey{}), "fn's context derives from the request's")

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
	w = serve(h, newRequest(tok).WithContext(cancelled))
	assert.Equal(t, http.StatusServiceUnavailable, w.Code, "the handler's claim ends with the request")
	ev, err = v.VerifyContext(ctx, tok)
	require.NoError(t, err, "a cancelled Claim recorded nothing")
	assert.Equal(t, "fresh", ev.ID)

	//lint:ignore SA1012 a nil context is the case under test
	_, err = v.VerifyContext(nil, tok)
	require.EqualError(t, err, "webhook: nil context")
	//lint:ignore SA1012 a nil context is the case under test
	require.EqualError(t, v.Forget(nil, ev), "webhook: nil context")
	//lint:ignore SA1012 a nil context is the case under test
	require.EqualError(t, v.Commit(nil, ev), "webhook: nil context")
}

// TestSettleReportsCacheErrors checks that Forget and Commit wrap the
// cache's error, and that Handler keeps trying to settle the event while
// the cache fails, with a context that outlives the request's but has a
// deadline: after a failure, so that the redelivery is processed; after
// a success, so that it is acknowledged.
func TestSettleReportsCacheErrors(t *testing.T) {
	c := &ctxCache{settleErr: errCacheDown, settleFails: 2}
	v := newVerifier(t, webhook.WithReplayCache(c))
	ev, err := v.Verify(sign(t, invoiceClaims()))
	require.NoError(t, err)
	err = v.Forget(context.Background(), ev)
	require.ErrorIs(t, err, errCacheDown)
	assert.EqualError(t, err, "webhook: replay cache: cache is down")
	err = v.Commit(context.Background(), ev)
	require.ErrorIs(t, err, errCacheDown)
	assert.EqualError(t, err, "webhook: replay cache: cache is down")

	for _, fnFails := range []bool{true, false} {
		c.mu.Lock()
		c.settleFails, c.settleCtx, c.settleErrs, c.commits, c.releases = 3, nil, nil, 0, 0
		c.mu.Unlock()
		reqCtx, cancel := context.WithCancel(context.Background())
		var calls int
		h := v.Handler(func(context.Context, *webhook.Event) error {
			calls++
			cancel() // the sender hangs up while the function runs
			if fnFails && calls == 1 {
				return errors.New("processing failed")
			}
			return nil
		})
		tok := sign(t, with(documentClaims(), "jti", fmt.Sprint(fnFails)))
		w := serve(h, newRequest(tok).WithContext(reqCtx))
		require.Len(t, c.settleCtx, 4, "three failed attempts, then one that worked")
		for i, err := range c.settleErrs {
			assert.NoError(t, err, "the outcome was recorded with the request's cancellation")
			_, hasDeadline := c.settleCtx[i].Deadline()
			assert.True(t, hasDeadline, "settling is bounded")
		}
		if fnFails {
			assert.Equal(t, http.StatusInternalServerError, w.Code)
			assert.Equal(t, 1, c.releases)
			assert.Equal(t, http.StatusOK, serve(h, newRequest(tok)).Code)
			assert.Equal(t, 2, calls, "the redelivery was processed")
		} else {
			assert.Equal(t, http.StatusOK, w.Code)
			assert.Equal(t, 1, c.commits)
			assert.Equal(t, http.StatusOK, serve(h, newRequest(tok)).Code)
			assert.Equal(t, 1, calls, "the redelivery was acknowledged, not processed")
		}
	}
}
