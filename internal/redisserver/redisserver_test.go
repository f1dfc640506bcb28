package redisserver

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// recordingTB records how a test ended: Fatalf and Skipf end its
// goroutine, as the testing package's do.
type recordingTB struct {
	testing.TB
	failed, skipped string
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (r *recordingTB) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// runMissing calls missing on a recordingTB on a goroutine of its own.
func runMissing() *recordingTB {
	r := &recordingTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		missing(r)
	}()
	<-done
	return r
}

// TestMissingRedisServerIsSaid checks what a test that needs redis-server
// and cannot find it does: the first one fails, naming the install command
// and the way to skip, so that go test ./... shows it without -v; the
// others skip; with ACCTADMIN_SKIP_REDIS_TESTS=1 all skip; under CI all
// fail.
func TestMissingRedisServerIsSaid(t *testing.T) {
	t.Setenv("CI", "")
	t.Setenv(SkipEnv, "")
	missingReported.Store(false)
	t.Cleanup(func() { missingReported.Store(false) })

	first := runMissing()
	if !strings.Contains(first.failed, InstallCommand) || !strings.Contains(first.failed, SkipEnv+"=1") || first.skipped != "" {
		t.Errorf("the first test should fail naming the install command and %s: failed %q, skipped %q", SkipEnv, first.failed, first.skipped)
	}
	second := runMissing()
	if second.failed != "" || !strings.Contains(second.skipped, InstallCommand) {
		t.Errorf("the next tests should skip: failed %q, skipped %q", second.failed, second.skipped)
	}

	missingReported.Store(false)
	t.Setenv(SkipEnv, "1")
	skipped := runMissing()
	if skipped.failed != "" || !strings.Contains(skipped.skipped, SkipEnv+"=1") {
		t.Errorf("with %s=1 the test should skip: failed %q, skipped %q", SkipEnv, skipped.failed, skipped.skipped)
	}

	t.Setenv("CI", "true")
	for range 2 {
		ci := runMissing()
		if !strings.Contains(ci.failed, "CI is set") || !strings.Contains(ci.failed, InstallCommand) || ci.skipped != "" {
			t.Errorf("under CI every test should fail: failed %q, skipped %q", ci.failed, ci.skipped)
		}
	}
}
