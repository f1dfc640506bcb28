package acctadmin

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"pgregory.net/rapid"
)

// Redaction and bounds, on generated servers. A server controls the status
// line, every header, a redirect's Location, the body and every value in
// it. The generated test below plants a secret of the call (the access
// key, the secret key, the token the signer made, any of its parts, the
// query string as sent or decoded, a query value) in one of those places,
// padded with up to 200 KiB of text, or a card number the call sent,
// grouped as people write it (4-4-4-4, 4-6-5, any split, with spaces,
// hyphens, dots, no-break spaces or dashes), and checks everything the caller can
// see of the call: the error (Error, %v, %+v, %#v, %q, and every error it
// wraps), its fields, the slog
// records of WithLogger, the arguments of every hook of WithHooks, and the
// Response of WithResponseInto. None may show a secret, and each is
// bounded in size whatever the server sent.

// rdServer is a loopback HTTP/1.1 server that writes raw answers, so that
// a test controls bytes net/http's server would not send (a status line of
// its own, a header name that holds a token). Each connection serves one
// request.
type rdServer struct {
	ln net.Listener
	wg sync.WaitGroup

	mu      sync.Mutex
	answer  func(r *http.Request) []byte
	tokens  map[string]bool
	queries map[string]bool
	cards   map[string]bool // the digits of each card number sent
}

func newRDServer(t *testing.T) *rdServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rdServer{ln: ln}
	acceptEach(ln, &s.wg, s.serve)
	t.Cleanup(func() {
		ln.Close()
		s.wg.Wait()
	})
	return s
}

func (s *rdServer) serve(conn net.Conn) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	req, err := http.ReadRequest(bufio.NewReader(conn))
	if err != nil {
		return
	}
	body, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	s.mu.Lock()
	if n := rdCardNumber(req); n != "" {
		s.cards[n] = true
	}
	if tok, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer "); ok {
		s.tokens[tok] = true
	}
	if req.URL.RawQuery != "" && req.URL.Path != "/again" { // a redirect's query is the server's own
		s.queries[req.URL.RawQuery] = true
	}
	answer := s.answer
	s.mu.Unlock()
	_, _ = conn.Write(answer(req))
}

// reset makes the server answer with answer from now on, and forgets what
// it saw.
func (s *rdServer) reset(answer func(r *http.Request) []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answer, s.tokens, s.queries, s.cards = answer, map[string]bool{}, map[string]bool{}, map[string]bool{}
}

// cardDigits returns the digits of each card number the calls since reset
// sent.
func (s *rdServer) cardDigits() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for n := range s.cards {
		out = append(out, n)
	}
	return out
}

// rdCardNumber returns the digits of the card number r's body carries, or "".
func rdCardNumber(r *http.Request) string {
	b, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	var card struct{ Number string }
	if err != nil || json.Unmarshal(b, &card) != nil {
		return ""
	}
	return strings.ReplaceAll(card.Number, " ", "")
}

// rdGroup writes digits in groups of the sizes given (the last group takes
// what is left), joined by sep.
func rdGroup(digits string, sizes []int, sep string) string {
	var parts []string
	for _, n := range sizes {
		if n >= len(digits) {
			break
		}
		parts, digits = append(parts, digits[:n]), digits[n:]
	}
	return strings.Join(append(parts, digits), sep)
}

// rdSeparators are what people write between the groups of a card number.
var rdSeparators = []string{" ", "-", ".", " - ", "  ", "\u00a0", "\u2009", "\u2013"}

// rdSeparatorsCut deletes the rdSeparators from text, so that a card
// number shows as its digits whatever its grouping.
var rdSeparatorsCut = strings.NewReplacer(" ", "", "-", "", ".", "", "\u00a0", "", "\u2009", "", "\u2013", "")

// needles returns every secret the calls since reset had: the keys, each
// token the server received with its parts, each query string (raw and
// decoded) and each of its values (raw and encoded).
func (s *rdServer) needles() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []string{testAccessKey, testSecretKey}
	for tok := range s.tokens {
		out = append(out, tok)
		for _, part := range strings.Split(tok, ".") {
			if len(part) >= minSecret {
				out = append(out, part)
			}
		}
	}
	for q := range s.queries {
		out = append(out, q)
		if dec, err := url.QueryUnescape(q); err == nil {
			out = append(out, dec)
		}
		vals, _ := url.ParseQuery(q)
		for _, vs := range vals {
			for _, v := range vs {
				if len(v) >= minSecret {
					out = append(out, v, url.QueryEscape(v))
				}
			}
		}
	}
	return out
}

