package webhook

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Handler returns an http.Handler that verifies each POST with
// VerifyRequest and calls fn only for an authentic event; FromContext
// gives the event from fn's context, which is not cancelled when the
// sender hangs up and ends a fifth of the lease (at most 5 s) before the
// lease does.
//
// It answers 200 when fn returns nil or a Permanent error (the event is
// recorded as done) and, without calling fn, to an event already done;
// 500 when fn fails otherwise (its mark is released, so the redelivery is
// processed); 503 with Retry-After to an event another delivery is
// processing, and when fn fails with an error wrapping ErrInProgress (its
// work is being done by another delivery: a document that a delivery of
// another event is saving); 503 when the replay cache cannot answer; 400,
// 401, 405, 408 and 413 to a request that is malformed, does not verify,
// is not a POST, is too slow or too large. An error answer's body is the status
// text only. A Commit or release that fails is tried again for up to 10
// seconds, even after the request's context ends. When fn panics, its
// mark is released and the panic goes on to net/http.
//
// The package doc ("The handler's answers") says why each answer is what
// it is; RELIABILITY.md, "Callbacks", what this guarantees and the tests.
// Handler panics if fn is nil.
func (v *Verifier) Handler(fn func(context.Context, *Event) error) http.Handler {
	if fn == nil {
		panic("webhook: nil handler function")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			reply(w, http.StatusMethodNotAllowed)
			return
		}
		ev, err := v.readAndVerify(w, r)
		if errors.Is(err, ErrReplayed) {
			// An authentic event processed before: acknowledge it, so that
			// the sender stops delivering it, and do nothing else.
			w.WriteHeader(http.StatusOK)
			return
		}
		if err != nil {
			switch {
			case errors.Is(err, ErrReadTimeout):
				// The body was not read to its end, and with a passed
				// deadline the connection cannot be read again.
				w.Header().Set("Connection", "close")
			case errors.Is(err, ErrInProgress):
				w.Header().Set("Retry-After", strconv.Itoa(v.retryAfter()))
			}
			reply(w, status(err))
			return
		}
		if err := v.deliver(r.Context(), ev, fn); err != nil {
			code := http.StatusInternalServerError
			switch {
			case errors.Is(err, errLeaseOver):
				code = http.StatusServiceUnavailable
			case errors.Is(err, ErrInProgress):
				// fn says another delivery is doing its work.
				w.Header().Set("Retry-After", strconv.Itoa(v.retryAfter()))
				code = http.StatusServiceUnavailable
			}
			reply(w, code)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
}

// inProgressRetry is the Retry-After of an answer to an event in progress,
// unless the lease is shorter: most processing ends well within it.
const inProgressRetry = 5 * time.Second

// retryAfter returns the seconds of Retry-After for an event in progress:
// inProgressRetry or the lease, whichever is shorter, rounded up, at least
// one.
func (v *Verifier) retryAfter() int {
	d := min(v.lease, inProgressRetry)
	return max(1, int((d+time.Second-1)/time.Second))
}

// readAndVerify does what VerifyRequest does, reading the body within the
// verifier's read timeout: through the connection's read deadline when w
// supports one, and in any case by checking the time between reads.
func (v *Verifier) readAndVerify(w http.ResponseWriter, r *http.Request) (*Event, error) {
	deadline := time.Now().Add(v.readLimit)
	rc := http.NewResponseController(w)
	hasDeadline := rc.SetReadDeadline(deadline) == nil
	var body io.Reader
	if r.Body != nil {
		body = &deadlineReader{r: r.Body, deadline: deadline}
	}
	token, err := v.tokenFromRequest(r, body)
	if hasDeadline && !errors.Is(err, ErrReadTimeout) {
		// The body has been read: lift the deadline, which would
		// otherwise cut the connection under a slow function or the
		// next request on it.
		_ = rc.SetReadDeadline(time.Time{})
	}
	if err != nil {
		return nil, err
	}
	return v.VerifyContext(r.Context(), token)
}

// settleTimeout bounds the time Handler spends recording the outcome of
// its function in the replay cache; within it, a failed Commit or release
// is tried again after settleBackoff, doubled each time up to a second.
const (
	settleTimeout = 10 * time.Second
	settleBackoff = 50 * time.Millisecond
)

// maxLeaseMargin bounds leaseMargin.
const maxLeaseMargin = 5 * time.Second

// leaseMargin is how long before the end of the lease fn's context ends:
// a fifth of the lease, at most maxLeaseMargin. It covers the time fn
// takes to see that its context ended and return, and the time between
// the check that fn may start and its start, so that fn is not running
// when the lease ends and another delivery may claim the event.
func leaseMargin(lease time.Duration) time.Duration {
	return min(lease/5, maxLeaseMargin)
}

// errLeaseOver is deliver's error for an event whose time within the lease
// ran out before fn could start.
var errLeaseOver = errors.New("webhook: the lease ran out before processing could start")

// deliver calls fn with a context that carries ev, is not cancelled with
// reqCtx, and ends before the lease does; then, before the answer is
// written, it commits ev when fn succeeded or failed permanently, and
// releases it when fn failed otherwise, panicked or exited. It returns fn's error, or nil for
// a permanent one.
func (v *Verifier) deliver(reqCtx context.Context, ev *Event, fn func(context.Context, *Event) error) (err error) {
	leaseEnd := ev.leaseEnd
	if leaseEnd.IsZero() {
		leaseEnd = time.Now().Add(v.lease)
	}
	// The outcome is recorded with a context of its own: the sender may
	// have hung up, and fn's context may have ended with the lease.
	settleCtx := context.WithValue(context.WithoutCancel(reqCtx), contextKey{}, ev)
	fnEnd := leaseEnd.Add(-leaseMargin(v.lease))
	if !time.Now().Before(fnEnd) {
		// The claim took fn's whole time to answer: another delivery
		// may take the event over soon, so fn must not start.
		v.settle(settleCtx, ev, leaseEnd, v.Forget)
		return errLeaseOver
	}
	ctx, cancel := context.WithDeadline(context.WithValue(context.WithoutCancel(reqCtx), contextKey{}, ev), fnEnd)
	defer cancel()
	returned := false
	defer func() {
		if !returned {
			v.settle(settleCtx, ev, leaseEnd, v.Forget)
		}
	}()
	err = fn(ctx, ev)
	returned = true
	var pe *PermanentError
	switch {
	case err == nil || errors.As(err, &pe):
		v.settle(settleCtx, ev, time.Time{}, v.Commit)
		return nil
	default:
		v.settle(settleCtx, ev, leaseEnd, v.Forget)
		return err
	}
}

// settle calls record (Commit or Forget) for ev, trying again while the
// cache fails, for at most settleTimeout and, when until is not zero,
// until that time: an event left in progress would have its redeliveries
// refused until its lease ends, and one not committed would be processed
// again then. It does not stop when the request's context is cancelled,
// since a sender that hung up will deliver again.
func (v *Verifier) settle(ctx context.Context, ev *Event, until time.Time, record func(context.Context, *Event) error) {
	if v.cache == nil || ev.replayKey == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	if !until.IsZero() {
		var cancelUntil context.CancelFunc
		ctx, cancelUntil = context.WithDeadline(ctx, until)
		defer cancelUntil()
	}
	wait := settleBackoff
	for record(ctx, ev) != nil {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(2*wait, time.Second)
	}
}

// status maps an error from VerifyRequest onto an HTTP status.
func status(err error) int {
	switch {
	case errors.Is(err, ErrBodyTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrReadTimeout):
		return http.StatusRequestTimeout
	case errors.Is(err, ErrMalformed):
		return http.StatusBadRequest
	case errors.Is(err, ErrInvalidSignature), errors.Is(err, ErrAlgorithm),
		errors.Is(err, ErrExpired), errors.Is(err, ErrNotYetValid),
		errors.Is(err, ErrAccessKey):
		return http.StatusUnauthorized
	default:
		// The only other errors are ErrInProgress and those of the replay
		// cache, which could not tell whether the event is new: the sender
		// should try again.
		return http.StatusServiceUnavailable
	}
}

// reply writes an error answer whose body is only the status text.
func reply(w http.ResponseWriter, code int) {
	if code == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", "Bearer")
	}
	http.Error(w, http.StatusText(code), code)
}
