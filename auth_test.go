package acctadmin

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// authEmptySHA256 is the hex SHA-256 of the empty string, the content claim of
// a request without a body, written out rather than computed.
const authEmptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

const authCallbackJSON = `{"id":"7d4a1f3e-8b2c-4e5f-9a6b-1c2d3e4f5a6b","created_at":"2024-05-01 10:00:00 -0600","url":"https://example.com/hook"}`

// authParseToken verifies an Authorization header with golang-jwt
// (HS256, the test secret) and returns the token.
func authParseToken(t *testing.T, authorization string) *jwt.Token {
	t.Helper()
	raw, found := strings.CutPrefix(authorization, "Bearer ")
	if !found {
		t.Fatalf("Authorization = %q, want a Bearer token", authorization)
	}
	tok, err := jwt.Parse(raw, func(*jwt.Token) (any, error) { return []byte(testSecretKey), nil },
		jwt.WithValidMethods([]string{"HS256"}))
	if err != nil || !tok.Valid {
		t.Fatalf("token does not verify: %v", err)
	}
	return tok
}

// authSignRequest runs the default signer over a request for rawURL.
func authSignRequest(t *testing.T, method, rawURL string, body []byte) string {
	t.Helper()
	a, err := NewSigner(testAccessKey, testSecretKey)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Authenticate(req, body); err != nil {
		t.Fatal(err)
	}
	return req.Header.Get("Authorization")
}

func TestSignTokenHeaderAndClaims(t *testing.T) {
	body := []byte(`{"url":"https://example.com/hook"}`)
	sum := sha256.Sum256(body)
	for _, tc := range []struct {
		name, method, url string
		body              []byte
		wantPath          string
		wantContent       string
	}{
		{"get", http.MethodGet, "https://api.example.com/callbacks", nil, "/callbacks", authEmptySHA256},
		{"get with query", http.MethodGet, "https://api.example.com/services?company=Acme&limit=5", nil, "/services", authSHA256("company=Acme&limit=5")},
		{"delete", http.MethodDelete, "https://api.example.com/callbacks/42", nil, "/callbacks/42", authEmptySHA256},
		{"post", http.MethodPost, "https://api.example.com/callbacks", body, "/callbacks", hex.EncodeToString(sum[:])},
		{"prefix", http.MethodGet, "https://api.example.com/api/callbacks?x=1", nil, "/api/callbacks", authSHA256("x=1")},
		{"query kept as sent", http.MethodGet, "https://api.example.com/websites?url=www.example.com%2F&jurisdictions[]=Utah", nil, "/websites", authSHA256("url=www.example.com%2F&jurisdictions[]=Utah")},
		{"query and body", http.MethodPost, "https://api.example.com/callbacks?x=1", body, "/callbacks", authSHA256("x=1" + string(body))},
		{"no path", http.MethodGet, "https://api.example.com", nil, "/", authEmptySHA256},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := authParseToken(t, authSignRequest(t, tc.method, tc.url, tc.body))
			wantHeader := map[string]any{"alg": "HS256", "typ": "JWT", "access_key": testAccessKey}
			if !reflect.DeepEqual(tok.Header, wantHeader) {
				t.Errorf("header = %v, want %v", tok.Header, wantHeader)
			}
			wantClaims := jwt.MapClaims{"path": tc.wantPath, "content": tc.wantContent}
			if !reflect.DeepEqual(tok.Claims, wantClaims) {
				t.Errorf("claims = %v, want exactly %v", tok.Claims, wantClaims)
			}
		})
	}
}

// TestSignMatchesGolangJWT compares the signer's token with one made by
// golang-jwt for the same claims and header: both verify with the same key
// and decode to the same header and claims.
func TestSignMatchesGolangJWT(t *testing.T) {
	body := []byte(`{"companies":[{"name":"Acme"}]}`)
	sum := sha256.Sum256(body)
	claims := jwt.MapClaims{"path": "/companies", "content": hex.EncodeToString(sum[:])}
	ref := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	ref.Header["access_key"] = testAccessKey
	refText, err := ref.SignedString([]byte(testSecretKey))
	if err != nil {
		t.Fatal(err)
	}

	ours := authParseToken(t, authSignRequest(t, http.MethodPost, "https://api.example.com/companies", body))
	theirs := authParseToken(t, "Bearer "+refText)
	if !reflect.DeepEqual(ours.Claims, theirs.Claims) {
		t.Errorf("claims = %v, golang-jwt made %v", ours.Claims, theirs.Claims)
	}
	if !reflect.DeepEqual(ours.Header, theirs.Header) {
		t.Errorf("header = %v, golang-jwt made %v", ours.Header, theirs.Header)
	}

	// A token signed with another key must not verify: the key is really
	// the secret key.
	raw := strings.TrimPrefix(authSignRequest(t, http.MethodPost, "https://api.example.com/companies", body), "Bearer ")
	_, err = jwt.Parse(raw, func(*jwt.Token) (any, error) { return []byte("another key"), nil })
	if !errors.Is(err, jwt.ErrTokenSignatureInvalid) {
		t.Errorf("verifying with another key: err = %v, want %v", err, jwt.ErrTokenSignatureInvalid)
	}
}

