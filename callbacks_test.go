package acctadmin

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
)

const callbackJSON = `{"id":"0b8f3f4e-6c1a-4a51-9a53-3f2d1c0b9a01","created_at":"2024-05-01 10:00:00 -0600","url":"https://hooks.example.com/acct"}`

func TestCallbacksList(t *testing.T) {
	srv := newAPIServer(t, ok(`[`+callbackJSON+`,{"id":"0b8f3f4e-6c1a-4a51-9a53-3f2d1c0b9a02","created_at":"2024-05-02T08:30:00.000-06:00","url":"https://b.example.com/","extra":1}]`))
	c := newTestClient(t, srv)
	cbs, err := c.Callbacks.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := srv.last(t)
	if r.Method != http.MethodGet || r.Path != "/callbacks" || r.RawQuery != "" || r.Body != "" || !r.AuthOK {
		t.Fatalf("request %+v", r)
	}
	if len(cbs) != 2 {
		t.Fatalf("got %d callbacks", len(cbs))
	}
	if cbs[0].ID != uuid.MustParse("0b8f3f4e-6c1a-4a51-9a53-3f2d1c0b9a01") || cbs[0].URL != "https://hooks.example.com/acct" ||
		!cbs[0].CreatedAt.Equal(time.Date(2024, 5, 1, 16, 0, 0, 0, time.UTC)) {
		t.Fatalf("first callback %+v", cbs[0])
	}
	if !cbs[1].CreatedAt.Equal(time.Date(2024, 5, 2, 14, 30, 0, 0, time.UTC)) || cbs[1].URL != "https://b.example.com/" {
		t.Fatalf("second callback %+v", cbs[1])
	}
}

func TestCallbacksCreate(t *testing.T) {
	srv := newAPIServer(t, ok(callbackJSON))
	c := newTestClient(t, srv)
	cb, err := c.Callbacks.Create(context.Background(), "https://hooks.example.com/acct")
	if err != nil {
		t.Fatal(err)
	}
	r := srv.last(t)
	var body map[string]any
	if err := json.Unmarshal([]byte(r.Body), &body); err != nil {
		t.Fatal(err)
	}
	if r.Method != http.MethodPost || r.Path != "/callbacks" || len(body) != 1 || body["url"] != "https://hooks.example.com/acct" || !r.AuthOK {
		t.Fatalf("request %+v", r)
	}
	if cb.ID != uuid.MustParse("0b8f3f4e-6c1a-4a51-9a53-3f2d1c0b9a01") || cb.URL != "https://hooks.example.com/acct" {
		t.Fatalf("callback %+v", cb)
	}
}

func TestCallbacksCreateRefusesBadURLs(t *testing.T) {
	srv := newAPIServer(t, ok(callbackJSON))
	c := newTestClient(t, srv)
	for _, u := range []string{"", "   ", "/relative/path", "hooks.example.com", "ftp://hooks.example.com/x", "https://", "http://[::1"} {
		_, err := c.Callbacks.Create(context.Background(), u)
		var ve *ValidationError
		if !errors.Is(err, ErrInvalidParams) || !errors.As(err, &ve) || ve.Field != "url" {
			t.Errorf("Create(%q) = %v, want a validation error on url", u, err)
		}
	}
	if n := srv.count(); n != 0 {
		t.Fatalf("the server received %d requests", n)
	}
}

func TestCallbacksDelete(t *testing.T) {
	id := uuid.MustParse("0b8f3f4e-6c1a-4a51-9a53-3f2d1c0b9a01")
	answers := map[string]http.HandlerFunc{
		"envelope": ok(`{"id":"0b8f3f4e-6c1a-4a51-9a53-3f2d1c0b9a01"}`),
		"no content": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNoContent)
		},
		"empty 200":   func(w http.ResponseWriter, r *http.Request) {},
		"null result": ok(`null`),
	}
	for name, h := range answers {
		t.Run(name, func(t *testing.T) {
			srv := newAPIServer(t, h)
			c := newTestClient(t, srv)
			if err := c.Callbacks.Delete(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			r := srv.last(t)
			if r.Method != http.MethodDelete || r.Path != "/callbacks/"+id.String() || r.Body != "" || !r.AuthOK {
				t.Fatalf("request %+v", r)
			}
		})
	}
}

func TestCallbacksDeleteFailures(t *testing.T) {
	id := uuid.New()
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, `{"success":false,"message":"no such callback"}`)
	})
	c := newTestClient(t, srv)
	err := c.Callbacks.Delete(context.Background(), id)
	var apiErr *APIError
	if !errors.Is(err, ErrNotFound) || !errors.As(err, &apiErr) || apiErr.Message != "no such callback" || apiErr.Path != "/callbacks/"+id.String() {
		t.Fatalf("got %v", err)
	}

	srv = newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, `{"success":"false","message":"callback is locked"}`)
	})
	c = newTestClient(t, srv)
	err = c.Callbacks.Delete(context.Background(), id)
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 200 || apiErr.Message != "callback is locked" {
		t.Fatalf("success false: got %v", err)
	}

	before := srv.count()
	err = c.Callbacks.Delete(context.Background(), uuid.Nil)
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Field != "id" || srv.count() != before {
		t.Fatalf("nil id: %v, %d new requests", err, srv.count()-before)
	}
}

// A delete whose connection broke after the API deleted the callback is
// retried, and the retry's 404 is that delete's success. A 404 to the
// first attempt, or to a retry after attempts that never reached the API
// (a connection that could not be made), is ErrNotFound.
func TestCallbacksDeleteRetriedNotFoundIsDeleted(t *testing.T) {
	var gone atomic.Bool
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if gone.Swap(true) {
			writeJSON(w, http.StatusNotFound, `{"message":"no such callback"}`)
			return
		}
		resetConn(w) // deleted, but the answer is lost
	})
	c := newTestClient(t, srv)
	if err := c.Callbacks.Delete(context.Background(), rcID); err != nil {
		t.Fatalf("err = %v, want the delete taken as done", err)
	}
	if n := srv.count(); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}

	err := c.Callbacks.Delete(context.Background(), rcID)
	if !errors.Is(err, ErrNotFound) || srv.count() != 3 {
		t.Fatalf("first attempt: err = %v after %d requests, want ErrNotFound after 1 more", err, srv.count())
	}

	var dials atomic.Int32
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) == 1 {
			return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("connection refused")}
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	defer tr.CloseIdleConnections()
	c = newTestClient(t, srv, WithHTTPClient(&http.Client{Transport: tr}))
	err = c.Callbacks.Delete(context.Background(), rcID)
	if !errors.Is(err, ErrNotFound) || srv.count() != 4 || dials.Load() != 2 {
		t.Fatalf("after a failed connect: err = %v after %d requests, %d dials, want ErrNotFound after 1 more", err, srv.count(), dials.Load())
	}
}
