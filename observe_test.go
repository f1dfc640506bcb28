package acctadmin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
)

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
