package redisreplay_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/internal/redisserver"
	"github.com/acctadmin/acctadmin-go/webhook"
)

// The fleet soak's shape.
const (
	fleetEvents      = 10000
	fleetReceivers   = 3
	fleetSenders     = 64
	fleetMaxAttempts = 20                     // per delivery
	fleetBackoff     = 20 * time.Millisecond  // first wait after a non-2xx answer
	fleetMaxBackoff  = 400 * time.Millisecond // doubled up to this
	fleetOutage      = time.Second
	fleetFailEvery   = 97 // the function fails the first time it sees every 97th event
)

// fleetCounts are the soak's tallies.
type fleetCounts struct {
	requests, ok, unavailable, failed, other, transport atomic.Int64
	gaveUp                                              atomic.Int64
	fnFailures                                          atomic.Int64
}

// TestFleetSoak runs three receivers, each with its own go-redis client,
// on one Redis, and has 64 concurrent senders deliver 10,000 distinct
// events, each one to three times to receivers picked at random, as an
// at-least-once sender does: any answer other than 2xx, or no answer, is
// delivered again after a backoff, up to a bound. The function fails the
// first time it sees one event in 97, so that its event must be forgotten
// in Redis and processed on a later delivery. Midway, Redis is stopped for
// a second (writes paused and saved first, so no key is lost) and started
// again on the same port.
//
// Every event is processed exactly once, none is lost, and no sender gives
// up.
func TestFleetSoak(t *testing.T) {
	srv := redisserver.Start(t)

	processed := make([]atomic.Int32, fleetEvents)
	seen := make([]atomic.Int32, fleetEvents) // calls of the function, failed ones included
	var c fleetCounts
	index := func(ev *webhook.Event) int {
		n, _ := ev.Claims["seq"].(json.Number).Int64() // claims keep numbers as json.Number
		return int(n)
	}
	fn := func(_ context.Context, ev *webhook.Event) error {
		i := index(ev)
		if seen[i].Add(1) == 1 && i%fleetFailEvery == 0 {
			c.fnFailures.Add(1)
			return errors.New("downstream unavailable")
		}
		processed[i].Add(1)
		return nil
	}
	var fleet []*receiver
	for range fleetReceivers {
		fleet = append(fleet, newReceiver(t, newClient(t, srv), fn))
	}

	tokens := make([]string, fleetEvents)
	for i := range tokens {
		claims := event()
		claims["seq"] = i
		tokens[i] = sign(t, claims)
	}
	var deliveries []int
	for i := range fleetEvents {
		for range 1 + rand.IntN(3) {
			deliveries = append(deliveries, i)
		}
	}
	rand.Shuffle(len(deliveries), func(a, b int) { deliveries[a], deliveries[b] = deliveries[b], deliveries[a] })

	transport := &http.Transport{MaxIdleConns: 2 * fleetSenders, MaxIdleConnsPerHost: fleetSenders}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: 30 * time.Second}

	send := func(token string) bool {
		wait := fleetBackoff
		for range fleetMaxAttempts {
			r := fleet[rand.IntN(len(fleet))]
			c.requests.Add(1)
			resp, err := client.Post(r.srv.URL, "application/jwt", strings.NewReader(token))
			status := 0
			if err == nil {
				status = resp.StatusCode
				resp.Body.Close()
			}
			switch {
			case err != nil:
				c.transport.Add(1)
			case status/100 == 2:
				c.ok.Add(1)
				return true
			case status == http.StatusServiceUnavailable:
				c.unavailable.Add(1)
			case status == http.StatusInternalServerError:
				c.failed.Add(1)
			default:
				c.other.Add(1)
			}
			time.Sleep(wait)
			wait = min(2*wait, fleetMaxBackoff)
		}
		c.gaveUp.Add(1)
		return false
	}

	work := make(chan int)
	var done atomic.Int64
	var wg sync.WaitGroup
	for range fleetSenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				send(tokens[i])
				done.Add(1)
			}
		}()
	}

	outage := make(chan error, 1)
	go func() {
		for done.Load() < int64(len(deliveries)/2) {
			time.Sleep(5 * time.Millisecond)
		}
		outage <- srv.Restart(fleetOutage)
	}()
	start := time.Now()
	for _, i := range deliveries {
		work <- i
	}
	close(work)
	wg.Wait()
	require.NoError(t, <-outage, "restarting Redis")
	elapsed := time.Since(start)

	var total, replays int64
	for i := range processed {
		n := processed[i].Load()
		require.Equal(t, int32(1), n, "event %d processed %d times", i, n)
		total += int64(n)
	}
	replays = c.ok.Load() - total
	t.Logf("%d events, %d deliveries, %d requests in %v: %d answered 2xx (%d processed, %d replays acknowledged unprocessed), "+
		"%d answered 503 while Redis was down, %d answered 500 (function failed %d times), %d other, %d with no answer; %d deliveries abandoned",
		fleetEvents, len(deliveries), c.requests.Load(), elapsed.Round(time.Millisecond), c.ok.Load(), total, replays,
		c.unavailable.Load(), c.failed.Load(), c.fnFailures.Load(), c.other.Load(), c.transport.Load(), c.gaveUp.Load())

	assert.Equal(t, int64(fleetEvents), total, "every event processed once")
	assert.Zero(t, c.gaveUp.Load(), "a delivery was abandoned")
	assert.Equal(t, int64(len(deliveries)), c.ok.Load(), "every delivery ends in 2xx")
	assert.Positive(t, c.unavailable.Load(), "the outage was not felt: no 503")
	assert.Equal(t, c.fnFailures.Load(), c.failed.Load(), "every 500 is a failed function")
	assert.Equal(t, int64(fleetEvents/fleetFailEvery+1), c.fnFailures.Load())
	assert.Zero(t, c.other.Load(), "answers other than 2xx, 500 and 503")
}
