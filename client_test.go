package acctadmin

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
)

// Do sends any route signed, with its query as the API reads arrays,
// decodes the envelope's result into any value, and retries by method.
func TestDoSendsAndDecodes(t *testing.T) {
	var n atomic.Int32
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			writeJSON(w, 503, `{"message":"busy"}`)
			return
		}
		writeJSON(w, 200, `{"success":true,"result":[{"id":"`+wcOrder.String()+`","name":"EIN"}]}`)
	})
	c, seen := hookedClient(t, srv)
	var out []struct{ ID, Name string }
	var meta Response
	err := c.Do(WithResponseInto(context.Background(), &meta), &RawRequest{
		Method: http.MethodGet, Path: "/order-items", Pattern: "/order-items",
		Query: url.Values{"company_ids[]": {wcCompany.String(), wcItem.String()}, "b": {"x y"}},
	}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Name != "EIN" || out[0].ID != wcOrder.String() {
		t.Errorf("decoded %+v", out)
	}
	req := srv.last(t)
	if want := "b=x+y&company_ids[]=" + wcCompany.String() + "&company_ids[]=" + wcItem.String(); req.RawQuery != want || !req.AuthOK || req.Body != "" {
		t.Errorf("sent ?%s body %q (auth %v), want ?%s", req.RawQuery, req.Body, req.AuthOK, want)
	}
	if srv.count() != 2 || meta.Attempts != 2 {
		t.Errorf("%d requests, %d attempts: a GET is retried", srv.count(), meta.Attempts)
	}
	if h := seen()[0]; h != (hookedCall{"Client.Do", "GET", "/order-items"}) {
		t.Errorf("hooks saw %+v", h)
	}
}

// A POST through Do is sent once, whatever happens; its failure after the
// request may have arrived is ErrOutcomeUnknown; the secrets it names are
// kept out of the error.
func TestDoPostSentOnce(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		writeJSON(w, 503, `{"message":"could not store `+strings.ReplaceAll(string(b), `"`, `'`)+`"}`)
	})
	c := newTestClient(t, srv)
	err := c.Do(context.Background(), &RawRequest{
		Method: http.MethodPost, Path: "/payment-methods/verify",
		Body: map[string]string{"number": wcCardNumber}, Secrets: []string{wcCardNumber},
	}, nil)
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != 503 || !errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("err = %v, want a 503 *APIError of unknown outcome", err)
	}
	if srv.count() != 1 {
		t.Errorf("%d requests, want exactly 1", srv.count())
	}
	if req := srv.last(t); !sameJSON(req.Body, `{"number":"`+wcCardNumber+`"}`) {
		t.Errorf("body %s", req.Body)
	}
	if strings.Contains(err.Error(), wcCardNumber) || strings.Contains(string(ae.Body), wcCardNumber) {
		t.Errorf("the error shows the card number: %v", err)
	}
	// A DELETE marked AtMostOnce is not retried either; a raw JSON body is
	// sent as it is.
	err = c.Do(context.Background(), &RawRequest{Method: http.MethodDelete, Path: "/x", AtMostOnce: true, Body: []byte(`{"a":1}`)}, nil)
	if !errors.Is(err, ErrOutcomeUnknown) || srv.count() != 2 || srv.last(t).Body != `{"a":1}` {
		t.Errorf("err = %v after %d requests, body %q", err, srv.count(), srv.last(t).Body)
	}
}

