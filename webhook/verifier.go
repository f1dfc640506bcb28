package webhook

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

const (
	defaultLeeway      = 60 * time.Second
	defaultMaxBodySize = 1 << 20
	defaultReadTimeout = 10 * time.Second
	defaultLease       = 30 * time.Second
)

// Verifier checks callback tokens and requests. It is safe for concurrent
// use by multiple goroutines. Printed or logged, it shows no secret and
// no access key (see Format).
type Verifier struct {
	// keys returns the secrets, accessKey the access key: functions, so
	// that fmt, printing a Verifier it reaches by reflection (in an
	// unexported field, where it calls no Format), shows an address; fmt
	// follows pointers there, not closures.
	keys      func() []jwt.VerificationKey
	validator *jwt.Validator
	accessKey func() string
	maxBody   int64
	readLimit time.Duration
	lease     time.Duration
	cache     ReplayCache
}

// Option configures a Verifier; pass options to NewVerifier. The With
// functions make the options.
type Option interface{ apply(*options) error }

// optionFunc is an Option that is a function.
type optionFunc func(*options) error

func (f optionFunc) apply(o *options) error { return f(o) }

type options struct {
	secrets   [][]byte
	accessKey string
	leeway    time.Duration
	maxBody   int64
	readLimit time.Duration
	lease     time.Duration
	cache     ReplayCache
	now       func() time.Time
}

// WithSecrets adds secrets that are also accepted, after the one given to
// NewVerifier, so that the account's secret key can be rotated without
// refusing events signed with the previous one. Each secret must be
// non-empty.
func WithSecrets(secrets ...[]byte) Option {
	return optionFunc(func(o *options) error {
		for _, s := range secrets {
			if blank(s) {
				return errors.New("webhook: empty secret in WithSecrets")
			}
			o.secrets = append(o.secrets, bytes.Clone(s))
		}
		return nil
	})
}

// WithAccessKey sets the account's access key. A token whose header
// carries an access_key field is refused with ErrAccessKey unless the
// field equals accessKey; a token without the field is not affected.
func WithAccessKey(accessKey string) Option {
	return optionFunc(func(o *options) error {
		if strings.TrimSpace(accessKey) == "" {
			return errors.New("webhook: empty access key")
		}
		o.accessKey = accessKey
		return nil
	})
}

// WithLeeway sets the clock skew allowed when checking the exp, nbf and iat
// claims. The default is 60 seconds; d must not be negative.
func WithLeeway(d time.Duration) Option {
	return optionFunc(func(o *options) error {
		if d < 0 {
			return errors.New("webhook: negative leeway")
		}
		o.leeway = d
		return nil
	})
}

// WithMaxBodySize sets the largest request body VerifyRequest reads, in
// bytes; a larger body is refused with ErrBodyTooLarge. The default is
// 1 MiB; n must be positive, and every positive value up to
// math.MaxInt64 is taken as given.
func WithMaxBodySize(n int64) Option {
	return optionFunc(func(o *options) error {
		if n <= 0 {
			return errors.New("webhook: maximum body size must be positive")
		}
		o.maxBody = n
		return nil
	})
}

// WithReadTimeout bounds the time Handler spends reading a request's body,
// counted from the moment Handler starts; a body not received in full by
// then is answered 408 Request Timeout (ErrReadTimeout) and the function
// is not called. The default is 10 seconds; d must be positive.
//
// Handler enforces it with the connection's read deadline, through
// http.ResponseController, which replaces for the body any read deadline
// the server set (http.Server.ReadTimeout), lifts it once the body is read,
// and drops the connection after a 408. When the
// ResponseWriter supports no deadline (a wrapper without an Unwrap
// method), Handler checks the time between reads instead: a body sent
// slowly is still cut off, but a sender that stops sending altogether
// holds the read until the server's own ReadTimeout ends it, so give the
// http.Server one. The timeout applies to Handler only: VerifyRequest
// reads the body within whatever deadline the caller set.
func WithReadTimeout(d time.Duration) Option {
	return optionFunc(func(o *options) error {
		if d <= 0 {
			return errors.New("webhook: read timeout must be positive")
		}
		o.readLimit = d
		return nil
	})
}

// WithReplayCache makes the verifier claim each event in c before it is
// processed: an event c records as done is refused with ErrReplayed, one
// that another delivery is processing with ErrInProgress. Without it there
// is no replay protection. NewMemoryReplayCache returns a cache for a
// single process; package webhook/redisreplay one that a fleet shares.
func WithReplayCache(c ReplayCache) Option {
	return optionFunc(func(o *options) error {
		if c == nil {
			return errors.New("webhook: nil replay cache")
		}
		o.cache = c
		return nil
	})
}

