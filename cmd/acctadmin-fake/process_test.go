//go:build unix

package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acctadmin/acctadmin-go/internal/parentwatch"
	"github.com/stretchr/testify/require"
)

// exitBound is how long a stopped server may take to exit before the test
// gives up on it; it bounds the wait, it measures nothing.
const exitBound = 30 * time.Second

// readLines reads r line by line into a channel that is closed at EOF.
func readLines(r io.Reader) <-chan string {
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// nextLine returns the next line that starts with prefix, failing the
// test at EOF or after exitBound.
func nextLine(t *testing.T, lines <-chan string, prefix string) string {
	t.Helper()
	return nextLineWithin(t, lines, prefix, exitBound)
}

// drain waits for the end of the output (every writer has exited) and
// returns what was left in it.
func drain(t *testing.T, lines <-chan string) string {
	t.Helper()
	var rest strings.Builder
	deadline := time.After(exitBound)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return rest.String()
			}
			rest.WriteString(l + "\n")
		case <-deadline:
			t.Fatalf("the server did not exit; output so far:\n%s", rest.String())
		}
	}
}

func serverCommand(t *testing.T, name string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(name, args...)
	if name == "" {
		cmd = exec.Command(exe, args...)
	}
	cmd.Env = append(os.Environ(), runAsServerEnv+"=1", "ACCTADMIN_FAKE_EXE="+exe)
	return cmd
}

// TestStopsOnSignal: the process stops serving, releases its port and
// exits 0 on SIGTERM and on SIGINT.
func TestStopsOnSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd := serverCommand(t, "", "-addr", "127.0.0.1:0")
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Kill() }) // a no-op once it has exited
		lines := readLines(out)
		base := strings.TrimPrefix(nextLine(t, lines, "ACCTADMIN_BASE_URL="), "ACCTADMIN_BASE_URL=")
		require.True(t, strings.HasPrefix(base, "http://127.0.0.1:"), base)
		port, err := strconv.Atoi(base[strings.LastIndexByte(base, ':')+1:])
		require.NoError(t, err)
		require.NotZero(t, port, "the banner carries the port the system chose")

		require.NoError(t, cmd.Process.Signal(sig))
		require.Contains(t, drain(t, lines), "acctadmin-fake stopped", sig.String())
		require.NoError(t, cmd.Wait(), sig.String())
	}
}

// TestStopsWhenParentDies: a harness that dies without stopping the
// server (killed, or `go run` stopped with SIGTERM) does not leave it
// running.
func TestStopsWhenParentDies(t *testing.T) {
	// sh starts the server in the background and waits: sh is its parent.
	cmd := serverCommand(t, "/bin/sh", "-c", `"$ACCTADMIN_FAKE_EXE" -addr 127.0.0.1:0 & echo "PID=$!"; wait`)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := readLines(out)
	pid, err := strconv.Atoi(strings.TrimPrefix(nextLine(t, lines, "PID="), "PID="))
	require.NoError(t, err)
	// Should the server not stop by itself, the test still stops it.
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	nextLine(t, lines, "ACCTADMIN_BASE_URL=")

	require.NoError(t, cmd.Process.Kill())
	// The server still holds the pipe; it closes it when it exits. (Wait
	// would close the pipe at once: it comes after.)
	rest := drain(t, lines)
	_ = cmd.Wait()
	require.Contains(t, rest, "acctadmin-fake stopped", "server %d", pid)
}

// TestSurviveParent: with -survive-parent the server outlives its parent
// until it is told to stop.
func TestSurviveParent(t *testing.T) {
	cmd := serverCommand(t, "/bin/sh", "-c", `"$ACCTADMIN_FAKE_EXE" -addr 127.0.0.1:0 -survive-parent & echo "PID=$!"; wait`)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := readLines(out)
	pid, err := strconv.Atoi(strings.TrimPrefix(nextLine(t, lines, "PID="), "PID="))
	require.NoError(t, err)
	// The server outlives the test's parent on purpose: whatever fails
	// below, it is stopped by its pid.
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	base := strings.TrimPrefix(nextLine(t, lines, "ACCTADMIN_BASE_URL="), "ACCTADMIN_BASE_URL=")
	require.NoError(t, cmd.Process.Kill())

	// Several of the parent checks pass; the server still answers.
	time.Sleep(4 * parentwatch.Poll)
	resp, err := (&http.Client{Timeout: exitBound}).Get(base + "/_fake/")
	require.NoError(t, err, "the server outlived its parent")
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	require.NoError(t, syscall.Kill(pid, syscall.SIGTERM))
	rest := drain(t, lines)
	_ = cmd.Wait()
	require.Contains(t, rest, "acctadmin-fake stopped")
}

