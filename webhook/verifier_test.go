package webhook_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/webhook"
)

// A Verifier, or a struct that holds one, prints, logs and marshals
// without its secrets or its access key, under every verb.
func TestVerifierPrintsNoKey(t *testing.T) {
	v := newVerifier(t, webhook.WithAccessKey(testAccessKey), webhook.WithSecrets(testOldSecret))
	type config struct {
		Name     string
		Verifier *webhook.Verifier
	}
	type private struct {
		name     string
		verifier *webhook.Verifier
		value    webhook.Verifier
	}
	values := []any{v, *v, config{"hooks", v}, private{"hooks", v, *v}, &private{"hooks", v, *v},
		[]*webhook.Verifier{v}, map[string]*webhook.Verifier{"hooks": v}}
	var needles []string
	for _, k := range []string{string(testSecret), string(testOldSecret), testAccessKey} {
		needles = append(needles, k, hex.EncodeToString([]byte(k)), strings.ToUpper(hex.EncodeToString([]byte(k))),
			strings.Trim(fmt.Sprint([]byte(k)), "[]"))
	}
	for _, val := range values {
		var texts []string
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3v"} {
			texts = append(texts, verb+": "+fmt.Sprintf(verb, val))
		}
		var logs bytes.Buffer
		for _, h := range []slog.Handler{slog.NewTextHandler(&logs, nil), slog.NewJSONHandler(&logs, nil)} {
			slog.New(h).Info("config", "v", val)
		}
		texts = append(texts, fmt.Sprint(val), logs.String())
		if b, err := json.Marshal(val); err == nil {
			texts = append(texts, string(b))
		}
		for _, text := range texts {
			for _, n := range needles {
				if strings.Contains(text, n) {
					t.Errorf("%T shows a key (%d bytes of it): %.200s", val, len(n), text)
				}
			}
		}
	}
	const want = "webhook.Verifier([redacted])"
	for _, val := range []any{v, *v} {
		if got := fmt.Sprintf("%v", val); got != want {
			t.Errorf("%%v of %T = %.200q, want %q", val, got, want)
		}
	}
}

