package acctadmintest

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fault describes a failure the fake injects into the requests it matches.
// Faults are checked before the request's token; the first matching fault
// whose Probability draw succeeds fires.
//
// A fault acts in this order: it waits Latency; then, unless AfterApply or
// TruncateBody is set, it drops the connection (DropConnection) or answers
// Status, and the request is never applied. With AfterApply the request is
// handled first (a POST creates its records) and its answer is replaced:
// the connection is dropped, or Status is answered. TruncateBody always
// handles the request and sends only the first half of the answer's body
// after announcing the full Content-Length, then closes the connection.
// A fault with only Latency delays the request and lets it through.
type Fault struct {
	// Method matches the request method; "" matches any.
	Method string
	// Path matches a route pattern as Routes lists them (without the
	// method), such as "/documents/:id/download", or any request path that
	// starts with it, such as "/documents"; "" matches every path.
	Path string
	// Count is how many times the fault fires before it is removed; 0
	// means until ClearFaults.
	Count int
	// Probability is the chance, from 0 to 1, that a matching request
	// fires the fault, drawn from the fake's seeded source (see WithSeed).
	// 0 means always.
	Probability float64
	// Status is the status code to answer, such as 429 or 503, with the
	// API's error body.
	Status int
	// RetryAfter is the value of the Retry-After header sent with Status
	// ("" sends none).
	RetryAfter string
	// Message is the message of the error body; "" uses the status text.
	Message string
	// Latency is waited before anything else.
	Latency time.Duration
	// DropConnection closes the connection without an answer.
	DropConnection bool
	// TruncateBody announces the full Content-Length of the answer, sends
	// half of the body and closes the connection.
	TruncateBody bool
	// AfterApply makes DropConnection and Status act after the request was
	// applied, so a client cannot tell whether its write happened.
	AfterApply bool
}

type activeFault struct {
	Fault
	left int // fires left when Count > 0
}

// InjectFault adds a fault. Faults stay until they have fired Count times
// or ClearFaults is called.
func (f *Fake) InjectFault(ft Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = append(f.faults, &activeFault{Fault: ft, left: ft.Count})
}

// ClearFaults removes every fault.
func (f *Fake) ClearFaults() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = nil
}

// FaultsFired reports how many times faults have fired in all.
func (f *Fake) FaultsFired() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.faultsFired
}

// pickFault finds the fault that fires for a request, if any.
func (f *Fake) pickFault(method, pattern, path string) (Fault, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, ft := range f.faults {
		if ft.Method != "" && !strings.EqualFold(ft.Method, method) {
			continue
		}
		if ft.Path != "" && ft.Path != pattern && !strings.HasPrefix(path, ft.Path) {
			continue
		}
		if ft.Probability > 0 && ft.Probability < 1 && f.rng.Float64() >= ft.Probability {
			continue
		}
		f.faultsFired++
		if ft.Count > 0 {
			ft.left--
			if ft.left == 0 {
				f.faults = append(f.faults[:i], f.faults[i+1:]...)
			}
		}
		return ft.Fault, true
	}
	return Fault{}, false
}

// withFaults is the layer that injects faults: it picks the fault that
// fires for a request, if any, and acts it out around the rest of the
// handler (see Fault for the order). A request over the rate limit
// (WithRateLimit) is refused before any fault is picked.
func (f *Fake) withFaults(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if wait, ok := f.limit.take(time.Now()); !ok {
			w.Header().Set("Retry-After", strconv.FormatInt(int64((wait+time.Second-1)/time.Second), 10))
			writeJSON(w, http.StatusTooManyRequests, errorAnswer(f.envelopeTime(false), "rate limit exceeded"))
			return
		}
		ex := exchangeOf(r)
		ft, faulted := f.pickFault(r.Method, ex.route, r.URL.Path)
		if !faulted {
			next.ServeHTTP(w, r)
			return
		}
		f.markFaulted(ex.idx)
		if ft.Latency > 0 && !f.sleep(r, ft.Latency) {
			f.abandon(w)
			return
		}
		applied := ft.AfterApply || ft.TruncateBody
		switch {
		case !applied && ft.DropConnection:
			dropConnection(w)
			return
		case !applied && ft.Status != 0:
			writeFaultStatus(w, ft, f.envelopeTime(false))
			return
		}

		// Where the real answer goes: to the client, or, for faults that
		// act after the request was applied, through a filter.
		out := w
		switch {
		case ft.TruncateBody:
			out = &truncatingWriter{ResponseWriter: w, limit: -1}
		case ft.AfterApply && (ft.DropConnection || ft.Status != 0):
			out = &discardWriter{header: make(http.Header)}
		}
		next.ServeHTTP(out, r)

		switch {
		case ft.TruncateBody:
			_ = http.NewResponseController(w).Flush()
			dropConnection(w)
		case ft.AfterApply && ft.DropConnection:
			dropConnection(w)
		case ft.AfterApply && ft.Status != 0:
			writeFaultStatus(w, ft, f.envelopeTime(false))
		}
	})
}