// DoFile streams any answer that is not JSON, and reads a JSON one as the
// API's error.
func TestDoFile(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			writeJSON(w, 200, `{"success":false,"message":"no such archive"}`)
			return
		}
		w.Header().Set("Content-Type", "application/zip")
		_, _ = w.Write([]byte("PK\x03\x04zip"))
	})
	c := newTestClient(t, srv)
	f, err := c.DoFile(context.Background(), &RawRequest{Method: http.MethodGet, Path: "/documents/archive"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "PK\x03\x04zip" || f.ContentType != "application/zip" {
		t.Errorf("file %q of type %q", b, f.ContentType)
	}
	var ae *APIError
	if _, err := c.DoFile(context.Background(), &RawRequest{Method: http.MethodGet, Path: "/missing"}); !errors.As(err, &ae) || ae.Message != "no such archive" {
		t.Errorf("err = %v, want the API's error", err)
	}
}

// A request Do cannot send is refused before anything is sent.
func TestDoRefusesBadRequests(t *testing.T) {
	srv := nullServer(t)
	c := newTestClient(t, srv)
	for _, tc := range []struct {
		req   *RawRequest
		field string
	}{
		{nil, "request"},
		{&RawRequest{Method: "TRACE", Path: "/x"}, "method"},
		{&RawRequest{Method: "get", Path: "/x"}, "method"},
		{&RawRequest{Method: "GET", Path: "x"}, "path"},
		{&RawRequest{Method: "GET", Path: "/x?a=1"}, "path"},
		{&RawRequest{Method: "GET", Path: "/a/../b"}, "path"},
	} {
		var ve *ValidationError
		if err := c.Do(context.Background(), tc.req, nil); !errors.As(err, &ve) || ve.Field != tc.field {
			t.Errorf("%+v: err = %v, want a *ValidationError for %s", tc.req, err, tc.field)
		}
		if _, err := c.DoFile(context.Background(), tc.req); !errors.As(err, &ve) || ve.Field != tc.field {
			t.Errorf("%+v: DoFile err = %v", tc.req, err)
		}
	}
	var ve *ValidationError
	for _, out := range []any{struct{ N int }{}, (*struct{ N int })(nil)} {
		if err := c.Do(context.Background(), &RawRequest{Method: "GET", Path: "/x"}, out); !errors.As(err, &ve) || ve.Field != "out" {
			t.Errorf("Do into %T: err = %v, want a *ValidationError for out", out, err)
		}
	}
	//lint:ignore SA1012 the test is about a nil context
	if err := c.Do(nil, &RawRequest{Method: "GET", Path: "/x"}, nil); !errors.Is(err, ErrInvalidParams) {
		t.Errorf("nil context: err = %v", err)
	}
	if srv.count() != 0 {
		t.Errorf("%d requests sent", srv.count())
	}
}

// Do into a value that cannot hold the answer describes the value at
// fault, by its JSON path, kind and length, and never quotes it: not a
// number that overflows its field, nor a key of a map, nor a value the
// typed methods would read.
func TestDoDecodeErrorDescribesTheValue(t *testing.T) {
	const secretNumber = "4111111111111111"
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"success":true,"result":{"n":`+secretNumber+`,"s":`+secretNumber+`,"m":{"`+testAccessKey+`":"`+secretNumber+`"},"l":[1,`+secretNumber+`]}}`)
	})
	c := newTestClient(t, srv)
	cases := []struct {
		out  any
		want string
	}{
		{new(struct{ N int8 }), "acctadmin: decode GET /x: result.n: cannot read JSON number of 16 bytes as int8"},
		{new(struct{ S bool }), "acctadmin: decode GET /x: result.s: cannot read JSON number as bool"},
		{new(struct{ M map[string]int }), "acctadmin: decode GET /x: result.m.[redacted]: cannot read JSON string as int"},
		{new(struct{ L []int16 }), "acctadmin: decode GET /x: result.l[1]: cannot read JSON number of 16 bytes as int16"},
		{new(int), "acctadmin: decode GET /x: result: cannot read JSON object as int"},
	}
	for _, tc := range cases {
		err := c.Do(context.Background(), &RawRequest{Method: http.MethodGet, Path: "/x"}, tc.out)
		var de *DecodeError
		if !errors.As(err, &de) {
			t.Fatalf("Do into %T: err = %v, want a *DecodeError", tc.out, err)
		}
		if err.Error() != tc.want {
			t.Errorf("Do into %T: err = %q, want %q", tc.out, err, tc.want)
		}
		for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
			if strings.Contains(text, secretNumber) || strings.Contains(text, testAccessKey) {
				t.Errorf("Do into %T: the error quotes the value: %.300s", tc.out, text)
			}
		}
	}

	// The typed methods describe a number that overflows a field alike.
	srv = newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"success":true,"result":[{"id":"`+wcOrder.String()+`","pages":9`+secretNumber+`0000}]}`)
	})
	_, err := newTestClient(t, srv).Documents.List(context.Background(), nil)
	if want := "acctadmin: decode GET /documents: result[0].pages: cannot read JSON number of 21 bytes as int"; err == nil || err.Error() != want {
		t.Errorf("Documents.List: err = %v, want %q", err, want)
	}
}

