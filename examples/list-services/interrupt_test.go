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
	srv, proxy := manyServices(t, 5, func(r *http.Request) bool { return r.URL.Path == "/services" })
	stdout := exampletest.CheckInterrupt(t, proxy, []string{
		acctadmin.EnvAccessKey + "=" + srv.AccessKey,
		acctadmin.EnvSecretKey + "=" + srv.SecretKey,
		acctadmin.EnvBaseURL + "=" + proxy.URL,
	}, "list-services: list services:", "context canceled")
	if strings.Contains(stdout, "COMPANY") {
		t.Fatalf("a table header was printed:\n%s", stdout)
	}
}
