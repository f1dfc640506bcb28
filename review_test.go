package acctadmin

// The client attacked as a security reviewer would: hostile redirects,
// injection through the strings a caller passes, hostile envelopes, and
// many goroutines cancelling mid-flight. Each case states what must hold.

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Redirects: none carries the credentials off the API's host, none loops.
func TestReviewHostileRedirects(t *testing.T) {
	for _, tc := range []struct {
		name     string
		location func(self string) string
	}{
		{"other host", func(string) string { return "http://127.0.0.2:1/callbacks" }},
		{"scheme change", func(self string) string { return strings.Replace(self, "http://", "https://", 1) + "/callbacks" }},
		{"credentials in Location", func(self string) string {
			u, _ := url.Parse(self)
			u.User = url.UserPassword("intruder", "pw")
			return u.String() + "/callbacks"
		}},
		{"protocol-relative", func(string) string { return "//127.0.0.2:1/callbacks" }},
		{"loop on the same host", func(self string) string { return self + "/callbacks" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var srv *apiServer
			srv = newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Location", tc.location(srv.URL))
				w.WriteHeader(http.StatusTemporaryRedirect)
			})
			c := newTestClient(t, srv)
			_, err := c.Callbacks.List(context.Background())
			var ae *APIError
			if !errors.As(err, &ae) || ae.StatusCode != http.StatusTemporaryRedirect {
				t.Fatalf("err = %v, want the redirect as an *APIError", err)
			}
			reqs := srv.requests()
			if len(reqs) > 1+maxRedirects {
				t.Errorf("%d requests: the redirects were followed without bound", len(reqs))
			}
			for _, r := range reqs {
				if !r.AuthOK {
					t.Errorf("a request reached the server unsigned: %s", r.AuthErr)
				}
			}
			if strings.Contains(err.Error(), "intruder") || strings.Contains(err.Error(), "pw@") {
				t.Errorf("error shows the Location's credentials: %v", err)
			}
		})
	}
}

// The strings a caller passes travel as values: none can add a parameter,
// change the path, or split a header.
func TestReviewInjectionThroughStrings(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv)
	for _, name := range []string{
		"Acme & Sons", "a&company_id=00000000-0000-0000-0000-000000000001", "x#fragment", "../../callbacks",
		"%2F..%2Fcallbacks", "line\r\nX-Injected: 1", "Ütah Ünïcode ☃", "a=b;c=d", "+plus+", "",
	} {
		if _, err := c.Services.List(context.Background(), &ServiceListParams{Company: name}); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		r := srv.last(t)
		q, err := url.ParseQuery(r.RawQuery)
		if err != nil {
			t.Fatalf("%q: the query does not parse: %v", name, err)
		}
		if r.Path != "/services" || r.Header.Get("X-Injected") != "" {
			t.Errorf("%q: path %q, headers %v", name, r.Path, r.Header)
		}
		if name == "" {
			if q.Has("company") {
				t.Errorf("an empty company was sent")
			}
			continue
		}
		if got := q["company"]; len(got) != 1 || got[0] != name || q.Has("company_id") {
			t.Errorf("%q arrived as %v", name, q)
		}
	}
	// A website URL is a value too, whatever it holds.
	for _, u := range []string{"https://example.com/a b?x=1&y=2#z", "https://例え.jp/パス"} {
		_, _ = c.Websites.Get(context.Background(), u)
		q, _ := url.ParseQuery(srv.last(t).RawQuery)
		if q.Get("url") != u || len(q) != 1 {
			t.Errorf("url %q arrived as %v", u, q)
		}
	}
}

// Envelopes built to confuse: each is refused or read as JSON reads it,
// never half-believed.
func TestReviewHostileEnvelopes(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		wantErr    bool
		wantLen    int
	}{
		{"duplicate success, last false", `{"success":true,"success":false,"result":[]}`, true, 0},
		{"duplicate result", `{"success":true,"result":[{"id":"5f0c2a9e-7d41-4b8e-9c3a-1e2d3c4b5a69"}],"result":[]}`, false, 0},
		{"byte order mark", "\ufeff" + `{"success":true,"result":[]}`, true, 0},
		{"huge number in result", `{"success":true,"result":[{"id":"5f0c2a9e-7d41-4b8e-9c3a-1e2d3c4b5a69","created_at":1e999999}]}`, true, 0},
		{"success as number", `{"success":1,"result":[]}`, true, 0},
		{"result as object", `{"success":true,"result":{"id":"x"}}`, true, 0},
		{"trailing garbage", `{"success":true,"result":[]} {"success":false}`, true, 0},
		{"case of keys", `{"SUCCESS":true,"Result":[]}`, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, tc.body) })
			c := newTestClient(t, srv)
			cbs, err := c.Callbacks.List(context.Background())
			if tc.wantErr != (err != nil) {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if err == nil && len(cbs) != tc.wantLen {
				t.Errorf("%d callbacks, want %d", len(cbs), tc.wantLen)
			}
			var de *DecodeError
			var ae *APIError
			if err != nil && !errors.As(err, &de) && !errors.As(err, &ae) {
				t.Errorf("err = %T %v, want a *DecodeError or an *APIError", err, err)
			}
		})
	}
}

// One client, 64 goroutines, each cancelling its calls at random points:
// every call ends with its answer or the context's error, never a mix,
// and the client keeps working.
func TestReviewConcurrentCancellation(t *testing.T) {
	var served atomic.Int64
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		time.Sleep(time.Duration(served.Load()%5) * time.Millisecond)
		writeJSON(w, 200, `{"success":true,"result":[]}`)
	})
	c := newTestClient(t, srv)
	var wg sync.WaitGroup
	var bad atomic.Int64
	for g := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration((g+i)%7)*time.Millisecond)
				cbs, err := c.Callbacks.List(ctx)
				cancel()
				switch {
				case err == nil && cbs != nil:
				case err != nil && cbs == nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)):
				default:
					bad.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if bad.Load() != 0 {
		t.Errorf("%d calls ended with neither an answer nor the context's error", bad.Load())
	}
	if _, err := c.Callbacks.List(context.Background()); err != nil {
		t.Errorf("the client stopped working: %v", err)
	}
}