// A PUT through Do is a write like POST and PATCH: sent once, and its 503
// is of unknown outcome. A DELETE through Do is retried.
func TestDoPutSentOnce(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusServiceUnavailable, `{"message":"busy"}`)
	})
	c := newTestClient(t, srv, WithMaxRetries(2))
	err := c.Do(context.Background(), &RawRequest{Method: http.MethodPut, Path: "/widgets/1", Body: map[string]int{"n": 1}}, nil)
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != 503 || !errors.Is(err, ErrOutcomeUnknown) || srv.count() != 1 {
		t.Fatalf("PUT: err = %v after %d requests, want a 503 of unknown outcome after 1", err, srv.count())
	}
	err = c.Do(context.Background(), &RawRequest{Method: http.MethodDelete, Path: "/widgets/1"}, nil)
	if errors.Is(err, ErrOutcomeUnknown) || srv.count() != 1+3 {
		t.Fatalf("DELETE: err = %v after %d requests in all, want 3 more of known outcome", err, srv.count())
	}
}

// Do sends its query in the order of its sorted keys, whatever order the
// map gives them in.
func TestDoQuerySortedByKey(t *testing.T) {
	srv := newAPIServer(t, ok("null"))
	c := newTestClient(t, srv)
	q := url.Values{}
	var want []string
	for i := 0; i < 26; i++ {
		k := string(rune('a' + i))
		q.Set(k, strconv.Itoa(i))
		want = append(want, k+"="+strconv.Itoa(i))
	}
	for range 5 {
		if err := c.Do(context.Background(), &RawRequest{Method: http.MethodGet, Path: "/things", Query: q}, nil); err != nil {
			t.Fatal(err)
		}
		if got := srv.last(t).RawQuery; got != strings.Join(want, "&") {
			t.Fatalf("query %s, want the keys sorted", got)
		}
	}
}

