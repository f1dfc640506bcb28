//go:build unix

package main

import (
	"net/http"
	"strings"
	"testing"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/internal/exampletest"
)

// Ctrl-C while a page is on its way: the program stops at once, says why,
// exits with status 1, and prints no table.
func TestInterruptStopsTheProgram(t *testing.T) {
	srv, proxy := manyEvents(t, 5, func(r *http.Request) bool { return r.URL.Path == "/compliance-events" })
	stdout := exampletest.CheckInterrupt(t, proxy, []string{
		acctadmin.EnvAccessKey + "=" + srv.AccessKey,
		acctadmin.EnvSecretKey + "=" + srv.SecretKey,
		acctadmin.EnvBaseURL + "=" + proxy.URL,
	}, "compliance-calendar: compliance events:", "context canceled")
	if strings.Contains(stdout, "COMPANY") || strings.Contains(stdout, "Due dates") {
		t.Fatalf("a header was printed:\n%s", stdout)
	}
}