// buildBound bounds how long `go run` may take to build and start the
// server on a loaded machine; it bounds a wait, it measures nothing.
const buildBound = 5 * time.Minute

// TestStopsWhenGoRunsHarnessDies: a harness that starts the server with
// `go run` and is killed (SIGKILL: nothing of it runs to stop anything)
// leaves no server behind, although the go command, the server's parent,
// outlives it. The harness (sh) prints the go command's pid and the
// server its own in its banner; both are stopped by pid at the end
// whatever happens.
func TestStopsWhenGoRunsHarnessDies(t *testing.T) {
	goTool, err := exec.LookPath("go")
	require.NoError(t, err)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	cmd := exec.Command("/bin/sh", "-c", `"$GO_TOOL" run ./cmd/acctadmin-fake -addr 127.0.0.1:0 & echo "GOPID=$!"; wait`)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GO_TOOL="+goTool)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := readLines(out)
	goPID, err := strconv.Atoi(strings.TrimPrefix(nextLine(t, lines, "GOPID="), "GOPID="))
	require.NoError(t, err)
	t.Cleanup(func() { _ = syscall.Kill(goPID, syscall.SIGKILL) })

	banner := nextLineWithin(t, lines, "acctadmin-fake listening on ", buildBound)
	m := regexp.MustCompile(`^acctadmin-fake listening on (http://127\.0\.0\.1:\d+) \(pid (\d+)\)$`).FindStringSubmatch(banner)
	require.NotNil(t, m, "banner %q names the address and the pid", banner)
	base := m[1]
	serverPID, err := strconv.Atoi(m[2])
	require.NoError(t, err)
	require.NotEqual(t, goPID, serverPID, "go run runs the server as its child")
	t.Cleanup(func() { _ = syscall.Kill(serverPID, syscall.SIGKILL) })
	client := &http.Client{Timeout: exitBound}
	resp, err := client.Get(base + "/_fake/")
	require.NoError(t, err)
	resp.Body.Close()

	require.NoError(t, cmd.Process.Kill())
	// The server and the go command hold the pipe; it ends when both
	// have exited.
	rest := drain(t, lines)
	require.Contains(t, rest, "acctadmin-fake stopped")
	_, err = client.Get(base + "/_fake/")
	require.Error(t, err, "the server still serves after its harness died")
}

// nextLineWithin is nextLine with its own bound.
func nextLineWithin(t *testing.T, lines <-chan string, prefix string, bound time.Duration) string {
	t.Helper()
	deadline := time.After(bound)
	for {
		select {
		case l, ok := <-lines:
			require.True(t, ok, "output ended before a line starting with %q", prefix)
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-deadline:
			t.Fatalf("no line starting with %q", prefix)
		}
	}
}

// TestStopsWhenParentPIDExits: with -parent-pid the server also stops
// when that process exits, though its own parent runs on.
func TestStopsWhenParentPIDExits(t *testing.T) {
	harness := exec.Command("sleep", "600")
	require.NoError(t, harness.Start())
	t.Cleanup(func() { _ = harness.Process.Kill(); _ = harness.Wait() })
	cmd := serverCommand(t, "", "-addr", "127.0.0.1:0", "-parent-pid", strconv.Itoa(harness.Process.Pid))
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // a no-op once it has exited
	lines := readLines(out)
	base := strings.TrimPrefix(nextLine(t, lines, "ACCTADMIN_BASE_URL="), "ACCTADMIN_BASE_URL=")
	resp, err := (&http.Client{Timeout: exitBound}).Get(base + "/_fake/")
	require.NoError(t, err)
	resp.Body.Close()

	require.NoError(t, harness.Process.Kill())
	require.Contains(t, drain(t, lines), "acctadmin-fake stopped")
	require.NoError(t, cmd.Wait())
}
