package parentwatch

import (
	"os"
	"strconv"
	"strings"
)

const inspectable = true

// inspect reads /proc/pid/stat; false when the process does not exist or
// has exited (a zombie).
func inspect(pid int) (proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	// "pid (comm) state ppid ...": comm may hold spaces and parentheses.
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return proc{}, false
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 2 || f[0] == "Z" || f[0] == "X" {
		return proc{}, false
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return proc{}, false
	}
	return proc{name: s[open+1 : end], ppid: ppid}, true
}
