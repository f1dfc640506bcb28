package redisreplay_test

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/acctadmin/acctadmin-go/internal/redisserver"
	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/acctadmin/acctadmin-go/webhook/internal/atleastonce"
	"github.com/acctadmin/acctadmin-go/webhook/redisreplay"
)

// TestAtLeastOnceSenderRedis drives an at-least-once sender against three
// receivers, each with its own go-redis client, sharing one real
// redis-server that the model freezes (SIGSTOP, then SIGCONT) and
// restarts (writes paused and saved first) between deliveries (see package
// atleastonce for the family and the invariants): every event is
// processed successfully at least once, never by two deliveries at once,
// and not again by a delivery that claims it after its success is
// recorded. 4 checks of about 10 steps in the normal suite; -rapid.checks
// and -rapid.steps run more.
func TestAtLeastOnceSenderRedis(t *testing.T) {
	srv := redisserver.Start(t)
	checks, steps := atleastonce.SetBudget(t, 4, 10)
	var caches []*redisreplay.Cache
	for range 3 {
		caches = append(caches, redisreplay.New(newClient(t, srv), redisreplay.WithTimeout(300*time.Millisecond)))
	}
	t.Cleanup(func() { _ = srv.Thaw() })
	var counts atleastonce.Counts
	rapid.Check(t, func(t *rapid.T) {
		atleastonce.Run(t, atleastonce.Config{
			Receivers: len(caches),
			Lease:     600 * time.Millisecond,
			NewCache:  func(_ *rapid.T, i int) webhook.ReplayCache { return caches[i] },
			Faults: map[string]func(*rapid.T){
				"freeze Redis": func(t *rapid.T) {
					d := time.Duration(rapid.IntRange(20, 250).Draw(t, "frozen ms")) * time.Millisecond
					if err := srv.Freeze(); err != nil {
						t.Fatal(err)
					}
					time.Sleep(d)
					if err := srv.Thaw(); err != nil {
						t.Fatal(err)
					}
				},
				"restart Redis": func(t *rapid.T) {
					d := time.Duration(rapid.IntRange(20, 200).Draw(t, "down ms")) * time.Millisecond
					if err := srv.Restart(d); err != nil {
						t.Fatal(err)
					}
				},
			},
			AfterCheck: func() {
				for _, c := range caches {
					c.WaitBackground()
				}
			},
		}, &counts)
	})
	t.Logf("Redis, -rapid.checks=%d -rapid.steps=%d: %v", checks, steps, &counts)
}
