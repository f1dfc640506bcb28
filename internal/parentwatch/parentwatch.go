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
func Context(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	ppid := os.Getppid()
	if ppid <= 1 {
		return ctx, cancel
	}
	go func() {
		t := time.NewTicker(Poll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if os.Getppid() != ppid {
					cancel()
					return
				}
			}
		}
	}()
	return ctx, cancel
}
