//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package webhook

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lock takes the folder's lock: an exclusive flock of its file .lock,
// which the system releases if the process dies. The function it returns
// releases it.
func (c *DirReplayCache) lock() (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(c.dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("webhook: replay folder: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("webhook: replay folder: locking: %w", err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