// TestSignIsGolangJWTsToken: the token is, byte for byte, the one
// golang-jwt's Token.SignedString makes for the same header and claims.
func TestSignIsGolangJWTsToken(t *testing.T) {
	type claims struct {
		Path    string `json:"path"`
		Content string `json:"content"`
		jwt.RegisteredClaims
	}
	for _, tc := range []struct{ url, path string }{
		{"https://api.example.com/companies", "/companies"},
		{"https://api.example.com/documents/a%22b?x=1", `/documents/a"b`},
	} {
		body := []byte(`{"companies":[{"name":"Acme"}]}`)
		u, _ := url.Parse(tc.url)
		sum := sha256.Sum256(append([]byte(u.RawQuery), body...))
		ref := &jwt.Token{Method: jwt.SigningMethodHS256,
			Header: map[string]any{"alg": "HS256", "typ": "JWT", "access_key": testAccessKey},
			Claims: claims{Path: tc.path, Content: hex.EncodeToString(sum[:])}}
		want, err := ref.SignedString([]byte(testSecretKey))
		if err != nil {
			t.Fatal(err)
		}
		if got := authSignRequest(t, http.MethodPost, tc.url, body); got != "Bearer "+want {
			t.Errorf("%s: token\n%s\nwant golang-jwt's\nBearer %s", tc.url, got, want)
		}
	}
}

func TestSignDeterministic(t *testing.T) {
	body := []byte(`{"url":"https://example.com/a"}`)
	a := authSignRequest(t, http.MethodPost, "https://api.example.com/callbacks", body)
	b := authSignRequest(t, http.MethodPost, "https://api.example.com/callbacks", body)
	if a != b {
		t.Errorf("the same request gave two tokens:\n%s\n%s", a, b)
	}
	c := authSignRequest(t, http.MethodPost, "https://api.example.com/callbacks", []byte(`{"url":"https://example.com/b"}`))
	if c == a {
		t.Error("another body gave the same token")
	}
}