func TestVerifyRefuses(t *testing.T) {
	valid := sign(t, invoiceClaims())
	parts := strings.Split(valid, ".")
	header, payload, sig := parts[0], parts[1], parts[2]
	signing := header + "." + payload
	claimsJSON := mustJSON(invoiceClaims())
	hs256 := `{"alg":"HS256","typ":"JWT"}`
	attacker := []byte("attacker-chosen-key")
	pem := []byte("-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n")

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

		// Headers meant to make the verifier pick another algorithm or
		// another key, signed with HMAC-SHA-256 whatever they claim, as an
		// attacker signs as best he can: each is refused before a key is
		// used, with the error that names why.
		{"alg HS256 with a NUL after it", rawToken(`{"alg":"HS256\u0000"}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrAlgorithm},
		{"alg with a leading space", rawToken(`{"alg":" HS256"}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrAlgorithm},
		{"alg HS-256", rawToken(`{"alg":"HS-256"}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrAlgorithm},
		{"alg Hs256", rawToken(`{"alg":"Hs256"}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrAlgorithm},
		{"alg with a Cyrillic S", rawToken(`{"alg":"H\u0405256"}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrAlgorithm},
		{"alg HS1024", rawToken(`{"alg":"HS1024"}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrAlgorithm},
		{"alg empty", rawToken(`{"alg":""}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrAlgorithm},
		{"alg an array", rawToken(`{"alg":["HS256"]}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"alg an object", rawToken(`{"alg":{"":"HS256"}}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"alg null", rawToken(`{"alg":null}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"alg spelled with an escape twice", rawToken(`{"alg":"none","\u0061lg":"HS256"}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"RS256 signed with HMAC over a public key", rawToken(`{"alg":"RS256"}`, claimsJSON, "HS256", pem), nil, webhook.ErrAlgorithm},
		{"HS256 signed with a public key as the secret", rawToken(`{"alg":"HS256"}`, claimsJSON, "HS256", pem), nil, webhook.ErrInvalidSignature},
		{"HS256 signed with an empty key", rawToken(`{"alg":"HS256"}`, claimsJSON, "HS256", []byte{}), nil, webhook.ErrInvalidSignature},
		{"kid pointing at a file", rawToken(`{"alg":"HS256","kid":"../../../../dev/null"}`, claimsJSON, "HS256", []byte{}), nil, webhook.ErrInvalidSignature},
		{"embedded jwk", rawToken(`{"alg":"HS256","jwk":{"kty":"oct","k":""}}`, claimsJSON, "HS256", []byte{}), nil, webhook.ErrAlgorithm},
		{"empty crit", rawToken(`{"alg":"HS256","crit":[]}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrAlgorithm},
		{"jku to a key set", rawToken(`{"alg":"HS256","jku":"http://127.0.0.1/keys"}`, claimsJSON, "HS256", testSecret), nil, webhook.ErrAlgorithm},

		// Payloads that JSON parsers disagree on or that stress them.
		{"jti twice, once escaped", rawToken(`{"alg":"HS256"}`, `{"jti":"a","\u006ati":"b","event":"new-invoice"}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"event twice", rawToken(`{"alg":"HS256"}`, `{"event":"new-invoice","event":"new-document"}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"exp past float64", rawToken(`{"alg":"HS256"}`, `{"event":"new-invoice","exp":1e400}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"iat far before the epoch", rawToken(`{"alg":"HS256"}`, `{"event":"new-invoice","iat":-1e300}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"exp as a quoted number", rawToken(`{"alg":"HS256"}`, `{"event":"new-invoice","exp":"9999999999"}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"exp NaN", rawToken(`{"alg":"HS256"}`, `{"event":"new-invoice","exp":NaN}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"nbf Infinity", rawToken(`{"alg":"HS256"}`, `{"event":"new-invoice","nbf":Infinity}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"number with a leading zero", rawToken(`{"alg":"HS256"}`, `{"event":"new-invoice","n":012}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"hex number", rawToken(`{"alg":"HS256"}`, `{"event":"new-invoice","n":0x10}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"single quotes", rawToken(`{"alg":"HS256"}`, `{'event':'new-invoice'}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"comment", rawToken(`{"alg":"HS256"}`, `{"event":"new-invoice"/* c */}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"trailing comma", rawToken(`{"alg":"HS256"}`, `{"event":"new-invoice",}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"BOM before the object", rawToken(`{"alg":"HS256"}`, "\ufeff{\"event\":\"new-invoice\"}", "HS256", testSecret), nil, webhook.ErrMalformed},
		{"two objects", rawToken(`{"alg":"HS256"}`, `{"event":"new-invoice"}{"event":"new-document"}`, "HS256", testSecret), nil, webhook.ErrMalformed},
		{"lone surrogate escape in a key twice", rawToken(`{"alg":"HS256"}`, `{"\ud800":1,"\ud800":2}`, "HS256", testSecret), nil, webhook.ErrMalformed},
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

// TestNewVerifierRefusesBadConfiguration checks that NewVerifier refuses
// each option outside its range with the error that names it, and builds
// no verifier.
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
		{"body size -1", testSecret, []webhook.Option{webhook.WithMaxBodySize(-1)}, "webhook: maximum body size must be positive"},
		{"body size MinInt64", testSecret, []webhook.Option{webhook.WithMaxBodySize(math.MinInt64)}, "webhook: maximum body size must be positive"},
		{"zero read timeout", testSecret, []webhook.Option{webhook.WithReadTimeout(0)}, "webhook: read timeout must be positive"},
		{"read timeout -1", testSecret, []webhook.Option{webhook.WithReadTimeout(-1)}, "webhook: read timeout must be positive"},
		{"read timeout MinInt64", testSecret, []webhook.Option{webhook.WithReadTimeout(math.MinInt64)}, "webhook: read timeout must be positive"},
		{"zero lease", testSecret, []webhook.Option{webhook.WithLease(0)}, "webhook: lease must be positive"},
		{"lease -1", testSecret, []webhook.Option{webhook.WithLease(-1)}, "webhook: lease must be positive"},
		{"lease MinInt64", testSecret, []webhook.Option{webhook.WithLease(math.MinInt64)}, "webhook: lease must be positive"},
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

// TestReplayRefused sends a first token, then a second one that carries
// the same event in another spelling, and expects the second refused: as
// in progress while the first is not committed, as a replay once it is.
func TestReplayRefused(t *testing.T) {
	camel := map[string]any{
		"eventName": "new-invoice", "invoiceId": testInvoiceID.String(),
		"companyId": testCompanyID.String(), "companyName": "Acme Widgets LLC",
	}
	cases := []struct {
		name          string
		first, second func(t *testing.T) string
	}{
		{"same token twice",
			func(t *testing.T) string { return sign(t, invoiceClaims()) },
			func(t *testing.T) string { return sign(t, invoiceClaims()) }},
		{"re-signed with HS512",
			func(t *testing.T) string { return sign(t, invoiceClaims()) },
			func(t *testing.T) string { return sign(t, invoiceClaims(), webhook.WithAlgorithm("HS512")) }},
		{"re-signed with the rotated secret",
			func(t *testing.T) string { return sign(t, invoiceClaims()) },
			func(t *testing.T) string { return signWith(t, invoiceClaims(), testOldSecret) }},
		{"re-signed with an access key header",
			func(t *testing.T) string { return sign(t, invoiceClaims()) },
			func(t *testing.T) string { return sign(t, invoiceClaims(), webhook.WithSignAccessKey(testAccessKey)) }},
		{"re-signed with an iat claim",
			func(t *testing.T) string { return sign(t, invoiceClaims()) },
			func(t *testing.T) string { return sign(t, with(invoiceClaims(), "iat", testNow.Unix())) }},
		{"re-signed with other claim spellings",
			func(t *testing.T) string { return sign(t, invoiceClaims()) },
			func(t *testing.T) string { return sign(t, camel) }},
		{"re-signed with upper-case ids",
			func(t *testing.T) string { return sign(t, invoiceClaims()) },
			func(t *testing.T) string {
				return sign(t, with(invoiceClaims(), "invoice_id", strings.ToUpper(testInvoiceID.String())))
			}},
		{"re-signed with a different company name",
			func(t *testing.T) string { return sign(t, invoiceClaims()) },
			func(t *testing.T) string { return sign(t, with(invoiceClaims(), "company_name", "Acme")) }},
		{"same jti with other content",
			func(t *testing.T) string { return sign(t, with(invoiceClaims(), "jti", "delivery-1")) },
			func(t *testing.T) string { return sign(t, with(documentClaims(), "jti", "delivery-1")) }},
		{"event without ids, same claims",
			func(t *testing.T) string { return sign(t, map[string]any{"event": "ping", "n": 1}) },
			func(t *testing.T) string {
				return sign(t, map[string]any{"n": 1, "event": "ping"}, webhook.WithAlgorithm("HS384"))
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := newReplayVerifier(t)
			ev, err := v.Verify(tc.first(t))
			require.NoError(t, err)
			require.NotNil(t, ev)

			second := tc.second(t)
			got, err := v.Verify(second)
			assert.Nil(t, got)
			requireOnly(t, err, webhook.ErrInProgress, second)

			require.NoError(t, v.Commit(context.Background(), ev))
			got, err = v.Verify(second)
			assert.Nil(t, got)
			requireOnly(t, err, webhook.ErrReplayed, second)
		})
	}
}

// TestReplayDistinctEventsAccepted checks that events which differ are
// all accepted by one cache.
func TestReplayDistinctEventsAccepted(t *testing.T) {
	v := newReplayVerifier(t)
	tokens := []string{
		sign(t, invoiceClaims()),
		sign(t, with(invoiceClaims(), "invoice_id", uuid.New().String())),
		sign(t, with(invoiceClaims(), "company_id", uuid.New().String())),
		sign(t, documentClaims()),
		sign(t, with(documentClaims(), "document_id", uuid.New().String())),
		sign(t, with(invoiceClaims(), "event", "invoice-paid")),
		sign(t, with(invoiceClaims(), "jti", "a")),
		sign(t, with(invoiceClaims(), "jti", "b")),
		sign(t, map[string]any{"event": "ping", "n": 1}),
		sign(t, map[string]any{"event": "ping", "n": 2}),
		sign(t, map[string]any{"invoice_id": "INV-1"}),
		sign(t, map[string]any{"invoice_id": "INV-2"}),
	}
	for i, tok := range tokens {
		ev, err := v.Verify(tok)
		require.NoError(t, err, "token %d", i)
		require.NotNil(t, ev, "token %d", i)
	}
}

// TestReplayRecordsOnlyVerifiedEvents checks that a token refused for any
// reason leaves no trace in the cache: the valid delivery that follows is
// accepted.
func TestReplayRecordsOnlyVerifiedEvents(t *testing.T) {
	claims := mustJSON(invoiceClaims())
	refused := []struct {
		name  string
		token string
		want  error
	}{
		{"bad signature", rawToken(`{"alg":"HS256"}`, claims, "HS256", []byte("wrong")), webhook.ErrInvalidSignature},
		{"expired", sign(t, with(invoiceClaims(), "exp", testNow.Add(-time.Hour).Unix())), webhook.ErrExpired},
		{"not yet valid", sign(t, with(invoiceClaims(), "nbf", testNow.Add(time.Hour).Unix())), webhook.ErrNotYetValid},
		{"wrong access key", sign(t, invoiceClaims(), webhook.WithSignAccessKey("AK-other")), webhook.ErrAccessKey},
		{"refused algorithm", enc(`{"alg":"none"}`) + "." + enc(claims) + ".", webhook.ErrAlgorithm},
	}
	v := newVerifier(t,
		webhook.WithAccessKey(testAccessKey),
		webhook.WithReplayCache(webhook.NewMemoryReplayCache(100, time.Hour)),
	)
	for _, r := range refused {
		_, err := v.Verify(r.token)
		requireOnly(t, err, r.want, r.token)
	}
	ev, err := v.Verify(sign(t, invoiceClaims()))
	require.NoError(t, err)
	assert.Equal(t, testInvoiceID, ev.InvoiceID)
}

// TestForgetAndCommit walks one event through its marks: claimed (a second
// delivery is in progress), forgotten (the next delivery claims it),
// committed (every later delivery is a replay, and forgetting it changes
// nothing).
func TestForgetAndCommit(t *testing.T) {
	ctx := context.Background()
	v := newReplayVerifier(t)
	tok := sign(t, invoiceClaims())
	ev, err := v.Verify(tok)
	require.NoError(t, err)

	_, err = v.Verify(tok)
	requireOnly(t, err, webhook.ErrInProgress, tok)

	require.NoError(t, v.Forget(ctx, ev))
	again, err := v.Verify(tok)
	require.NoError(t, err)
	assert.Equal(t, testInvoiceID, again.InvoiceID)

	require.NoError(t, v.Forget(ctx, ev), "a stale delivery's release is a no-op")
	_, err = v.Verify(tok)
	requireOnly(t, err, webhook.ErrInProgress, tok)

	require.NoError(t, v.Commit(ctx, again))
	_, err = v.Verify(tok)
	requireOnly(t, err, webhook.ErrReplayed, tok)
	require.NoError(t, v.Forget(ctx, again), "releasing a done event")
	_, err = v.Verify(tok)
	requireOnly(t, err, webhook.ErrReplayed, tok)

	// Settling what was never claimed changes nothing.
	for _, ev := range []*webhook.Event{nil, {Name: webhook.EventNewInvoice}} {
		require.NoError(t, v.Forget(ctx, ev))
		require.NoError(t, v.Commit(ctx, ev))
	}
	_, err = v.Verify(tok)
	requireOnly(t, err, webhook.ErrReplayed, tok)
}

// TestLeaseEnds claims an event and never settles it, as a receiver that
// died would: deliveries are in progress until the lease ends, and then
// the event is accepted again.
func TestLeaseEnds(t *testing.T) {
	v := newVerifier(t,
		webhook.WithReplayCache(webhook.NewMemoryReplayCache(10, time.Hour)),
		webhook.WithLease(50*time.Millisecond))
	tok := sign(t, invoiceClaims())
	_, err := v.Verify(tok)
	require.NoError(t, err)
	_, err = v.Verify(tok)
	requireOnly(t, err, webhook.ErrInProgress, tok)

	deadline := time.Now().Add(10 * time.Second)
	for {
		ev, err := v.Verify(tok)
		if err == nil {
			assert.Equal(t, testInvoiceID, ev.InvoiceID)
			break
		}
		requireOnly(t, err, webhook.ErrInProgress, tok)
		require.True(t, time.Now().Before(deadline), "the lease never ended")
		time.Sleep(10 * time.Millisecond)
	}
}

func TestNoReplayCacheAcceptsRepeats(t *testing.T) {
	v := newVerifier(t)
	tok := sign(t, invoiceClaims())
	for i := 0; i < 3; i++ {
		ev, err := v.Verify(tok)
		require.NoError(t, err)
		assert.Equal(t, testInvoiceID, ev.InvoiceID)
		require.NoError(t, v.Forget(context.Background(), ev)) // no cache: a no-op
		require.NoError(t, v.Commit(context.Background(), ev))
	}
}

func TestReplayCacheError(t *testing.T) {
	c := &failingCache{}
	v := newVerifier(t, webhook.WithReplayCache(c))
	ev, err := v.Verify(sign(t, invoiceClaims()))
	assert.Nil(t, ev)
	require.ErrorIs(t, err, errCacheDown)
	assert.EqualError(t, err, "webhook: replay cache: cache is down")
	for _, s := range sentinels {
		assert.NotErrorIs(t, err, s)
	}
	assert.Empty(t, c.settled)
}

// TestReplayCacheAnswersNoState checks that a cache answering a claim
// state that is none of the three, without an error, fails closed: an
// error that is neither a replay nor in progress.
func TestReplayCacheAnswersNoState(t *testing.T) {
	for _, st := range []webhook.ClaimState{-1, 4, 1 << 30} {
		c := &failingCache{state: st}
		v := newVerifier(t, webhook.WithReplayCache(c))
		ev, err := v.Verify(sign(t, invoiceClaims()))
		assert.Nil(t, ev)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "webhook: replay cache: claim answered")
		for _, s := range sentinels {
			assert.NotErrorIs(t, err, s)
		}
		rec := &recorder{}
		w := serve(v.Handler(rec.handle), newRequest(sign(t, invoiceClaims())))
		assert.Equal(t, http.StatusServiceUnavailable, w.Code)
		assert.Empty(t, rec.events)
	}
}

// TestReplayConcurrentDeliveries delivers one event from many goroutines
// at once: exactly one delivery is accepted, the others find it in
// progress.
func TestReplayConcurrentDeliveries(t *testing.T) {
	v := newReplayVerifier(t)
	tok := sign(t, invoiceClaims())
	const n = 32
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = v.Verify(tok)
		}()
	}
	wg.Wait()
	accepted, busy := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			accepted++
		case errors.Is(err, webhook.ErrInProgress):
			busy++
		}
	}
	assert.Equal(t, 1, accepted)
	assert.Equal(t, n-1, busy)
}

// TestReplayCacheGetsTheContext checks that the caller's context reaches
// the cache: VerifyContext's, VerifyRequest's and Handler's request
// context, Commit's and Forget's, each carrying the event; and that a
// cancelled one stops Claim with an error that wraps context.Canceled and
// matches no sentinel.
func TestReplayCacheGetsTheContext(t *testing.T) {
	c := &ctxCache{}
	v := newVerifier(t, webhook.WithReplayCache(c))
	ctx := context.WithValue(context.Background(), ctxKey{}, "caller")

	ev, err := v.VerifyContext(ctx, sign(t, invoiceClaims()))
	require.NoError(t, err)
	require.NoError(t, v.Forget(ctx, ev))
	require.NoError(t, v.Commit(ctx, ev))
	r := newRequest(sign(t, documentClaims())).WithContext(ctx)
	_, err = v.VerifyRequest(r)
	require.NoError(t, err)
	var inFn context.Context
	h := v.Handler(func(ctx context.Context, _ *webhook.Event) error {
		inFn = ctx
		return nil
	})
	w := serve(h, newRequest(sign(t, with(invoiceClaims(), "jti", "handler"))).WithContext(ctx))
	require.Equal(t, http.StatusOK, w.Code)
	require.Len(t, c.claimCtx, 3)
	require.Len(t, c.settleCtx, 3, "Forget, Commit, and the handler's Commit")
	for i, got := range append(c.claimCtx, c.settleCtx...) {
		assert.Equal(t, "caller", got.Value(ctxKey{}), "context %d", i)
		ev, ok := webhook.FromContext(got)
		if assert.True(t, ok, "context %d carries the event", i) {
			assert.NotEmpty(t, ev.Name)
		}
	}
	assert.Equal(t, "caller", inFn.Value(ctxKey{}), "fn's context derives from the request's")

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tok := sign(t, with(invoiceClaims(), "jti", "fresh"))
	ev, err = v.VerifyContext(cancelled, tok)
	assert.Nil(t, ev)
	require.ErrorIs(t, err, context.Canceled)
	assert.EqualError(t, err, "webhook: replay cache: context canceled")
	for _, s := range sentinels {
		assert.NotErrorIs(t, err, s)
	}
	w = serve(h, newRequest(tok).WithContext(cancelled))
	assert.Equal(t, http.StatusServiceUnavailable, w.Code, "the handler's claim ends with the request")
	ev, err = v.VerifyContext(ctx, tok)
	require.NoError(t, err, "a cancelled Claim recorded nothing")
	assert.Equal(t, "fresh", ev.ID)

	//lint:ignore SA1012 a nil context is the case under test
	_, err = v.VerifyContext(nil, tok)
	require.EqualError(t, err, "webhook: nil context")
	//lint:ignore SA1012 a nil context is the case under test
	require.EqualError(t, v.Forget(nil, ev), "webhook: nil context")
	//lint:ignore SA1012 a nil context is the case under test
	require.EqualError(t, v.Commit(nil, ev), "webhook: nil context")
}

// TestOptionsAtTheirLargestValues builds verifiers with the largest values
// every duration option takes: nothing overflows into a refusal of good
// tokens. (The values below the limits are refused: see
// TestNewVerifierRefusesBadConfiguration.)
func TestOptionsAtTheirLargestValues(t *testing.T) {
	expired := with(invoiceClaims(), "exp", testNow.Add(-365*24*time.Hour).Unix())
	v := newVerifier(t, webhook.WithLeeway(math.MaxInt64), webhook.WithReadTimeout(math.MaxInt64))
	ev, err := v.Verify(sign(t, expired))
	require.NoError(t, err, "a leeway of MaxInt64 accepts a token that expired a year ago")
	assert.Equal(t, testInvoiceID, ev.InvoiceID)

	rec := &recorder{}
	w := serve(v.Handler(rec.handle), newRequest(sign(t, invoiceClaims())))
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Len(t, rec.events, 1)

	// The memory cache at its largest size and longest TTL still records
	// and refuses, with the longest lease too.
	c := webhook.NewMemoryReplayCache(math.MaxInt, math.MaxInt64)
	v = newVerifier(t, webhook.WithReplayCache(c), webhook.WithLease(math.MaxInt64))
	tok := sign(t, invoiceClaims())
	ev, err = v.Verify(tok)
	require.NoError(t, err)
	_, err = v.Verify(tok)
	require.ErrorIs(t, err, webhook.ErrInProgress)
	require.NoError(t, v.Commit(context.Background(), ev))
	_, err = v.Verify(tok)
	require.ErrorIs(t, err, webhook.ErrReplayed)
	w = serve(v.Handler(rec.handle), newRequest(sign(t, documentClaims())))
	assert.Equal(t, http.StatusOK, w.Code, "a lease of MaxInt64 gives fn a context that works")
	assert.Len(t, rec.events, 2)

}

// TestVerifyHandsOutValidUTF8 checks that invalid UTF-8 inside strings
// and keys is accepted as encoding/json reads it: every string handed out
// is valid UTF-8.
func TestVerifyHandsOutValidUTF8(t *testing.T) {
	v := newVerifier(t)
	tok := rawToken(`{"alg":"HS256"}`, "{\"event\":\"new-\xffinvoice\",\"company_name\":\"Ac\xc3me\",\"k\xfe\":\"v\xfd\",\"jti\":\"\xed\xa0\x80\"}", "HS256", testSecret)
	ev, err := v.Verify(tok)
	require.NoError(t, err)
	for _, s := range []string{ev.Name, ev.CompanyName, ev.ID} {
		assert.True(t, utf8.ValidString(s), "%q is not valid UTF-8", s)
	}
	assert.Equal(t, "new-\ufffdinvoice", ev.Name)
	for k, val := range ev.Claims {
		assert.True(t, utf8.ValidString(k), "claim name %q", k)
		if s, ok := val.(string); ok {
			assert.True(t, utf8.ValidString(s), "claim %q", s)
		}
	}
}
