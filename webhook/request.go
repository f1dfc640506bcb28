package webhook

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/acctadmin/acctadmin-go/webhook/internal/strictjson"
)

// tokenFields are the names of the JSON or form field that may carry the
// token in a request body, compared without regard to case.
var tokenFields = map[string]bool{"data": true, "token": true, "jwt": true, "payload": true}

// tokenFromRequest extracts the token from r without verifying it.
func (v *Verifier) tokenFromRequest(r *http.Request) (string, error) {
	if r.ContentLength > v.maxBody {
		return "", ErrBodyTooLarge
	}
	var body []byte
	if r.Body != nil {
		b, err := io.ReadAll(io.LimitReader(r.Body, v.maxBody+1))
		if err != nil {
			return "", malformed("reading the body: %v", err)
		}
		if int64(len(b)) > v.maxBody {
			return "", ErrBodyTooLarge
		}
		body = bytes.TrimSpace(b)
	}
	switch {
	case len(body) == 0:
		return bearerToken(r.Header)
	case body[0] == '{':
		return tokenFromJSON(body)
	case bytes.IndexByte(body, '=') >= 0:
		// A compact JWT never contains '=', so this is a form.
		return tokenFromForm(body)
	default:
		return string(body), nil
	}
}

// tokenFromJSON returns the token field of a JSON object body.
func tokenFromJSON(body []byte) (string, error) {
	m, err := strictjson.Decode(body)
	if err != nil {
		return "", malformed("body: %v", err)
	}
	token, n := "", 0
	for k, val := range m {
		if !tokenFields[strings.ToLower(k)] {
			continue
		}
		s, ok := val.(string)
		if !ok {
			return "", malformed("body field %s is not a string", strings.ToLower(k))
		}
		token, n = s, n+1
	}
	return oneToken(token, n)
}

// tokenFromForm returns the token field of a URL-encoded form body.
func tokenFromForm(body []byte) (string, error) {
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return "", malformed("body is not a URL-encoded form")
	}
	token, n := "", 0
	for k, vals := range form {
		if !tokenFields[strings.ToLower(k)] {
			continue
		}
		token, n = vals[0], n+len(vals)
	}
	return oneToken(token, n)
}

// oneToken returns token when exactly one token field was found.
func oneToken(token string, n int) (string, error) {
	switch n {
	case 0:
		return "", malformed("body has no data, token, jwt or payload field")
	case 1:
		return token, nil
	default:
		return "", malformed("body has more than one data, token, jwt or payload field")
	}
}

// bearerToken returns the token of an "Authorization: Bearer" header.
func bearerToken(h http.Header) (string, error) {
	vals := h.Values("Authorization")
	switch len(vals) {
	case 0:
		return "", malformed("no token in the request")
	case 1:
	default:
		return "", malformed("more than one Authorization header")
	}
	scheme, token, _ := strings.Cut(strings.TrimSpace(vals[0]), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", malformed("authorization header is not a bearer token")
	}
	return strings.TrimSpace(token), nil
}
