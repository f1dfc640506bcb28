// Package redisserver starts a real redis-server for tests: on a free
// loopback port, with persistence off and its own temporary folder, and
// stops it by its process id when the test ends.
//
// When redis-server is not on the PATH, the first test of the package
// that calls Start fails, with a message naming the command that installs
// it: go test prints a passing package's output only under -v, so a skip
// would go unseen. The package's other tests that need Redis are then
// skipped. Setting ACCTADMIN_SKIP_REDIS_TESTS=1 skips them all instead,
// except when the environment variable CI is set: CI never passes without
// Redis.
package redisserver

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// InstallCommand installs redis-server on Debian and Ubuntu.
const InstallCommand = "apt-get update && apt-get install -y redis-server"

// SkipEnv is the environment variable that, set to 1, skips the tests
// that need redis-server when it is not installed, outside CI.
const SkipEnv = "ACCTADMIN_SKIP_REDIS_TESTS"

// missingReported is set once a test has failed for want of redis-server.
var missingReported atomic.Bool

// missing fails or skips t for want of redis-server, as the package
// documentation says.
func missing(t testing.TB) {
	t.Helper()
	msg := fmt.Sprintf("redis-server (7.0 or later) is not installed: the tests of the Redis-backed parts need it. "+
		"Install it with %q (macOS: brew install redis)", InstallCommand)
	switch {
	case os.Getenv("CI") != "":
		t.Fatalf("%s; CI is set, so this fails", msg)
	case os.Getenv(SkipEnv) == "1":
		t.Skipf("%s; skipped because %s=1", msg, SkipEnv)
	case missingReported.CompareAndSwap(false, true):
		t.Fatalf("%s, or set %s=1 to skip the tests that need it", msg, SkipEnv)
	default:
		t.Skipf("%s (reported by the first test that needed it)", msg)
	}
}

// startTimeout bounds the wait for a started server to answer, and
// stopTimeout the wait for a stopped one to exit before it is killed.
const (
	startTimeout = 10 * time.Second
	stopTimeout  = 5 * time.Second
)

// Server is a running redis-server.
type Server struct {
	// Addr is the server's host:port, on 127.0.0.1.
	Addr string

	t    testing.TB
	bin  string
	dir  string
	port int

	mu     sync.Mutex
	cmd    *exec.Cmd
	done   chan struct{} // closed when cmd has exited
	frozen bool          // stopped with SIGSTOP
}

// Start starts a redis-server for t and stops it when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		missing(t)
	}
	port, err := freePort()
	if err != nil {
		t.Fatalf("redisserver: %v", err)
	}
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), t: t, bin: bin, dir: t.TempDir(), port: port}
	t.Cleanup(func() { s.Stop() })
	if err := s.start(); err != nil {
		t.Fatalf("redisserver: %v", err)
	}
	return s
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// start runs the server and waits until it answers PING.
func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return errors.New("already running")
	}
	cmd := exec.Command(s.bin,
		"--port", strconv.Itoa(s.port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", s.dir,
		"--daemonize", "no",
		"--logfile", filepath.Join(s.dir, "redis.log"),
	)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start redis-server: %w", err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	s.cmd, s.done = cmd, done

	deadline := time.Now().Add(startTimeout)
	for {
		if err := s.ping(); err == nil {
			return nil
		}
		select {
		case <-done:
			s.cmd = nil
			return fmt.Errorf("redis-server exited at start; see %s", filepath.Join(s.dir, "redis.log"))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stopLocked()
			return fmt.Errorf("redis-server did not answer within %v", startTimeout)
		}
	}
}

// Do sends one command to the server on a connection of its own and
// returns the first line of the answer, such as "+OK" or "-ERR ...".
func (s *Server) Do(args ...string) (string, error) {
	conn, err := net.DialTimeout("tcp", s.Addr, time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := conn.Write([]byte(b.String())); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	return strings.TrimRight(line, "\r\n"), err
}

func (s *Server) ping() error {
	line, err := s.Do("PING")
	if err != nil {
		return err
	}
	if line != "+PONG" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// Stop stops the server by its process id: SIGTERM, then SIGKILL if it
// has not exited within five seconds. Keys not saved are lost. Stop does
// nothing when the server is not running.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopLocked()
}

func (s *Server) stopLocked() {
	if s.cmd == nil {
		return
	}
	// Process signals the process by the id Start recorded. A frozen
	// server must run again to handle SIGTERM.
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	if s.frozen {
		_ = s.cmd.Process.Signal(syscall.SIGCONT)
		s.frozen = false
	}
	select {
	case <-s.done:
	case <-time.After(stopTimeout):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	s.cmd = nil
}

// Restart stops the server, keeping its keys, waits down, and starts it
// again on the same port. It first pauses every write (CLIENT PAUSE) and
// saves (SAVE), so that no write is taken whose answer the stop would
// lose and every key taken survives; then it stops the process by its id,
// as Stop does. Clients see their connections drop and their commands
// fail until the server is back.
func (s *Server) Restart(down time.Duration) error {
	if line, err := s.Do("CLIENT", "PAUSE", "30000", "WRITE"); err != nil || line != "+OK" {
		return fmt.Errorf("CLIENT PAUSE: %q, %v", line, err)
	}
	if line, err := s.Do("SAVE"); err != nil || line != "+OK" {
		return fmt.Errorf("SAVE: %q, %v", line, err)
	}
	s.Stop()
	timer := time.NewTimer(down)
	defer timer.Stop()
	<-timer.C
	return s.start()
}

// Kill stops the server at once by its process id (SIGKILL): keys not
// saved are lost, as in a crash.
func (s *Server) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
	s.frozen = false
}

// Freeze stops the server's process where it is (SIGSTOP, by its id), as
// a hung server: connections stay open and commands sent are taken by
// the kernel, but none is answered until Thaw. Keys whose expiry passes
// meanwhile expire once it runs again. The test's cleanup thaws it.
func (s *Server) Freeze() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return errors.New("redisserver: not running")
	}
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		return err
	}
	s.frozen = true
	return nil
}

// Thaw lets a frozen server run again (SIGCONT). It does nothing when the
// server is not frozen.
func (s *Server) Thaw() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil || !s.frozen {
		return nil
	}
	s.frozen = false
	return s.cmd.Process.Signal(syscall.SIGCONT)
}

// Resume starts the server again after Stop or Kill, on the same port.
func (s *Server) Resume() error { return s.start() }
