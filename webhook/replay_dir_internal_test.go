package webhook

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// The marks end as the memory cache's do: a mark in progress with its
// lease, a done record with the cache's time to live; and a sweep removes
// the records whose time has passed.
func TestDirReplayCacheExpiry(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c, err := NewDirReplayCache(dir, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 5, 30, 10, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return now }
	claim := func(key, owner string, want ClaimState) {
		t.Helper()
		st, err := c.Claim(ctx, key, owner, time.Minute)
		if err != nil || st != want {
			t.Fatalf("Claim(%q, %q) = %v, %v; want %v", key, owner, st, err, want)
		}
	}
	claim("busy", "1", ClaimNew)
	if err := c.Commit(ctx, "done"); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Minute - time.Nanosecond)
	claim("busy", "2", ClaimInProgress)
	now = now.Add(time.Nanosecond)
	claim("busy", "2", ClaimNew) // the lease ended
	claim("done", "2", ClaimDone)
	now = now.Add(time.Hour - time.Minute - time.Nanosecond)
	claim("done", "2", ClaimDone)
	now = now.Add(time.Nanosecond)
	claim("done", "3", ClaimNew) // its time to live ended

	// A sweep (due an hour after the last) removes what has ended: the
	// mark of "busy" (owner 2's lease ended) goes, "done"'s new mark too.
	now = now.Add(2 * time.Hour)
	if err := c.Commit(ctx, "fresh"); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".event") {
			events = append(events, e.Name())
		}
	}
	if len(events) != 1 || events[0] != strings.TrimPrefix(c.path("fresh"), dir+string(os.PathSeparator)) {
		t.Fatalf("after the sweep: %v, want the record of \"fresh\" alone", events)
	}
}

// A file that is not a mark is taken for no mark, and replaced.
func TestDirReplayCacheUnreadableMark(t *testing.T) {
	ctx := context.Background()
	c, err := NewDirReplayCache(t.TempDir(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, junk := range []string{"", "done", "done x", "busy 1", "busy 1 zz", "what 1", "done 1 2"} {
		if err := os.WriteFile(c.path("k"), []byte(junk), 0o600); err != nil {
			t.Fatal(err)
		}
		if st, err := c.Claim(ctx, "k", "o", time.Hour); err != nil || st != ClaimNew {
			t.Fatalf("over %q: %v, %v", junk, st, err)
		}
	}
}
