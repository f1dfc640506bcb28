package webhook_test

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/acctadmin/acctadmin-go/webhook/internal/atleastonce"
)

// TestAtLeastOnceSenderMemory drives an at-least-once sender against three
// receivers sharing one MemoryReplayCache (see package atleastonce for the
// family of behaviours and the invariants): every event is processed
// successfully at least once, never by two deliveries at once, and not
// again by a delivery that claims it after its success is recorded. 10
// checks of about 12 steps in the normal suite; -rapid.checks and
// -rapid.steps run more.
func TestAtLeastOnceSenderMemory(t *testing.T) {
	checks, steps := atleastonce.SetBudget(t, 10, 12)
	var counts atleastonce.Counts
	rapid.Check(t, func(t *rapid.T) {
		cache := webhook.NewMemoryReplayCache(0, 0)
		atleastonce.Run(t, atleastonce.Config{
			Receivers: 3,
			Lease:     500 * time.Millisecond,
			NewCache:  func(*rapid.T, int) webhook.ReplayCache { return cache },
		}, &counts)
	})
	t.Logf("memory cache, -rapid.checks=%d -rapid.steps=%d: %v", checks, steps, &counts)
}
