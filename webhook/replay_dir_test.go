package webhook_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/acctadmin/acctadmin-go/webhook/internal/atleastonce"
)

func newDirCache(t testing.TB, dir string) *webhook.DirReplayCache {
	t.Helper()
	c, err := webhook.NewDirReplayCache(dir, time.Hour)
	require.NoError(t, err)
	return c
}

// The marks as MemoryReplayCache keeps them: in progress for one owner,
// done for every owner once committed, released only by its owner; and a
// second cache on the folder (a receiver started again, or another
// process) sees them all.
func TestDirReplayCache(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c := newDirCache(t, dir)
	claim := func(c *webhook.DirReplayCache, key, owner string) webhook.ClaimState {
		t.Helper()
		st, err := c.Claim(ctx, key, owner, time.Hour)
		require.NoError(t, err)
		return st
	}
	assert.Equal(t, webhook.ClaimNew, claim(c, "a", "1"))
	assert.Equal(t, webhook.ClaimNew, claim(c, "a", "1"), "the owner claims again")
	assert.Equal(t, webhook.ClaimInProgress, claim(c, "a", "2"))
	require.NoError(t, c.Commit(ctx, "a"))
	assert.Equal(t, webhook.ClaimDone, claim(c, "a", "2"))
	assert.Equal(t, webhook.ClaimDone, claim(c, "a", "1"))
	require.NoError(t, c.Commit(ctx, "c"), "a commit without a claim records the key all the same")
	assert.Equal(t, webhook.ClaimDone, claim(c, "c", "1"))

	assert.Equal(t, webhook.ClaimNew, claim(c, "b", "1"))
	require.NoError(t, c.Release(ctx, "b", "2"), "not b's owner: nothing happens")
	assert.Equal(t, webhook.ClaimInProgress, claim(c, "b", "2"))
	require.NoError(t, c.Release(ctx, "b", "1"))
	assert.Equal(t, webhook.ClaimNew, claim(c, "b", "2"))
	require.NoError(t, c.Release(ctx, "never-claimed", "1"))
	require.NoError(t, c.Release(ctx, "a", "1"), "releasing a done key")
	assert.Equal(t, webhook.ClaimDone, claim(c, "a", "3"))

	again := newDirCache(t, dir)
	assert.Equal(t, webhook.ClaimDone, claim(again, "a", "4"))
	assert.Equal(t, webhook.ClaimDone, claim(again, "c", "4"))
	assert.Equal(t, webhook.ClaimInProgress, claim(again, "b", "4"), "b is held by owner 2 of the first cache")

	_, err := c.Claim(ctx, "d", "1", 0)
	require.Error(t, err, "a lease that is not positive")
	done, cancel := context.WithCancel(ctx)
	cancel()
	_, err = c.Claim(done, "d", "1", time.Hour)
	require.ErrorIs(t, err, context.Canceled)
	st, err := c.Claim(ctx, "d", "1", time.Hour)
	require.NoError(t, err)
	assert.Equal(t, webhook.ClaimNew, st, "the canceled claim marked nothing")
}

func TestNewDirReplayCacheRefusesAFolderItCannotUse(t *testing.T) {
	_, err := webhook.NewDirReplayCache("", time.Hour)
	require.Error(t, err)
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, err = webhook.NewDirReplayCache(file, time.Hour)
	require.Error(t, err, "a file, not a folder")
	_, err = webhook.NewDirReplayCache(filepath.Join(file, "under"), time.Hour)
	require.Error(t, err)
}

// A receiver handles an event, is started again on the same folder (a
// new cache, verifier and handler), and the event delivered again is
// acknowledged without calling its function.
func TestDirReplayCacheSurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	body := `{"data":"` + sign(t, invoiceClaims()) + `"}`
	var calls atomic.Int32
	fn := func(context.Context, *webhook.Event) error { calls.Add(1); return nil }

	first := newVerifier(t, webhook.WithReplayCache(newDirCache(t, dir))).Handler(fn)
	require.Equal(t, http.StatusOK, serve(first, newRequest(body)).Code)
	require.Equal(t, int32(1), calls.Load())

	restarted := newVerifier(t, webhook.WithReplayCache(newDirCache(t, dir))).Handler(fn)
	w := serve(restarted, newRequest(body))
	assert.True(t, w.Code >= 200 && w.Code < 300, "redelivery answered %d", w.Code)
	assert.Equal(t, int32(1), calls.Load(), "the restarted receiver handled the event again")

	other := `{"data":"` + sign(t, documentClaims()) + `"}`
	require.Equal(t, http.StatusOK, serve(restarted, newRequest(other)).Code)
	assert.Equal(t, int32(2), calls.Load(), "another event is handled")
}

