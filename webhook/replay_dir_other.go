//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package webhook

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// staleLock is how old a lock file must be to be taken for one left by a
// process that died while holding it: far longer than a step takes.
const staleLock = 30 * time.Second

// lock takes the folder's lock where flock is not at hand: the file
// .lock, made with O_EXCL and removed to release it. A lock file older
// than staleLock is removed, as left by a process that died. The
// function it returns releases the lock.
func (c *DirReplayCache) lock() (unlock func(), err error) {
	name := filepath.Join(c.dir, ".lock")
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			f.Close()
			return func() { os.Remove(name) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("webhook: replay folder: locking: %w", err)
		}
		if fi, err := os.Stat(name); err == nil && time.Since(fi.ModTime()) > staleLock {
			os.Remove(name)
			continue
		}
		time.Sleep(wait)
	}
}
