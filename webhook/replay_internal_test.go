package webhook

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMemoryReplayCacheExpiry drives the cache's clock by hand: a key is
// remembered for exactly ttl after it was recorded.
func TestMemoryReplayCacheExpiry(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	c := NewMemoryReplayCache(10, time.Minute)
	c.now = func() time.Time { return now }

	add := func(key string) bool {
		t.Helper()
		ok, err := c.Add(context.Background(), key)
		require.NoError(t, err)
		return ok
	}
	assert.True(t, add("a"))
	now = now.Add(30 * time.Second)
	assert.True(t, add("b"))
	now = now.Add(29 * time.Second)
	assert.False(t, add("a"), "a is remembered until a minute has passed")
	now = now.Add(time.Second)
	assert.True(t, add("a"), "a expired a minute after it was recorded")
	assert.False(t, add("b"))
	assert.Equal(t, 2, c.order.Len())
	assert.Len(t, c.index, 2)

	now = now.Add(2 * time.Minute)
	assert.True(t, add("c"))
	assert.Equal(t, 1, c.order.Len(), "expired keys are dropped")
	assert.Len(t, c.index, 1)
}

func TestMemoryReplayCacheBound(t *testing.T) {
	c := NewMemoryReplayCache(100, time.Hour)
	for i := range 1000 {
		ok, err := c.Add(context.Background(), fmt.Sprint(i))
		require.NoError(t, err)
		require.True(t, ok)
	}
	assert.Equal(t, 100, c.order.Len())
	assert.Len(t, c.index, 100)
	ok, err := c.Add(context.Background(), "999")
	require.NoError(t, err)
	assert.False(t, ok, "the newest keys are kept")
	ok, err = c.Add(context.Background(), "0")
	require.NoError(t, err)
	assert.True(t, ok, "the oldest keys were evicted")
}

func TestMemoryReplayCacheDefaults(t *testing.T) {
	c := NewMemoryReplayCache(0, -time.Second)
	assert.Equal(t, defaultReplaySize, c.size)
	assert.Equal(t, defaultReplayTTL, c.ttl)
}

// TestIdentityIgnoresTokenText checks that the replay key depends on the
// event, not on the token that carried it.
func TestIdentityIgnoresTokenText(t *testing.T) {
	id := "6f1c2f0e-6a43-4bb4-9d55-0c0d7d1f2a01"
	a := newEvent(map[string]any{"event": "new-invoice", "invoice_id": id})
	b := newEvent(map[string]any{"eventName": "new-invoice", "data": map[string]any{"invoiceId": "{" + id + "}"}})
	c := newEvent(map[string]any{"event": "new-document", "document_id": id})
	assert.Equal(t, a.identity(), b.identity())
	assert.NotEqual(t, a.identity(), c.identity())
	assert.Len(t, a.identity(), 64)

	withJTI := newEvent(map[string]any{"event": "new-invoice", "invoice_id": id, "jti": "x"})
	otherJTI := newEvent(map[string]any{"event": "new-invoice", "invoice_id": id, "jti": "y"})
	assert.NotEqual(t, withJTI.identity(), otherJTI.identity())
	assert.NotEqual(t, a.identity(), withJTI.identity())
}
