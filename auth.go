package acctadmin

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash"
	"net/http"
	"strings"
	"sync"
)

// Authenticator adds credentials to a request before it is sent. The
// client calls it for every attempt of every request, with the exact body
// bytes that attempt carries (nil for a request without a body). The
// default, made by NewClient, signs requests as the API requires; supply
// another with WithAuthenticator to use a different scheme.
//
// Authenticate must be safe for concurrent use and must not keep req.
type Authenticator interface {
	Authenticate(req *http.Request, body []byte) error
}

// AuthenticatorFunc adapts a function to the Authenticator interface.
type AuthenticatorFunc func(req *http.Request, body []byte) error

// Authenticate calls f(req, body).
func (f AuthenticatorFunc) Authenticate(req *http.Request, body []byte) error { return f(req, body) }

// NewSigner returns the Authenticator the API expects: an
// "Authorization: Bearer <JWT>" header whose token is signed HS256 with
// secretKey, carries accessKey in its header as the field access_key, and
// has exactly two claims: path (the request path, without the query
// string) and content (the lowercase hex SHA-256 of the body bytes; of the
// empty string for a request without a body).
//
// The key and the token header are prepared once here; signing a request
// costs two hashes and no JSON encoding.
func NewSigner(accessKey, secretKey string) (Authenticator, error) {
	if strings.TrimSpace(accessKey) == "" {
		return nil, errors.New("acctadmin: empty access key")
	}
	if strings.TrimSpace(secretKey) == "" {
		return nil, errors.New("acctadmin: empty secret key")
	}
	header, err := json.Marshal(struct {
		Alg       string `json:"alg"`
		Typ       string `json:"typ"`
		AccessKey string `json:"access_key"`
	}{"HS256", "JWT", accessKey})
	if err != nil {
		return nil, err
	}
	key := []byte(secretKey)
	s := &signer{header: base64.RawURLEncoding.EncodeToString(header)}
	s.macs.New = func() any { return hmac.New(sha256.New, key) }
	return s, nil
}

type signer struct {
	header string // base64url of the token header, ready to use
	macs   sync.Pool
}

// emptyContent is the content claim of a request without a body: the hex
// SHA-256 of the empty string.
const emptyContent = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

func (s *signer) Authenticate(req *http.Request, body []byte) error {
	req.Header["Authorization"] = []string{s.token(req.URL.Path, body, "Bearer ")}
	return nil
}

// token returns prefix followed by the signed JWT for path and body.
func (s *signer) token(path string, body []byte, prefix string) string {
	if path == "" {
		path = "/"
	}
	var content [64]byte
	if len(body) == 0 {
		copy(content[:], emptyContent)
	} else {
		sum := sha256.Sum256(body)
		hex.Encode(content[:], sum[:])
	}

	// The claims, {"path":…,"content":…}, written by hand: the path is
	// escaped as a JSON string, the content is plain hex.
	claims := make([]byte, 0, 96+len(path))
	claims = append(claims, `{"path":`...)
	claims = appendJSONString(claims, path)
	claims = append(claims, `,"content":"`...)
	claims = append(claims, content[:]...)
	claims = append(claims, `"}`...)

	enc := base64.RawURLEncoding
	n := len(prefix) + len(s.header) + 1 + enc.EncodedLen(len(claims)) + 1 + enc.EncodedLen(sha256.Size)
	buf := make([]byte, n)
	i := copy(buf, prefix)
	signStart := i
	i += copy(buf[i:], s.header)
	buf[i] = '.'
	i++
	enc.Encode(buf[i:], claims)
	i += enc.EncodedLen(len(claims))

	mac := s.macs.Get().(hash.Hash)
	mac.Reset()
	mac.Write(buf[signStart:i])
	var sum [sha256.Size]byte
	sig := mac.Sum(sum[:0])
	s.macs.Put(mac)

	buf[i] = '.'
	i++
	enc.Encode(buf[i:], sig)
	return string(buf)
}

// appendJSONString appends s as a JSON string literal.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			b, _ := json.Marshal(s)
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
