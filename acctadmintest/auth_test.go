package acctadmintest_test

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

const emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

func TestAuthAcceptsGolangJWTToken(t *testing.T) {
	srv := newServer(t)
	r := doToken(t, srv, http.MethodGet, "/callbacks", nil, signJWT(t, srv.AccessKey, srv.SecretKey, "/callbacks", nil))
	requireOK(t, r, "true")
	require.JSONEq(t, `[]`, string(mustRaw(t, r)))
}

func TestAuthAcceptsHandRolledToken(t *testing.T) {
	srv := newServer(t)
	tok := handJWT(t,
		map[string]any{"alg": "HS256", "typ": "JWT", "access_key": srv.AccessKey},
		map[string]any{"path": "/websites", "content": emptyHash},
		srv.SecretKey)
	r := doToken(t, srv, http.MethodGet, "/websites?url=https://nowhere.example", nil, tok)
	// Authenticated: the answer is about the website, not the token.
	requireOK(t, r, "true")
	require.JSONEq(t, `{"website":null}`, string(mustRaw(t, r)))
}

func TestAuthAcceptsPOSTBodyHash(t *testing.T) {
	srv := newServer(t)
	body := []byte(`{"url":"http://127.0.0.1:1/hook"}`)
	tok := handJWT(t,
		map[string]any{"alg": "HS256", "access_key": srv.AccessKey},
		map[string]any{"path": "/callbacks", "content": sha256Hex(body)},
		srv.SecretKey)
	r := doToken(t, srv, http.MethodPost, "/callbacks", body, tok)
	requireOK(t, r, "true")
	require.Len(t, srv.Callbacks(), 1)
}