// rawAnswer writes an HTTP/1.1 answer: statusLine ("HTTP/1.1 500 Oops"),
// the headers as given (each "Name: value"), and body.
func rawAnswer(statusLine string, headers []string, body []byte) []byte {
	var b bytes.Buffer
	b.WriteString(statusLine + "\r\n")
	for _, h := range headers {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\nConnection: close\r\n\r\n")
	b.Write(body)
	return b.Bytes()
}

// rdSecret names a secret a server may have seen, and how to take it out
// of the request it received. A card secret is the card number's digits,
// which the generated test groups before the server echoes them.
type rdSecret struct {
	name string
	of   func(r *http.Request) string
	card bool
}

func rdToken(r *http.Request) string {
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
}

func rdTokenPart(i int) func(r *http.Request) string {
	return func(r *http.Request) string {
		parts := strings.Split(rdToken(r), ".")
		if i < len(parts) {
			return parts[i]
		}
		return ""
	}
}

var rdSecrets = []rdSecret{
	{"access key", func(*http.Request) string { return testAccessKey }, false},
	{"secret key", func(*http.Request) string { return testSecretKey }, false},
	{"token", rdToken, false},
	{"authorization", func(r *http.Request) string { return r.Header.Get("Authorization") }, false},
	{"token header", rdTokenPart(0), false},
	{"token claims", rdTokenPart(1), false},
	{"token signature", rdTokenPart(2), false},
	{"raw query", func(r *http.Request) string { return r.URL.RawQuery }, false},
	{"decoded query", func(r *http.Request) string { q, _ := url.QueryUnescape(r.URL.RawQuery); return q }, false},
	{"query value", func(r *http.Request) string { return r.URL.Query().Get("company") }, false},
	{"encoded query value", func(r *http.Request) string { return url.QueryEscape(r.URL.Query().Get("company")) }, false},
	{"card number", rdCardNumber, true},
}

// rdPlace is a place a server controls, and the answer that puts text
// there. Every answer reports a failure, so every call must fail.
type rdPlace struct {
	name   string
	answer func(text string, n int) []byte
}

func rdJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

var rdJSONType = "Content-Type: application/json"

// rdService is a service record whose field key holds value.
func rdService(key string, value any) []byte {
	rec := map[string]any{"id": uuid.NewString(), "status": "active", "created_at": "2024-01-02 03:04:05 +0000"}
	rec[key] = value
	return rdJSON(map[string]any{"success": true, "result": []any{rec}})
}

var rdPlaces = []rdPlace{
	{"status text", func(text string, _ int) []byte {
		return rawAnswer("HTTP/1.1 500 "+text, []string{rdJSONType}, []byte(`{"success":false}`))
	}},
	{"status code", func(text string, _ int) []byte {
		return rawAnswer("HTTP/1.1 "+text+" Oops", []string{rdJSONType}, []byte(`{"success":false}`))
	}},
	{"header values", func(text string, n int) []byte {
		hs := []string{rdJSONType}
		for i := 0; i < n; i++ {
			hs = append(hs, fmt.Sprintf("X-Echo-%d: %s", i, text), "X-Request-Id: "+text)
		}
		return rawAnswer("HTTP/1.1 503 Service Unavailable", hs, []byte(`{"success":false,"message":"busy"}`))
	}},
	{"header name", func(text string, _ int) []byte {
		return rawAnswer("HTTP/1.1 404 Not Found", []string{rdJSONType, "X-" + text + ": 1"}, []byte(`{"success":false}`))
	}},
	{"location host", func(text string, _ int) []byte {
		return rawAnswer("HTTP/1.1 302 Found", []string{"Location: https://" + text + "/x"}, nil)
	}},
	{"location scheme", func(text string, _ int) []byte {
		return rawAnswer("HTTP/1.1 307 Temporary Redirect", []string{"Location: " + text + "://example.com/"}, nil)
	}},
	{"location userinfo and query", func(text string, _ int) []byte {
		return rawAnswer("HTTP/1.1 301 Moved", []string{"Location: https://u:" + url.QueryEscape(text) + "@other.example/" + text + "?q=" + text}, nil)
	}},
	{"location on the same host", func(text string, _ int) []byte {
		return rawAnswer("HTTP/1.1 302 Found", []string{"Location: /again?" + url.QueryEscape(text)}, nil)
	}},
	{"message", func(text string, n int) []byte {
		status := []string{"200 OK", "400 Bad Request", "401 Unauthorized", "500 Internal Server Error"}[n%4]
		return rawAnswer("HTTP/1.1 "+status, []string{rdJSONType}, rdJSON(map[string]any{"success": false, "message": text}))
	}},
	{"nested messages", func(text string, n int) []byte {
		var v any = map[string]any{"message": text}
		for i := 0; i < n; i++ {
			v = map[string]any{"error": v, "errors": []any{v, text}}
		}
		return rawAnswer("HTTP/1.1 422 Unprocessable Entity", []string{rdJSONType}, rdJSON(map[string]any{"success": false, "error": v}))
	}},
	{"body field", func(text string, _ int) []byte {
		return rawAnswer("HTTP/1.1 400 Bad Request", []string{rdJSONType}, rdJSON(map[string]any{"success": "false", "detail_of_request": text, text: text}))
	}},
	{"plain text body", func(text string, _ int) []byte {
		return rawAnswer("HTTP/1.1 502 Bad Gateway", []string{"Content-Type: text/plain"}, []byte(text))
	}},
	{"success flag", func(text string, _ int) []byte {
		return rawAnswer("HTTP/1.1 200 OK", []string{rdJSONType}, rdJSON(map[string]any{"success": text, "result": nil}))
	}},
	{"result of the wrong type", func(text string, _ int) []byte {
		return rawAnswer("HTTP/1.1 200 OK", []string{rdJSONType}, rdJSON(map[string]any{"success": true, "result": []any{text}}))
	}},
	{"time", func(text string, _ int) []byte {
		return rawAnswer("HTTP/1.1 200 OK", []string{rdJSONType}, rdService("created_at", text))
	}},
	{"id", func(text string, _ int) []byte {
		return rawAnswer("HTTP/1.1 200 OK", []string{rdJSONType}, rdService("id", text))
	}},
	{"string as an object", func(text string, _ int) []byte {
		return rawAnswer("HTTP/1.1 200 OK", []string{rdJSONType}, rdService("updated_at", map[string]any{text: text}))
	}},
	{"array for a string", func(text string, _ int) []byte {
		return rawAnswer("HTTP/1.1 200 OK", []string{rdJSONType}, rdService("id", []any{text, 7, true}))
	}},
	{"boolean", func(text string, _ int) []byte {
		return rawAnswer("HTTP/1.1 200 OK", []string{rdJSONType}, rdService("created_at", true))
	}},
	{"timestamp", func(text string, _ int) []byte {
		return rawAnswer("HTTP/1.1 200 OK", []string{rdJSONType}, rdJSON(map[string]any{"success": false, "timestamp": text, "result": nil}))
	}},
	{"content type", func(text string, _ int) []byte {
		return rawAnswer("HTTP/1.1 200 OK", []string{"Content-Type: " + text + "/pdf"}, []byte("%PDF-1.4"))
	}},
}

// rdCall is a call made against the generated server; card is the card
// number it sends, if it sends one.
type rdCall struct {
	name string
	run  func(ctx context.Context, c *Client, card string) error
}

// rdCardCall stores a card: the call whose card number a card secret is.
var rdCardCall = rdCall{"PaymentMethods.Create", func(ctx context.Context, c *Client, card string) error {
	p := wcCardParams()
	p.Number = Secret(card)
	_, err := c.PaymentMethods.Create(ctx, p)
	return err
}}

var rdCalls = []rdCall{
	{"Services.List", func(ctx context.Context, c *Client, _ string) error {
		_, err := c.Services.List(ctx, &ServiceListParams{Company: secCompany, Limit: 7})
		return err
	}},
	{"Documents.Download", func(ctx context.Context, c *Client, _ string) error {
		f, err := c.Documents.Download(ctx, secID)
		if f != nil {
			_, _ = io.Copy(io.Discard, f)
			f.Close()
		}
		return err
	}},
	{"Companies.Update", func(ctx context.Context, c *Client, _ string) error {
		_, err := c.Companies.Update(ctx, CompanyUpdateParams{Company: secCompany, Name: "New Name"})
		return err
	}},
}

// rdSeen collects what a call showed through its hooks.
type rdSeen struct {
	mu    sync.Mutex
	texts []string
}

func (s *rdSeen) add(v any, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.texts = append(s.texts, fmt.Sprintf("%+v", v), fmt.Sprintf("%#v", v))
	if err != nil {
		s.texts = append(s.texts, err.Error())
	}
}

func (s *rdSeen) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.texts
	s.texts = nil
	return out
}

