package acctadmin_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// Options for the calls of one piece of work ride on its context: here a
// job that must not linger on retries, bounds each attempt to 5 seconds
// and tags every request with its id. They hold for every call made with
// the context, All, Pull and the mail room's included.
func ExampleWithCallOptions() {
	srv := acctadmintest.NewServer(acctadmintest.WithDemoData())
	defer srv.Close()
	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL),
		acctadmin.WithRetryWait(time.Millisecond, 10*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	defer c.CloseIdleConnections()

	ctx := acctadmin.WithCallOptions(context.Background(),
		acctadmin.CallMaxRetries(0),
		acctadmin.CallTimeout(5*time.Second),
		acctadmin.CallHeader("X-Request-Id", "nightly-sync-42"))

	// The API fails once: without retries the call fails with it.
	srv.InjectFault(acctadmintest.Fault{Path: "/services", Status: 503, Count: 1})
	_, err = c.Services.List(ctx, nil)
	fmt.Println("503 without retries:", errors.Is(err, acctadmin.ErrServer))

	// The same call without the options is retried as the client says.
	srv.InjectFault(acctadmintest.Fault{Path: "/services", Status: 503, Count: 1})
	services, err := c.Services.List(context.Background(), nil)
	fmt.Println("503 with the client's retries:", len(services) > 0, err)

	for _, r := range srv.Requests() {
		fmt.Printf("%s %s %d X-Request-Id=%q\n", r.Method, r.Path, r.Status, r.Header.Get("X-Request-Id"))
	}

	// The headers the SDK owns are refused, and nothing is sent.
	_, err = c.Services.List(acctadmin.WithCallOptions(ctx, acctadmin.CallHeader("Authorization", "Bearer mine")), nil)
	fmt.Println(err)
	fmt.Println("requests:", srv.TotalRequests())
	// Output:
	// 503 without retries: true
	// 503 with the client's retries: true <nil>
	// GET /services 503 X-Request-Id="nightly-sync-42"
	// GET /services 503 X-Request-Id=""
	// GET /services 200 X-Request-Id=""
	// acctadmin: invalid CallHeader: Authorization is set by the client
	// requests: 3
}