func TestAuthRejects(t *testing.T) {
	srv := newServer(t)
	header := func() map[string]any {
		return map[string]any{"alg": "HS256", "typ": "JWT", "access_key": srv.AccessKey}
	}
	claims := func() map[string]any { return map[string]any{"path": "/callbacks", "content": emptyHash} }
	with := func(m map[string]any, k string, v any) map[string]any {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	noneToken := func() string {
		tok := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims(claims()))
		tok.Header["access_key"] = srv.AccessKey
		s, err := tok.SignedString(jwt.UnsafeAllowNoneSignatureType)
		require.NoError(t, err)
		return s
	}

	// The header the tokens below start from: no typ, as a hand-rolled
	// client sends it.
	bare := func() map[string]any { return with(header(), "typ", nil) }
	// A header whose duplicate alg says none after HS256.
	good := handJWT(t, bare(), claims(), srv.SecretKey)
	parts := strings.Split(good, ".")
	dupAlg := b64url(`{"alg":"HS256","access_key":"`+srv.AccessKey+`","alg":"none"}`) + "." + parts[1] + "." + parts[2]

	cases := []struct {
		name, header, msg string
	}{
		{"no header", "", "missing Authorization"},
		{"not bearer", "Basic " + base64.StdEncoding.EncodeToString([]byte("a:b")), "Bearer"},
		{"empty bearer", "Bearer ", "Bearer"},
		{"garbage", "Bearer not.a.jwt", "not a JWT"},
		{"wrong secret", "Bearer " + handJWT(t, header(), claims(), "wrong"), "signature"},
		{"golang-jwt wrong secret", "Bearer " + signJWT(t, srv.AccessKey, "wrong", "/callbacks", nil), "signature"},
		{"wrong access key", "Bearer " + signJWT(t, "someone-else", srv.SecretKey, "/callbacks", nil), "access key"},
		{"no access key", "Bearer " + handJWT(t, with(header(), "access_key", nil), claims(), srv.SecretKey), "access_key"},
		{"wrong path claim", "Bearer " + signJWT(t, srv.AccessKey, srv.SecretKey, "/companies", nil), "path claim"},
		{"path claim with query", "Bearer " + handJWT(t, header(), with(claims(), "path", "/callbacks?x=1"), srv.SecretKey), "path claim"},
		{"path claim without slash", "Bearer " + handJWT(t, header(), with(claims(), "path", "callbacks"), srv.SecretKey), "path claim"},
		{"no path claim", "Bearer " + handJWT(t, header(), with(claims(), "path", nil), srv.SecretKey), "path"},
		{"wrong content hash", "Bearer " + handJWT(t, header(), with(claims(), "content", sha256Hex([]byte("{}"))), srv.SecretKey), "content claim"},
		{"uppercase content hash", "Bearer " + handJWT(t, header(), with(claims(), "content", strings.ToUpper(emptyHash)), srv.SecretKey), "content claim"},
		{"no content claim", "Bearer " + handJWT(t, header(), with(claims(), "content", nil), srv.SecretKey), "content"},
		{"extra claim", "Bearer " + handJWT(t, header(), with(claims(), "iat", 1700000000), srv.SecretKey), "unexpected claim"},
		{"alg none", "Bearer " + noneToken(), "HS256"},
		{"alg HS512", "Bearer " + handJWT(t, with(header(), "alg", "HS512"), claims(), srv.SecretKey), "HS256"},
		{"alg RS256", "Bearer " + handJWT(t, with(header(), "alg", "RS256"), claims(), srv.SecretKey), "HS256"},

		// Tokens meant to pass with another key or another reading.
		{"lowercase alg", "Bearer " + handJWT(t, with(bare(), "alg", "hs256"), claims(), srv.SecretKey), "unauthorized"},
		{"jku to own key", "Bearer " + handJWT(t, with(with(bare(), "jku", "http://127.0.0.1:1/jwks"), "kid", "1"), claims(), "attacker-secret"), "unauthorized"},
		{"access key as key", "Bearer " + handJWT(t, bare(), claims(), srv.AccessKey), "unauthorized"},
		{"empty secret", "Bearer " + handJWT(t, bare(), claims(), ""), "unauthorized"},
		{"access key number", "Bearer " + handJWT(t, with(bare(), "access_key", 12345), claims(), srv.SecretKey), "unauthorized"},
		{"four segments", "Bearer " + handJWT(t, bare(), claims(), srv.SecretKey) + ".x", "unauthorized"},
		{"no signature", "Bearer " + strings.TrimRight(handJWT(t, bare(), claims(), srv.SecretKey), "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"), "unauthorized"},
		{"path as array", "Bearer " + handJWT(t, bare(), with(claims(), "path", []string{"/callbacks"}), srv.SecretKey), "unauthorized"},
		{"duplicate alg ending in none", "Bearer " + dupAlg, "unauthorized"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, srv.URL+"/callbacks", nil)
			require.NoError(t, err)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			resp, err := srv.Client().Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			r := readResponse(t, resp)
			m := requireError(t, r, http.StatusUnauthorized, tc.msg)
			require.True(t, strings.HasPrefix(m["message"].(string), "unauthorized: "))
			require.Equal(t, `Bearer realm="acctadmin"`, r.Header.Get("WWW-Authenticate"))
			require.NotContains(t, string(r.Body), srv.SecretKey, "the answer shows the secret")
			if tok := strings.TrimSpace(strings.TrimPrefix(tc.header, "Bearer ")); tok != "" {
				require.NotContains(t, string(r.Body), tok, "the answer echoes the token")
			}
		})
	}
	require.Empty(t, srv.Writes())
	// The well-formed token still passes.
	requireOK(t, doToken(t, srv, http.MethodGet, "/callbacks", nil, good), "true")
}

// TestOversizedAuthorizationHeaderIs431: a 2 MiB Authorization header is
// refused by the server before the fake reads it.
func TestOversizedAuthorizationHeaderIs431(t *testing.T) {
	srv := newServer(t)
	status, _, _ := rawRequest(t, srv, http.MethodGet, "/callbacks", map[string]string{"Authorization": "Bearer " + strings.Repeat("a", 2<<20)}, "")
	require.Equal(t, http.StatusRequestHeaderFieldsTooLarge, status)
}

