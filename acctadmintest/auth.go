package acctadmintest

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

// maxBody caps request bodies; larger ones are answered with 413.
const maxBody = 1 << 20

// emptySHA256 is the hex SHA-256 of the empty string: the content claim of
// a request without a body.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// authenticated reads the request body and checks the request's token
// before anything is routed: a request without a good token is a 401
// whatever its path.
func (f *Fake) authenticated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ex := exchangeOf(r)
		fail := func(e *apiError) {
			c := &call{f: f, w: w, r: r, route: ex.route, idx: ex.idx}
			c.writeError(e)
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err != nil {
			fail(&apiError{status: http.StatusBadRequest, msg: "request body could not be read"})
			return
		}
		if len(body) > maxBody {
			fail(&apiError{status: http.StatusRequestEntityTooLarge, msg: "request body is larger than 1 MiB"})
			return
		}
		ex.body = body
		f.logBody(ex.idx, body)
		if msg := f.authenticate(r, body); msg != "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="acctadmin"`)
			fail(&apiError{status: http.StatusUnauthorized, msg: "unauthorized: " + msg})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// authenticate checks the request token as the real API does, and returns
// why it is refused, or "" when it is good.
func (f *Fake) authenticate(r *http.Request, body []byte) string {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "missing Authorization header"
	}
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return "Authorization header is not a Bearer token"
	}
	token = strings.TrimSpace(token)
	hdrPart, _, _ := strings.Cut(token, ".")
	var hdr struct {
		Alg       string `json:"alg"`
		AccessKey any    `json:"access_key"`
	}
	raw, err := base64.RawURLEncoding.DecodeString(hdrPart)
	if err != nil || json.Unmarshal(raw, &hdr) != nil || strings.Count(token, ".") != 2 {
		return "token is not a JWT"
	}
	if hdr.Alg != jwt.SigningMethodHS256.Alg() {
		return fmt.Sprintf("token algorithm must be HS256, not %q", hdr.Alg)
	}
	ak, _ := hdr.AccessKey.(string)
	if ak == "" {
		return "token header has no access_key"
	}
	if subtle.ConstantTimeCompare([]byte(ak), []byte(f.AccessKey)) != 1 {
		return "unknown access key"
	}
	claims := jwt.MapClaims{}
	_, err = jwt.ParseWithClaims(token, claims, func(*jwt.Token) (any, error) {
		return []byte(f.SecretKey), nil
	}, jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}))
	switch {
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return "token signature is invalid"
	case err != nil:
		return "token is invalid: " + err.Error()
	}
	for k := range claims {
		if k != "path" && k != "content" {
			return fmt.Sprintf("unexpected claim %q (the claims are exactly path and content)", k)
		}
	}
	path, ok := claims["path"].(string)
	if !ok {
		return "token has no path claim"
	}
	content, ok := claims["content"].(string)
	if !ok {
		return "token has no content claim"
	}
	return f.checkForm(path, content, r, body)
}

// checkForm checks the path and content claims against the request, in
// the forms clients of the real API sign them (the package doc, "Signing
// forms"): A, the bare path and the hash of the body; B, the bare path and
// the hash of the raw query, exactly as received, followed by the body; C,
// the path with its query and the hash of the body. By default all three
// pass; WithStrictSigning accepts its one form (and C with
// WithQueryInPathClaim). For a request without a query, A and B are the
// same bytes.
func (f *Fake) checkForm(path, content string, r *http.Request, body []byte) string {
	bare := path == r.URL.EscapedPath() || path == r.URL.Path
	if !bare {
		if msg := f.checkPathClaim(path, r); msg != "" {
			return msg
		}
	}
	query := r.URL.RawQuery
	// The provider's JavaScript clients send {} with requests that have no
	// body while signing the empty content, on every method, and the API
	// accepts it.
	bodyOnly := content == hexSHA256(body) || (content == emptySHA256 && string(bytes.TrimSpace(body)) == "{}")
	queryAndBody := bare && query != "" && content == hexSHA256(append([]byte(query), body...))
	const notBody = "content claim does not match the SHA-256 of the request body"
	switch strict := f.cfg.strictSigning; {
	case strict == 0:
		if bodyOnly || queryAndBody {
			return ""
		}
		if query != "" && bare {
			return "content claim matches neither the SHA-256 of the request body nor that of the query followed by the body"
		}
		return notBody
	case !bare || query == "":
		// Form C (let through by checkPathClaim), or no query: the body alone.
		if bodyOnly {
			return ""
		}
		return notBody
	case strict == SignBodyOnly:
		if bodyOnly {
			return ""
		}
		if queryAndBody {
			return "content claim hashes the query and the body: sign the body alone (WithStrictSigning(SignBodyOnly) refuses the query-and-body form)"
		}
		return notBody
	default: // SignQueryAndBody
		if queryAndBody {
			return ""
		}
		if bodyOnly {
			return "content claim hashes the body alone: sign the raw query followed by the body (WithStrictSigning(SignQueryAndBody) refuses the body-only form)"
		}
		return "content claim does not match the SHA-256 of the raw query followed by the request body"
	}
}

// hexSHA256 is the lowercase hex SHA-256 of b.
func hexSHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// checkPathClaim checks a path claim that is not the bare path: the path
// and the query, as the C# and TypeScript clients sign them (form C), which
// WithStrictSigning refuses unless WithQueryInPathClaim is given too.
func (f *Fake) checkPathClaim(claim string, r *http.Request) string {
	p, q, hasQuery := strings.Cut(claim, "?")
	if !hasQuery || (p != r.URL.EscapedPath() && p != r.URL.Path) {
		return fmt.Sprintf("path claim %q does not match the request path %q", claim, r.URL.Path)
	}
	if f.cfg.strictSigning != 0 && !f.cfg.queryInPath {
		return "path claim carries a query string: sign the path without it (the query-in-path form is refused with WithStrictSigning)"
	}
	want, err1 := url.ParseQuery(r.URL.RawQuery)
	got, err2 := url.ParseQuery(q)
	if err1 != nil || err2 != nil || !reflect.DeepEqual(want, got) {
		return "the query in the path claim does not match the request's query"
	}
	return ""
}