// A write through DoFile whose answer cannot be read, a JSON success
// where a file was due or a file cut off halfway, is of unknown outcome.
func TestDoFileWriteUnreadableIsUnknown(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/receipts/json" {
			writeJSON(w, 200, `{"success":true,"result":{"id":1}}`)
			return
		}
		w.Header().Set("Content-Type", "application/pdf")
		w.Header().Set("Content-Length", "100")
		_, _ = io.WriteString(w, "%PDF-1.7 half")
		resetConn(w)
	})
	c := newTestClient(t, srv)
	_, err := c.DoFile(context.Background(), &RawRequest{Method: http.MethodPost, Path: "/receipts/json"})
	var de *DecodeError
	if !errors.As(err, &de) || !errors.Is(err, ErrOutcomeUnknown) {
		t.Errorf("JSON for a file: err = %v (%T), want a *DecodeError of unknown outcome", err, err)
	}
	f, err := c.DoFile(context.Background(), &RawRequest{Method: http.MethodPost, Path: "/receipts/pdf"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(f)
	f.Close()
	var te *TransportError
	if !errors.As(err, &te) || !errors.Is(err, ErrOutcomeUnknown) {
		t.Errorf("file cut off: err = %v (%T), want a *TransportError of unknown outcome", err, err)
	}
	if n := srv.count(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// A write through Do whose result does not fit out is of unknown outcome
// (the API answered 2xx: it may have taken effect) and a *DecodeError; the
// same through a GET is of known outcome.
func TestDoWriteUndecodableResultIsUnknown(t *testing.T) {
	srv := newAPIServer(t, ok(`{"n":300}`))
	c := newTestClient(t, srv)
	var out struct {
		N int8 `json:"n"`
	}
	for _, tc := range []struct {
		method  string
		unknown bool
	}{{http.MethodPost, true}, {http.MethodPatch, true}, {http.MethodPut, true}, {http.MethodGet, false}} {
		err := c.Do(context.Background(), &RawRequest{Method: tc.method, Path: "/widgets"}, &out)
		var de *DecodeError
		if !errors.As(err, &de) || errors.Is(err, ErrOutcomeUnknown) != tc.unknown {
			t.Errorf("%s: err = %v, want a *DecodeError, unknown outcome %v", tc.method, err, tc.unknown)
		}
	}
	if n := srv.count(); n != 4 {
		t.Errorf("%d requests, want 4", n)
	}
}

func TestNewClientRefusesBadArguments(t *testing.T) {
	cases := []struct {
		name           string
		access, secret string
		opts           []Option
		want           string
	}{
		{"empty access key", "", testSecretKey, nil, "empty access key"},
		{"blank access key", "  \t", testSecretKey, nil, "empty access key"},
		{"empty secret key", testAccessKey, "", nil, "empty secret key"},
		{"blank secret key", testAccessKey, "\n ", nil, "empty secret key"},
		{"unparsable base URL", testAccessKey, testSecretKey, []Option{WithBaseURL("http://[::1")}, "does not parse"},
		{"not http", testAccessKey, testSecretKey, []Option{WithBaseURL("ftp://api.example.com")}, "want an http or https URL"},
		{"relative base URL", testAccessKey, testSecretKey, []Option{WithBaseURL("api.example.com/v1")}, "want an http or https URL"},
		{"no host", testAccessKey, testSecretKey, []Option{WithBaseURL("https://")}, "has no host"},
		{"query in base URL", testAccessKey, testSecretKey, []Option{WithBaseURL("https://api.example.com/?key=1")}, "want no user, query or fragment"},
		{"negative retries", testAccessKey, testSecretKey, []Option{WithMaxRetries(-1)}, "retry count -1, want 0 to 100"},
		{"retry wait max below min", testAccessKey, testSecretKey, []Option{WithRetryWait(time.Second, time.Millisecond)}, "invalid bounds"},
		{"negative retry wait", testAccessKey, testSecretKey, []Option{WithRetryWait(-time.Second, time.Second)}, "invalid bounds"},
		{"negative timeout", testAccessKey, testSecretKey, []Option{WithTimeout(-time.Second)}, "negative timeout"},
		{"nil http client", testAccessKey, testSecretKey, []Option{WithHTTPClient(nil)}, "nil *http.Client"},
		{"nil authenticator", testAccessKey, testSecretKey, []Option{WithAuthenticator(nil)}, "nil Authenticator"},
		{"line break in user agent", testAccessKey, testSecretKey, []Option{WithUserAgent("x\r\nX-Evil: 1")}, "line break"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewClient(tc.access, tc.secret, tc.opts...)
			if err == nil || c != nil {
				t.Fatalf("NewClient = %v, %v; want an error", c, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), testSecretKey) {
				t.Fatalf("error %q shows the secret key", err)
			}
		})
	}
}

// TestNewClientHidesBaseURLPassword: a base URL with a password is
// refused with an error that names the URL with its password hidden,
// whether the URL parses or not.
func TestNewClientHidesBaseURLPassword(t *testing.T) {
	cases := []struct{ url, want string }{
		{"ftp://user:SECRET@host/", `"ftp://user:xxxxx@host/": want an http or https URL`},
		{"https://user:SECRET@api.example.com/", `"https://user:xxxxx@api.example.com/": want no user`},
		{"http://user:SECRET@[::1/", `"http://user:xxxxx@[::1/" does not parse`},
		{"http://user:SE/CRET@host:99999x/", `"http://user:xxxxx@host:99999x/" does not parse`},
		{"http://user:SE CRET@host/", `"http://user:xxxxx@host/" does not parse`},
		{"user:SECRET@host", `"user:xxxxx@host": want an http or https URL`},
		{"http://host/\x7f:SECRET@x", `does not parse`},
	}
	for _, tc := range cases {
		_, err := NewClient(testAccessKey, testSecretKey, WithBaseURL(tc.url))
		if err == nil {
			t.Fatalf("NewClient(WithBaseURL(%q)): no error", tc.url)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("WithBaseURL(%q): error %q, want %q", tc.url, err, tc.want)
		}
		if strings.Contains(err.Error(), "SE") {
			t.Errorf("WithBaseURL(%q): error %q shows the password", tc.url, err)
		}
	}
}

func TestNewClientDefaults(t *testing.T) {
	c, err := NewClient(testAccessKey, testSecretKey)
	if err != nil {
		t.Fatal(err)
	}
	if c.baseURL.String() != DefaultBaseURL || c.maxRetries != 3 || c.retryWaitMin != 250*time.Millisecond || c.retryWaitMax != 8*time.Second || c.logger != nil {
		t.Fatalf("defaults: %s %d %s %s %v", c.baseURL, c.maxRetries, c.retryWaitMin, c.retryWaitMax, c.logger)
	}
	if c.Services == nil || c.Documents == nil || c.Resources == nil || c.FilingProducts == nil || c.ComplianceEvents == nil ||
		c.Websites == nil || c.Callbacks == nil || c.Companies == nil || c.Invoices == nil || c.RegisteredAgentProducts == nil {
		t.Fatal("a resource client is nil")
	}
	if c.userAgent[0] != "acctadmin-go/"+Version {
		t.Fatalf("user agent %q", c.userAgent[0])
	}
}

func TestNewClientFromEnv(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	t.Setenv(EnvAccessKey, "")
	t.Setenv(EnvSecretKey, testSecretKey)
	if _, err := NewClientFromEnv(); err == nil || !strings.Contains(err.Error(), EnvAccessKey) {
		t.Fatalf("missing access key: %v", err)
	}
	t.Setenv(EnvAccessKey, testAccessKey)
	t.Setenv(EnvSecretKey, "")
	if _, err := NewClientFromEnv(); err == nil || !strings.Contains(err.Error(), EnvSecretKey) {
		t.Fatalf("missing secret key: %v", err)
	}
	t.Setenv(EnvSecretKey, testSecretKey)
	t.Setenv(EnvBaseURL, srv.URL)
	c, err := NewClientFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Callbacks.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := srv.last(t); !r.AuthOK || r.Path != "/callbacks" {
		t.Fatalf("request %+v", r)
	}
	// An option given in code wins over the environment.
	c, err = NewClientFromEnv(WithBaseURL("https://override.example.com/base/"))
	if err != nil {
		t.Fatal(err)
	}
	if c.baseURL.String() != "https://override.example.com/base" {
		t.Fatalf("base URL %s", c.baseURL)
	}
	t.Setenv(EnvBaseURL, "not a url")
	if _, err := NewClientFromEnv(); err == nil {
		t.Fatal("a bad ACCTADMIN_BASE_URL was accepted")
	}
}

func TestBaseURLPathPrefixAndUserAgent(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv, WithBaseURL(srv.URL+"/api/"), WithUserAgent("billing-sync/2.1"))
	if _, err := c.Callbacks.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := srv.last(t)
	if r.Path != "/api/callbacks" || !r.AuthOK {
		t.Fatalf("request %+v", r)
	}
	if ua := r.Header.Get("User-Agent"); ua != "billing-sync/2.1 acctadmin-go/"+Version {
		t.Fatalf("User-Agent %q", ua)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q", ct)
	}
}

func TestWithHTTPClientKeepsItsTransport(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	var seen int
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		seen++
		return http.DefaultTransport.RoundTrip(r)
	})}
	c := newTestClient(t, srv, WithHTTPClient(hc))
	if _, err := c.Callbacks.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	if seen != 1 || !srv.last(t).AuthOK {
		t.Fatalf("the given transport saw %d requests; auth ok %v", seen, srv.last(t).AuthOK)
	}
	if hc.Transport == nil || hc.CheckRedirect != nil {
		t.Fatal("the caller's http.Client was modified")
	}
}