// Deliveries of one event at once, to receivers with caches of their own
// on one folder (as processes would have): the function is called once.
func TestDirReplayCacheConcurrentDeliveries(t *testing.T) {
	dir := t.TempDir()
	body := `{"data":"` + sign(t, documentClaims()) + `"}`
	var calls atomic.Int32
	fn := func(context.Context, *webhook.Event) error { calls.Add(1); return nil }
	var handlers []http.Handler
	for range 4 {
		handlers = append(handlers, newVerifier(t, webhook.WithReplayCache(newDirCache(t, dir))).Handler(fn))
	}
	var wg sync.WaitGroup
	codes := make([]int, 16)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = serve(handlers[i%len(handlers)], newRequest(body)).Code
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(1), calls.Load(), "answers %v", codes)
	for _, code := range codes {
		assert.Contains(t, []int{http.StatusOK, http.StatusServiceUnavailable}, code)
	}
}

// TestAtLeastOnceSenderDir drives the at-least-once sender (package
// atleastonce) against three receivers, each with a DirReplayCache of its
// own on one folder, as three processes of one machine would be.
func TestAtLeastOnceSenderDir(t *testing.T) {
	checks, steps := atleastonce.SetBudget(t, 10, 12)
	var counts atleastonce.Counts
	rapid.Check(t, func(rt *rapid.T) {
		dir, err := os.MkdirTemp(t.TempDir(), "replay")
		if err != nil {
			rt.Fatal(err)
		}
		atleastonce.Run(rt, atleastonce.Config{
			Receivers: 3,
			Lease:     500 * time.Millisecond,
			NewCache: func(rt *rapid.T, _ int) webhook.ReplayCache {
				c, err := webhook.NewDirReplayCache(dir, time.Hour)
				if err != nil {
					rt.Fatal(err)
				}
				return c
			},
		}, &counts)
	})
	t.Logf("folder cache, -rapid.checks=%d -rapid.steps=%d: %v", checks, steps, &counts)
}

// No key, whatever it holds (slashes, dots, NUL, a path), names a file
// outside the folder: the folder's parent holds the folder alone, and the
// folder only event files and its lock.
func FuzzDirReplayCacheKeys(f *testing.F) {
	for _, s := range []string{"", "a", "../escape", "/etc/passwd", "..", "a/../../b", "\x00", strings.Repeat("f", 64), "C:\\x", ".lock"} {
		f.Add(s)
	}
	parent := f.TempDir()
	dir := filepath.Join(parent, "replay")
	c, err := webhook.NewDirReplayCache(dir, time.Hour)
	require.NoError(f, err)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, key string) {
		st, err := c.Claim(ctx, key, "owner", time.Hour)
		require.NoError(t, err)
		require.NotZero(t, st)
		require.NoError(t, c.Commit(ctx, key))
		st, err = c.Claim(ctx, key, "other", time.Hour)
		require.NoError(t, err)
		require.Equal(t, webhook.ClaimDone, st)
		top, err := os.ReadDir(parent)
		require.NoError(t, err)
		require.Len(t, top, 1)
		require.Equal(t, "replay", top[0].Name())
		inside, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range inside {
			name := e.Name()
			ok := name == ".lock" || strings.HasSuffix(name, ".event") && len(name) == 64+len(".event") && !e.IsDir()
			require.True(t, ok, "unexpected entry %q for key %q", name, key)
		}
	})
}

// dirReplayHelperEnv names the folder for TestDirReplayCacheHelperProcess
// when the test binary runs as one of the processes of
// TestDirReplayCacheAcrossProcesses.
const dirReplayHelperEnv = "ACCTADMIN_DIR_REPLAY_HELPER"

// Three processes claim the same 40 events on one folder at once, each
// committing what it got: each event is claimed new by one process.
func TestDirReplayCacheAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDirReplayCacheHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), dirReplayHelperEnv+"="+dir)
		out := new(strings.Builder)
		cmd.Stdout, cmd.Stderr = out, out
		require.NoError(t, cmd.Start())
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	got := map[string]int{}
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), outs[i].String())
		for _, line := range strings.Split(outs[i].String(), "\n") {
			if key, ok := strings.CutPrefix(line, "new "); ok {
				got[key]++
			}
		}
	}
	require.Len(t, got, 40)
	for key, n := range got {
		require.Equal(t, 1, n, "event %s claimed new by %d processes", key, n)
	}
}

// TestDirReplayCacheHelperProcess is one process of
// TestDirReplayCacheAcrossProcesses; run alone it does nothing.
func TestDirReplayCacheHelperProcess(t *testing.T) {
	dir := os.Getenv(dirReplayHelperEnv)
	if dir == "" {
		return
	}
	c := newDirCache(t, dir)
	owner := strconv.Itoa(os.Getpid())
	for i := range 40 {
		key := "event-" + strconv.Itoa(i)
		st, err := c.Claim(context.Background(), key, owner, time.Minute)
		require.NoError(t, err)
		if st == webhook.ClaimNew {
			fmt.Println("new " + key)
			require.NoError(t, c.Commit(context.Background(), key))
		}
	}
}