// sleep waits d, or less when the request is cancelled or the fake closed;
// it reports whether the whole wait passed.
func (f *Fake) sleep(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-f.ctx.Done():
		return false
	}
}

// writeFaultStatus answers the status of a fault with the error shape.
func writeFaultStatus(w http.ResponseWriter, ft Fault, timestamp string) {
	if ft.RetryAfter != "" {
		w.Header().Set("Retry-After", ft.RetryAfter)
	}
	msg := ft.Message
	if msg == "" {
		msg = strings.ToLower(http.StatusText(ft.Status))
		if msg == "" {
			msg = "status " + strconv.Itoa(ft.Status)
		}
	}
	writeJSON(w, ft.Status, errorAnswer(timestamp, msg))
}

// dropConnection closes the request's connection without a (further)
// answer.
func dropConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// A server that cannot hijack (HTTP/2) gets an aborted handler.
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// statusWriter records the status of the answer in the request log as
// soon as it is written, before the client can see it.
type statusWriter struct {
	http.ResponseWriter
	f     *Fake
	idx   int
	wrote bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.wrote = true
		w.f.logStatus(w.idx, code)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// errTruncated stops a handler that writes past a truncated body.
var errTruncated = errors.New("acctadmintest: body truncated by a fault")

// truncatingWriter passes the header through and only the first half of
// the body that its Content-Length announces.
type truncatingWriter struct {
	http.ResponseWriter
	limit   int64 // -1 until the header is written
	written int64
}

func (w *truncatingWriter) WriteHeader(code int) {
	if w.limit < 0 {
		n, err := strconv.ParseInt(w.Header().Get("Content-Length"), 10, 64)
		if err != nil {
			n = 0
		}
		w.limit = n / 2
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *truncatingWriter) Write(p []byte) (int, error) {
	if w.limit < 0 {
		w.WriteHeader(http.StatusOK)
	}
	room := w.limit - w.written
	if room <= 0 {
		return 0, errTruncated
	}
	if int64(len(p)) > room {
		n, err := w.ResponseWriter.Write(p[:room])
		w.written += int64(n)
		if err == nil {
			err = errTruncated
		}
		return n, err
	}
	n, err := w.ResponseWriter.Write(p)
	w.written += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (w *truncatingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// discardWriter swallows the answer of a request whose answer a fault
// replaces.
type discardWriter struct{ header http.Header }

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) WriteHeader(int)             {}
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }

// rateBucket is the budget of WithRateLimit: a bucket of n tokens
// refilled at n a second. Its zero value, or n = 0, lets everything
// through.
type rateBucket struct {
	mu     sync.Mutex
	n      float64   // tokens a second, and the bucket's size; 0: no limit
	tokens float64   // tokens in the bucket at last
	last   time.Time // when tokens was counted
}

func (b *rateBucket) init(n int, now time.Time) {
	b.n, b.tokens, b.last = float64(n), float64(n), now
}

// take takes a token for a request arriving at now, if there is one;
// otherwise it reports how long until there is.
func (b *rateBucket) take(now time.Time) (time.Duration, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.n == 0 {
		return 0, true
	}
	if d := now.Sub(b.last); d > 0 {
		b.tokens = min(b.n, b.tokens+d.Seconds()*b.n)
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return 0, true
	}
	wait := time.Duration((1 - b.tokens) / b.n * float64(time.Second))
	return max(wait, time.Second), false
}
