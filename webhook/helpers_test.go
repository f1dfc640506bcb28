package webhook_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"hash"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/webhook"
)

// Fixed values shared by the tests. The fuzz seed corpus under
// testdata/fuzz holds tokens signed with these secrets: changing them
// turns those seeds into invalid tokens.
var (
	testSecret    = []byte("primary-secret-key-for-tests-0123456789")
	testOldSecret = []byte("previous-secret-key-for-tests-9876543210")
	testAccessKey = "AK-test-access-key-42"
	testNow       = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

	testInvoiceID  = uuid.MustParse("6f1c2f0e-6a43-4bb4-9d55-0c0d7d1f2a01")
	testDocumentID = uuid.MustParse("0b4d8b7e-1e0a-4c4e-8f6b-3f2b9a7c5d02")
	testCompanyID  = uuid.MustParse("9a7e5c3b-2d1f-4e0a-b8c6-d4e2f0a1b303")
)

// sentinels lists every error Verify and VerifyRequest may wrap.
var sentinels = []error{
	webhook.ErrMalformed, webhook.ErrInvalidSignature, webhook.ErrAlgorithm,
	webhook.ErrExpired, webhook.ErrNotYetValid, webhook.ErrReplayed,
	webhook.ErrBodyTooLarge, webhook.ErrAccessKey, webhook.ErrReadTimeout, webhook.ErrInProgress,
}

func testClock() time.Time { return testNow }

// newVerifier returns a verifier for testSecret on the test clock, with
// opts applied after the clock.
func newVerifier(t testing.TB, opts ...webhook.Option) *webhook.Verifier {
	t.Helper()
	v, err := webhook.NewVerifier(testSecret, append([]webhook.Option{webhook.WithClock(testClock)}, opts...)...)
	require.NoError(t, err)
	return v
}

// invoiceClaims returns the claims of a new-invoice event.
func invoiceClaims() map[string]any {
	return map[string]any{
		"event":        webhook.EventNewInvoice,
		"invoice_id":   testInvoiceID.String(),
		"company_id":   testCompanyID.String(),
		"company_name": "Acme Widgets LLC",
	}
}

// documentClaims returns the claims of a new-document event.
func documentClaims() map[string]any {
	return map[string]any{
		"event":        webhook.EventNewDocument,
		"document_id":  testDocumentID.String(),
		"company_id":   testCompanyID.String(),
		"company_name": "Acme Widgets LLC",
	}
}