// Bounds on what a caller can see of one failed call.
const (
	rdMaxText = 4 << 10 // an error's text, a log record, a hook's argument
	// rdMaxDump bounds an error's %#v: its Body as Go bytes ("0x7b, "),
	// its Header as a map, and the rest.
	rdMaxDump = 6*maxErrorBody + 2*maxHeaderBytes + rdMaxText
)

func TestRedactionAndBoundsOnGeneratedServers(t *testing.T) {
	srv := newRDServer(t)
	var logs *tpLog
	logger := slog.New(slog.NewJSONHandler(logWriter{&logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	hooks := &rdSeen{}
	c, err := NewClient(testAccessKey, testSecretKey,
		WithBaseURL("http://"+srv.ln.Addr().String()),
		WithLogger(logger),
		WithMaxRetries(1), WithRetryWait(time.Millisecond, 2*time.Millisecond),
		WithHooks(Hooks{
			CallEnd:    func(_ context.Context, ci CallInfo) { hooks.add(ci, ci.Err) },
			AttemptEnd: func(_ context.Context, ai AttemptInfo) { hooks.add(ai, ai.Err) },
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	logs = new(tpLog)
	pads := []int{0, 40, 3000, 70 << 10, 210 << 10}

	rapid.Check(t, func(rt *rapid.T) {
		secret := rapid.SampledFrom(rdSecrets).Draw(rt, "secret")
		place := rapid.SampledFrom(rdPlaces).Draw(rt, "place")
		call := rapid.SampledFrom(rdCalls).Draw(rt, "call")
		pad := rapid.SampledFrom(pads).Draw(rt, "pad")
		n := rapid.IntRange(1, 3).Draw(rt, "n")
		if place.name == "header values" && pad <= 3000 {
			n = rapid.IntRange(1, 120).Draw(rt, "headers")
		}
		var card string
		group := func(s string) string { return s }
		if secret.card {
			call = rdCardCall
			digits := rapid.StringMatching(`[1-9][0-9]{11,18}`).Draw(rt, "card number")
			card = digits
			if rapid.Bool().Draw(rt, "sent in groups of four") {
				card = rdGroup(digits, []int{4, 4, 4, 4}, " ")
			}
			sizes := rapid.SampledFrom([][]int{{4, 4, 4, 4}, {4, 6, 5}, {4, 6}, nil}).Draw(rt, "grouping")
			if sizes == nil { // any split
				sizes = rapid.SliceOfN(rapid.IntRange(1, 7), 1, 8).Draw(rt, "groups")
			}
			sep := rapid.SampledFrom(rdSeparators).Draw(rt, "separator")
			group = func(s string) string { return rdGroup(s, sizes, sep) }
		}
		srv.reset(func(r *http.Request) []byte {
			s := group(secret.of(r))
			text := s + " " + strings.Repeat("x", pad) + " " + s
			return place.answer(text, n)
		})
		logs = new(tpLog)
		hooks.take()

		var meta Response
		ctx, cancel := context.WithTimeout(WithResponseInto(context.Background(), &meta), 20*time.Second)
		defer cancel()
		err := call.run(ctx, c, card)
		if err == nil && !secret.card { // a card's call reads any 2xx answer as no card
			rt.Fatalf("%s in %s: the call succeeded", secret.name, place.name)
		}
		if ctx.Err() != nil {
			rt.Fatalf("%s in %s: the call hung: %v", secret.name, place.name, err)
		}

		// What the caller can see, each with its bound.
		type seen struct {
			where string
			text  string
			bound int
		}
		var all []seen
		show := func(where, text string, bound int) { all = append(all, seen{where, text, bound}) }
		for _, f := range []string{"%v", "%+v", "%s", "%q"} {
			show("error "+f, fmt.Sprintf(f, err), rdMaxText)
		}
		// %#v dumps the fields: Body as bytes, Header as a map.
		show("error %#v", fmt.Sprintf("%#v", err), rdMaxDump)
		for e := err; e != nil; e = errors.Unwrap(e) {
			show(fmt.Sprintf("%T in the chain", e), e.Error(), rdMaxText)
		}
		var apiErr *APIError
		if errors.As(err, &apiErr) {
			show("APIError.Message", apiErr.Message, maxMessage+len("…"))
			show("APIError.Body", string(apiErr.Body), maxErrorBody)
			show("APIError %#v", fmt.Sprintf("%#v", *apiErr), rdMaxDump)
			rdCheckHeader(rt, "APIError.Header", apiErr.Header)
			for k, vs := range apiErr.Header {
				show("APIError.Header name", k, maxDetail+len("…"))
				for _, v := range vs {
					show("APIError.Header "+k, v, maxHeaderValue+len("…"))
				}
			}
		}
		var de *DecodeError
		if errors.As(err, &de) {
			show("DecodeError.Path", de.Path, maxDetail+len("…"))
		}
		show("Response %+v", fmt.Sprintf("%+v", meta), 2*maxHeaderBytes)
		show("Response.RequestID", meta.RequestID, maxHeaderValue+len("…"))
		rdCheckHeader(rt, "Response.Header", meta.Header)
		for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
			show("log record", line, rdMaxText)
		}
		for _, h := range hooks.take() {
			show("hook argument", h, rdMaxText)
		}

		needles := srv.needles()
		cards := srv.cardDigits()
		if secret.card && len(cards) == 0 {
			rt.Fatalf("%s: the server saw no card number", call.name)
		}
		for _, s := range all {
			for _, digits := range cards {
				if strings.Contains(rdSeparatorsCut.Replace(s.text), digits) {
					rt.Fatalf("%s in %s (%s): %s shows the card number: %.300s", secret.name, place.name, call.name, s.where, s.text)
				}
			}
			if !utf8.ValidString(s.text) {
				rt.Errorf("%s in %s (%s): %s is not valid UTF-8", secret.name, place.name, call.name, s.where)
			}
			if len(s.text) > s.bound {
				rt.Errorf("%s in %s (%s): %s holds %d bytes, over its bound %d", secret.name, place.name, call.name, s.where, len(s.text), s.bound)
			}
			for _, needle := range needles {
				if strings.Contains(s.text, needle) {
					rt.Fatalf("%s in %s (%s): %s shows %.24q…: %.300s", secret.name, place.name, call.name, s.where, needle, s.text)
				}
			}
			if m := tpJWTLike.FindString(s.text); m != "" {
				rt.Fatalf("%s in %s (%s): %s shows a token: %.300s", secret.name, place.name, call.name, s.where, s.text)
			}
		}
	})
}

// logWriter writes to the tpLog *l points to at the time.
type logWriter struct{ l **tpLog }

func (w logWriter) Write(p []byte) (int, error) { return (*w.l).Write(p) }

// rdCheckHeader checks the bounds of a header kept by an error or a
// Response: the number of values and their total size.
func rdCheckHeader(rt *rapid.T, where string, h http.Header) {
	fields, size := 0, 0
	for k, vs := range h {
		for _, v := range vs {
			fields++
			size += len(k) + len(v)
		}
	}
	if fields > maxHeaderFields || size > maxHeaderBytes {
		rt.Errorf("%s keeps %d values of %d bytes, over the bounds %d and %d", where, fields, size, maxHeaderFields, maxHeaderBytes)
	}
}

// A redirect to another host whose Location carries 200 KB of text and
// the request's token: the message names no host at all, and the
// Location header the error keeps is redacted and cut to its bound.
func TestRedirectMessageIsRedactedAndBounded(t *testing.T) {
	var token string
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		token = rdToken(r)
		host := token + ".example"
		if r.URL.Query().Get("limit") == "" {
			host = strings.Repeat("a", 200<<10) + "." + host
		}
		w.Header().Set("Location", "https://"+host+"/p?"+r.URL.RawQuery)
		w.WriteHeader(http.StatusFound)
	})
	c := newTestClient(t, srv)
	_, err := c.Services.List(context.Background(), &ServiceListParams{Company: secCompany, Limit: 3})
	if want := "redirect to another host not followed"; tpAPIError(t, err).Message != want {
		t.Fatalf("Message = %.300q, want %q", tpAPIError(t, err).Message, want)
	}
	_, err = c.Services.List(context.Background(), &ServiceListParams{Company: secCompany})
	apiErr := tpAPIError(t, err)
	if token == "" || strings.Contains(err.Error(), token) || strings.Contains(err.Error(), secCompany) {
		t.Fatalf("the message shows the token or the query: %.300s", err)
	}
	if apiErr.Message != "redirect to another host not followed" {
		t.Fatalf("Message = %.300q (%d bytes), want no host", apiErr.Message, len(apiErr.Message))
	}
	if loc := apiErr.Header.Get("Location"); len(loc) > maxHeaderValue+len("…") || strings.Contains(loc, token) {
		t.Fatalf("Location kept as %d bytes: %.200q", len(loc), loc)
	}
}

// A value of the wrong type is described, never quoted: a time that
// holds the access key reads as "a string of N bytes".
func TestDecodeErrorDoesNotQuoteTheValue(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, `{"success":true,"result":[{"id":"`+uuid.NewString()+`","created_at":"key `+testAccessKey+`","updated_at":"eyJhbGciOi.eyJwYXRo.c2lnbmF0dXJl"}]}`)
	})
	_, err := newTestClient(t, srv).Services.List(context.Background(), nil)
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v, want a *DecodeError", err)
	}
	want := "acctadmin: decode GET /services: result[0].created_at: unrecognised time (a string of 29 bytes)"
	if err.Error() != want {
		t.Fatalf("err = %q, want %q", err, want)
	}
	var tm Time
	if err := tm.UnmarshalJSON([]byte(`"eyJhbGciOi.eyJwYXRo.c2lnbmF0dXJl"`)); err == nil || strings.Contains(err.Error(), "eyJ") {
		t.Fatalf("a token as a time: %v", err)
	}
	var out any
	if _, err := decodeEnvelope("GET /x", []byte(`{"success":"`+testAccessKey+`","result":null}`), &out); err == nil || err.Error() != "acctadmin: decode GET /x: success: want a boolean, got a string of 25 bytes" {
		t.Fatalf("the access key as a boolean: %v", err)
	}
}

