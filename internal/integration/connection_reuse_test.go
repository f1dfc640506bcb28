package acctadmin_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/google/uuid"
)

// TestConnectionReuseUnderErrors makes 1,000 sequential GETs on the fake,
// of which every 10th names an unknown document (404) and every 7th is
// first answered 503 with a 16 KiB body (more than go-retryablehttp drains
// by itself) and then retried, and checks that all of them, retries
// included, went over a single TCP connection: every answer the client
// reads or discards is read to its end, so its connection goes back to the
// pool.
func TestConnectionReuseUnderErrors(t *testing.T) {
	const calls = 1000
	srv := acctadmintest.NewServer(acctadmintest.WithStrictSigning())
	t.Cleanup(srv.Close)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Holdings LLC", HomeState: "Utah"})
	doc := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID})
	unknown := uuid.MustParse("00000000-0000-4000-8000-000000000001")
	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey,
		acctadmin.WithBaseURL(srv.URL), acctadmin.WithRetryWait(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	ctx := context.Background()
	unavailable := strings.Repeat("x", 16<<10)

	notFound, faults := 0, 0
	for n := 1; n <= calls; n++ {
		id := doc.ID
		switch {
		case n%10 == 0:
			id = unknown
		case n%7 == 0:
			srv.InjectFault(acctadmintest.Fault{Method: http.MethodGet, Path: "/documents/:id",
				Status: http.StatusServiceUnavailable, Message: unavailable, Count: 1})
			faults++
		}
		_, err := c.Documents.Get(ctx, id)
		switch {
		case id == unknown && errors.Is(err, acctadmin.ErrNotFound):
			notFound++
		case err != nil:
			t.Fatalf("call %d: %v", n, err)
		}
	}

	if notFound != calls/10 {
		t.Errorf("%d calls were not found, want %d", notFound, calls/10)
	}
	if got := srv.FaultsFired(); got != faults {
		t.Errorf("%d faults fired, want %d", got, faults)
	}
	if got, want := srv.RequestCount(http.MethodGet, "/documents/:id"), calls+faults; got != want {
		t.Errorf("the fake saw %d requests, want %d (each call once, and each 503 retried once)", got, want)
	}
	if got := srv.ConnectionsOpened(); got != 1 {
		t.Errorf("%d calls opened %d connections, want 1", calls+faults, got)
	}
}
