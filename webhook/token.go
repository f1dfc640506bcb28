package webhook

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"time"

	"github.com/acctadmin/acctadmin-go/webhook/internal/strictjson"
	"github.com/golang-jwt/jwt/v5"
)

// maxTokenSize caps the length of a token before any decoding is done.
// Callback tokens are a few hundred bytes.
const maxTokenSize = 64 << 10

// maxNumericDate bounds exp, nbf and iat: 9999-12-31T23:59:59Z, in seconds
// since the Unix epoch. Larger values (or their negatives) do not fit a
// time.Time in a way that compares sensibly, so they are refused.
const maxNumericDate = 253402300799

// segmentEncoding is the only encoding accepted for the three segments:
// base64url without padding, with the unused trailing bits of the last
// character required to be zero, so that every segment has exactly one
// accepted spelling.
var segmentEncoding = base64.RawURLEncoding.Strict()

// hmacMethods maps the accepted algorithms to golang-jwt's methods, which
// check the signature.
var hmacMethods = map[string]*jwt.SigningMethodHMAC{
	"HS256": jwt.SigningMethodHS256,
	"HS384": jwt.SigningMethodHS384,
	"HS512": jwt.SigningMethodHS512,
}

// refusedHeaders are header parameters that would add critical extensions
// (crit) or carry or point at a verification key (jku, jwk, x5u, x5c). The
// verifier uses none of them, and a token that relies on one is refused
// rather than silently verified differently from what its sender meant.
// kid, x5t and x5t#S256 only name a key; they are ignored.
var refusedHeaders = []string{"crit", "jku", "jwk", "x5u", "x5c"}

// parsedToken is a token that passed inspect, decoded once: Verify checks
// its signature and claims with golang-jwt from these parts rather than
// having the library parse the token a second time.
type parsedToken struct {
	header map[string]any
	claims map[string]any
	method jwt.SigningMethod
	// signed is the part of the token the signature covers:
	// header "." payload, as sent.
	signed    string
	signature []byte
}

// inspect does the structural checks that golang-jwt leaves out: length,
// alphabet, segment count, canonical base64url, JSON objects without
// duplicate keys, the header's alg and refused parameters, the types of
// the registered claims, and the length of the signature. It returns the
// decoded token.
func inspect(token string) (parsedToken, error) {
	var pt parsedToken
	if token == "" {
		return pt, malformed("empty token")
	}
	if len(token) > maxTokenSize {
		return pt, malformed("token longer than %d bytes", maxTokenSize)
	}
	for i := 0; i < len(token); i++ {
		if !isTokenByte(token[i]) {
			return pt, malformed("token contains a byte outside the base64url alphabet at offset %d", i)
		}
	}
	if n := strings.Count(token, "."); n != 2 {
		return pt, malformed("token has %d segments, want 3", n+1)
	}
	h, rest, _ := strings.Cut(token, ".")
	p, sig, _ := strings.Cut(rest, ".")

	header, err := decodeSegment(h, "header")
	if err != nil {
		return pt, err
	}
	alg, ok := header["alg"].(string)
	if !ok {
		return pt, malformed("header has no alg string")
	}
	method, ok := hmacMethods[alg]
	if !ok {
		return pt, errorf(ErrAlgorithm, "alg is not HS256, HS384 or HS512")
	}
	for _, name := range refusedHeaders {
		if _, ok := header[name]; ok {
			return pt, errorf(ErrAlgorithm, "header parameter %s is not supported", name)
		}
	}

	claims, err := decodeSegment(p, "payload")
	if err != nil {
		return pt, err
	}
	for _, name := range [...]string{"exp", "nbf", "iat"} {
		if v, ok := claims[name]; ok {
			if _, err := numericDate(v); err != nil {
				return pt, malformed("claim %s: %v", name, err)
			}
		}
	}
	if v, ok := claims["jti"]; ok {
		if _, ok := v.(string); !ok {
			return pt, malformed("claim jti is not a string")
		}
	}

	mac, err := segmentEncoding.DecodeString(sig)
	if err != nil || len(mac) != method.Hash.Size() {
		return pt, errorf(ErrInvalidSignature, "signature segment is not a canonical %s signature", alg)
	}
	if !floatsOnly(header) {
		// golang-jwt decodes the header with float64 numbers and refuses
		// one that does not fit; so does this package, which once had the
		// library parse every token.
		return pt, malformed("token refused by the JWT parser")
	}
	return parsedToken{
		header:    header,
		claims:    claims,
		method:    method,
		signed:    token[:len(h)+1+len(p)],
		signature: mac,
	}, nil
}

// floatsOnly reports whether every number in v, a decoded JSON value, fits
// a float64, as encoding/json requires when it decodes numbers as float64.
func floatsOnly(v any) bool {
	switch v := v.(type) {
	case json.Number:
		_, err := v.Float64()
		return err == nil
	case map[string]any:
		for _, e := range v {
			if !floatsOnly(e) {
				return false
			}
		}
	case []any:
		for _, e := range v {
			if !floatsOnly(e) {
				return false
			}
		}
	}
	return true
}

// isTokenByte reports whether c may appear in a compact JWT: the base64url
// alphabet and the segment separator. Everything else, whitespace and
// padding included, is refused.
func isTokenByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '-' || c == '_' || c == '.'
}

// decodeSegment decodes a header or payload segment into a JSON object,
// refusing non-canonical base64url and duplicate keys.
func decodeSegment(seg, what string) (map[string]any, error) {
	b, err := segmentEncoding.DecodeString(seg)
	if err != nil {
		return nil, malformed("%s is not canonical base64url", what)
	}
	m, err := strictjson.Decode(b)
	if err != nil {
		return nil, malformed("%s: %v", what, err)
	}
	return m, nil
}

// numericDate converts a registered time claim, decoded as json.Number,
// into a time. It refuses other JSON types, and values further from the
// epoch than maxNumericDate, which cannot be compared sensibly.
func numericDate(v any) (time.Time, error) {
	n, ok := v.(json.Number)
	if !ok {
		return time.Time{}, errors.New("not a number")
	}
	f, err := n.Float64()
	if err != nil || math.IsNaN(f) || math.Abs(f) > maxNumericDate {
		return time.Time{}, errors.New("number out of range")
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC(), nil
}
