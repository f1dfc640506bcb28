// Package parentwatch ends a long-running command when the process that
// started it exits: the fake API's servers (cmd/acctadmin-fake and
// acctadmin fake) use it, so that a harness that dies leaves no server
// behind.
package parentwatch

import (
	"context"
	"os"
	"time"
)

// Poll is how often Context checks that the parent still runs.
const Poll = 250 * time.Millisecond

// Context returns a context that is done when ctx is, or when the
// process that started this one has exited: a test harness that dies
// without stopping a server, or `go run` stopped with SIGTERM (which
// leaves the program it built running), then stops it too.
//
// The parent process ID is polled: it changes when the parent exits and
// the process is handed to init or a subreaper. Linux's parent-death
// signal (PR_SET_PDEATHSIG) is not used, because it fires when the parent
// *thread* that started the process exits, which a harness that starts
// the server from a short-lived thread (a Python fixture, say) does while
// it still runs. A process started by init (its parent ID is 1 or 0, as
// in a container) has no parent to watch.
//
// Under `go run` the parent is the go command, which a harness killed
// with SIGKILL leaves running (it waits for its child): when the parent
// is the go command, the process that started it is watched too, by
// polling the go command's own parent ID (from /proc on Linux, from ps
// on other Unix systems), and the context is done when it changes.
func Context(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	ppid := os.Getppid()
	if ppid <= 1 {
		return ctx, cancel
	}
	grand := 0 // the go command's parent, under go run
	if p, ok := inspect(ppid); ok && isGoTool(p.name) && p.ppid > 1 {
		grand = p.ppid
	}
	go poll(ctx, cancel, func() bool {
		if os.Getppid() != ppid {
			return false
		}
		if grand != 0 {
			p, ok := inspect(ppid)
			return ok && p.ppid == grand
		}
		return true
	})
	return ctx, cancel
}

// Process returns a context that is done when ctx is, or when the process
// pid has exited (an exited process not yet reaped counts as exited): a
// harness whose process tree is deeper than go run's passes its own pid.
// Where processes cannot be inspected (not Unix), only ctx ends it.
func Process(ctx context.Context, pid int) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if !inspectable {
		return ctx, cancel
	}
	go poll(ctx, cancel, func() bool {
		_, ok := inspect(pid)
		return ok
	})
	return ctx, cancel
}

// poll calls alive every Poll until it returns false, then cancels; it
// returns when ctx is done.
func poll(ctx context.Context, cancel context.CancelFunc, alive func() bool) {
	t := time.NewTicker(Poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if !alive() {
				cancel()
				return
			}
		}
	}
}

// proc is what inspect learns of a process.
type proc struct {
	name string // the name of its executable, without directories
	ppid int
}

// isGoTool reports whether name is the go command's.
func isGoTool(name string) bool {
	return name == "go" || name == "go.exe"
}
