// Command otel-tracing traces the SDK's calls with OpenTelemetry, through
// the client's hooks: one span a call, named by its operation
// ("Callbacks.List"), with one child span an attempt. The SDK itself does
// not depend on OpenTelemetry; this program is a module of its own, so
// that a program importing the SDK records none of OpenTelemetry's modules.
//
// It runs a few calls on the built-in fake API, one of them retried, and
// prints the spans:
//
//	cd examples/otel-tracing && go run .
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// tracingHooks builds OpenTelemetry spans from the client's hooks: one
// span a call, with one child span an attempt.
func tracingHooks(tr trace.Tracer) acctadmin.Hooks {
	return acctadmin.Hooks{
		CallStart: func(ctx context.Context, c acctadmin.CallInfo) context.Context {
			ctx, _ = tr.Start(ctx, c.Operation, trace.WithTimestamp(c.Start),
				trace.WithAttributes(attribute.String("http.request.method", c.Method), attribute.String("url.template", c.Path)))
			return ctx
		},
		CallEnd: func(ctx context.Context, c acctadmin.CallInfo) {
			span := trace.SpanFromContext(ctx)
			span.SetAttributes(attribute.Int("http.response.status_code", c.StatusCode), attribute.Int("attempts", c.Attempts))
			if c.Err != nil {
				span.SetStatus(codes.Error, c.Err.Error())
			}
			span.End(trace.WithTimestamp(c.Start.Add(c.Duration)))
		},
		AttemptStart: func(ctx context.Context, a acctadmin.AttemptInfo) context.Context {
			ctx, _ = tr.Start(ctx, fmt.Sprintf("attempt %d", a.Attempt), trace.WithTimestamp(a.Start))
			return ctx
		},
		AttemptEnd: func(ctx context.Context, a acctadmin.AttemptInfo) {
			span := trace.SpanFromContext(ctx)
			span.SetAttributes(attribute.Int("http.response.status_code", a.StatusCode))
			if a.Err != nil {
				span.SetStatus(codes.Error, a.Err.Error())
			}
			span.End(trace.WithTimestamp(a.Start.Add(a.Duration)))
		},
	}
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "otel-tracing:", err)
		os.Exit(1)
	}
}

// run makes a few calls on the fake, the first answered 503 once, and
// prints each call's span with its attempts.
func run(ctx context.Context, out io.Writer) error {
	fake := acctadmintest.NewServer(acctadmintest.WithDemoData())
	defer fake.Close()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	c, err := acctadmin.NewClient(fake.AccessKey, fake.SecretKey, acctadmin.WithBaseURL(fake.URL),
		acctadmin.WithRetryWait(time.Millisecond, 10*time.Millisecond), acctadmin.WithHooks(tracingHooks(tp.Tracer("otel-tracing"))))
	if err != nil {
		return err
	}
	fake.InjectFault(acctadmintest.Fault{Method: "GET", Path: "/companies", Status: 503, Count: 1})
	if _, err := c.Companies.List(ctx); err != nil {
		return err
	}
	if _, err := c.Documents.Get(ctx, acctadmintest.DemoID("document", 1)); err != nil {
		return err
	}
	for _, s := range spanTree(exp.GetSpans()) {
		fmt.Fprintln(out, s)
	}
	return nil
}

// spanTree describes each call's span and its attempts' spans, one line a
// call: "Companies.List GET /companies 200 [attempt 1=503 attempt 2=200]".
func spanTree(spans tracetest.SpanStubs) []string {
	attr := func(s tracetest.SpanStub, key string) attribute.Value {
		for _, kv := range s.Attributes {
			if string(kv.Key) == key {
				return kv.Value
			}
		}
		return attribute.Value{}
	}
	var out []string
	for _, s := range spans {
		if s.Parent.IsValid() {
			continue
		}
		var children []string
		for _, ch := range spans {
			if ch.Parent.SpanID() == s.SpanContext.SpanID() {
				children = append(children, fmt.Sprintf("%s=%d", ch.Name, attr(ch, "http.response.status_code").AsInt64()))
			}
		}
		sort.Strings(children)
		out = append(out, fmt.Sprintf("%s %s %s %d %v", s.Name, attr(s, "http.request.method").AsString(),
			attr(s, "url.template").AsString(), attr(s, "http.response.status_code").AsInt64(), children))
	}
	return out
}