func TestAuthBodyMustMatchContent(t *testing.T) {
	srv := newServer(t)
	body := []byte(`{"url":"http://127.0.0.1:1/hook"}`)
	// Signed for another body.
	tok := signJWT(t, srv.AccessKey, srv.SecretKey, "/callbacks", []byte(`{"url":"http://127.0.0.1:2/hook"}`))
	requireError(t, doToken(t, srv, http.MethodPost, "/callbacks", body, tok), http.StatusUnauthorized, "content claim")
	// Signed as if it had no body.
	tok = signJWT(t, srv.AccessKey, srv.SecretKey, "/callbacks", nil)
	requireError(t, doToken(t, srv, http.MethodPost, "/callbacks", body, tok), http.StatusUnauthorized, "content claim")
	require.Empty(t, srv.Callbacks())
}

// The provider's JavaScript client sends {} with DELETE while signing the
// empty content; the API accepts that, and only that.
func TestAuthDeleteWithEmptyObjectBody(t *testing.T) {
	srv := newServer(t)
	cb1 := srv.AddCallback("http://127.0.0.1:1/one")
	cb2 := srv.AddCallback("http://127.0.0.1:1/two")

	path := "/callbacks/" + cb1.ID.String()
	r := doToken(t, srv, http.MethodDelete, path, []byte("{}"), signJWT(t, srv.AccessKey, srv.SecretKey, path, nil))
	requireOK(t, r, "true")
	require.JSONEq(t, `{"id":"`+cb1.ID.String()+`"}`, string(mustRaw(t, r)))

	// Another body with the empty hash is refused.
	path = "/callbacks/" + cb2.ID.String()
	r = doToken(t, srv, http.MethodDelete, path, []byte(`{"a":1}`), signJWT(t, srv.AccessKey, srv.SecretKey, path, nil))
	requireError(t, r, http.StatusUnauthorized, "content claim")
	// {} with the empty hash passes on every method, as the provider's
	// JavaScript clients send it: the POST is judged on its body.
	r = doToken(t, srv, http.MethodPost, "/callbacks", []byte("{}"), signJWT(t, srv.AccessKey, srv.SecretKey, "/callbacks", nil))
	requireFieldError(t, r, "url")
	require.Len(t, srv.Callbacks(), 1)
	// {} signed as {} works too.
	r = doToken(t, srv, http.MethodDelete, path, []byte("{}"), signJWT(t, srv.AccessKey, srv.SecretKey, path, []byte("{}")))
	requireOK(t, r, "true")
	require.Empty(t, srv.Callbacks())
}

// TestAuthComesBeforeRouting: unauthenticated, a path no route has is a
// 401, not a 404, as is a known one.
func TestAuthComesBeforeRouting(t *testing.T) {
	srv := newDemo(t)
	for _, target := range []string{"/no-such-thing", "/documents/bulk-download"} {
		t.Run(target, func(t *testing.T) {
			r := doToken(t, srv, http.MethodGet, target, nil, "")
			requireError(t, r, http.StatusUnauthorized, "missing Authorization")
		})
	}
}

func TestFixedKeys(t *testing.T) {
	srv := newServer(t, acctadmintest.WithKeys("ak-123", "sk-456"))
	require.Equal(t, "ak-123", srv.AccessKey)
	require.Equal(t, "sk-456", srv.SecretKey)
	r := doToken(t, srv, http.MethodGet, "/callbacks", nil, signJWT(t, "ak-123", "sk-456", "/callbacks", nil))
	requireOK(t, r, "true")

	other := newServer(t)
	require.NotEqual(t, srv.SecretKey, other.SecretKey)
	require.Len(t, other.SecretKey, 64)
	// A token for one server is refused by another.
	r = doToken(t, other, http.MethodGet, "/callbacks", nil, signJWT(t, "ak-123", "sk-456", "/callbacks", nil))
	requireError(t, r, http.StatusUnauthorized, "access key")
}