// WithLease sets how long an event stays marked in progress in the replay
// cache when the delivery that claimed it neither commits nor releases it:
// the receiver died, or lost its cache, while processing it. Once the
// lease has ended, the event is accepted again. The default is 30
// seconds; d must be positive.
//
// Handler also gives its function less than the lease: the function's
// context ends a fifth of the lease (at most 5 seconds) before the lease
// does, counted from before the claim was sent, so that the lease ends in
// the cache after the function has seen its context end. A function that
// ignores its context and outlives the lease may run at the same time as
// a redelivery's; choose a lease well longer than the longest processing.
func WithLease(d time.Duration) Option {
	return optionFunc(func(o *options) error {
		if d <= 0 {
			return errors.New("webhook: lease must be positive")
		}
		o.lease = d
		return nil
	})
}

// WithClock sets the function that gives the current time when checking
// the exp, nbf and iat claims; it is meant for tests. The default is
// time.Now.
func WithClock(now func() time.Time) Option {
	return optionFunc(func(o *options) error {
		if now == nil {
			return errors.New("webhook: nil clock")
		}
		o.now = now
		return nil
	})
}

// NewVerifier returns a Verifier for tokens signed with secret, the
// account's secret key. An empty or all-whitespace secret is refused.
func NewVerifier(secret []byte, opts ...Option) (*Verifier, error) {
	if blank(secret) {
		return nil, errors.New("webhook: empty secret")
	}
	o := options{leeway: defaultLeeway, maxBody: defaultMaxBodySize, readLimit: defaultReadTimeout, lease: defaultLease, now: time.Now}
	for _, opt := range opts {
		if err := opt.apply(&o); err != nil {
			return nil, err
		}
	}
	keys := []jwt.VerificationKey{bytes.Clone(secret)}
	for _, s := range o.secrets {
		keys = append(keys, s)
	}
	accessKey := o.accessKey
	return &Verifier{
		keys: func() []jwt.VerificationKey { return keys },
		validator: jwt.NewValidator(
			jwt.WithLeeway(o.leeway),
			jwt.WithTimeFunc(o.now),
			jwt.WithIssuedAt(),
		),
		accessKey: func() string { return accessKey },
		maxBody:   o.maxBody,
		readLimit: o.readLimit,
		lease:     o.lease,
		cache:     o.cache,
	}, nil
}

// Format prints the verifier as webhook.Verifier([redacted]) under every
// verb (%q quotes it), for a Verifier and a *Verifier alike.
func (v Verifier) Format(f fmt.State, verb rune) {
	text := "webhook.Verifier([redacted])"
	if verb == 'q' {
		text = strconv.Quote(text)
	}
	_, _ = io.WriteString(f, text)
}

// blank reports whether a secret is empty or only whitespace.
func blank(secret []byte) bool {
	return len(bytes.TrimSpace(secret)) == 0
}

// Verify checks token as VerifyContext does, with context.Background()
// for the replay cache.
func (v *Verifier) Verify(token string) (*Event, error) {
	return v.VerifyContext(context.Background(), token)
}

// errNilContext is returned for a nil context instead of passing it on.
var errNilContext = errors.New("webhook: nil context")

// VerifyContext checks token, a compact JWT, and returns the event it
// carries. ctx is passed to the replay cache, which may give up when ctx
// is done; without a replay cache it is not used. A nil ctx is an error.
// The token is taken exactly as given: surrounding whitespace is refused
// like any other byte outside the base64url alphabet.
//
// Verify checks, in this order: the token's form and header (ErrMalformed,
// ErrAlgorithm, and ErrInvalidSignature for a signature segment of the
// wrong length or encoding), its signature against each secret
// (ErrInvalidSignature), the exp, nbf and iat claims when present
// (ErrExpired, ErrNotYetValid), the header's access_key (ErrAccessKey),
// and last the replay cache: an event done before is ErrReplayed, one that
// another delivery is processing is ErrInProgress. The event is claimed in
// the cache only when every other check passed.
//
// With a replay cache, the event returned is marked in progress for this
// call, for the lease (WithLease): process it, then call Commit when it
// is done or Forget when it failed and should be delivered again. An
// event neither committed nor forgotten is accepted again once its lease
// has ended. Handler does all this itself.
func (v *Verifier) VerifyContext(ctx context.Context, token string) (*Event, error) {
	if ctx == nil {
		return nil, errNilContext
	}
	pt, err := inspect(token)
	if err != nil {
		return nil, err
	}
	// inspect has decoded the token and done every check of its form that
	// golang-jwt's parser does, and more; the library checks the signature
	// and the time claims from those parts, so that the token is decoded
	// only once.
	if err := v.checkSignature(&pt); err != nil {
		return nil, err
	}
	if err := v.validator.Validate(jwt.MapClaims(pt.claims)); err != nil {
		return nil, translate(err)
	}
	if err := v.checkAccessKey(pt.header); err != nil {
		return nil, err
	}
	ev := newEvent(pt.claims)
	if v.cache != nil {
		if err := v.claim(ctx, ev); err != nil {
			return nil, err
		}
	}
	return ev, nil
}

