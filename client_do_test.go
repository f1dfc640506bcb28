package acctadmin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
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
