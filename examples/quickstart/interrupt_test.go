//go:build unix

package main

import (
	"net/http"
	"testing"

	"github.com/acctadmin/acctadmin-go/internal/exampletest"
)

// Ctrl-C while a listing is on its way: the tour stops at once, says why
// and exits with status 1.
func TestInterruptStopsTheTour(t *testing.T) {
	_, proxy, env := account(t, 5, func(r *http.Request) bool { return r.URL.Path == "/compliance-events" })
	exampletest.CheckInterrupt(t, proxy, env, "quickstart: compliance events:", "context canceled")
}
