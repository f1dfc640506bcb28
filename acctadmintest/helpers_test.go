package acctadmintest_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fixedNow is the clock of most tests.
var fixedNow = time.Date(2025, time.March, 14, 15, 9, 26, 0, time.UTC)

func fixedClock() time.Time { return fixedNow }

// newServer starts a fake with a fixed clock and seed, closed at the end
// of the test.
func newServer(t testing.TB, opts ...acctadmintest.Option) *acctadmintest.Server {
	t.Helper()
	opts = append([]acctadmintest.Option{
		acctadmintest.WithClock(fixedClock), acctadmintest.WithSeed(1),
		// Every answer of every test is held against the contract.
		acctadmintest.WithContractChecks(func(err error) { t.Error(err) }),
	}, opts...)
	srv := acctadmintest.NewServer(opts...)
	t.Cleanup(srv.Close)
	return srv
}

// newDemo is newServer with the demo account.
func newDemo(t testing.TB, opts ...acctadmintest.Option) *acctadmintest.Server {
	return newServer(t, append(opts, acctadmintest.WithDemoData())...)
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// signJWT makes a request token the way the API wants it, with golang-jwt.
func signJWT(t testing.TB, accessKey, secret, path string, body []byte) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"path": path, "content": sha256Hex(body)})
	tok.Header["access_key"] = accessKey
	s, err := tok.SignedString([]byte(secret))
	require.NoError(t, err)
	return s
}

// claimsFor is the path and content claims of form A: the path as given
// and the hash of body.
func claimsFor(path string, body []byte) map[string]any {
	return map[string]any{"path": path, "content": sha256Hex(body)}
}

// handJWT makes a token without any JWT library: base64url segments and
// an HMAC, with whatever header and claims the test wants.
func handJWT(t testing.TB, header, claims map[string]any, secret string) string {
	t.Helper()
	h, err := json.Marshal(header)
	require.NoError(t, err)
	c, err := json.Marshal(claims)
	require.NoError(t, err)
	input := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(input))
	return input + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// response is an answer read whole.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic map.
func (r response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &m), "body: %s", r.Body)
	return m
}

// Result decodes the result of the envelope into v.
func (r response) Result(t testing.TB, v any) {
	t.Helper()
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &env), "body: %s", r.Body)
	require.NoError(t, json.Unmarshal(env.Result, v), "result: %s", env.Result)
}

// Items decodes an array result into generic maps.
func (r response) Items(t testing.TB) []map[string]any {
	t.Helper()
	var items []map[string]any
	r.Result(t, &items)
	return items
}

// do sends a request signed by hand to the fake. target is a path with an
// optional query; body is nil, a string, []byte or a value to marshal.
func do(t testing.TB, srv *acctadmintest.Server, method, target string, body any) response {
	t.Helper()
	var b []byte
	switch v := body.(type) {
	case nil:
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		var err error
		b, err = json.Marshal(v)
		require.NoError(t, err)
	}
	u, err := url.Parse(target)
	require.NoError(t, err)
	return doToken(t, srv, method, target, b, signJWT(t, srv.AccessKey, srv.SecretKey, u.Path, b))
}

// doToken sends a request with the given body and bearer token ("" sends
// no Authorization header).
func doToken(t testing.TB, srv *acctadmintest.Server, method, target string, body []byte, token string) response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+target, rd)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	return readResponse(t, resp)
}

// readResponse reads a whole answer.
func readResponse(t testing.TB, resp *http.Response) response {
	t.Helper()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return response{Status: resp.StatusCode, Header: resp.Header, Body: data}
}

// mustRaw returns the raw JSON of the result.
func mustRaw(t testing.TB, r response) json.RawMessage {
	t.Helper()
	var raw json.RawMessage
	r.Result(t, &raw)
	return raw
}

var (
	timestampRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{4}$`)
	isoRE       = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$`)
)

// requireOK checks a successful JSON answer and its envelope; success is
// the raw JSON of the success field, true or "true".
func requireOK(t testing.TB, r response, success string) {
	t.Helper()
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	require.True(t, strings.HasPrefix(string(r.Body), `{"success":`+success+`,"timestamp":"`), "body: %.200s", r.Body)
	m := r.JSON(t)
	require.Regexp(t, timestampRE, m["timestamp"])
	require.Contains(t, m, "result")
}

// requireError checks an error answer: its status, the error shape and a
// part of its message. It returns the decoded body.
func requireError(t testing.TB, r response, status int, msgPart string) map[string]any {
	t.Helper()
	require.Equal(t, status, r.Status, "body: %s", r.Body)
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	m := r.JSON(t)
	require.Equal(t, false, m["success"], "body: %s", r.Body)
	ts, _ := m["timestamp"].(string)
	require.True(t, timestampRE.MatchString(ts) || isoRE.MatchString(ts), "timestamp %q", ts)
	require.Contains(t, m["message"], msgPart)
	return m
}

// requireFieldError checks a 400 whose errors name field.
func requireFieldError(t testing.TB, r response, field string) {
	t.Helper()
	m := requireError(t, r, http.StatusBadRequest, "")
	errs, ok := m["errors"].([]any)
	require.True(t, ok, "no errors array: %s", r.Body)
	var fields []string
	for _, e := range errs {
		em := e.(map[string]any)
		require.NotEmpty(t, em["message"])
		fields = append(fields, em["field"].(string))
	}
	require.Contains(t, fields, field, "body: %s", r.Body)
}

func itoa(n int) string { return strconv.Itoa(n) }

// errorFields returns the fields a 400 names in its errors array.
func errorFields(t testing.TB, r response) []string {
	t.Helper()
	var env struct {
		Errors []struct {
			Field   string `json:"field"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &env), "body: %s", r.Body)
	var fields []string
	for _, e := range env.Errors {
		require.NotEmpty(t, e.Message, "body: %s", r.Body)
		fields = append(fields, e.Field)
	}
	return fields
}
