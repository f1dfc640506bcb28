package acctadmin_test

import (
	"context"
	"fmt"
	"log"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// WithHooks sees every call and every attempt: enough to start a span per
// call with a child span per attempt (with OpenTelemetry, start them in
// CallStart and AttemptStart and return their contexts; end them in
// CallEnd and AttemptEnd), or to count calls for metrics. Here the hooks
// print what they see while the fake API answers 503 once.
func ExampleWithHooks() {
	srv := acctadmintest.NewServer()
	defer srv.Close()
	srv.InjectFault(acctadmintest.Fault{Method: "GET", Path: "/callbacks", Status: 503, Count: 1})

	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL),
		acctadmin.WithRetryWait(time.Millisecond, 2*time.Millisecond),
		acctadmin.WithHooks(acctadmin.Hooks{
			CallStart: func(ctx context.Context, ci acctadmin.CallInfo) context.Context {
				fmt.Println("call", ci.Operation, ci.Method, ci.Path)
				return ctx
			},
			AttemptEnd: func(_ context.Context, a acctadmin.AttemptInfo) {
				fmt.Println("  attempt", a.Attempt, "answered", a.StatusCode)
			},
			CallEnd: func(_ context.Context, ci acctadmin.CallInfo) {
				fmt.Println("end", ci.Operation, ci.StatusCode, "after", ci.Attempts, "attempts, error:", ci.Err)
			},
		}))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.Callbacks.List(context.Background()); err != nil {
		log.Fatal(err)
	}
	// Output:
	// call Callbacks.List GET /callbacks
	//   attempt 1 answered 503
	//   attempt 2 answered 200
	// end Callbacks.List 200 after 2 attempts, error: <nil>
}

// WithResponseInto gives a call's status, headers and request id without
// changing what the method returns.
func ExampleWithResponseInto() {
	srv := acctadmintest.NewServer()
	defer srv.Close()
	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	var meta acctadmin.Response
	docs, err := c.Documents.List(acctadmin.WithResponseInto(ctx, &meta), nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(docs), "documents;", meta.StatusCode, meta.Header.Get("Content-Type"), meta.Attempts)
	// Output:
	// 0 documents; 200 application/json 1
}
