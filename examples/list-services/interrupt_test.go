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
	_, proxy, env := manyServices(t, 5, func(r *http.Request) bool { return r.URL.Path == "/services" })
	stdout := exampletest.CheckInterrupt(t, proxy, env, "list-services: list services:", "context canceled")
	if strings.Contains(stdout, "COMPANY") {
		t.Fatalf("a table header was printed:\n%s", stdout)
	}
}
