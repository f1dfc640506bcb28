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

	// ErrReplayed reports an event that the replay cache has seen before.
	ErrReplayed = errors.New("webhook: event replayed")

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

// errorf wraps sentinel with a reason. The reason must never quote the
// token, any part of it, or a secret.
func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}

// malformed wraps ErrMalformed with a reason, as errorf does.
func malformed(format string, args ...any) error {
	return errorf(ErrMalformed, format, args...)
}
