//go:build unix

package mailroom

import (
	"errors"
	"os"
	"syscall"
)

// processAlive tells whether a process with that id runs on this machine.
func processAlive(pid int) bool {
	if pid == os.Getpid() {
		return true
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
