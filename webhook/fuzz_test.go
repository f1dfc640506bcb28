package webhook_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/webhook"
)

// fuzzVerifier is the verifier both fuzz targets use: two secrets, an
// access key, the fixed test clock, and no replay cache, so that the
// answer for an input never depends on the inputs before it.
func fuzzVerifier(t testing.TB) *webhook.Verifier {
	return newVerifier(t, webhook.WithSecrets(testOldSecret), webhook.WithAccessKey(testAccessKey))
}

// fuzzSeeds returns valid and invalid tokens to start the fuzzers from;
// testdata/fuzz holds more.
func fuzzSeeds(t testing.TB) []string {
	valid := sign(t, invoiceClaims())
	claims := mustJSON(invoiceClaims())
	return []string{
		valid,
		sign(t, documentClaims(), webhook.WithAlgorithm("HS384"), webhook.WithSignAccessKey(testAccessKey)),
		signWith(t, map[string]any{"data": invoiceClaims()}, testOldSecret, webhook.WithAlgorithm("HS512")),
		sign(t, with(invoiceClaims(), "exp", testNow.Add(time.Hour).Unix(), "iat", testNow.Unix(), "jti", "j-1")),
		sign(t, with(invoiceClaims(), "exp", testNow.Add(-time.Hour).Unix())),
		enc(`{"alg":"none"}`) + "." + enc(claims) + ".",
		rawToken(`{"alg":"HS256"}`, `{"a":1,"a":2}`, "HS256", testSecret),
		rawToken(`{"alg":"HS256","crit":["x"]}`, claims, "HS256", testSecret),
		valid[:len(valid)-3],
		valid + "=",
		"",
		"..",
	}
}

func FuzzVerify(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	v := fuzzVerifier(f)
	f.Fuzz(func(t *testing.T, token string) {
		ev, err := v.Verify(token)
		if err != nil {
			checkRefusal(t, ev, err, token)
			return
		}
		if !independentlyValid(token, testSecret, testOldSecret) {
			t.Fatalf("accepted a token that does not verify independently: %q", token)
		}
		if ev == nil || ev.Claims == nil {
			t.Fatalf("accepted token gave event %+v", ev)
		}
		again, err := v.Verify(token)
		if err != nil || again.Name != ev.Name || again.InvoiceID != ev.InvoiceID ||
			again.DocumentID != ev.DocumentID || again.CompanyID != ev.CompanyID {
			t.Fatalf("second verification differs: %+v, %v", again, err)
		}
	})
}

func FuzzVerifyRequest(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add([]byte(`{"data":"`+s+`"}`), "")
		f.Add([]byte(s+"\n"), "")
		f.Add([]byte(nil), "Bearer "+s)
		f.Add([]byte("token="+s), "")
	}
	v := fuzzVerifier(f)
	f.Fuzz(func(t *testing.T, body []byte, authorization string) {
		r := httptest.NewRequest(http.MethodPost, "/callbacks", bytes.NewReader(body))
		if authorization != "" {
			r.Header.Set("Authorization", authorization)
		}
		ev, err := v.VerifyRequest(r)
		if err != nil {
			checkRefusal(t, ev, err, "")
			return
		}
		for _, c := range candidates(body, authorization) {
			if independentlyValid(c, testSecret, testOldSecret) {
				return
			}
		}
		t.Fatalf("accepted a request with no independently valid token: body %q, authorization %q", body, authorization)
	})
}

// checkRefusal asserts what every refusal shares: no event, exactly one of
// the package's sentinels, the package prefix, and no token text.
func checkRefusal(t *testing.T, ev *webhook.Event, err error, token string) {
	t.Helper()
	if ev != nil {
		t.Fatalf("refusal %v came with an event", err)
	}
	n := 0
	for _, s := range sentinels {
		if errors.Is(err, s) {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("error %q matches %d sentinels, want 1", err, n)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "webhook: ") {
		t.Fatalf("error %q lacks the package prefix", msg)
	}
	if len(token) >= 8 && strings.Contains(msg, token) {
		t.Fatalf("error %q quotes the token", msg)
	}
}

var tokenPattern = regexp.MustCompile(`[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*`)

// candidates returns every string in a request that could be the token it
// carried, found without the package under test: runs of token
// characters, string values of a JSON object body, and form values.
func candidates(body []byte, authorization string) []string {
	out := tokenPattern.FindAllString(string(body)+" "+authorization, -1)
	var obj map[string]any
	if json.Unmarshal(body, &obj) == nil {
		for _, v := range obj {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
	}
	if form, err := url.ParseQuery(strings.TrimSpace(string(body))); err == nil {
		for _, vals := range form {
			out = append(out, vals...)
		}
	}
	return out
}

// TestFuzzCorpus keeps the committed seed corpus honest: the seeds whose
// names say valid or carry a valid token must be accepted, the others
// refused, so that a change to the test secrets cannot quietly turn every
// seed into a refusal.
func TestFuzzCorpus(t *testing.T) {
	v := fuzzVerifier(t)
	accepted := map[string]bool{
		"FuzzVerify/valid_hs256":                 true,
		"FuzzVerify/valid_hs384_access_key":      true,
		"FuzzVerify/valid_hs512_rotated_nested":  true,
		"FuzzVerify/valid_time_claims":           true,
		"FuzzVerifyRequest/data_object":          true,
		"FuzzVerifyRequest/token_object_escaped": true,
		"FuzzVerifyRequest/raw_body":             true,
		"FuzzVerifyRequest/bearer_header":        true,
		"FuzzVerifyRequest/form":                 true,
	}
	files, err := filepath.Glob(filepath.Join("testdata", "fuzz", "*", "*"))
	require.NoError(t, err)
	require.Len(t, files, 20)
	for _, file := range files {
		name := filepath.ToSlash(strings.TrimPrefix(file, filepath.Join("testdata", "fuzz")+string(filepath.Separator)))
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(file)
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			require.Equal(t, "go test fuzz v1", lines[0])
			args := make([]string, len(lines)-1)
			for i, line := range lines[1:] {
				_, lit, ok := strings.Cut(line, "(")
				require.True(t, ok, line)
				args[i], err = strconv.Unquote(strings.TrimSuffix(lit, ")"))
				require.NoError(t, err, line)
			}
			var ev *webhook.Event
			if strings.HasPrefix(name, "FuzzVerify/") {
				require.Len(t, args, 1)
				ev, err = v.Verify(args[0])
			} else {
				require.Len(t, args, 2)
				r := httptest.NewRequest(http.MethodPost, "/callbacks", strings.NewReader(args[0]))
				if args[1] != "" {
					r.Header.Set("Authorization", args[1])
				}
				ev, err = v.VerifyRequest(r)
			}
			if accepted[name] {
				require.NoError(t, err)
				assert.Equal(t, testCompanyID, ev.CompanyID)
			} else {
				require.Error(t, err)
				assert.Nil(t, ev)
			}
		})
	}
}
