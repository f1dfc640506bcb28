//go:build unix

package main

import (
	"net/http"
	"testing"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/internal/exampletest"
)

// Ctrl-C while a listing is on its way: the tour stops at once, says why
// and exits with status 1.
func TestInterruptStopsTheTour(t *testing.T) {
	srv, proxy := account(t, 5, func(r *http.Request) bool { return r.URL.Path == "/compliance-events" })
	exampletest.CheckInterrupt(t, proxy, []string{
		acctadmin.EnvAccessKey + "=" + srv.AccessKey,
		acctadmin.EnvSecretKey + "=" + srv.SecretKey,
		acctadmin.EnvBaseURL + "=" + proxy.URL,
	}, "quickstart: compliance events:", "context canceled")
}