// TestSigningForms: the three forms clients of the real API sign in
// (A: bare path, hash of the body; B: bare path, hash of the raw query and
// the body; C: path with its query, hash of the body) are accepted by
// default; WithStrictSigning accepts its one form (B when none is given),
// and C with WithQueryInPathClaim; a claim that matches no form is
// refused in every mode, with a message that says what did not match.
func TestSigningForms(t *testing.T) {
	query := "company_id=" + acctadmintest.DemoID("company", 1).String() + "&start_date=2025-01-01&end_date=2026-01-01"
	target := "/compliance-events?" + query
	strict := []acctadmintest.Option{acctadmintest.WithStrictSigning()}
	strictC := []acctadmintest.Option{acctadmintest.WithStrictSigning(), acctadmintest.WithQueryInPathClaim()}
	strictA := []acctadmintest.Option{acctadmintest.WithStrictSigning(acctadmintest.SignBodyOnly)}
	strictB := []acctadmintest.Option{acctadmintest.WithStrictSigning(acctadmintest.SignQueryAndBody)}
	strictBC := []acctadmintest.Option{acctadmintest.WithStrictSigning(acctadmintest.SignQueryAndBody), acctadmintest.WithQueryInPathClaim()}
	formA := claimsFor("/compliance-events", nil)
	formB := map[string]any{"path": "/compliance-events", "content": sha256Hex([]byte(query))}
	formC := claimsFor(target, nil)
	for _, tc := range []struct {
		name   string
		opts   []acctadmintest.Option
		claims map[string]any
		status int
		msg    string
	}{
		{"A by default", nil, formA, http.StatusOK, ""},
		{"B by default", nil, formB, http.StatusOK, ""},
		{"C by default", nil, formC, http.StatusOK, ""},
		{"A strict", strict, formA, http.StatusUnauthorized, "content claim hashes the body alone"},
		{"B strict", strict, formB, http.StatusOK, ""},
		{"C strict", strict, formC, http.StatusUnauthorized, "path claim carries a query string"},
		{"A strict with C", strictC, formA, http.StatusUnauthorized, "content claim hashes the body alone"},
		{"B strict with C", strictC, formB, http.StatusOK, ""},
		{"C strict with C", strictC, formC, http.StatusOK, ""},
		{"A strict body", strictA, formA, http.StatusOK, ""},
		{"B strict body", strictA, formB, http.StatusUnauthorized, "content claim hashes the query and the body"},
		{"C strict body", strictA, formC, http.StatusUnauthorized, "path claim carries a query string"},
		{"A strict query", strictB, formA, http.StatusUnauthorized, "content claim hashes the body alone"},
		{"B strict query", strictB, formB, http.StatusOK, ""},
		{"C strict query", strictB, formC, http.StatusUnauthorized, "path claim carries a query string"},
		{"A strict query with C", strictBC, formA, http.StatusUnauthorized, "content claim hashes the body alone"},
		{"B strict query with C", strictBC, formB, http.StatusOK, ""},
		{"C strict query with C", strictBC, formC, http.StatusOK, ""},
		{"B strict query, hash of something else", strictB, map[string]any{"path": "/compliance-events", "content": sha256Hex([]byte(query + "x"))}, http.StatusUnauthorized, "does not match the SHA-256 of the raw query followed by the request body"},
		{"B with the query reordered", nil, map[string]any{"path": "/compliance-events", "content": sha256Hex([]byte("start_date=2025-01-01&" + query))}, http.StatusUnauthorized, "matches neither"},
		{"C with another query", nil, claimsFor("/compliance-events?start_date=2025-01-01&end_date=2026-01-01", nil), http.StatusUnauthorized, "query in the path claim does not match"},
		{"C on another path", nil, claimsFor("/documents?"+query, nil), http.StatusUnauthorized, `path claim "/documents?`},
		{"another path", nil, claimsFor("/documents", nil), http.StatusUnauthorized, `does not match the request path "/compliance-events"`},
		{"A strict body, body hash of something else", strictA, claimsFor("/compliance-events", []byte("{}x")), http.StatusUnauthorized, "does not match the SHA-256 of the request body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newDemo(t, tc.opts...)
			tok := handJWT(t, map[string]any{"alg": "HS256", "typ": "JWT", "access_key": srv.AccessKey}, tc.claims, srv.SecretKey)
			r := doToken(t, srv, http.MethodGet, target, nil, tok)
			require.Equal(t, tc.status, r.Status, "%s", r.Body)
			if tc.msg != "" {
				requireError(t, r, http.StatusUnauthorized, tc.msg)
			}
		})
	}
}

