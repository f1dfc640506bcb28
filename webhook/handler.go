package webhook

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"
)

// Handler returns an http.Handler that verifies each callback request with
// VerifyRequest and passes the event to fn, with a context derived from
// the request's from which FromContext returns the event. The request's
// context is passed to the replay cache.
//
// It answers:
//   - 200 when fn returns nil;
//   - 200 without calling fn to an event the replay cache has seen
//     (ErrReplayed): the token is authentic and the event was accepted
//     before, so the sender's redelivery is acknowledged rather than
//     refused, which would make an at-least-once sender deliver it again
//     and again;
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
//   - 500 when fn returns an error, so that the sender retries. The event
//     is first removed from the replay cache (see Forget), so that the
//     retry is accepted; a removal that fails is tried again, even after
//     the request's context is cancelled, for up to 10 seconds;
//   - 503 when the replay cache fails (Redis down, a timeout, the
//     request's context cancelled): whether the event is new is not
//     known, so fn is not called and the sender is asked to deliver again.
//
// When fn panics, the event is removed from the replay cache too and the
// panic goes on to net/http, which drops the connection.
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
			// An authentic event accepted before: acknowledge it, so that
			// the sender stops delivering it, and do nothing else.
			w.WriteHeader(http.StatusOK)
			return
		}
		if err != nil {
			if errors.Is(err, ErrReadTimeout) {
				// The body was not read to its end, and with a passed
				// deadline the connection cannot be read again.
				w.Header().Set("Connection", "close")
			}
			reply(w, status(err))
			return
		}
		ctx := context.WithValue(r.Context(), contextKey{}, ev)
		if err := v.deliver(ctx, ev, fn); err != nil {
			reply(w, http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
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
	return v.Verify(token)
}

// forgetTimeout bounds the time Handler spends removing an event from the
// replay cache after its function failed; within it, a failed removal is
// tried again after forgetBackoff, doubled each time up to a second.
const (
	forgetTimeout = 10 * time.Second
	forgetBackoff = 50 * time.Millisecond
)

// deliver calls fn, and forgets ev in the replay cache when fn fails or
// panics, before the answer is written.
func (v *Verifier) deliver(ctx context.Context, ev *Event, fn func(context.Context, *Event) error) (err error) {
	returned := false
	defer func() {
		if !returned || err != nil {
			v.forgetPatiently(ctx, ev)
		}
	}()
	err = fn(ctx, ev)
	returned = true
	return err
}

// forgetPatiently forgets ev, trying again while the cache fails, for at
// most forgetTimeout: an event left recorded would have its redeliveries
// acknowledged unprocessed. It does not stop when the request's context is
// cancelled, since a sender that hung up will deliver again and must then
// be accepted.
func (v *Verifier) forgetPatiently(ctx context.Context, ev *Event) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), forgetTimeout)
	defer cancel()
	wait := forgetBackoff
	for v.Forget(ctx, ev) != nil {
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
		// The only other errors come from the replay cache, which could
		// not tell whether the event is new: the sender should try again.
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
