package webhook

import (
	"errors"
	"fmt"
)

// The errors below are returned, possibly wrapped with more detail, by
// Verify and VerifyRequest. Test for them with errors.Is. No error returned
// by this package contains the token text or a secret.
var (
	// ErrMalformed reports a request or token that is not well formed: no
	// token in the request, a body that is not one of the accepted
	// carriages, a token that is not three base64url segments, a header or
	// payload that is not a JSON object with unique keys, or a registered
	// claim (exp, nbf, iat, jti) of the wrong type.
	ErrMalformed = errors.New("webhook: malformed token")

	// ErrInvalidSignature reports a token whose signature does not match
	// any of the verifier's secrets, including a signature segment that is
	// not the canonical base64url encoding of a signature of the right
	// length.
	ErrInvalidSignature = errors.New("webhook: invalid signature")

	// ErrAlgorithm reports a token whose header the verifier refuses: an
	// alg other than HS256, HS384 or HS512 (none in any spelling included),
	// a crit header, or a header that would carry or point at the key
	// (jku, jwk, x5u, x5c).
	ErrAlgorithm = errors.New("webhook: refused algorithm or header")

	// ErrExpired reports a token whose exp claim is further in the past
	// than the leeway allows.
	ErrExpired = errors.New("webhook: token expired")

	// ErrNotYetValid reports a token whose nbf or iat claim is further in
	// the future than the leeway allows.
	ErrNotYetValid = errors.New("webhook: token not yet valid")

	// ErrReplayed reports an event that the replay cache records as done:
	// it was processed before.
	ErrReplayed = errors.New("webhook: event replayed")

	// ErrInProgress reports an event that another delivery is processing:
	// the replay cache holds its in-progress mark, whose lease has not
	// ended. Whether that processing will succeed is not known yet, so the
	// delivery should be made again later. A Handler function may return
	// an error wrapping it for work that another delivery is doing: the
	// answer is then the same 503 with Retry-After.
	ErrInProgress = errors.New("webhook: event being processed by another delivery")

	// ErrBodyTooLarge reports a request body longer than the verifier's
	// maximum body size.
	ErrBodyTooLarge = errors.New("webhook: request body too large")

	// ErrReadTimeout reports a request body that was not received in full
	// before a read deadline passed: the one Handler sets (see
	// WithReadTimeout), or one the server or caller set on the connection.
	ErrReadTimeout = errors.New("webhook: request body not received in time")

	// ErrAccessKey reports a token whose header carries an access_key that
	// differs from the one given with WithAccessKey.
	ErrAccessKey = errors.New("webhook: access key mismatch")
)

// PermanentError is an error of a Handler function that delivering the
// event again cannot cure, such as a document that no longer exists. Make
// one with Permanent; find one with errors.As.
type PermanentError struct {
	// Err is the function's error.
	Err error
}

// Error returns the text of Err.
func (e *PermanentError) Error() string {
	if e.Err == nil {
		return "webhook: permanent error"
	}
	return e.Err.Error()
}

// Unwrap returns Err.
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent marks err as permanent: when a Handler function returns it,
// or an error that wraps it, the event is recorded as done and the
// request answered 200, so that the sender stops delivering it, rather
// than 500, which asks for a redelivery. Use it for a failure that every
// redelivery would meet again: the document or invoice the event names no
// longer exists, or the event is of a kind the receiver refuses. Permanent
// returns nil for a nil err, and err itself when it is already permanent.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	var pe *PermanentError
	if errors.As(err, &pe) {
		return err
	}
	return &PermanentError{Err: err}
}

// errorf wraps sentinel with a reason. The reason must never quote the
// token, any part of it, or a secret.
func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}

// malformed wraps ErrMalformed with a reason, as errorf does.
func malformed(format string, args ...any) error {
	return errorf(ErrMalformed, format, args...)
}