func TestNilContextIsAnError(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv)
	//lint:ignore SA1012 the test is about a nil context
	_, err := c.Callbacks.List(nil) //nolint:staticcheck
	if err == nil || srv.count() != 0 {
		t.Fatalf("nil context: %v, %d requests", err, srv.count())
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestErrorsDoNotWrapEachOther(t *testing.T) {
	// The sentinels are distinct values.
	all := []error{ErrNotFound, ErrUnauthorized, ErrForbidden, ErrRateLimited, ErrServer, ErrInvalidParams, ErrResponseTooLarge}
	for i, a := range all {
		for j, b := range all {
			if (i == j) != errors.Is(a, b) {
				t.Fatalf("errors.Is(%v, %v) = %v", a, b, errors.Is(a, b))
			}
		}
	}
}

// printVerbs are the fmt verbs a program may print a value with.
var printVerbs = []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3v"}

// keyForms are the ways fmt may spell a key: as it is, in hex (%x of a
// string or []byte), as decimal bytes (%v of a []byte).
func keyForms(keys ...string) []string {
	var out []string
	for _, k := range keys {
		out = append(out, k, hex.EncodeToString([]byte(k)), strings.ToUpper(hex.EncodeToString([]byte(k))),
			strings.Trim(fmt.Sprint([]byte(k)), "[]"), strings.Trim(fmt.Sprintf("%x", []byte(k)), "[]"))
	}
	return out
}

// printings returns v printed under every verb, with fmt.Sprint and
// Sprintln, logged by slog's text and JSON handlers, and marshalled to
// JSON.
func printings(t *testing.T, v any) []string {
	t.Helper()
	var out []string
	for _, verb := range printVerbs {
		out = append(out, verb+": "+fmt.Sprintf(verb, v))
	}
	out = append(out, fmt.Sprint(v), fmt.Sprintln(v))
	var logs bytes.Buffer
	for _, h := range []slog.Handler{slog.NewTextHandler(&logs, nil), slog.NewJSONHandler(&logs, nil)} {
		slog.New(h).Info("config", "v", v, slog.Any("any", v))
	}
	out = append(out, logs.String())
	if b, err := json.Marshal(v); err == nil {
		out = append(out, string(b))
	}
	return out
}

// A Client, or a struct that holds one, prints, logs and marshals without
// either key under every verb: the keys are neither in the Client's own
// form nor reachable by fmt's reflection through unexported fields, nor in
// the form fmt writes for a verb a field does not take.
func TestClientPrintsNoKey(t *testing.T) {
	c, err := NewClient(testAccessKey, testSecretKey, WithBaseURL("https://api.example.com/v1"))
	if err != nil {
		t.Fatal(err)
	}
	type config struct {
		Name   string
		Client *Client
	}
	type private struct {
		name   string
		client *Client
		value  Client
	}
	type public struct{ Value Client }
	values := []any{c, *c, config{"prod", c}, &config{"prod", c}, private{"prod", c, *c}, &private{"prod", c, *c},
		public{*c}, []*Client{c}, map[string]*Client{"prod": c}, []Client{*c}}
	needles := keyForms(testAccessKey, testSecretKey)
	for _, v := range values {
		for _, text := range printings(t, v) {
			for _, n := range needles {
				if strings.Contains(text, n) {
					t.Errorf("%T shows a key (%d bytes of it): %.200s", v, len(n), text)
				}
			}
		}
	}
	const want = `acctadmin.Client(https://api.example.com/v1)`
	for _, v := range []any{c, *c} {
		if got := fmt.Sprintf("%v", v); got != want {
			t.Errorf("%%v of %T = %.200q, want %q", v, got, want)
		}
		if got := fmt.Sprintf("%q", v); got != fmt.Sprintf("%q", want) {
			t.Errorf("%%q of %T = %.200q, want %q", v, got, fmt.Sprintf("%q", want))
		}
	}
}

// callPathDocument is the document TestDocumentsGetCallPath's server
// answers.
const callPathDocument = `{"id":"6f1c1f3e-8a0b-4c8e-9d2a-3b4c5d6e7f80","title":"Annual report notice","state":"Utah","created_at":"2024-05-01 10:00:00 -0600"}`

// TestDocumentsGetCallPath runs one Documents.Get, answered with a
// document. Run alone with a cover profile of the root package, it lists
// the SDK functions one read passes through (less those of
// TestDocumentsGetCallPathSetup, which only builds the client).
func TestDocumentsGetCallPath(t *testing.T) {
	srv := newAPIServer(t, ok(callPathDocument))
	c := newTestClient(t, srv)
	id := uuid.MustParse("6f1c1f3e-8a0b-4c8e-9d2a-3b4c5d6e7f80")
	d, err := c.Documents.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if d.ID != id || d.Title != "Annual report notice" || d.Jurisdiction != "Utah" || d.CreatedAt.IsZero() {
		t.Errorf("Get = %+v", d)
	}
	if got := srv.last(t); got.Method != http.MethodGet || got.Path != "/documents/"+id.String() || !got.AuthOK {
		t.Errorf("sent %s %s (auth ok %v, %s)", got.Method, got.Path, got.AuthOK, got.AuthErr)
	}
}

// TestDocumentsGetCallPathSetup builds the client of
// TestDocumentsGetCallPath and sends nothing: its cover profile is what
// the setup of that test runs.
func TestDocumentsGetCallPathSetup(t *testing.T) {
	srv := newAPIServer(t, ok(callPathDocument))
	if c := newTestClient(t, srv); c.Documents == nil {
		t.Fatal("no Documents client")
	}
}

// WithMaxRetries refuses what it cannot honour, and keeps every value it
// takes: a huge count never overflows into "no retries".
func TestWithMaxRetriesEdges(t *testing.T) {
	for _, n := range []int{-1, maxRetriesLimit + 1, math.MaxInt, math.MinInt} {
		if _, err := NewClient(testAccessKey, testSecretKey, WithMaxRetries(n)); err == nil {
			t.Errorf("WithMaxRetries(%d) accepted", n)
		}
	}
	for _, n := range []int{0, 1, maxRetriesLimit} {
		c, err := NewClient(testAccessKey, testSecretKey, WithMaxRetries(n))
		if err != nil || c.maxRetries != n {
			t.Errorf("WithMaxRetries(%d) = %v, kept %v", n, err, c)
		}
	}
	// At the limit, every retry is made.
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) })
	c := newTestClient(t, srv, WithMaxRetries(maxRetriesLimit), WithRetryWait(0, 0))
	if _, err := c.Callbacks.List(context.Background()); !errors.Is(err, ErrServer) || srv.count() != maxRetriesLimit+1 {
		t.Errorf("err = %v after %d requests, want a 503 after %d", err, srv.count(), maxRetriesLimit+1)
	}
	for _, w := range [][2]time.Duration{{-1, time.Second}, {time.Second, time.Millisecond}, {0, math.MaxInt64}} {
		_, err := NewClient(testAccessKey, testSecretKey, WithRetryWait(w[0], w[1]))
		if w[1] == math.MaxInt64 {
			if err != nil {
				t.Errorf("WithRetryWait(%v) refused: %v", w, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("WithRetryWait(%v) accepted", w)
		}
	}
}

// A nil context is refused the same way by every method: a
// *ValidationError, and nothing sent. Called with otherwise valid
// arguments, the error names "ctx"; with invalid ones too, it may name one
// of those instead. The methods are found by reflection, so a new one
// cannot be missed.
func TestNilContextRefusedByEveryMethod(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, `{"success":true,"result":[]}`) })
	c := newTestClient(t, srv)
	valid := map[reflect.Type]any{
		reflect.TypeOf(uuid.UUID{}):                                                 uuid.MustParse("0b7c5f0e-8d1c-4c55-9b3e-2f4a1d6e7a10"),
		reflect.TypeOf(""):                                                          "https://example.com/",
		reflect.TypeOf(&ServiceCreateParams{}):                                      &ServiceCreateParams{Company: "A", Jurisdictions: []string{"Utah"}},
		reflect.TypeOf(&ComplianceEventListParams{}):                                &ComplianceEventListParams{StartDate: Date{2024, 1, 1}, EndDate: Date{2024, 2, 1}},
		reflect.TypeOf(&FilingProductListParams{}):                                  &FilingProductListParams{URL: "https://example.com/"},
		reflect.TypeOf(&RegisteredAgentProductListParams{}):                         &RegisteredAgentProductListParams{URL: "https://example.com/"},
		reflect.TypeOf([]CompanyCreateParams{}):                                     []CompanyCreateParams{{Name: "A"}},
		reflect.TypeOf([]CompanyUpdateParams{}):                                     []CompanyUpdateParams{{Company: "A", Name: "B"}},
		reflect.TypeOf(func(context.Context, Document, *File) error { return nil }): func(context.Context, Document, *File) error { return nil },
		reflect.TypeOf([]uuid.UUID{}):                                               []uuid.UUID{wcDocument},
		reflect.TypeOf(&LoginParams{}):                                              &LoginParams{Email: "u@example.com", Password: wcPassword},
		reflect.TypeOf(&ForgotPasswordParams{}):                                     &ForgotPasswordParams{EmailAddress: "u@example.com"},
		reflect.TypeOf(&ResetPasswordParams{}):                                      &ResetPasswordParams{Token: wcResetToken, Password: wcPassword},
		reflect.TypeOf(&ServiceInfo{}):                                              &ServiceInfo{},
		reflect.TypeOf(&OfferingParams{}):                                           &OfferingParams{CompanyID: wcCompany, Jurisdiction: "UT"},
		reflect.TypeOf(&FilingMethodListParams{}):                                   &FilingMethodListParams{CompanyID: wcCompany, Jurisdiction: "UT", FilingProductID: wcProduct},
		reflect.TypeOf(&FormSchemaParams{}):                                         &FormSchemaParams{CompanyID: wcCompany, FilingMethodID: wcMethod},
		reflect.TypeOf(&SimpleProductListParams{}):                                  &SimpleProductListParams{URL: "https://example.com/"},
		reflect.TypeOf(&SignedFormListParams{}):                                     &SignedFormListParams{FilingMethodID: wcMethod},
		reflect.TypeOf(&CartAddParams{}):                                            &CartAddParams{CompanyID: wcCompany, ProductID: wcProduct},
		reflect.TypeOf(&CartRemoveParams{}):                                         &CartRemoveParams{ItemIDs: []uuid.UUID{wcItem}},
		reflect.TypeOf(&CheckoutParams{}):                                           &CheckoutParams{ItemIDs: []uuid.UUID{wcItem}, PaymentMethodID: wcCard},
		reflect.TypeOf(&Card{}):                                                     wcCardParams(),
		reflect.TypeOf(&InvoicePayParams{}):                                         &InvoicePayParams{InvoiceIDs: []uuid.UUID{wcInvoice}, PaymentMethodID: wcCard},
		reflect.TypeOf(&OrderItemFormDataParams{}):                                  &OrderItemFormDataParams{CompanyID: wcCompany, OrderItemID: wcOrder, FormData: map[string]any{}},
	}
	cv := reflect.ValueOf(c).Elem()
	ctxType := reflect.TypeOf((*context.Context)(nil)).Elem()
	errType := reflect.TypeOf((*error)(nil)).Elem()
	call := func(meth reflect.Value, args []reflect.Value) (err error) {
		var out []reflect.Value
		if meth.Type().IsVariadic() {
			out = meth.CallSlice(args)
		} else {
			out = meth.Call(args)
		}
		last := out[len(out)-1]
		switch {
		case last.Type() == errType:
			err, _ = last.Interface().(error)
		case last.Kind() == reflect.Func: // an iter.Seq2[T, error]
			yield := reflect.MakeFunc(last.Type().In(0), func(in []reflect.Value) []reflect.Value {
				err, _ = in[1].Interface().(error)
				return []reflect.Value{reflect.ValueOf(false)}
			})
			last.Call([]reflect.Value{yield})
		default:
			t.Fatalf("unexpected result type %s", last.Type())
		}
		return err
	}
	tested := 0
	for i := range cv.NumField() {
		f := cv.Field(i)
		if !cv.Type().Field(i).IsExported() || f.Kind() != reflect.Pointer {
			continue
		}
		for m := range f.NumMethod() {
			meth := f.Method(m)
			mt := meth.Type()
			name := cv.Type().Field(i).Name + "." + f.Type().Method(m).Name
			if mt.NumIn() == 0 || mt.In(0) != ctxType {
				continue
			}
			zero := []reflect.Value{reflect.Zero(ctxType)}
			good := []reflect.Value{reflect.Zero(ctxType)}
			for a := 1; a < mt.NumIn(); a++ {
				zero = append(zero, reflect.Zero(mt.In(a)))
				if v, ok := valid[mt.In(a)]; ok {
					good = append(good, reflect.ValueOf(v))
				} else {
					good = append(good, reflect.Zero(mt.In(a)))
				}
			}
			var ve *ValidationError
			if err := call(meth, zero); !errors.As(err, &ve) || !errors.Is(err, ErrInvalidParams) {
				t.Errorf("%s(nil, zero values) = %v, want a *ValidationError", name, err)
			}
			if err := call(meth, good); !errors.As(err, &ve) || ve.Field != "ctx" {
				t.Errorf("%s(nil, valid arguments) = %v, want a *ValidationError for ctx", name, err)
			}
			tested++
		}
	}
	if tested < 25 {
		t.Errorf("tested %d methods; the client has more", tested)
	}
	if srv.count() != 0 {
		t.Errorf("%d requests sent for nil contexts", srv.count())
	}
}

// A user agent with a control character is refused by NewClient, so no
// call is ever made with it.
func TestWithUserAgentRefusesControlCharacters(t *testing.T) {
	for _, ua := range []string{"app\x00", "app\x1b[31m", "app\x7f", "app\x01x", "a\rb", "a\nb"} {
		c, err := NewClient(testAccessKey, testSecretKey, WithUserAgent(ua))
		if err == nil || c != nil || !strings.Contains(err.Error(), "WithUserAgent") {
			t.Errorf("WithUserAgent(%q): %v, %v; want an error", ua, c, err)
		}
	}
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv, WithUserAgent("my-app/1.0\t(tab allowed) é"))
	if _, err := c.Services.List(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := srv.requests()[0].Header.Get("User-Agent"); !strings.HasPrefix(got, "my-app/1.0\t(tab allowed) é acctadmin-go/") {
		t.Fatalf("User-Agent = %q", got)
	}
}