// claim claims ev in the replay cache under a new owner, and on ClaimNew
// records the claim in ev.
func (v *Verifier) claim(ctx context.Context, ev *Event) error {
	owner, err := newOwner()
	if err != nil {
		return fmt.Errorf("webhook: replay cache: %w", err)
	}
	key := ev.identity()
	// The lease is counted from before the claim is sent, so that it ends
	// here no later than in the cache.
	start := time.Now()
	state, err := v.cache.Claim(context.WithValue(ctx, contextKey{}, ev), key, owner, v.lease)
	if err != nil {
		return fmt.Errorf("webhook: replay cache: %w", err)
	}
	switch state {
	case ClaimNew:
		ev.replayKey, ev.replayOwner, ev.leaseEnd = key, owner, start.Add(v.lease)
		return nil
	case ClaimDone:
		return ErrReplayed
	case ClaimInProgress:
		return ErrInProgress
	default:
		// A cache that answers nothing it should cannot be trusted to have
		// marked the event: fail closed, as for any cache error.
		return fmt.Errorf("webhook: replay cache: claim answered %d, not a claim state", int(state))
	}
}

// newOwner returns a random value that tells one delivery's claim from
// every other.
func newOwner() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// checkSignature checks the token's signature against each secret in
// turn, with golang-jwt's HMAC method for the token's alg.
func (v *Verifier) checkSignature(pt *parsedToken) error {
	if v.keys == nil { // the zero Verifier has no secret
		return ErrInvalidSignature
	}
	for _, key := range v.keys() {
		if pt.method.Verify(pt.signed, pt.signature, key) == nil {
			return nil
		}
	}
	return ErrInvalidSignature
}

// translate maps an error from golang-jwt onto this package's errors,
// dropping the library's text.
func translate(err error) error {
	switch {
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return ErrInvalidSignature
	case errors.Is(err, jwt.ErrTokenExpired):
		return ErrExpired
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return ErrNotYetValid
	default:
		// inspect has already refused everything else the library checks.
		return malformed("token refused by the JWT parser")
	}
}

// checkAccessKey compares the header's access_key with the configured one.
func (v *Verifier) checkAccessKey(header map[string]any) error {
	if v.accessKey == nil || v.accessKey() == "" {
		return nil
	}
	want := v.accessKey()
	got, present := header["access_key"]
	if !present {
		return nil
	}
	s, ok := got.(string)
	if !ok || subtle.ConstantTimeCompare([]byte(s), []byte(want)) != 1 {
		return ErrAccessKey
	}
	return nil
}

// Commit records ev as done in the replay cache, so that every later
// delivery of the event is refused with ErrReplayed (and acknowledged by
// Handler without processing). Call it once an event that VerifyContext
// or VerifyRequest returned has been processed; Handler does so itself.
// Commit does nothing, and returns nil, without a replay cache or for an
// event that Verify did not claim.
//
// An error, from the cache and wrapped, means that the record may not have
// been made: the event is then accepted again once its lease has ended.
func (v *Verifier) Commit(ctx context.Context, ev *Event) error {
	if ctx == nil {
		return errNilContext
	}
	if v.cache == nil || ev == nil || ev.replayKey == "" {
		return nil
	}
	if err := v.cache.Commit(context.WithValue(ctx, contextKey{}, ev), ev.replayKey); err != nil {
		return fmt.Errorf("webhook: replay cache: %w", err)
	}
	return nil
}

// Forget releases ev's in-progress mark in the replay cache, so that a new
// delivery of the same event is accepted at once rather than when the
// lease ends. Call it when an event that VerifyContext or VerifyRequest
// returned could not be processed and its sender is asked to retry;
// Handler does so itself. A mark that another delivery took over after
// the lease ended, and a done record, are left as they are. Forget does
// nothing, and returns nil, without a replay cache or for an event that
// Verify did not claim.
//
// An error, from the cache and wrapped, means that the mark may still be
// there: new deliveries of the event are then refused with ErrInProgress
// until the lease ends.
func (v *Verifier) Forget(ctx context.Context, ev *Event) error {
	if ctx == nil {
		return errNilContext
	}
	if v.cache == nil || ev == nil || ev.replayKey == "" {
		return nil
	}
	if err := v.cache.Release(context.WithValue(ctx, contextKey{}, ev), ev.replayKey, ev.replayOwner); err != nil {
		return fmt.Errorf("webhook: replay cache: %w", err)
	}
	return nil
}

// VerifyRequest finds the token in r and verifies it as Verify does.
//
// The body, read up to the maximum body size (ErrBodyTooLarge beyond it)
// and trimmed of surrounding whitespace, may be a JSON object with exactly
// one string field named data, token, jwt or payload (other fields are
// ignored), a form with exactly one such field, or the token itself. An
// empty body makes VerifyRequest take the token from an
// "Authorization: Bearer" header instead. The Content-Type header is not
// consulted, and the method is not checked. VerifyRequest reads r.Body but
// does not close it. The request's context is passed to the replay cache.
func (v *Verifier) VerifyRequest(r *http.Request) (*Event, error) {
	token, err := v.tokenFromRequest(r, r.Body)
	if err != nil {
		return nil, err
	}
	return v.VerifyContext(r.Context(), token)
}
