package webhook_test

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/webhook"
)

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

func TestVerifyRefuses(t *testing.T) {
	valid := sign(t, invoiceClaims())
	parts := strings.Split(valid, ".")
	header, payload, sig := parts[0], parts[1], parts[2]
	signing := header + "." + payload
	claimsJSON := mustJSON(invoiceClaims())
	hs256 := `{"alg":"HS256","typ":"JWT"}`
	attacker := []byte("attacker-chosen-key")

	// A payload whose length leaves unused bits in its last character.
	oddPayload := claimsJSON
	for len(oddPayload)%3 == 0 {
		oddPayload = strings.TrimSuffix(oddPayload, "}") + ` }`
	}
	oddToken := rawToken(hs256, oddPayload, "HS256", testSecret)
	oddParts := strings.Split(oddToken, ".")

	tamperedClaims := with(invoiceClaims(), "company_id", uuid.New().String())
	hs512 := sign(t, invoiceClaims(), webhook.WithAlgorithm("HS512"))

	cases := []struct {
		name  string
		token string
		opts  []webhook.Option
		want  error
	}{
		// Algorithms.
		{"alg none", enc(`{"alg":"none"}`) + "." + payload + ".", nil, webhook.ErrAlgorithm},
		{"alg None", enc(`{"alg":"None"}`) + "." + payload + ".", nil, webhook.ErrAlgorithm},
		{"alg NONE", enc(`{"alg":"NONE"}`) + "." + payload + ".", nil, webhook.ErrAlgorithm},
		{"alg nOnE", enc(`{"alg":"nOnE"}`) + "." + payload + ".", nil, webhook.ErrAlgorithm},
		{"alg none with a signature", rawToken(`{"alg":"none"}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrAlgorithm},
		{"alg none with the valid signature", enc(`{"alg":"none"}`) + "." + payload + "." + sig, nil, webhook.ErrAlgorithm},
		{"RS256 token", asymmetricToken(t, jwt.SigningMethodRS256), nil, webhook.ErrAlgorithm},
		{"ES256 token", asymmetricToken(t, jwt.SigningMethodES256), nil, webhook.ErrAlgorithm},
		{"PS256 token", asymmetricToken(t, jwt.SigningMethodPS256), nil, webhook.ErrAlgorithm},
		{"EdDSA token", asymmetricToken(t, jwt.SigningMethodEdDSA), nil, webhook.ErrAlgorithm},
		{"RS256 header over an HMAC signature", enc(`{"alg":"RS256"}`) + "." + payload + "." + macSegment("HS256", testSecret, enc(`{"alg":"RS256"}`)+"."+payload), nil, webhook.ErrAlgorithm},
		{"alg in lower case", rawToken(`{"alg":"hs256"}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrAlgorithm},
		{"alg with a trailing space", rawToken(`{"alg":"HS256 "}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrAlgorithm},
		{"alg missing", rawToken(`{"typ":"JWT"}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"alg not a string", rawToken(`{"alg":256}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrMalformed},

		// Keys and signatures.
		{"HS256 signed with another key", rawToken(hs256, claimsJSON, "HS256", attacker), nil, webhook.ErrInvalidSignature},
		{"signed with the access key instead of the secret", signWith(t, invoiceClaims(), []byte(testAccessKey), webhook.WithSignAccessKey(testAccessKey)), nil, webhook.ErrInvalidSignature},
		{"tampered payload", header + "." + enc(mustJSON(tamperedClaims)) + "." + sig, nil, webhook.ErrInvalidSignature},
		{"tampered header", enc(`{"alg":"HS256","typ":"JWT","x":1}`) + "." + payload + "." + sig, nil, webhook.ErrInvalidSignature},
		{"header alg switched to HS512", enc(`{"alg":"HS512","typ":"JWT"}`) + "." + payload + "." + sig, nil, webhook.ErrInvalidSignature},
		{"HS512 signature under an HS256 header", header + "." + payload + "." + strings.Split(sign(t, invoiceClaims(), webhook.WithAlgorithm("HS512")), ".")[2], nil, webhook.ErrInvalidSignature},
		{"signature truncated by one character", signing + "." + sig[:len(sig)-1], nil, webhook.ErrInvalidSignature},
		{"signature truncated by two characters", signing + "." + sig[:len(sig)-2], nil, webhook.ErrInvalidSignature},
		{"signature truncated by four characters", signing + "." + sig[:len(sig)-4], nil, webhook.ErrInvalidSignature},
		{"signature truncated to nothing", signing + ".", nil, webhook.ErrInvalidSignature},
		{"signature with one byte too many", signing + "." + sig + "AA", nil, webhook.ErrInvalidSignature},
		{"signature with changed unused trailing bits", signing + "." + flipTrailingBits(t, sig), nil, webhook.ErrInvalidSignature},
		{"HS512 signature with changed unused trailing bits", replaceSegment(hs512, 2, flipTrailingBits(t, strings.Split(hs512, ".")[2])), nil, webhook.ErrInvalidSignature},
		{"payload with changed unused trailing bits", replaceSegment(oddToken, 1, flipTrailingBits(t, oddParts[1])), nil, webhook.ErrMalformed},

		// Form of the token.
		{"empty string", "", nil, webhook.ErrMalformed},
		{"10 MB token", strings.Repeat("A", 10<<20-2) + ".A.", nil, webhook.ErrMalformed},
		{"one byte over the token cap", header + "." + strings.Repeat("A", 64<<10) + "." + sig, nil, webhook.ErrMalformed},
		{"extra dot at the end", valid + ".", nil, webhook.ErrMalformed},
		{"extra segment", valid + "." + sig, nil, webhook.ErrMalformed},
		{"doubled dot", header + ".." + payload + "." + sig, nil, webhook.ErrMalformed},
		{"two segments", signing, nil, webhook.ErrMalformed},
		{"one segment", header, nil, webhook.ErrMalformed},
		{"only dots", "..", nil, webhook.ErrMalformed},
		{"plus sign", replaceSegment(valid, 2, "+"+sig[1:]), nil, webhook.ErrMalformed},
		{"slash", replaceSegment(valid, 1, payload[:4]+"/"+payload[5:]), nil, webhook.ErrMalformed},
		{"exclamation mark", "!" + valid[1:], nil, webhook.ErrMalformed},
		{"NUL byte", valid[:5] + "\x00" + valid[6:], nil, webhook.ErrMalformed},
		{"non-ASCII letter", valid[:5] + "é" + valid[7:], nil, webhook.ErrMalformed},
		{"padding on the signature", valid + "=", nil, webhook.ErrMalformed},
		{"padding on the header", header + "==." + payload + "." + sig, nil, webhook.ErrMalformed},
		{"header not base64 of anything", "A." + payload + "." + sig, nil, webhook.ErrMalformed},
		{"space inside", valid[:20] + " " + valid[20:], nil, webhook.ErrMalformed},
		{"tab inside", valid[:20] + "\t" + valid[20:], nil, webhook.ErrMalformed},
		{"CR LF inside", valid[:20] + "\r\n" + valid[20:], nil, webhook.ErrMalformed},
		{"LF between segments", header + ".\n" + payload + "." + sig, nil, webhook.ErrMalformed},
		{"leading space", " " + valid, nil, webhook.ErrMalformed},
		{"trailing newline", valid + "\n", nil, webhook.ErrMalformed},

		// JSON inside the token.
		{"header not JSON", rawToken(`alg=HS256`, claimsJSON, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"header an array", rawToken(`["HS256"]`, claimsJSON, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"header with duplicate alg", rawToken(`{"alg":"HS256","alg":"none"}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"payload an array", rawToken(hs256, `[1,2]`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"payload a string", rawToken(hs256, `"new-invoice"`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"payload a number", rawToken(hs256, `42`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"payload null", rawToken(hs256, `null`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"payload empty", rawToken(hs256, ``, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"payload not JSON", rawToken(hs256, `{"event":`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"payload followed by more JSON", rawToken(hs256, claimsJSON+`{}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"payload followed by garbage", rawToken(hs256, claimsJSON+` x`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"payload nested too deeply", rawToken(hs256, `{"a":`+strings.Repeat("[", 40)+strings.Repeat("]", 40)+`}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"duplicate claim keys", rawToken(hs256, `{"event":"new-invoice","event":"new-document"}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"duplicate claim keys with equal values", rawToken(hs256, `{"event":"new-invoice","event":"new-invoice"}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"duplicate claim keys through an escape", rawToken(hs256, `{"exp":1,"\u0065xp":99999999999}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"duplicate keys in a nested object", rawToken(hs256, `{"data":{"invoice_id":"a","invoice_id":"b"}}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"duplicate keys in an object inside an array", rawToken(hs256, `{"list":[{"k":1,"k":2}]}`, "HS256", testSecret), nil, webhook.ErrMalformed},

		// Registered claims.
		{"exp in the past beyond leeway", sign(t, with(invoiceClaims(), "exp", testNow.Add(-61*time.Second).Unix())), nil, webhook.ErrExpired},
		{"exp an hour ago", sign(t, with(invoiceClaims(), "exp", testNow.Add(-time.Hour).Unix())), nil, webhook.ErrExpired},
		{"exp zero", sign(t, with(invoiceClaims(), "exp", 0)), nil, webhook.ErrExpired},
		{"exp past with no leeway", sign(t, with(invoiceClaims(), "exp", testNow.Add(-time.Second).Unix())), []webhook.Option{webhook.WithLeeway(0)}, webhook.ErrExpired},
		{"nbf in the future beyond leeway", sign(t, with(invoiceClaims(), "nbf", testNow.Add(61*time.Second).Unix())), nil, webhook.ErrNotYetValid},
		{"iat in the future beyond leeway", sign(t, with(invoiceClaims(), "iat", testNow.Add(61*time.Second).Unix())), nil, webhook.ErrNotYetValid},
		{"iat a day ahead", sign(t, with(invoiceClaims(), "iat", testNow.Add(24*time.Hour).Unix())), nil, webhook.ErrNotYetValid},
		{"exp as a string", sign(t, with(invoiceClaims(), "exp", "4102444800")), nil, webhook.ErrMalformed},
		{"nbf as a boolean", sign(t, with(invoiceClaims(), "nbf", true)), nil, webhook.ErrMalformed},
		{"iat null", sign(t, with(invoiceClaims(), "iat", nil)), nil, webhook.ErrMalformed},
		{"exp beyond year 9999", rawToken(hs256, `{"exp":1e300}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"exp overflowing float64", rawToken(hs256, `{"exp":1e400}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"jti a number", sign(t, with(invoiceClaims(), "jti", 7)), nil, webhook.ErrMalformed},

		// Header parameters.
		{"crit header", rawToken(`{"alg":"HS256","crit":["exp"]}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrAlgorithm},
		{"crit header with b64", rawToken(`{"alg":"HS256","b64":false,"crit":["b64"]}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrAlgorithm},
		{"kid naming an attacker key", rawToken(`{"alg":"HS256","kid":"attacker"}`, claimsJSON, "HS256", attacker), nil, webhook.ErrInvalidSignature},
		{"kid naming a file", rawToken(`{"alg":"HS256","kid":"../../../../dev/null"}`, claimsJSON, "HS256", []byte{0}), nil, webhook.ErrInvalidSignature},
		{"kid naming the access key", rawToken(`{"alg":"HS256","kid":"`+testAccessKey+`"}`, claimsJSON, "HS256", []byte(testAccessKey)), nil, webhook.ErrInvalidSignature},
		{"jku pointing at an attacker key set", rawToken(`{"alg":"HS256","jku":"https://attacker.example/jwks.json"}`, claimsJSON, "HS256", attacker), nil, webhook.ErrAlgorithm},
		{"jku with the real secret", rawToken(`{"alg":"HS256","jku":"https://attacker.example/jwks.json"}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrAlgorithm},
		{"jwk carrying an attacker key", rawToken(`{"alg":"HS256","jwk":{"kty":"oct","k":"`+base64.RawURLEncoding.EncodeToString(attacker)+`"}}`, claimsJSON, "HS256", attacker), nil, webhook.ErrAlgorithm},
		{"x5u header", rawToken(`{"alg":"HS256","x5u":"https://attacker.example/cert.pem"}`, claimsJSON, "HS256", attacker), nil, webhook.ErrAlgorithm},
		{"x5c header", rawToken(`{"alg":"HS256","x5c":["MIIB"]}`, claimsJSON, "HS256", attacker), nil, webhook.ErrAlgorithm},

		// Access key.
		{"wrong access key in the header", sign(t, invoiceClaims(), webhook.WithSignAccessKey("AK-someone-else")), []webhook.Option{webhook.WithAccessKey(testAccessKey)}, webhook.ErrAccessKey},
		{"access key of another type", rawToken(`{"alg":"HS256","access_key":42}`, claimsJSON, "HS256", testSecret), []webhook.Option{webhook.WithAccessKey(testAccessKey)}, webhook.ErrAccessKey},
		{"access key differing in case", sign(t, invoiceClaims(), webhook.WithSignAccessKey(strings.ToLower(testAccessKey))), []webhook.Option{webhook.WithAccessKey(testAccessKey)}, webhook.ErrAccessKey},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := newVerifier(t, tc.opts...)
			ev, err := v.Verify(tc.token)
			assert.Nil(t, ev)
			requireOnly(t, err, tc.want, tc.token)
		})
	}
}

// TestVerifyAccepts covers the valid tokens: every algorithm, every
// secret, the time claims within the leeway, ignored header parameters.
func TestVerifyAccepts(t *testing.T) {
	claimsJSON := mustJSON(invoiceClaims())
	cases := []struct {
		name     string
		token    string
		opts     []webhook.Option
		issuedAt time.Time
		id       string
	}{
		{"HS256 without registered claims", sign(t, invoiceClaims()), nil, time.Time{}, ""},
		{"HS384", sign(t, invoiceClaims(), webhook.WithAlgorithm("HS384")), nil, time.Time{}, ""},
		{"HS512", sign(t, invoiceClaims(), webhook.WithAlgorithm("HS512")), nil, time.Time{}, ""},
		{"primary secret with rotation configured", sign(t, invoiceClaims()), []webhook.Option{webhook.WithSecrets(testOldSecret)}, time.Time{}, ""},
		{"rotated secret", signWith(t, invoiceClaims(), testOldSecret), []webhook.Option{webhook.WithSecrets(testOldSecret)}, time.Time{}, ""},
		{"third secret", signWith(t, invoiceClaims(), []byte("third")), []webhook.Option{webhook.WithSecrets(testOldSecret), webhook.WithSecrets([]byte("third"))}, time.Time{}, ""},
		{"exp within leeway", sign(t, with(invoiceClaims(), "exp", testNow.Add(-30*time.Second).Unix())), nil, time.Time{}, ""},
		{"exp in the future", sign(t, with(invoiceClaims(), "exp", testNow.Add(time.Hour).Unix())), nil, time.Time{}, ""},
		{"exp past but inside a wider leeway", sign(t, with(invoiceClaims(), "exp", testNow.Add(-5*time.Minute).Unix())), []webhook.Option{webhook.WithLeeway(10 * time.Minute)}, time.Time{}, ""},
		{"nbf within leeway", sign(t, with(invoiceClaims(), "nbf", testNow.Add(30*time.Second).Unix())), nil, time.Time{}, ""},
		{"iat within leeway", sign(t, with(invoiceClaims(), "iat", testNow.Add(30*time.Second).Unix())), nil, testNow.Add(30 * time.Second), ""},
		{"iat in the past", sign(t, with(invoiceClaims(), "iat", testNow.Add(-time.Hour).Unix())), nil, testNow.Add(-time.Hour), ""},
		{"fractional iat", rawToken(`{"alg":"HS256"}`, fmt.Sprintf(`{"event":"new-invoice","iat":%d.5}`, testNow.Unix()), "HS256", testSecret), nil, testNow.Add(500 * time.Millisecond), ""},
		{"jti", sign(t, with(invoiceClaims(), "jti", "evt-123")), nil, time.Time{}, "evt-123"},
		{"kid is ignored", rawToken(`{"alg":"HS256","kid":"whatever"}`, claimsJSON, "HS256", testSecret), nil, time.Time{}, ""},
		{"x5t is ignored", rawToken(`{"alg":"HS256","x5t":"abc"}`, claimsJSON, "HS256", testSecret), nil, time.Time{}, ""},
		{"typ absent", rawToken(`{"alg":"HS256"}`, claimsJSON, "HS256", testSecret), nil, time.Time{}, ""},
		{"matching access key", sign(t, invoiceClaims(), webhook.WithSignAccessKey(testAccessKey)), []webhook.Option{webhook.WithAccessKey(testAccessKey)}, time.Time{}, ""},
		{"no access key in the header", sign(t, invoiceClaims()), []webhook.Option{webhook.WithAccessKey(testAccessKey)}, time.Time{}, ""},
		{"access key not configured", sign(t, invoiceClaims(), webhook.WithSignAccessKey("anything")), nil, time.Time{}, ""},
		{"whitespace inside the JSON", rawToken("{ \"alg\" : \"HS256\" }", "{\n \"event\": \"new-invoice\",\n \"invoice_id\": \""+testInvoiceID.String()+"\",\n \"company_id\": \""+testCompanyID.String()+"\",\n \"company_name\": \"Acme Widgets LLC\"\n}", "HS256", testSecret), nil, time.Time{}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := newVerifier(t, tc.opts...)
			ev, err := v.Verify(tc.token)
			require.NoError(t, err)
			require.NotNil(t, ev)
			assert.Equal(t, webhook.EventNewInvoice, ev.Name)
			assert.Equal(t, tc.issuedAt, ev.IssuedAt)
			assert.Equal(t, tc.id, ev.ID)
			if ev.Claims["invoice_id"] != nil {
				assert.Equal(t, testInvoiceID, ev.InvoiceID)
				assert.Equal(t, testCompanyID, ev.CompanyID)
				assert.Equal(t, "Acme Widgets LLC", ev.CompanyName)
			}
			assert.Equal(t, uuid.Nil, ev.DocumentID)
			assert.Equal(t, webhook.EventNewInvoice, ev.Claims["event"])
		})
	}
}

func TestVerifyKeepsRawClaims(t *testing.T) {
	tok := sign(t, with(invoiceClaims(), "amount", json.Number("12345678901234567890.01"), "nested", map[string]any{"k": []any{1, "two"}}))
	ev, err := newVerifier(t).Verify(tok)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"event":        "new-invoice",
		"invoice_id":   testInvoiceID.String(),
		"company_id":   testCompanyID.String(),
		"company_name": "Acme Widgets LLC",
		"amount":       json.Number("12345678901234567890.01"),
		"nested":       map[string]any{"k": []any{json.Number("1"), "two"}},
	}, ev.Claims)
}

func TestNewVerifierRefusesBadConfiguration(t *testing.T) {
	cases := []struct {
		name   string
		secret []byte
		opts   []webhook.Option
		want   string
	}{
		{"nil secret", nil, nil, "webhook: empty secret"},
		{"empty secret", []byte{}, nil, "webhook: empty secret"},
		{"whitespace secret", []byte(" \t\r\n"), nil, "webhook: empty secret"},
		{"empty rotated secret", testSecret, []webhook.Option{webhook.WithSecrets(testOldSecret, []byte("  "))}, "webhook: empty secret in WithSecrets"},
		{"empty access key", testSecret, []webhook.Option{webhook.WithAccessKey(" ")}, "webhook: empty access key"},
		{"negative leeway", testSecret, []webhook.Option{webhook.WithLeeway(-time.Second)}, "webhook: negative leeway"},
		{"zero body size", testSecret, []webhook.Option{webhook.WithMaxBodySize(0)}, "webhook: maximum body size must be positive"},
		{"nil replay cache", testSecret, []webhook.Option{webhook.WithReplayCache(nil)}, "webhook: nil replay cache"},
		{"nil clock", testSecret, []webhook.Option{webhook.WithClock(nil)}, "webhook: nil clock"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := webhook.NewVerifier(tc.secret, tc.opts...)
			assert.Nil(t, v)
			require.EqualError(t, err, tc.want)
		})
	}
}

// TestVerifierCopiesSecrets checks that changing the caller's slices after
// NewVerifier does not change which tokens verify.
func TestVerifierCopiesSecrets(t *testing.T) {
	primary := append([]byte(nil), testSecret...)
	rotated := append([]byte(nil), testOldSecret...)
	v, err := webhook.NewVerifier(primary, webhook.WithSecrets(rotated))
	require.NoError(t, err)
	primary[0]++
	rotated[0]++

	ev, err := v.Verify(sign(t, invoiceClaims()))
	require.NoError(t, err)
	assert.Equal(t, testInvoiceID, ev.InvoiceID)
	ev, err = v.Verify(signWith(t, invoiceClaims(), testOldSecret))
	require.NoError(t, err)
	assert.Equal(t, testInvoiceID, ev.InvoiceID)
}

// TestVerifyUsesTheClock checks that the leeway is measured against the
// configured clock, not the machine's.
func TestVerifyUsesTheClock(t *testing.T) {
	tok := sign(t, with(invoiceClaims(), "exp", testNow.Add(time.Minute).Unix()))
	_, err := newVerifier(t).Verify(tok)
	require.NoError(t, err)

	later := func() time.Time { return testNow.Add(time.Hour) }
	v := newVerifier(t, webhook.WithClock(later))
	_, err = v.Verify(tok)
	requireOnly(t, err, webhook.ErrExpired, tok)
}
