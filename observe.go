package acctadmin

import (
	"cmp"
	"context"
	"net/http"
	"time"
)

// Response is the metadata of a call's final answer (WithResponseInto).
type Response struct {
	// StatusCode is the final answer's status; 0 when none came.
	StatusCode int
	// Header is the final answer's header, redacted as APIError.Header.
	Header http.Header
	// RequestID is the first of the headers X-Request-Id, Request-Id and
	// X-Correlation-Id that the answer has; "" when none.
	RequestID string
	// Attempts is how many times the request was sent.
	Attempts int
	// Duration is the time from the first attempt to the final answer
	// (for a file, to its headers).
	Duration time.Duration
}

type responseKey struct{}

// WithResponseInto returns a context whose calls fill *dst with the
// metadata of their final answer as they end, in success or failure, in
// the manner of net/http/httptrace:
//
//	var meta acctadmin.Response
//	docs, err := c.Documents.List(acctadmin.WithResponseInto(ctx, &meta), nil)
//	log.Println(meta.StatusCode, meta.RequestID)
//
// All fills it with each page's answer before it yields the page's first
// item, on the loop's goroutine; Pull fills it as it returns. A call
// refused before sending leaves *dst alone. Do not share dst between
// concurrent calls.
func WithResponseInto(ctx context.Context, dst *Response) context.Context {
	return context.WithValue(ctx, responseKey{}, dst)
}

// Hooks are functions the client calls around every call and attempt; any
// may be nil. They run on the goroutine that makes the request and must be
// safe for concurrent use. A call refused before sending reaches no hook.
type Hooks struct {
	// CallStart is called before the first attempt; the context it
	// returns (if not nil) is the call's from then on.
	CallStart func(ctx context.Context, c CallInfo) context.Context
	// CallEnd is called once the call ends, with its outcome fields filled.
	CallEnd func(ctx context.Context, c CallInfo)
	// AttemptStart is called before each attempt is sent; the context it
	// returns (if not nil) is the attempt's and the HTTP request's.
	AttemptStart func(ctx context.Context, a AttemptInfo) context.Context
	// AttemptEnd is called once per attempt, before the next one starts
	// or the call ends. For a file the last attempt, and then the call,
	// end when the file is closed: its Duration counts the reading, and
	// its Err is what cut the file short.
	AttemptEnd func(ctx context.Context, a AttemptInfo)
}

// CallInfo describes one call: one SDK method that sent a request.
type CallInfo struct {
	// Operation is the SDK method, as "Documents.List"; a page of All or
	// Pull is a List call, and a document Pull fetches a Download call.
	Operation string
	// Method is the HTTP method; Path the path pattern, with ids and page
	// numbers as {id} and {n}.
	Method string
	Path   string
	Start  time.Time
	// The outcome, for CallEnd: the final status (0 when no answer came),
	// the attempts, the time taken and the error returned.
	StatusCode int
	Attempts   int
	Duration   time.Duration
	Err        error
}

// AttemptInfo describes one attempt of a call.
type AttemptInfo struct {
	Operation string
	Method    string
	Path      string
	// Attempt counts the call's attempts from 1.
	Attempt int
	Start   time.Time
	// The outcome, for AttemptEnd: the answer's status (0 for none), the
	// time up to it, and the failure (a retried status is none).
	StatusCode int
	Duration   time.Duration
	Err        error
}

// WithHooks makes the client call h around every call and every attempt.
func WithHooks(h Hooks) Option {
	return set(func(s *settings) {
		s.hooks = nil
		if h.CallStart != nil || h.CallEnd != nil || h.AttemptStart != nil || h.AttemptEnd != nil {
			s.hooks = &h
		}
	})
}

// observer is a call's share of the hooks and of WithResponseInto.
type observer struct {
	hooks   *Hooks
	into    *Response
	call    CallInfo
	ctx     context.Context // the call's, as CallStart returned it
	attempt AttemptInfo
	actx    context.Context // the current attempt's
	open    bool            // an attempt is started and not yet ended
	final   *http.Response  // the final answer, when one came
	settled bool            // answered has run
}

// observe starts observing a call for the hooks and into (either may be
// nil), and returns the call's context.
func (st *callState) observe(ctx context.Context, into *Response) context.Context {
	o := &observer{hooks: st.c.hooks, into: into, ctx: ctx,
		call: CallInfo{Operation: st.route.operation, Method: st.method, Path: st.route.pattern, Start: time.Now()}}
	st.obs = o
	if o.hooks != nil && o.hooks.CallStart != nil {
		if c := o.hooks.CallStart(ctx, o.call); c != nil {
			o.ctx = c
		}
	}
	return o.ctx
}

// attemptStarted ends the previous attempt and starts attempt n, and
// returns req with the attempt's context.
func (o *observer) attemptStarted(req *http.Request, n int) *http.Request {
	o.endAttempt()
	if o.hooks == nil {
		return req
	}
	o.open = true
	o.attempt = AttemptInfo{Operation: o.call.Operation, Method: o.call.Method, Path: o.call.Path, Attempt: n, Start: time.Now()}
	o.actx = o.ctx
	if o.hooks.AttemptStart != nil {
		if c := o.hooks.AttemptStart(o.ctx, o.attempt); c != nil {
			o.actx = c
			req = req.WithContext(c)
		}
	}
	return req
}

// attemptOutcome notes the current attempt's answer or error.
func (o *observer) attemptOutcome(resp *http.Response, err error) {
	if !o.open {
		return
	}
	o.attempt.Duration = time.Since(o.attempt.Start)
	o.attempt.Err = err
	if resp != nil {
		o.attempt.StatusCode = resp.StatusCode
	}
}

func (o *observer) endAttempt() {
	if !o.open {
		return
	}
	o.open = false
	if o.hooks.AttemptEnd != nil {
		o.hooks.AttemptEnd(o.actx, o.attempt)
	}
}

// answered records the call's final answer for WithResponseInto, once:
// for a file as it is handed out, else as the call finishes.
func (st *callState) answered() {
	o := st.obs
	if o == nil || o.settled {
		return
	}
	o.settled = true
	o.call.Attempts = st.attempt
	o.call.Duration = time.Since(o.call.Start)
	var header http.Header
	if o.final != nil {
		o.call.StatusCode = o.final.StatusCode
		st.noteTokens(o.final)
		header = st.secrets().cleanHeader(o.final.Header)
	}
	if o.into != nil {
		*o.into = Response{StatusCode: o.call.StatusCode, Header: header, RequestID: requestID(header),
			Attempts: o.call.Attempts, Duration: o.call.Duration}
	}
}

// finish ends the call with err: answered, then the last AttemptEnd,
// then CallEnd. A file handed out finishes as it is closed.
func (st *callState) finish(err error) {
	o := st.obs
	if o == nil {
		return
	}
	if st.stream && o.settled {
		o.attemptOutcome(nil, err) // the reading counts
	}
	st.answered()
	o.endAttempt()
	o.call.Duration = time.Since(o.call.Start)
	o.call.Err = err
	if o.hooks != nil && o.hooks.CallEnd != nil {
		o.hooks.CallEnd(o.ctx, o.call)
	}
}

func requestID(h http.Header) string {
	return cmp.Or(h.Get("X-Request-Id"), h.Get("Request-Id"), h.Get("X-Correlation-Id"))
}
