package webhook

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DirReplayCache is a ReplayCache kept in a folder, for a receiver on one
// machine that must not process an event twice across restarts: each
// event is one file of the folder, named by the SHA-256 of its key (so
// that no key, whatever it holds, names a file outside the folder),
// holding its mark: in progress for an owner until its lease ends, or
// done until the cache's time to live ends, as MemoryReplayCache keeps
// them. Several goroutines, several DirReplayCaches, and several
// processes of the machine may use one folder at once: every step is
// taken under a lock of the folder (an advisory lock of the file .lock:
// flock on Linux, macOS and the BSDs, which the system releases when a
// process dies; elsewhere the file is made with O_EXCL and a lock left
// over 30 seconds by a process that died is broken), and a mark is
// written whole to a temporary file and then renamed over the event's,
// so that a crash leaves the old mark or the new one, never part of one.
// A done record is synced to disk before Commit returns; a mark in
// progress is not (it ends with its lease anyway).
//
// The folder should be on a local disk: network file systems do not all
// keep advisory locks. Records whose time has passed are removed as the
// cache goes, at most once per hour. Create one with NewDirReplayCache.
type DirReplayCache struct {
	dir string
	ttl time.Duration
	now func() time.Time

	mu        sync.Mutex // the goroutines of this cache; the lock file, the others
	lastSweep time.Time
}

// dirSweepEvery is the least time between two sweeps of the records
// whose time has passed.
const dirSweepEvery = time.Hour

// NewDirReplayCache returns a DirReplayCache keeping its records in dir,
// made (with mode 0700) when it does not exist, each done record for ttl
// after its Commit; a ttl that is not positive selects 24 hours. A
// receiver started again on the same folder finds what it had done.
func NewDirReplayCache(dir string, ttl time.Duration) (*DirReplayCache, error) {
	if dir == "" {
		return nil, errors.New("webhook: replay folder: empty path")
	}
	if ttl <= 0 {
		ttl = defaultReplayTTL
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("webhook: replay folder: %w", err)
	}
	c := &DirReplayCache{dir: dir, ttl: ttl, now: time.Now}
	// The lock file is made here, so that a folder that refuses writes is
	// told at once.
	unlock, err := c.lock()
	if err != nil {
		return nil, err
	}
	unlock()
	return c, nil
}

// entry is the mark of one event, as its file holds it.
type entry struct {
	done    bool
	expires time.Time
	owner   string // of a mark in progress
}

// path is the file of key: the SHA-256 of the key, in hexadecimal.
func (c *DirReplayCache) path(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(c.dir, hex.EncodeToString(sum[:])+".event")
}

// Claim implements ReplayCache. It returns an error wrapping ctx's when
// ctx is done before it starts, and one saying what failed when the
// folder cannot be read or written.
func (c *DirReplayCache) Claim(ctx context.Context, key, owner string, lease time.Duration) (ClaimState, error) {
	if lease <= 0 {
		return 0, errLease
	}
	var state ClaimState
	err := c.locked(ctx, func(now time.Time) error {
		e, ok, err := c.read(key)
		if err != nil {
			return err
		}
		live := ok && now.Before(e.expires)
		switch {
		case live && e.done:
			state = ClaimDone
			return nil
		case live && e.owner != owner:
			state = ClaimInProgress
			return nil
		}
		state = ClaimNew
		return c.write(key, entry{expires: now.Add(lease), owner: owner}, false)
	})
	if err != nil {
		return 0, err
	}
	return state, nil
}

// Commit implements ReplayCache: the done record is on disk when it
// returns nil.
func (c *DirReplayCache) Commit(ctx context.Context, key string) error {
	return c.locked(ctx, func(now time.Time) error {
		return c.write(key, entry{done: true, expires: now.Add(c.ttl)}, true)
	})
}

// Release implements ReplayCache.
func (c *DirReplayCache) Release(ctx context.Context, key, owner string) error {
	return c.locked(ctx, func(time.Time) error {
		e, ok, err := c.read(key)
		if err != nil || !ok || e.done || e.owner != owner {
			return err
		}
		if err := os.Remove(c.path(key)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("webhook: replay folder: %w", err)
		}
		return nil
	})
}

// locked runs step under the folder's lock, with the time, then sweeps
// the records whose time has passed when an hour went by since the last
// sweep.
func (c *DirReplayCache) locked(ctx context.Context, step func(now time.Time) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("webhook: replay folder: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	unlock, err := c.lock()
	if err != nil {
		return err
	}
	defer unlock()
	now := c.now()
	if err := step(now); err != nil {
		return err
	}
	if now.Sub(c.lastSweep) >= dirSweepEvery {
		c.lastSweep = now
		c.sweep(now)
	}
	return nil
}

// read reads key's mark; ok is false when it has none. A file that cannot
// be understood is taken for no mark (it is replaced by the next write).
func (c *DirReplayCache) read(key string) (e entry, ok bool, err error) {
	b, err := os.ReadFile(c.path(key))
	if errors.Is(err, os.ErrNotExist) {
		return entry{}, false, nil
	}
	if err != nil {
		return entry{}, false, fmt.Errorf("webhook: replay folder: %w", err)
	}
	e, ok = parseEntry(string(b))
	return e, ok, nil
}

// parseEntry reads "done <unix nanoseconds>" or "busy <unix nanoseconds>
// <owner in hexadecimal>".
func parseEntry(s string) (entry, bool) {
	f := strings.Fields(s)
	if len(f) < 2 {
		return entry{}, false
	}
	ns, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return entry{}, false
	}
	e := entry{expires: time.Unix(0, ns)}
	switch {
	case f[0] == "done" && len(f) == 2:
		e.done = true
	case f[0] == "busy" && len(f) == 3:
		owner, err := hex.DecodeString(f[2])
		if err != nil {
			return entry{}, false
		}
		e.owner = string(owner)
	default:
		return entry{}, false
	}
	return e, true
}

// write replaces key's mark with e: written to a temporary file of the
// folder, synced when durable, then renamed over the event's file, and
// the folder synced when durable.
func (c *DirReplayCache) write(key string, e entry, durable bool) error {
	text := "busy " + strconv.FormatInt(e.expires.UnixNano(), 10) + " " + hex.EncodeToString([]byte(e.owner)) + "\n"
	if e.done {
		text = "done " + strconv.FormatInt(e.expires.UnixNano(), 10) + "\n"
	}
	f, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("webhook: replay folder: %w", err)
	}
	_, err = f.WriteString(text)
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), c.path(key))
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("webhook: replay folder: %w", err)
	}
	if durable {
		return syncFolder(c.dir)
	}
	return nil
}

// sweep removes the records whose time has passed, and temporary files
// left by a process that died. Errors are ignored: the next sweep tries
// again, and a record left is still read as expired.
func (c *DirReplayCache) sweep(now time.Time) {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	for _, de := range entries {
		name := filepath.Join(c.dir, de.Name())
		switch {
		case strings.HasSuffix(de.Name(), ".event"):
			b, err := os.ReadFile(name)
			if err != nil {
				continue
			}
			if e, ok := parseEntry(string(b)); !ok || !now.Before(e.expires) {
				os.Remove(name)
			}
		case strings.HasPrefix(de.Name(), ".tmp-"):
			// Under the lock no write is under way: a temporary file is
			// a leftover.
			os.Remove(name)
		}
	}
}

// syncFolder syncs the folder path, so that a rename in it survives a
// power cut. A system that cannot sync a folder (Windows) is not an
// error.
func syncFolder(path string) error {
	d, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("webhook: replay folder: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("webhook: replay folder: %w", err)
	}
	return nil
}
