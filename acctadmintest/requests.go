package acctadmintest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// maxLoggedBody caps the request body kept in the request log.
const maxLoggedBody = 64 << 10

// Request is one request the fake received, as Requests reports it.
type Request struct {
	Method string
	Path   string
	// Query is the raw query string, without '?'.
	Query string
	// Route is the pattern of the matched route, as Routes lists them
	// without the method, or the path itself when no route matched.
	Route string
	// Header is the request's header, with the token of Authorization
	// replaced by Redacted (the scheme is kept: "Bearer [REDACTED]").
	Header http.Header
	// Body is the request body (at most 64 KiB of it), with the values
	// of secret fields (a card's number and CVC, passwords, tokens)
	// replaced by Redacted.
	Body []byte
	// Status is the status code answered; 0 while it is being handled or
	// when the connection was dropped.
	Status int
	// Faulted says a fault fired on the request.
	Faulted bool
	Time    time.Time
}

// Write is a request that changed the account, as Writes reports it: each
// successful POST, PATCH or DELETE. A client that repeats a write shows up
// twice here even when the second one created nothing.
type Write struct {
	Method string
	Path   string
	Route  string
	Body   []byte
	// Created lists the IDs of the records the write created.
	Created []uuid.UUID
	Time    time.Time
}

type routeKey struct{ method, route string }

// logRequest records a request as it arrives and returns its number, by
// which its log entry is completed later.
func (f *Fake) logRequest(r *http.Request, pattern string) int {
	route := pattern
	if route == "" {
		route = r.URL.Path
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.counts[routeKey{r.Method, route}]++
	f.requests = append(f.requests, Request{
		Method: r.Method,
		Path:   r.URL.Path,
		Query:  r.URL.RawQuery,
		Route:  route,
		Header: loggedHeader(r.Header),
		Time:   f.now(),
	})
	idx := f.reqBase + len(f.requests) - 1
	if n := trimmed(len(f.requests), f.cfg.logLimit); n > 0 {
		f.reqBase += n
		f.requests = slices.Clone(f.requests[n:])
	}
	return idx
}

// trimmed says how many of the oldest of length entries to drop so that
// a log stays within limit (0: no limit): none until it is over, then
// the oldest quarter of the limit, so that trimming is rare.
func trimmed(length, limit int) int {
	if limit <= 0 || length <= limit {
		return 0
	}
	return length - limit + max(limit/4, 1) - 1
}

// logBody adds the body of a request to its log entry.
func (f *Fake) logBody(idx int, body []byte) {
	if len(body) == 0 {
		return
	}
	body = redacted(body)
	body = body[:min(len(body), maxLoggedBody)]
	f.mu.Lock()
	defer f.mu.Unlock()
	if e := f.logEntry(idx); e != nil {
		e.Body = append([]byte(nil), body...)
	}
}

func (f *Fake) logStatus(idx, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e := f.logEntry(idx); e != nil {
		e.Status = status
	}
}

func (f *Fake) markFaulted(idx int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e := f.logEntry(idx); e != nil {
		e.Faulted = true
	}
}

// logEntry finds a request by the number logRequest gave it, or nil when
// the log was reset since; f.mu must be held.
func (f *Fake) logEntry(idx int) *Request {
	i := idx - f.reqBase
	if i < 0 || i >= len(f.requests) {
		return nil
	}
	return &f.requests[i]
}

// recordWrite logs an applied write; f.mu must be held.
func (f *Fake) recordWrite(c *call, created []uuid.UUID) {
	f.writes = append(f.writes, Write{
		Method:  c.r.Method,
		Path:    c.r.URL.Path,
		Route:   c.route,
		Body:    redacted(c.body),
		Created: created,
		Time:    f.now(),
	})
	if n := trimmed(len(f.writes), f.cfg.logLimit); n > 0 {
		f.writes = slices.Clone(f.writes[n:])
	}
}

// Requests returns the log of the requests received so far, in order of
// arrival.
func (f *Fake) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := append([]Request(nil), f.requests...)
	for i := range out {
		out[i].Header = out[i].Header.Clone()
	}
	return out
}

// RequestCount reports how many requests arrived for a route: method ""
// counts every method, route "" every route. Routes are patterns as Routes
// lists them, such as "/documents/:id"; a request that matched no route
// counts under its path.
func (f *Fake) RequestCount(method, route string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for k, v := range f.counts {
		if (method == "" || k.method == method) && (route == "" || k.route == route) {
			n += v
		}
	}
	return n
}

// RequestCounts returns the number of requests per "METHOD route".
func (f *Fake) RequestCounts() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]int, len(f.counts))
	for k, v := range f.counts {
		out[k.method+" "+k.route] = v
	}
	return out
}

// TotalRequests reports how many requests arrived in all.
func (f *Fake) TotalRequests() int { return f.RequestCount("", "") }

// Writes returns the log of applied writes, in order.
func (f *Fake) Writes() []Write {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Write(nil), f.writes...)
}

// ResetRequests empties the request log, the request counts and the write
// log (not the connection count).
func (f *Fake) ResetRequests() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqBase += len(f.requests)
	f.requests = nil
	f.writes = nil
	f.counts = make(map[routeKey]int)
}

// secretFields are the body fields that no log keeps: a card's number and
// CVC, passwords and reset tokens.
var secretFields = []string{"number", "cvc", "password", "password_confirmation", "token"}

// Redacted is what the logs show in place of a secret field's value.
const Redacted = "[REDACTED]"

// redacted returns a copy of a body for the logs: a JSON object with a
// secret field at its top level is written again with those values
// replaced by Redacted (and its fields in name order); any other body is
// copied as it is.
func redacted(body []byte) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return bytes.Clone(body)
	}
	hit := false
	for _, k := range secretFields {
		if _, ok := obj[k]; ok {
			obj[k] = json.RawMessage(`"` + Redacted + `"`)
			hit = true
		}
	}
	if !hit {
		return bytes.Clone(body)
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return []byte(`"` + Redacted + `"`)
	}
	return out
}

// loggedHeader copies a request header for the log, without the token.
func loggedHeader(h http.Header) http.Header {
	out := h.Clone()
	if out == nil {
		return http.Header{}
	}
	for _, k := range []string{"Authorization", "Proxy-Authorization", "Cookie"} {
		for i, v := range out[k] {
			scheme, _, found := strings.Cut(v, " ")
			if found && k != "Cookie" {
				out[k][i] = scheme + " " + Redacted
			} else {
				out[k][i] = Redacted
			}
		}
	}
	return out
}
