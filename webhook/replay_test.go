package webhook_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/webhook"
)

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
