package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/webhook"
)

// TestFakeSenderTimeoutShorterThanTheFunction has the fake API deliver a
// new-document event with a 300 ms timeout to a receiver whose first
// attempt takes a second and then fails (a download answered 503, say). The
// sender times out and delivers again while the first attempt still runs:
// that redelivery must not be acknowledged, or the event is lost when the
// first attempt fails. The document is stored, once, and the sender's last
// delivery is acknowledged.
func TestFakeSenderTimeoutShorterThanTheFunction(t *testing.T) {
	fake := acctadmintest.NewServer(
		acctadmintest.WithDeliveryTimeout(300*time.Millisecond),
		acctadmintest.WithDeliveryRetry(8, 100*time.Millisecond),
	)
	defer fake.Close()
	v, err := webhook.NewVerifier([]byte(fake.SecretKey),
		webhook.WithAccessKey(fake.AccessKey),
		webhook.WithReplayCache(webhook.NewMemoryReplayCache(0, 0)))
	require.NoError(t, err)
	var calls, running, stored atomic.Int32
	var overlapped atomic.Bool
	receiver := httptest.NewServer(v.Handler(func(ctx context.Context, ev *webhook.Event) error {
		if running.Add(1) > 1 {
			overlapped.Store(true)
		}
		defer running.Add(-1)
		if calls.Add(1) == 1 {
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
				return ctx.Err()
			}
			return errors.New("download: 503 Service Unavailable")
		}
		stored.Add(1)
		return nil
	}))
	defer receiver.Close()

	fake.AddCallback(receiver.URL)
	co := fake.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah", EntityType: "LLC"})
	fake.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, Title: "Service of Process", Pages: 1})

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	deliveries, err := fake.WaitDeliveries(ctx, 1)
	require.NoError(t, err)
	last := deliveries[len(deliveries)-1]
	assert.True(t, last.Delivered, "the sender's last attempt was not acknowledged: %+v", last)
	assert.Equal(t, int32(1), stored.Load(), "file stored")
	assert.False(t, overlapped.Load(), "two deliveries ran the function at once")
	var codes []int
	for _, d := range deliveries {
		codes = append(codes, d.StatusCode)
	}
	assert.Contains(t, codes, http.StatusServiceUnavailable, "no redelivery found the event in progress: %v", codes)
	assert.Equal(t, int32(2), calls.Load())
}
