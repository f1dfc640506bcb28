package webhook

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// claimState claims key in c for owner and returns what the claim found.
func claimState(t *testing.T, c *MemoryReplayCache, key, owner string, lease time.Duration) ClaimState {
	t.Helper()
	st, err := c.Claim(context.Background(), key, owner, lease)
	require.NoError(t, err)
	return st
}

// TestMemoryReplayCacheExpiry drives the cache's clock by hand: a done
// record is kept for exactly ttl after it was made.
func TestMemoryReplayCacheExpiry(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	c := NewMemoryReplayCache(10, time.Minute)
	c.now = func() time.Time { return now }
	ctx := context.Background()

	done := func(key string) ClaimState {
		t.Helper()
		st := claimState(t, c, key, "o", time.Hour)
		if st == ClaimNew {
			require.NoError(t, c.Commit(ctx, key))
		}
		return st
	}
	assert.Equal(t, ClaimNew, done("a"))
	now = now.Add(30 * time.Second)
	assert.Equal(t, ClaimNew, done("b"))
	now = now.Add(29 * time.Second)
	assert.Equal(t, ClaimDone, done("a"), "a is remembered until a minute has passed")
	now = now.Add(time.Second)
	assert.Equal(t, ClaimNew, done("a"), "a expired a minute after it was recorded")
	assert.Equal(t, ClaimDone, done("b"))
	assert.Equal(t, 2, c.order.Len())
	assert.Len(t, c.index, 2)

	now = now.Add(2 * time.Minute)
	assert.Equal(t, ClaimNew, done("c"))
	assert.Equal(t, 1, c.order.Len(), "expired keys are dropped")
	assert.Len(t, c.index, 1)
	assert.Empty(t, c.busy, "committed keys hold no in-progress mark")
}

// TestMemoryReplayCacheLease drives the clock by hand: an in-progress mark
// holds for exactly its lease, then the key is new to anyone.
func TestMemoryReplayCacheLease(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	c := NewMemoryReplayCache(10, time.Hour)
	c.now = func() time.Time { return now }

	assert.Equal(t, ClaimNew, claimState(t, c, "k", "a", 10*time.Second))
	assert.Equal(t, ClaimNew, claimState(t, c, "k", "a", 10*time.Second), "the holder's own claim again")
	now = now.Add(9 * time.Second)
	assert.Equal(t, ClaimInProgress, claimState(t, c, "k", "b", 10*time.Second))
	now = now.Add(time.Second)
	assert.Equal(t, ClaimNew, claimState(t, c, "k", "b", 10*time.Second), "a's lease ended")
	require.NoError(t, c.Release(context.Background(), "k", "a"))
	assert.Equal(t, ClaimInProgress, claimState(t, c, "k", "c", time.Second), "a's release leaves b's mark")
	require.NoError(t, c.Release(context.Background(), "k", "b"))
	assert.Equal(t, ClaimNew, claimState(t, c, "k", "c", time.Second))
}

// TestMemoryReplayCacheSweepsBusyMarks fills the cache with marks nobody
// settles: once there are as many as the size, the expired ones go.
func TestMemoryReplayCacheSweepsBusyMarks(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	c := NewMemoryReplayCache(4, time.Hour)
	c.now = func() time.Time { return now }
	for i := range 4 {
		assert.Equal(t, ClaimNew, claimState(t, c, fmt.Sprint(i), "o", time.Second))
	}
	assert.Equal(t, ClaimNew, claimState(t, c, "live", "o", time.Hour))
	assert.Len(t, c.busy, 5, "marks in their lease are never dropped")
	now = now.Add(time.Second)
	assert.Equal(t, ClaimNew, claimState(t, c, "x", "o", time.Hour))
	assert.Len(t, c.busy, 2, "expired marks are swept")
	assert.Contains(t, c.busy, "live")
	assert.Contains(t, c.busy, "x")
}

func TestMemoryReplayCacheBound(t *testing.T) {
	c := NewMemoryReplayCache(100, time.Hour)
	ctx := context.Background()
	for i := range 1000 {
		assert.Equal(t, ClaimNew, claimState(t, c, fmt.Sprint(i), "o", time.Hour))
		require.NoError(t, c.Commit(ctx, fmt.Sprint(i)))
	}
	assert.Equal(t, 100, c.order.Len())
	assert.Len(t, c.index, 100)
	assert.Empty(t, c.busy)
	assert.Equal(t, ClaimDone, claimState(t, c, "999", "o", time.Hour), "the newest records are kept")
	assert.Equal(t, ClaimNew, claimState(t, c, "0", "o", time.Hour), "the oldest records were evicted")
}

func TestMemoryReplayCacheDefaults(t *testing.T) {
	c := NewMemoryReplayCache(0, -time.Second)
	assert.Equal(t, defaultReplaySize, c.size)
	assert.Equal(t, defaultReplayTTL, c.ttl)
}
