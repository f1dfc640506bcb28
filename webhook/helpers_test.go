package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"hash"
	"strings"
	"testing"
	"time"

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
