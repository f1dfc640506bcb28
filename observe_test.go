package acctadmin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// otelHooks builds OpenTelemetry spans from the client's hooks: one span a
// call, with one child span an attempt. It is what a program would write;
// the SDK itself does not depend on OpenTelemetry.
func otelHooks(tr trace.Tracer) Hooks {
	return Hooks{
		CallStart: func(ctx context.Context, c CallInfo) context.Context {
			ctx, _ = tr.Start(ctx, c.Operation, trace.WithTimestamp(c.Start),
				trace.WithAttributes(attribute.String("http.request.method", c.Method), attribute.String("url.template", c.Path)))
			return ctx
		},
		CallEnd: func(ctx context.Context, c CallInfo) {
			span := trace.SpanFromContext(ctx)
			span.SetAttributes(attribute.Int("http.response.status_code", c.StatusCode), attribute.Int("attempts", c.Attempts))
			if c.Err != nil {
				span.SetStatus(codes.Error, c.Err.Error())
			}
			span.End(trace.WithTimestamp(c.Start.Add(c.Duration)))
		},
		AttemptStart: func(ctx context.Context, a AttemptInfo) context.Context {
			ctx, _ = tr.Start(ctx, fmt.Sprintf("attempt %d", a.Attempt), trace.WithTimestamp(a.Start))
			return ctx
		},
		AttemptEnd: func(ctx context.Context, a AttemptInfo) {
			span := trace.SpanFromContext(ctx)
			span.SetAttributes(attribute.Int("http.response.status_code", a.StatusCode))
			if a.Err != nil {
				span.SetStatus(codes.Error, a.Err.Error())
			}
			span.End(trace.WithTimestamp(a.Start.Add(a.Duration)))
		},
	}
}

func spanAttr(s tracetest.SpanStub, key string) attribute.Value {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

func TestHooksBuildOneSpanPerCallAndOneChildPerAttempt(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer func() { _ = tp.Shutdown(context.Background()) }()

	var mu sync.Mutex
	n := map[string]int{}
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n[r.URL.Path]++
		k := n[r.URL.Path]
		mu.Unlock()
		switch {
		case r.URL.Path == "/callbacks" && k <= 2:
			w.WriteHeader(http.StatusServiceUnavailable)
		case r.URL.Path == "/callbacks":
			writeJSON(w, 200, `{"success":true,"result":[]}`)
		case strings.HasSuffix(r.URL.Path, "/download"):
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = w.Write([]byte("%PDF-1.4 x"))
		default:
			writeJSON(w, http.StatusNotFound, `{"message":"no such document"}`)
		}
	})
	c := newTestClient(t, srv, WithHooks(otelHooks(tp.Tracer("acctadmin-test"))))
	ctx := context.Background()

	if _, err := c.Callbacks.List(ctx); err != nil {
		t.Fatal(err)
	}
	f, err := c.Documents.Download(ctx, tpCallbackID)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := c.Documents.Get(ctx, tpCallbackID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get = %v, want not found", err)
	}
	// Refused before sending: no span.
	if _, err := c.Documents.Get(ctx, uuid.Nil); !errors.Is(err, ErrInvalidParams) {
		t.Fatalf("Get(nil id) = %v", err)
	}

	spans := exp.GetSpans()
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID()] = s
	}
	type callSpan struct {
		name     string
		status   int64
		children []string
	}
	var calls []callSpan
	for _, s := range spans {
		if s.Parent.IsValid() {
			continue
		}
		cs := callSpan{name: s.Name, status: spanAttr(s, "http.response.status_code").AsInt64()}
		for _, ch := range spans {
			if ch.Parent.SpanID() == s.SpanContext.SpanID() {
				cs.children = append(cs.children, fmt.Sprintf("%s=%d", ch.Name, spanAttr(ch, "http.response.status_code").AsInt64()))
			}
		}
		sort.Strings(cs.children)
		calls = append(calls, cs)
	}
	want := []callSpan{
		{"Callbacks.List", 200, []string{"attempt 1=503", "attempt 2=503", "attempt 3=200"}},
		{"Documents.Download", 200, []string{"attempt 1=200"}},
		{"Documents.Get", 404, []string{"attempt 1=404"}},
	}
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Errorf("spans:\n got %v\nwant %v", calls, want)
	}
	for _, s := range spans {
		if s.Parent.IsValid() {
			if p := byID[s.Parent.SpanID()]; s.StartTime.Before(p.StartTime) || s.EndTime.After(p.EndTime) {
				t.Errorf("attempt span %s lies outside its call %s", s.Name, p.Name)
			}
			continue
		}
		tmpl := spanAttr(s, "url.template").AsString()
		if strings.Contains(tmpl, tpCallbackID.String()) || !strings.HasPrefix(tmpl, "/") {
			t.Errorf("span %s has path %q, want a pattern", s.Name, tmpl)
		}
	}
	if got := spanAttr(calls3(spans, "Documents.Download"), "url.template").AsString(); got != "/documents/{id}/download" {
		t.Errorf("download path pattern = %q", got)
	}
}

