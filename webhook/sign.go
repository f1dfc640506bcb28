package webhook

import (
	"errors"
	"fmt"
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

// SignOption configures Sign: WithAlgorithm and WithSignAccessKey make
// one.
type SignOption interface{ applySign(*signConfig) error }

// signOptionFunc is a SignOption that is a function.
type signOptionFunc func(*signConfig) error

func (f signOptionFunc) applySign(c *signConfig) error { return f(c) }

type signConfig struct {
	method    jwt.SigningMethod
	accessKey string
}

// WithAlgorithm makes Sign use the HMAC algorithm alg: "HS256" (the
// default), "HS384" or "HS512".
func WithAlgorithm(alg string) SignOption {
	return signOptionFunc(func(c *signConfig) error {
		switch strings.ToUpper(alg) {
		case "HS256":
			c.method = jwt.SigningMethodHS256
		case "HS384":
			c.method = jwt.SigningMethodHS384
		case "HS512":
			c.method = jwt.SigningMethodHS512
		default:
			return fmt.Errorf("webhook: unsupported signing algorithm %q (want HS256, HS384 or HS512)", alg)
		}
		return nil
	})
}

// WithSignAccessKey puts the account's access key into the token header as
// the field access_key, as the API does with the tokens it signs.
func WithSignAccessKey(accessKey string) SignOption {
	return signOptionFunc(func(c *signConfig) error {
		c.accessKey = accessKey
		return nil
	})
}

// Sign makes a callback token the way the API does: the claims as the JWT
// payload, signed with HMAC (HS256 unless WithAlgorithm says otherwise)
// using secret. It adds no claims of its own (no exp, iat or jti), as the
// API adds none; nil claims make an empty payload object. It exists so that
// users can test their own callback handlers without the real API.
func Sign(claims map[string]any, secret []byte, opts ...SignOption) (string, error) {
	if blank(secret) {
		return "", errors.New("webhook: empty secret")
	}
	if claims == nil {
		claims = map[string]any{}
	}
	cfg := signConfig{method: jwt.SigningMethodHS256}
	for _, o := range opts {
		if err := o.applySign(&cfg); err != nil {
			return "", err
		}
	}
	t := jwt.NewWithClaims(cfg.method, jwt.MapClaims(claims))
	if cfg.accessKey != "" {
		t.Header["access_key"] = cfg.accessKey
	}
	s, err := t.SignedString(secret)
	if err != nil {
		return "", fmt.Errorf("webhook: sign: %w", err)
	}
	return s, nil
}
