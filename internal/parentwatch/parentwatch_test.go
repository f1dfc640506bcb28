//go:build unix

package parentwatch

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// inspect reads a process's parent and name, and says an exited process
// (reaped or not) is gone.
func TestInspect(t *testing.T) {
	p, ok := inspect(os.Getpid())
	if !ok || p.ppid != os.Getppid() || p.name == "" {
		t.Fatalf("inspect(self) = %+v, %v; want parent %d", p, ok, os.Getppid())
	}
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if p, ok := inspect(cmd.Process.Pid); !ok || p.name != "sleep" || p.ppid != os.Getpid() {
		t.Fatalf("inspect(sleep) = %+v, %v", p, ok)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Not reaped yet: a zombie, gone all the same. The kill takes effect
	// soon after; the loop is bounded.
	gone := false
	for i := 0; i < 200 && !gone; i++ {
		_, ok := inspect(cmd.Process.Pid)
		gone = !ok
		time.Sleep(10 * time.Millisecond)
	}
	if !gone {
		t.Fatal("a killed process still inspects as running")
	}
	if !isGoTool("go") || isGoTool("gopls") || isGoTool("acctadmin-fake") {
		t.Error("isGoTool is wrong")
	}
}

// Process's context is done once the process exits.
func TestProcess(t *testing.T) {
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	ctx, cancel := Process(context.Background(), cmd.Process.Pid)
	defer cancel()
	select {
	case <-ctx.Done():
		t.Fatal("done while the process runs")
	case <-time.After(2 * Poll):
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("not done after the process exited")
	}
}