// An answer with 8 MiB of headers: the APIError and the Response keep at
// most maxHeaderFields values and maxHeaderBytes bytes of them.
func TestAPIErrorHeaderIsBounded(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		v := strings.Repeat("v", 8<<10)
		for i := 0; i < 1024; i++ {
			w.Header().Add(fmt.Sprintf("X-Big-%04d", i), v)
		}
		w.Header().Set("X-Request-Id", "req-1")
		writeJSON(w, http.StatusNotFound, `{"success":false,"message":"no"}`)
	})
	var meta Response
	_, err := newTestClient(t, srv).Services.List(WithResponseInto(context.Background(), &meta), nil)
	apiErr := tpAPIError(t, err)
	for _, h := range []http.Header{apiErr.Header, meta.Header} {
		fields, size := 0, 0
		for k, vs := range h {
			for _, v := range vs {
				fields++
				size += len(k) + len(v)
			}
		}
		if fields == 0 || fields > maxHeaderFields || size > maxHeaderBytes {
			t.Fatalf("header kept %d values of %d bytes, want at most %d and %d", fields, size, maxHeaderFields, maxHeaderBytes)
		}
	}
	if len(apiErr.Header.Get("X-Big-0000")) != maxHeaderValue+len("…") {
		t.Fatalf("a long value kept as %d bytes, want %d and the mark of the cut", len(apiErr.Header.Get("X-Big-0000")), maxHeaderValue)
	}
}

// The error an AttemptEnd hook gets for a dropped connection names
// neither the URL nor its query string.
func TestAttemptHookErrorIsRedacted(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
	})
	var mu sync.Mutex
	var got []error
	c := newTestClient(t, srv, WithMaxRetries(1), WithRetryWait(time.Millisecond, time.Millisecond), WithHooks(Hooks{
		AttemptEnd: func(_ context.Context, a AttemptInfo) {
			mu.Lock()
			got = append(got, a.Err)
			mu.Unlock()
		},
	}))
	if _, err := c.Services.List(context.Background(), &ServiceListParams{Company: secCompany}); err == nil {
		t.Fatal("the call succeeded")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 {
		t.Fatalf("AttemptEnd ran %d times, want 2", len(got))
	}
	for _, err := range got {
		var te *TransportError
		if !errors.As(err, &te) {
			t.Fatalf("attempt error %v (%T), want a *TransportError", err, err)
		}
		if s := fmt.Sprintf("%+v", err); strings.Contains(s, "company=") || strings.Contains(s, "Secretive") || strings.Contains(s, "127.0.0.1") {
			t.Fatalf("attempt error shows the URL: %s", s)
		}
	}
}