// TestSignUnusualPath signs paths with characters that need escaping in
// JSON: the claims must stay valid JSON and carry the path as it is.
func TestSignUnusualPath(t *testing.T) {
	for _, path := range []string{
		`/documents/"quoted"`,
		`/résumé/日本語`,
		`/back\slash`,
		"/tab\there",
		"/ctl\x01\x1f",
		`/mixed"é\` + "\u2028",
		"/invalid\xffutf8",
	} {
		u := &url.URL{Scheme: "https", Host: "api.example.com", Path: path}
		auth := authSignRequest(t, http.MethodGet, u.String(), nil)
		tok := authParseToken(t, auth)
		want := path
		if !utf8.ValidString(path) {
			// encoding/json writes invalid UTF-8 as U+FFFD.
			want = strings.ToValidUTF8(path, "\uFFFD")
		}
		if got := tok.Claims.(jwt.MapClaims)["path"]; got != want {
			t.Errorf("path claim = %q, want %q", got, want)
		}
		// The claims segment on its own is valid JSON with exactly two keys.
		seg, err := base64.RawURLEncoding.DecodeString(strings.Split(strings.TrimPrefix(auth, "Bearer "), ".")[1])
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]string
		if err := json.Unmarshal(seg, &m); err != nil || len(m) != 2 {
			t.Errorf("claims %q: %v (%d keys)", seg, err, len(m))
		}
	}
}

func TestSignRefusesEmptyKeys(t *testing.T) {
	for _, keys := range [][2]string{
		{"", testSecretKey},
		{"  \t\n", testSecretKey},
		{testAccessKey, ""},
		{testAccessKey, " \r\n\t "},
	} {
		a, err := NewSigner(keys[0], keys[1])
		if err == nil || a != nil {
			t.Errorf("NewSigner(%q, %q) = %v, %v; want an error", keys[0], keys[1], a, err)
		}
		c, err := NewClient(keys[0], keys[1])
		if err == nil || c != nil {
			t.Errorf("NewClient(%q, %q) = %v, %v; want an error", keys[0], keys[1], c, err)
		}
		if err != nil && strings.Contains(err.Error(), testSecretKey) {
			t.Errorf("error %q repeats the secret key", err)
		}
	}
}

// TestAuthEndToEnd checks the tokens a server receives for GET, POST and
// DELETE against the exact bytes it received.
func TestAuthEndToEnd(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			ok("["+authCallbackJSON+"]")(w, r)
		case http.MethodPost:
			ok(authCallbackJSON)(w, r)
		default:
			ok("null")(w, r)
		}
	})
	c := newTestClient(t, srv)
	ctx := context.Background()
	if _, err := c.Callbacks.List(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Callbacks.Create(ctx, "https://example.com/hook?x=\"1\""); err != nil {
		t.Fatal(err)
	}
	if err := c.Callbacks.Delete(ctx, uuid.MustParse("7d4a1f3e-8b2c-4e5f-9a6b-1c2d3e4f5a6b")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Services.List(ctx, &ServiceListParams{Company: "Acme", Limit: 5}); err != nil {
		t.Fatal(err)
	}

	reqs := srv.requests()
	if len(reqs) != 4 {
		t.Fatalf("server got %d requests, want 4", len(reqs))
	}
	for i, r := range reqs {
		if !r.AuthOK {
			t.Errorf("request %d (%s %s): signature refused: %s", i, r.Method, r.Path, r.AuthErr)
		}
		claims := authParseToken(t, r.Header.Get("Authorization")).Claims.(jwt.MapClaims)
		want := authSHA256(r.RawQuery)
		if r.Method == http.MethodPost {
			want = authSHA256(r.RawQuery + r.Body)
			if r.Body == "" {
				t.Errorf("POST sent no body")
			}
		} else if r.Body != "" {
			t.Errorf("%s sent a body %q, want none", r.Method, r.Body)
		}
		if claims["content"] != want {
			t.Errorf("%s content claim = %v, want %s", r.Method, claims["content"], want)
		}
		if claims["path"] != r.Path {
			t.Errorf("%s path claim = %v, want %s", r.Method, claims["path"], r.Path)
		}
		if got := r.Header.Get("Content-Type"); got != "application/json" {
			t.Errorf("%s Content-Type = %q", r.Method, got)
		}
	}
	if reqs[3].RawQuery == "" || reqs[3].Path != "/services" {
		t.Errorf("services request = %s ? %s, want /services with a query", reqs[3].Path, reqs[3].RawQuery)
	}
}

// TestAuthPathPrefix uses a base URL with a path prefix: the path claim is
// the full request path.
func TestAuthPathPrefix(t *testing.T) {
	srv := newAPIServer(t, ok("[]"))
	c := newTestClient(t, srv, WithBaseURL(srv.URL+"/api/"))
	if _, err := c.Callbacks.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := srv.last(t)
	if r.Path != "/api/callbacks" || !r.AuthOK {
		t.Fatalf("request to %s, auth ok %v (%s)", r.Path, r.AuthOK, r.AuthErr)
	}
	claims := authParseToken(t, r.Header.Get("Authorization")).Claims.(jwt.MapClaims)
	if claims["path"] != "/api/callbacks" {
		t.Errorf("path claim = %v, want /api/callbacks", claims["path"])
	}
}

func TestAuthCustomAuthenticator(t *testing.T) {
	srv := newAPIServer(t, ok(authCallbackJSON))
	var gotBody atomic.Value
	auth := AuthenticatorFunc(func(req *http.Request, body []byte) error {
		gotBody.Store(string(body))
		req.Header.Set("X-Api-Key", "custom-"+req.URL.Path)
		return nil
	})
	c := newTestClient(t, srv, WithAuthenticator(auth))
	if _, err := c.Callbacks.Create(context.Background(), "https://example.com/hook"); err != nil {
		t.Fatal(err)
	}
	r := srv.last(t)
	if got := r.Header.Get("X-Api-Key"); got != "custom-/callbacks" {
		t.Errorf("X-Api-Key = %q, want custom-/callbacks", got)
	}
	if got, found := r.Header["Authorization"]; found {
		t.Errorf("Authorization = %q, want none with a custom authenticator", got)
	}
	if gotBody.Load() != r.Body {
		t.Errorf("authenticator saw body %q, server got %q", gotBody.Load(), r.Body)
	}

	if _, err := NewClient(testAccessKey, testSecretKey, WithAuthenticator(nil)); err == nil {
		t.Error("WithAuthenticator(nil) accepted")
	}
	// A custom authenticator needs no keys.
	if _, err := NewClient("", "", WithAuthenticator(auth)); err != nil {
		t.Errorf("NewClient without keys but with an authenticator: %v", err)
	}
}

// TestAuthErrorStopsTheCall: an authenticator that fails ends the call
// with its error, sends nothing, and is not retried (the failure is local
// and would fail again).
func TestAuthErrorStopsTheCall(t *testing.T) {
	srv := newAPIServer(t, ok("[]"))
	errNoToken := errors.New("token store locked")
	var calls atomic.Int32
	c := newTestClient(t, srv, WithAuthenticator(AuthenticatorFunc(func(*http.Request, []byte) error {
		calls.Add(1)
		return errNoToken
	})))
	for _, call := range []func() error{
		func() error { _, err := c.Callbacks.List(context.Background()); return err },
		func() error { _, err := c.Callbacks.Create(context.Background(), "https://example.com/x"); return err },
	} {
		calls.Store(0)
		err := call()
		if !errors.Is(err, errNoToken) {
			t.Fatalf("err = %v, want it to wrap the authenticator's error", err)
		}
		var te *TransportError
		if !errors.As(err, &te) {
			t.Errorf("err = %T, want a *TransportError", err)
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("authenticator called %d times, want 1 (no retry of a local failure)", n)
		}
	}
	if n := srv.count(); n != 0 {
		t.Errorf("server got %d requests, want none", n)
	}
}

// TestAuthEveryAttemptSigned: the signature is made per attempt, so every
// retry carries a valid one.
func TestAuthEveryAttemptSigned(t *testing.T) {
	var n atomic.Int32
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 2 {
			writeJSON(w, http.StatusServiceUnavailable, `{"success":false,"message":"busy"}`)
			return
		}
		ok("[]")(w, r)
	})
	c := newTestClient(t, srv)
	if _, err := c.Callbacks.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	reqs := srv.requests()
	if len(reqs) != 3 {
		t.Fatalf("server got %d requests, want 3", len(reqs))
	}
	for i, r := range reqs {
		if !r.AuthOK {
			t.Errorf("attempt %d: signature refused: %s", i+1, r.AuthErr)
		}
	}
}

// A path with characters JSON escapes is signed with them escaped: the
// path claim reads back as the path.
func TestSignedPathIsEscaped(t *testing.T) {
	for _, path := range []string{`/a\b`, `/a"b`, "/caf\u00e9", "/a\x01b", "/plain"} {
		req := &http.Request{URL: &url.URL{Path: path}, Header: http.Header{}}
		a, err := NewSigner(testAccessKey, testSecretKey)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Authenticate(req, nil); err != nil {
			t.Fatal(err)
		}
		if got := authParseToken(t, req.Header.Get("Authorization")).Claims.(jwt.MapClaims)["path"]; got != path {
			t.Errorf("path %q: claim reads back as %q", path, got)
		}
	}
}

