package acctadmin

import (
	"context"
	"net/http"
	"time"
)

// What a program can see of its calls: the metadata of an answer
// (WithResponseInto, APIError.Header), and hooks around every call and
// every attempt (WithHooks), enough to build traces and metrics without
// the SDK depending on any telemetry library.

// Response is the metadata of a call's final answer. Get it with
// WithResponseInto.
type Response struct {
	// StatusCode is the HTTP status of the final answer; 0 when no answer
	// came (a *TransportError).
	StatusCode int
	// Header is the final answer's header, less anything secret (see
	// APIError.Header).
	Header http.Header
	// RequestID is the answer's request id, from the first of the headers
	// X-Request-Id, Request-Id and X-Correlation-Id that it has; "" when
	// none.
	RequestID string
	// Attempts is how many times the request was sent.
	Attempts int
	// Duration is the time from the first attempt to the final answer
	// (for a file, to its headers; reading the file is not counted).
	Duration time.Duration
}

type responseKey struct{}

// WithResponseInto returns a context that makes a call fill *dst with the
// metadata of its final answer when it ends, whether it succeeded or
// failed with an *APIError or a *TransportError. It is the SDK's way of
// giving a call's status, headers and request id without changing any
// method's results, in the manner of net/http/httptrace:
//
//	var meta acctadmin.Response
//	docs, err := c.Documents.List(acctadmin.WithResponseInto(ctx, &meta), nil)
//	log.Println(meta.StatusCode, meta.RequestID)
//
// Each call made with the context fills *dst; a file's call as its
// headers arrive. All fills it on the loop's goroutine, before it yields
// the first item of each page, with that page's answer (pages read ahead
// keep theirs apart until then), so the loop body may read it. Pull fills
// it once, as it returns, with the answer to its last listing request;
// the contexts it gives fn and its downloads do not carry dst, so nothing
// writes it while Pull runs. A call refused before anything was sent (a
// nil context, invalid parameters) leaves *dst as it was. Do not share dst
// between calls that run at the same time.
func WithResponseInto(ctx context.Context, dst *Response) context.Context {
	return context.WithValue(ctx, responseKey{}, dst)
}

// Hooks are functions the client calls around every call and every
// attempt of a call. Any of them may be nil. They run on the calling
// goroutine (for Pull and All, on the goroutine that makes the request)
// and must be safe for concurrent use when the client is.
//
// A call refused before anything is sent (a nil context, invalid
// parameters) reaches no hook. Neither the query string nor any secret
// reaches a hook: Path is a pattern such as "/documents/{id}/download".
type Hooks struct {
	// CallStart is called before the first attempt. The context it
	// returns (if not nil) is the call's from then on, so it may carry a
	// span that the attempts' spans become children of.
	CallStart func(ctx context.Context, c CallInfo) context.Context
	// CallEnd is called once the call has its final result, with ctx as
	// CallStart returned it and c's outcome fields filled.
	CallEnd func(ctx context.Context, c CallInfo)
	// AttemptStart is called before each attempt is sent, with the
	// call's context; the context it returns (if not nil) is the
	// attempt's, and the HTTP request's.
	AttemptStart func(ctx context.Context, a AttemptInfo) context.Context
	// AttemptEnd is called once per attempt, after its answer was read or
	// it failed, before the next attempt starts or the call ends, with ctx
	// as AttemptStart returned it. For a file (Download, Page) the last
	// attempt ends, and then the call, when the file is closed: its
	// Duration counts the reading, and its Err is what cut the file short.
	AttemptEnd func(ctx context.Context, a AttemptInfo)
}

// CallInfo describes one call: one SDK method that sent a request.
type CallInfo struct {
	// Operation is the SDK method, as "Documents.List", from the route's
	// declaration; a page read by All or Pull is a List call, each
	// document Pull fetches a Download call, and a request of Client.Do
	// is "Client.Do" (of DoFile, "Client.DoFile").
	Operation string
	// Method is the HTTP method; Path the request's path pattern, with
	// ids and page numbers replaced by {id} and {n}.
	Method string
	Path   string
	// Start is when the call started.
	Start time.Time
	// The outcome, set for CallEnd: the final status (0 when no answer
	// came), the attempts made, the time taken and the error returned.
	StatusCode int
	Attempts   int
	Duration   time.Duration
	Err        error
}

// AttemptInfo describes one attempt of a call.
type AttemptInfo struct {
	// Operation, Method and Path are those of the call.
	Operation string
	Method    string
	Path      string
	// Attempt counts the call's attempts from 1.
	Attempt int
	// Start is when the attempt was sent.
	Start time.Time
	// The outcome, set for AttemptEnd: the status of its answer (0 when
	// none came), how long it took up to its answer (or failure), and the
	// failure, if any (a retried status is no failure).
	StatusCode int
	Duration   time.Duration
	Err        error
}

// WithHooks makes the client call h around every call and every attempt.
// See Hooks; an Example shows the wiring of a tracer.
func WithHooks(h Hooks) Option {
	return optionFunc(func(s *settings) error {
		s.hooks = h
		return nil
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
	h := st.c.hooks
	st.obs = &observer{hooks: h, into: into, ctx: ctx}
	st.obs.call = CallInfo{Method: st.method, Start: time.Now()}
	if h != nil {
		st.obs.call.Operation = st.route.operation
		st.obs.call.Path = st.route.pattern
		if h.CallStart != nil {
			if c := h.CallStart(ctx, st.obs.call); c != nil {
				st.obs.ctx = c
			}
		}
	}
	return st.obs.ctx
}

// attemptStarted ends the previous attempt and starts attempt n (from 1),
// whose request is req; it returns the request to send, with the
// attempt's context.
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
			req = req.WithContext(c) // the transport sees it too
		}
	}
	return req
}

// attemptOutcome notes what the current attempt came to: its answer (for
// JSON, read) or its error.
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

// answered records the call's final answer, for WithResponseInto, once:
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

// finish ends the call with err: its final answer is recorded (see
// answered), then the last attempt's AttemptEnd runs, then CallEnd. A
// file handed out finishes as it is closed: its last attempt lasted until
// then, and failed if err (what cut the file short) is set.
func (st *callState) finish(err error) {
	o := st.obs
	if o == nil {
		return
	}
	if st.stream && o.settled && o.open {
		o.attempt.Duration = time.Since(o.attempt.Start)
		if err != nil {
			o.attempt.Err = err
		}
	}
	st.answered()
	o.endAttempt()
	o.call.Duration = time.Since(o.call.Start)
	o.call.Err = err
	if o.hooks != nil && o.hooks.CallEnd != nil {
		o.hooks.CallEnd(o.ctx, o.call)
	}
}

// requestID reads the request id an answer carries, if any.
func requestID(h http.Header) string {
	for _, k := range []string{"X-Request-Id", "Request-Id", "X-Correlation-Id"} {
		if v := h.Get(k); v != "" {
			return v
		}
	}
	return ""
}
