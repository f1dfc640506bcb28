//go:build unix && !linux

package parentwatch

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

const inspectable = true

// inspect asks ps; false when the process does not exist or has exited
// (a zombie), or ps cannot say.
func inspect(pid int) (proc, bool) {
	out, err := exec.Command("ps", "-o", "ppid=", "-o", "stat=", "-o", "comm=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return proc{}, false
	}
	f := strings.Fields(string(out))
	if len(f) < 3 || strings.HasPrefix(f[1], "Z") {
		return proc{}, false
	}
	ppid, err := strconv.Atoi(f[0])
	if err != nil {
		return proc{}, false
	}
	return proc{name: filepath.Base(strings.Join(f[2:], " ")), ppid: ppid}, true
}