// Form B of a POST with a query hashes the query followed by the body;
// the SDK's form (the body alone) is accepted on the same request.
func TestSigningFormBWithABody(t *testing.T) {
	srv := newDemo(t)
	body := []byte(`{"url":"https://example.com/hook"}`)
	for _, content := range []string{sha256Hex(append([]byte("x=1"), body...)), sha256Hex(body)} {
		tok := handJWT(t, map[string]any{"alg": "HS256", "access_key": srv.AccessKey}, map[string]any{"path": "/callbacks", "content": content}, srv.SecretKey)
		r := doToken(t, srv, http.MethodPost, "/callbacks?x=1", body, tok)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	}
}

// emptyBodyToken signs path with the content of no body at all.
func emptyBodyToken(t *testing.T, srv *acctadmintest.Server, path string) string {
	return signJWT(t, srv.AccessKey, srv.SecretKey, path, nil)
}

func TestAuthAcceptsEmptyObjectSignedAsEmptyOnEveryMethod(t *testing.T) {
	srv := newDemo(t)
	svc := acctadmintest.DemoID("service", 3)
	cb := srv.AddCallback("http://127.0.0.1:1/hook")
	cases := []struct {
		method, target string
		status         int
		msg            string // for answers other than 200
	}{
		{http.MethodGet, "/callbacks", http.StatusOK, ""},
		{http.MethodGet, "/documents?status=unread", http.StatusOK, ""},
		{http.MethodPost, "/services/" + svc.String() + "/cancel-request", 0, ""},
		{http.MethodDelete, "/callbacks/" + cb.ID.String(), http.StatusOK, ""},
		// {} is no company list: the token passed, the body is judged.
		{http.MethodPatch, "/companies", http.StatusBadRequest, "companies"},
		{http.MethodPost, "/companies", http.StatusBadRequest, "companies"},
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			path, _, _ := strings.Cut(tc.target, "?")
			r := doToken(t, srv, tc.method, tc.target, []byte("{}"), emptyBodyToken(t, srv, path))
			require.NotEqual(t, http.StatusUnauthorized, r.Status, "body: %s", r.Body)
			switch tc.status {
			case 0:
				require.Contains(t, []int{http.StatusOK, http.StatusBadRequest}, r.Status, "body: %s", r.Body)
				require.NotContains(t, string(r.Body), "unauthorized")
			case http.StatusOK:
				require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
			default:
				requireError(t, r, tc.status, tc.msg)
			}
		})
	}
	require.Empty(t, srv.Callbacks(), "the DELETE was applied")
}

func TestAuthRejectsOtherBodiesSignedAsEmpty(t *testing.T) {
	srv := newServer(t)
	for _, body := range []string{`{"url":"http://127.0.0.1:1/hook"}`, `[]`, `{ }x`, `null`, ` `} {
		for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete} {
			r := doToken(t, srv, method, "/callbacks", []byte(body), emptyBodyToken(t, srv, "/callbacks"))
			requireError(t, r, http.StatusUnauthorized, "content claim does not match")
		}
	}
	// The body must match its own hash: {} signed as {} passes, {} signed
	// as another body does not.
	r := doToken(t, srv, http.MethodGet, "/callbacks", []byte("{}"), signJWT(t, srv.AccessKey, srv.SecretKey, "/callbacks", []byte("{}")))
	requireOK(t, r, "true")
	r = doToken(t, srv, http.MethodGet, "/callbacks", []byte("{}"), signJWT(t, srv.AccessKey, srv.SecretKey, "/callbacks", []byte(`{"a":1}`)))
	requireError(t, r, http.StatusUnauthorized, "content claim does not match")
	require.Empty(t, srv.Callbacks())
	require.Empty(t, srv.Writes())
}