// authSHA256 is the lowercase hex SHA-256 of s.
func authSHA256(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestSignQueryAsSentThenBody reads the token the SDK sends for listings
// with a query and for a write: the content claim is the SHA-256 of the
// raw query exactly as it went on the wire followed by the body, and with
// WithBodyOnlySigning the SHA-256 of the body alone.
func TestSignQueryAsSentThenBody(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			ok(authCallbackJSON)(w, r)
			return
		}
		ok("[]")(w, r)
	})
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		opts     []Option
		bodyOnly bool
	}{
		{"documented form", nil, false},
		{"body only", []Option{WithBodyOnlySigning()}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(srv.requests())
			c := newTestClient(t, srv, tc.opts...)
			if _, err := c.Services.List(ctx, &ServiceListParams{Company: "Acme & Sons", Limit: 5}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.ComplianceEvents.List(ctx, &ComplianceEventListParams{StartDate: Date{2026, 1, 1}, EndDate: Date{2026, 12, 31}, Jurisdictions: []string{"Utah", "New York"}}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Callbacks.Create(ctx, "https://example.com/hook"); err != nil {
				t.Fatal(err)
			}
			reqs := srv.requests()[before:]
			if len(reqs) != 3 {
				t.Fatalf("server got %d requests, want 3", len(reqs))
			}
			for _, r := range reqs {
				claims := authParseToken(t, r.Header.Get("Authorization")).Claims.(jwt.MapClaims)
				want := authSHA256(r.RawQuery + r.Body)
				if tc.bodyOnly {
					want = authSHA256(r.Body)
				}
				if claims["content"] != want {
					t.Errorf("%s %s?%s: content claim = %v, want %s", r.Method, r.Path, r.RawQuery, claims["content"], want)
				}
				if r.Method == http.MethodGet && r.RawQuery == "" {
					t.Errorf("%s %s went without a query: the case is not covered", r.Method, r.Path)
				}
				if r.AuthOK == tc.bodyOnly && r.RawQuery != "" {
					t.Errorf("%s %s: the documented form's check said %v (%s)", r.Method, r.Path, r.AuthOK, r.AuthErr)
				}
			}
		})
	}
}
