package acctadmintest

import (
	"net/http"
	"strconv"
	"strings"
)

// cannedAnswer is a canned answer of a route (see Fake.Answer).
type cannedAnswer struct {
	method, path string
	status       int
	body         string
}

// WithAnswer sets a canned answer from the start, as Answer does.
func WithAnswer(method, path string, status int, body string) Option {
	return optionFunc(func(c *config) {
		c.answers = append(c.answers, &cannedAnswer{method: method, path: path, status: status, body: body})
	})
}

// Answer makes the fake answer every request for method and path with
// status and body instead of handling it, until the function it returns
// is called: for a test that wants exactly that answer from one route
// (an error the fake would not give, a record it would not make). path
// is a route pattern as Routes lists them ("/documents/:id") or a
// request's path ("/documents/6f1c…"), matched whole; method "" matches
// any. The request's token is checked first (a request the fake would
// refuse still gets 401), faults and latency apply as before, and the
// request is logged and counted like any other; the records are not
// touched. The body is sent as given, as application/json. Of several
// answers that match, the newest is given.
func (f *Fake) Answer(method, path string, status int, body string) (remove func()) {
	a := &cannedAnswer{method: method, path: path, status: status, body: body}
	f.mu.Lock()
	f.answers = append(f.answers, a)
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		for i, b := range f.answers {
			if b == a {
				f.answers = append(f.answers[:i:i], f.answers[i+1:]...)
				return
			}
		}
	}
}

// answered is the layer that gives the canned answers: the newest that
// matches a request, if any; else next serves it.
func (f *Fake) answered(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		route := exchangeOf(r).route
		var got *cannedAnswer
		f.mu.Lock()
		for i := len(f.answers) - 1; i >= 0; i-- {
			a := f.answers[i]
			if (a.method == "" || strings.EqualFold(a.method, r.Method)) && (a.path == route || a.path == r.URL.Path) {
				got = a
				break
			}
		}
		f.mu.Unlock()
		if got == nil {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(got.body)))
		w.WriteHeader(got.status)
		_, _ = w.Write([]byte(got.body))
	})
}