// TestStrictSigningAcceptsExactlyItsForm: on a generated family of
// queries, spelled as clients of the real API spell them (+ or %20 for a
// space, an unencoded URL, repeated keys with or without [], comma-joined
// lists), and of bodies, the default fake accepts the body-only and the
// query-and-body forms, each hashed exactly as sent; WithStrictSigning of
// one form accepts that form and answers the other 401; with no query the
// two forms are the same bytes and both pass; a token hashing the query
// spelled another way is refused in every mode.
func TestStrictSigningAcceptsExactlyItsForm(t *testing.T) {
	servers := map[acctadmintest.SigningForm]*acctadmintest.Server{
		0:                              newServer(t),
		acctadmintest.SignBodyOnly:     newServer(t, acctadmintest.WithStrictSigning(acctadmintest.SignBodyOnly)),
		acctadmintest.SignQueryAndBody: newServer(t, acctadmintest.WithStrictSigning(acctadmintest.SignQueryAndBody)),
	}
	pieces := []string{"url=www.example-agent.com", "url=https://www.example-agent.com/", "url=https%3A%2F%2Fwww.example-agent.com%2F",
		"names=a+b", "names=a%20b", "names=a,b", "ids[]=1&ids[]=2", "ids=1&ids=2", "limit=10&offset=0", "status=unread"}
	rapid.Check(t, func(rt *rapid.T) {
		parts := rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 4).Draw(rt, "query")
		query := strings.Join(parts, "&")
		body := []byte(rapid.SampledFrom([]string{"", `{"a":1}`, `{"url":"www.example-agent.com"}`}).Draw(rt, "body"))
		typ := rapid.Bool().Draw(rt, "typ")
		target := "/callbacks"
		if query != "" {
			target += "?" + query
		}
		token := func(srv *acctadmintest.Server, content string) string {
			h := map[string]any{"alg": "HS256", "access_key": srv.AccessKey}
			if typ {
				h["typ"] = "JWT"
			}
			return handJWT(t, h, map[string]any{"path": "/callbacks", "content": content}, srv.SecretKey)
		}
		forms := map[acctadmintest.SigningForm]string{
			acctadmintest.SignBodyOnly:     sha256Hex(body),
			acctadmintest.SignQueryAndBody: sha256Hex(append([]byte(query), body...)),
		}
		for mode, srv := range servers {
			for form, content := range forms {
				r := doToken(t, srv, http.MethodGet, target, body, token(srv, content))
				accepted := mode == 0 || mode == form || query == ""
				if accepted {
					require.Equal(rt, http.StatusOK, r.Status, "mode %v form %v %s: %s", mode, form, target, r.Body)
				} else {
					require.Equal(rt, http.StatusUnauthorized, r.Status, "mode %v form %v %s: %s", mode, form, target, r.Body)
				}
			}
			if query != "" && strings.ContainsAny(query, "+%,") {
				// The same query, decoded and encoded again, is not what was sent.
				v, err := url.ParseQuery(query)
				require.NoError(rt, err)
				if other := v.Encode(); other != query {
					r := doToken(t, srv, http.MethodGet, target, body, token(srv, sha256Hex(append([]byte(other), body...))))
					require.Equal(rt, http.StatusUnauthorized, r.Status, "mode %v, query signed as %q: %s", mode, other, r.Body)
				}
			}
		}
	})
}
