package webhook

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Handler returns an http.Handler that verifies each callback request with
// VerifyRequest and passes the event to fn. The request's context is
// passed to the replay cache.
//
// fn's context is derived from the request's, and FromContext returns the
// event from it, but it is not cancelled when the sender hangs up: an
// event claimed is processed to its end, so that the sender's redelivery
// finds it done rather than starting it over, which a sender whose
// timeout is shorter than fn would do forever. It ends a fifth of the
// lease (WithLease, 30 seconds by default), at most 5 seconds, before the
// lease does, so that fn has returned by the time another delivery may
// take the event over; fn is not called at all when the claim answered
// later than that.
//
// It answers:
//   - 200 when fn returns nil, after the event is recorded as done in the
//     replay cache (Commit);
//   - 200 when fn returns a permanent error (Permanent): the event is
//     recorded as done, as for nil, since no redelivery could succeed;
//   - 200 without calling fn to an event the replay cache records as done
//     (ErrReplayed): the token is authentic and the event was processed,
//     so the sender's redelivery is acknowledged rather than refused,
//     which would make an at-least-once sender deliver it again and again;
//   - 503 with Retry-After without calling fn to an event that another
//     delivery is processing (ErrInProgress): that processing may still
//     fail, so the sender is asked to deliver again later, when the event
//     is done (then acknowledged) or released (then processed);
//   - 405 to a method other than POST;
//   - 400 to a malformed request: no token, a body that is not an accepted
//     carriage, a token that is not a well-formed JWT (ErrMalformed);
//   - 408 to a body not received in full within the read timeout
//     (ErrReadTimeout, see WithReadTimeout); the connection is closed
//     after the answer;
//   - 413 to a body larger than the maximum body size (ErrBodyTooLarge);
//   - 401 to a token that does not verify: bad signature, refused
//     algorithm or header, expired or not yet valid, or wrong access key
//     (ErrInvalidSignature, ErrAlgorithm, ErrExpired, ErrNotYetValid,
//     ErrAccessKey);
//   - 500 when fn returns another error, so that the sender retries. The
//     event's mark is first released in the replay cache (see Forget), so
//     that the retry is processed;
//   - 503 when the replay cache fails (Redis down, a timeout, the
//     request's context cancelled): whether the event is new is not
//     known, so fn is not called and the sender is asked to deliver again;
//     503 too, without calling fn, when the claim took so long to answer
//     that fn's time within the lease had already run out.
//
// A Commit or release that fails is tried again, even after the request's
// context is cancelled: a Commit for up to 10 seconds, a release until the
// lease ends (after which the mark is gone anyway) or 10 seconds, whichever
// is sooner. A Commit that still fails leaves the event marked in
// progress until the lease ends, after which a redelivery processes it
// again: the answer is 200 all the same, since fn did its work.
//
// When fn panics, the event's mark is released too and the panic goes on
// to net/http, which drops the connection.
//
// fn is not called for a request that does not verify. The body of an
// error answer is the status text only: it never tells why a request was
// refused.
//
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
			if errors.Is(err, errLeaseOver) {
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
