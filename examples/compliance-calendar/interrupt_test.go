//go:build unix

package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/acctadmin/acctadmin-go/internal/exampletest"
)

// Ctrl-C while a page is on its way: the program stops at once, says why,
// exits with status 1, and prints no table.
func TestInterruptStopsTheProgram(t *testing.T) {
	_, proxy, env := manyEvents(t, 5, func(r *http.Request) bool { return r.URL.Path == "/compliance-events" })
	stdout := exampletest.CheckInterrupt(t, proxy, env, "compliance-calendar: compliance events:", "context canceled")
	if strings.Contains(stdout, "COMPANY") || strings.Contains(stdout, "Due dates") {
		t.Fatalf("a header was printed:\n%s", stdout)
	}
}