func calls3(spans tracetest.SpanStubs, name string) tracetest.SpanStub {
	for _, s := range spans {
		if s.Name == name {
			return s
		}
	}
	return tracetest.SpanStub{}
}

// The hooks are enough for metrics: calls and attempts counted by
// operation, across All's pages and concurrent calls.
func TestHooksCountCallsAndAttempts(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("offset") {
		case "", "0":
			writeJSON(w, 200, `{"success":true,"result":[{"id":"`+uuid.NewString()+`"},{"id":"`+uuid.NewString()+`"}]}`)
		case "2":
			writeJSON(w, 200, `{"success":true,"result":[{"id":"`+uuid.NewString()+`"}]}`)
		default:
			writeJSON(w, 200, `{"success":true,"result":[]}`)
		}
	})
	var mu sync.Mutex
	calls, attempts := map[string]int{}, map[string]int{}
	c := newTestClient(t, srv, WithHooks(Hooks{
		CallEnd: func(_ context.Context, ci CallInfo) {
			mu.Lock()
			calls[ci.Operation+" "+ci.Path]++
			mu.Unlock()
		},
		AttemptEnd: func(_ context.Context, a AttemptInfo) {
			mu.Lock()
			attempts[a.Operation]++
			mu.Unlock()
		},
	}))
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Services.List(context.Background(), nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got := 0
	for _, err := range c.Resources.All(context.Background(), &ResourceListParams{Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		got++
	}
	if got != 3 {
		t.Fatalf("All yielded %d, want 3", got)
	}
	if calls["Services.List /services"] != 4 || attempts["Services.List"] != 4 {
		t.Errorf("services: %d calls, %d attempts; want 4 and 4 (%v)", calls["Services.List /services"], attempts["Services.List"], calls)
	}
	if calls["Resources.List /resources"] < 2 || attempts["Resources.List"] != calls["Resources.List /resources"] {
		t.Errorf("resources: %v calls, %v attempts", calls, attempts)
	}
}

// WithResponseInto reports the final answer's metadata; APIError carries
// its header. Neither shows a credential or the query string.
func TestAnswerMetadata(t *testing.T) {
	const token = "eyJhbGciOiJIUzI1NiJ9.eyJzZWNyZXQiOnRydWV9.c2lnbmF0dXJl"
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req-42")
		w.Header().Set("Set-Cookie", "session="+testSecretKey)
		w.Header().Set("X-Debug", "saw Bearer "+token+" for "+r.URL.RawQuery)
		if r.URL.Path == "/services" {
			writeJSON(w, 200, `{"success":true,"result":[]}`)
			return
		}
		writeJSON(w, http.StatusForbidden, `{"message":"no"}`)
	})
	c := newTestClient(t, srv)
	var meta Response
	if _, err := c.Services.List(WithResponseInto(context.Background(), &meta), &ServiceListParams{Company: "Top Secret"}); err != nil {
		t.Fatal(err)
	}
	if meta.StatusCode != 200 || meta.RequestID != "req-42" || meta.Attempts != 1 || meta.Duration <= 0 {
		t.Errorf("metadata = %+v", meta)
	}
	var failed Response
	_, err := c.Documents.Get(WithResponseInto(context.Background(), &failed), tpCallbackID)
	var ae *APIError
	if !errors.As(err, &ae) || ae.Header.Get("X-Request-Id") != "req-42" || failed.StatusCode != 403 || failed.RequestID != "req-42" {
		t.Fatalf("err = %v, metadata = %+v", err, failed)
	}
	for _, h := range []http.Header{meta.Header, ae.Header, failed.Header} {
		text := fmt.Sprint(h)
		for _, secret := range []string{testSecretKey, token, "Top", "company="} {
			if strings.Contains(text, secret) {
				t.Errorf("header shows %q: %s", secret, text)
			}
		}
		if h.Get("Set-Cookie") != "" || !strings.Contains(h.Get("X-Debug"), "[redacted]") {
			t.Errorf("header not redacted: %v", h)
		}
	}
}
