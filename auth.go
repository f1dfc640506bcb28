package acctadmin

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/golang-jwt/jwt/v5"
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
// "Authorization: Bearer <JWT>" header, signed HS256 by golang-jwt with
// secretKey, with accessKey in its header as access_key and exactly two
// claims: path (the request path, without the query) and content (the
// lowercase hex SHA-256 of the raw query string as sent, without "?",
// followed by the body bytes). WithBodyOnlySigning hashes the body alone.
func NewSigner(accessKey, secretKey string) (Authenticator, error) {
	if strings.TrimSpace(accessKey) == "" {
		return nil, errors.New("acctadmin: empty access key")
	}
	if strings.TrimSpace(secretKey) == "" {
		return nil, errors.New("acctadmin: empty secret key")
	}
	// The header never changes: it is encoded once, as golang-jwt would
	// (strings always encode).
	header, _ := json.Marshal(map[string]string{"alg": jwt.SigningMethodHS256.Alg(), "typ": "JWT", "access_key": accessKey})
	return &signer{header: base64.RawURLEncoding.EncodeToString(header), secretKey: []byte(secretKey)}, nil
}

type signer struct {
	header    string // the token's first segment
	secretKey []byte
	bodyOnly  bool // WithBodyOnlySigning
}

type requestClaims struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func (s *signer) Authenticate(req *http.Request, body []byte) error {
	path := req.URL.Path
	if path == "" {
		path = "/"
	}
	content := body
	if q := req.URL.RawQuery; q != "" && !s.bodyOnly {
		content = append([]byte(q), body...)
	}
	sum := sha256.Sum256(content)
	// Neither can fail: the claims are strings, the key a []byte.
	claims, _ := json.Marshal(requestClaims{Path: path, Content: hex.EncodeToString(sum[:])})
	signing := s.header + "." + base64.RawURLEncoding.EncodeToString(claims)
	sig, _ := jwt.SigningMethodHS256.Sign(signing, s.secretKey)
	req.Header["Authorization"] = []string{"Bearer " + signing + "." + base64.RawURLEncoding.EncodeToString(sig)}
	return nil
}
