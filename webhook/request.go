package webhook

import (
	"bytes"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/acctadmin/acctadmin-go/webhook/internal/strictjson"
)

// tokenFields are the names of the JSON or form field that may carry the
// token in a request body, compared without regard to case.
var tokenFields = map[string]bool{"data": true, "token": true, "jwt": true, "payload": true}

// tokenFromRequest extracts the token from r, whose body is read from
// body, without verifying it.
func (v *Verifier) tokenFromRequest(r *http.Request, body io.Reader) (string, error) {
	if r.ContentLength > v.maxBody {
		return "", ErrBodyTooLarge
	}
	var b []byte
	if body != nil {
		// One byte past the cap tells a body at the cap from a longer
		// one; at math.MaxInt64 no body can be longer.
		limit := v.maxBody
		if limit < math.MaxInt64 {
			limit++
		}
		var err error
		b, err = io.ReadAll(io.LimitReader(body, limit))
		if err != nil {
			if isTimeout(err) {
				return "", ErrReadTimeout
			}
			return "", malformed("reading the body: %v", err)
		}
		if int64(len(b)) > v.maxBody {
			return "", ErrBodyTooLarge
		}
	}
	return tokenFromBody(r, bytes.TrimSpace(b))
}

// tokenFromBody finds the token in a body already read and trimmed, or in
// r's Authorization header when the body is empty.
func tokenFromBody(r *http.Request, body []byte) (string, error) {
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

// errReadTimeout is the error of a deadlineReader whose time is up.
var errReadTimeout = errors.New("webhook: read deadline passed")

// deadlineReader reads from r until deadline, checked before and after
// each read: a body that keeps arriving slowly is cut off at the deadline
// even where the connection itself has no read deadline.
type deadlineReader struct {
	r        io.Reader
	deadline time.Time
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	if !time.Now().Before(d.deadline) {
		return 0, errReadTimeout
	}
	n, err := d.r.Read(p)
	if err == nil && !time.Now().Before(d.deadline) {
		err = errReadTimeout
	}
	return n, err
}

// isTimeout reports whether err from reading a body means that a deadline
// passed: the connection's, or a deadlineReader's.
func isTimeout(err error) bool {
	if errors.Is(err, errReadTimeout) || errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
