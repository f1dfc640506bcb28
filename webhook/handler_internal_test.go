package webhook

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestRetryAfter checks the Retry-After of an answer to an event in
// progress: 5 seconds, or the lease when shorter, in whole seconds rounded
// up, at least one.
func TestRetryAfter(t *testing.T) {
	for lease, want := range map[time.Duration]int{
		time.Hour:               5,
		defaultLease:            5,
		5 * time.Second:         5,
		4500 * time.Millisecond: 5,
		1500 * time.Millisecond: 2,
		time.Second:             1,
		900 * time.Millisecond:  1,
		time.Nanosecond:         1,
	} {
		v := &Verifier{lease: lease}
		assert.Equal(t, want, v.retryAfter(), "lease %v", lease)
	}
}

// TestLeaseMargin checks how long before the lease fn's context ends: a
// fifth of the lease, at most 5 seconds.
func TestLeaseMargin(t *testing.T) {
	for lease, want := range map[time.Duration]time.Duration{
		time.Hour:              5 * time.Second,
		defaultLease:           5 * time.Second,
		25 * time.Second:       5 * time.Second,
		10 * time.Second:       2 * time.Second,
		300 * time.Millisecond: 60 * time.Millisecond,
	} {
		assert.Equal(t, want, leaseMargin(lease), "lease %v", lease)
	}
}