// with returns a copy of claims with the given key/value pairs set.
func with(claims map[string]any, kv ...any) map[string]any {
	out := make(map[string]any, len(claims)+len(kv)/2)
	for k, v := range claims {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// sign signs claims with testSecret through webhook.Sign.
func sign(t testing.TB, claims map[string]any, opts ...webhook.SignOption) string {
	t.Helper()
	return signWith(t, claims, testSecret, opts...)
}

func signWith(t testing.TB, claims map[string]any, secret []byte, opts ...webhook.SignOption) string {
	t.Helper()
	tok, err := webhook.Sign(claims, secret, opts...)
	require.NoError(t, err)
	return tok
}

// enc encodes s as an unpadded base64url segment.
func enc(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// rawToken builds a token from literal header and payload JSON, signed
// with HMAC alg ("HS256", "HS384" or "HS512") using key. It lets tests
// write headers and payloads that Sign would never produce.
func rawToken(header, payload, alg string, key []byte) string {
	signing := enc(header) + "." + enc(payload)
	return signing + "." + macSegment(alg, key, signing)
}

// macSegment returns the canonical signature segment of signing.
func macSegment(alg string, key []byte, signing string) string {
	var h func() hash.Hash
	switch alg {
	case "HS256":
		h = sha256.New
	case "HS384":
		h = sha512.New384
	case "HS512":
		h = sha512.New
	default:
		panic("macSegment: unknown alg " + alg)
	}
	m := hmac.New(h, key)
	m.Write([]byte(signing))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// mustJSON marshals v.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// independentlyValid checks a token with nothing from the package under
// test: exactly three segments of the base64url alphabet, a header whose
// alg is an HMAC algorithm, and a signature segment equal to the canonical
// encoding of the MAC under one of secrets.
func independentlyValid(token string, secrets ...[]byte) bool {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return false
	}
	for _, c := range token {
		if !strings.ContainsRune("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.", c) {
			return false
		}
	}
	hb, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return false
	}
	var header struct {
		Alg string `json:"alg"`
	}
	if json.Unmarshal(hb, &header) != nil {
		return false
	}
	switch header.Alg {
	case "HS256", "HS384", "HS512":
	default:
		return false
	}
	for _, s := range secrets {
		want := macSegment(header.Alg, s, parts[0]+"."+parts[1])
		if hmac.Equal([]byte(want), []byte(parts[2])) {
			return true
		}
	}
	return false
}

// requireOnly asserts that err matches want and no other sentinel, and
// that its text quotes neither the token nor a secret.
func requireOnly(t testing.TB, err, want error, token string) {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, want)
	for _, s := range sentinels {
		if s != want {
			require.Falsef(t, errors.Is(err, s), "error %q also matches %q", err, s)
		}
	}
	msg := err.Error()
	require.True(t, strings.HasPrefix(msg, "webhook: "), "error %q lacks the package prefix", msg)
	require.NotContains(t, msg, string(testSecret))
	require.NotContains(t, msg, string(testOldSecret))
	if len(token) >= 8 {
		require.NotContains(t, msg, token)
		for _, seg := range strings.Split(token, ".") {
			if len(seg) >= 8 {
				require.NotContains(t, msg, seg)
			}
		}
	}
}

// asymmetricToken signs invoice claims with an asymmetric method and a
// freshly generated key.
func asymmetricToken(t *testing.T, method jwt.SigningMethod) string {
	t.Helper()
	var key any
	var err error
	switch method.Alg() {
	case "RS256", "PS256":
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	case "ES256":
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "EdDSA":
		_, key, err = ed25519.GenerateKey(rand.Reader)
	default:
		t.Fatalf("no key for %s", method.Alg())
	}
	require.NoError(t, err)
	tok, err := jwt.NewWithClaims(method, jwt.MapClaims(invoiceClaims())).SignedString(key)
	require.NoError(t, err)
	return tok
}

// flipTrailingBits changes the unused low bits of the last character of a
// base64url segment whose length leaves some, so that a lenient decoder
// returns the same bytes for both spellings.
func flipTrailingBits(t *testing.T, seg string) string {
	t.Helper()
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	require.NotZero(t, len(seg)%4, "segment has no unused bits")
	last := strings.IndexByte(alphabet, seg[len(seg)-1])
	changed := seg[:len(seg)-1] + string(alphabet[last^1])
	a, errA := base64.RawURLEncoding.DecodeString(seg)
	b, errB := base64.RawURLEncoding.DecodeString(changed)
	require.NoError(t, errA)
	require.NoError(t, errB)
	require.Equal(t, a, b, "lenient decoding must not see the change, or the case proves nothing")
	return changed
}

// replaceSegment returns token with segment i replaced.
func replaceSegment(token string, i int, seg string) string {
	parts := strings.Split(token, ".")
	parts[i] = seg
	return strings.Join(parts, ".")
}

func newReplayVerifier(t *testing.T) *webhook.Verifier {
	t.Helper()
	return newVerifier(t,
		webhook.WithSecrets(testOldSecret),
		webhook.WithReplayCache(webhook.NewMemoryReplayCache(100, time.Hour)),
	)
}

// failingCache is a ReplayCache whose Claim always fails, or answers
// state without an error when state is set.
type failingCache struct {
	state   webhook.ClaimState
	settled []string
}

var errCacheDown = errors.New("cache is down")

// ctxCache is a ReplayCache that records the contexts it is given, and
// whose Commit and Release fail with settleErr, settleFails times.
type ctxCache struct {
	webhook.MemoryReplayCache
	mu          sync.Mutex
	claimCtx    []context.Context
	settleCtx   []context.Context
	settleErrs  []error // ctx.Err() when Commit or Release was called
	commits     int
	releases    int
	settleErr   error
	settleFails int // Commit and Release fail with settleErr this many times, or always when negative
}

type ctxKey struct{}

// recorder is a handler function that records the events it receives and
// answers with err.
type recorder struct {
	events  []*webhook.Event
	fromCtx []*webhook.Event
	err     error
}

// serve sends req to h and returns the recorded answer.
func serve(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// newRequest returns a callback POST with body and the given header
// key/value pairs.
func newRequest(body string, header ...string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/callbacks", strings.NewReader(body))
	for i := 0; i < len(header); i += 2 {
		r.Header.Add(header[i], header[i+1])
	}
	return r
}

func (r *recorder) handle(ctx context.Context, ev *webhook.Event) error {
	r.events = append(r.events, ev)
	if got, ok := webhook.FromContext(ctx); ok {
		r.fromCtx = append(r.fromCtx, got)
	}
	return r.err
}

func (c *failingCache) Claim(context.Context, string, string, time.Duration) (webhook.ClaimState, error) {
	if c.state != 0 {
		return c.state, nil
	}
	return 0, errCacheDown
}

func (c *failingCache) Commit(_ context.Context, key string) error {
	c.settled = append(c.settled, key)
	return nil
}

func (c *failingCache) Release(_ context.Context, key, _ string) error {
	c.settled = append(c.settled, key)
	return nil
}

func (c *ctxCache) Claim(ctx context.Context, key, owner string, lease time.Duration) (webhook.ClaimState, error) {
	c.mu.Lock()
	c.claimCtx = append(c.claimCtx, ctx)
	c.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return c.MemoryReplayCache.Claim(ctx, key, owner, lease)
}

// settle records a Commit or Release and reports whether it should fail.
func (c *ctxCache) settle(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.settleCtx = append(c.settleCtx, ctx)
	c.settleErrs = append(c.settleErrs, ctx.Err())
	if c.settleErr != nil && c.settleFails != 0 {
		c.settleFails--
		return c.settleErr
	}
	return nil
}

func (c *ctxCache) Commit(ctx context.Context, key string) error {
	if err := c.settle(ctx); err != nil {
		return err
	}
	c.mu.Lock()
	c.commits++
	c.mu.Unlock()
	return c.MemoryReplayCache.Commit(ctx, key)
}

func (c *ctxCache) Release(ctx context.Context, key, owner string) error {
	if err := c.settle(ctx); err != nil {
		return err
	}
	c.mu.Lock()
	c.releases++
	c.mu.Unlock()
	return c.MemoryReplayCache.Release(ctx, key, owner)
}
