package main

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// runAsServerEnv makes the test binary run main instead of the tests, so
// that tests can start the server as a process of its own without
// building it.
const runAsServerEnv = "ACCTADMIN_FAKE_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runAsServerEnv) == "1" {
		main()
		return
	}
	goleak.VerifyTestMain(m)
}

// token signs a request the way a curl user would script it: base64url
// JSON segments and an HMAC-SHA256, no JWT library.
func token(accessKey, secret, path string, body []byte) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	sum := sha256.Sum256(body)
	input := enc(map[string]string{"alg": "HS256", "typ": "JWT", "access_key": accessKey}) + "." +
		enc(map[string]string{"path": path, "content": hex.EncodeToString(sum[:])})
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(input))
	return input + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// start runs the command in the background and returns its banner
// variables, a function that stops it and waits, and the rest of its
// output.
func start(t *testing.T, args ...string) (map[string]string, func() (string, error)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, args, pw)
		pw.Close()
		done <- err
	}()
	vars := map[string]string{}
	sc := bufio.NewScanner(pr)
	for len(vars) < 3 && sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			vars[k] = v
		}
	}
	require.Len(t, vars, 3, "banner")
	// The rest of the output is read as it comes, so that a line written
	// while requests are served never waits for stop.
	rest := make(chan string, 1)
	go func() {
		var b strings.Builder
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
		}
		rest <- b.String()
	}()
	stop := func() (string, error) {
		cancel()
		err := <-done
		return <-rest, err
	}
	return vars, stop
}

func get(t *testing.T, client *http.Client, base, accessKey, secret, target string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+target, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token(accessKey, secret, req.URL.Path, nil))
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, body
}

func TestServesSignedRequests(t *testing.T) {
	vars, stop := start(t, "-addr", "127.0.0.1:0", "-access-key", "ak-test", "-secret-key", "sk-test", "-seed")
	base := vars["ACCTADMIN_BASE_URL"]
	require.True(t, strings.HasPrefix(base, "http://127.0.0.1:"), base)
	require.Equal(t, "ak-test", vars["ACCTADMIN_ACCESS_KEY"])
	require.Equal(t, "sk-test", vars["ACCTADMIN_SECRET_KEY"])

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}

	status, body := get(t, client, base, "ak-test", "sk-test", "/websites?url=www.example-agent.com")
	require.Equal(t, http.StatusOK, status, "%s", body)
	var env struct {
		Success   bool   `json:"success"`
		Timestamp string `json:"timestamp"`
		Result    struct {
			Name string `json:"name"`
			URL  string `json:"url"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(body, &env))
	require.True(t, env.Success)
	require.Regexp(t, `^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{4}$`, env.Timestamp)
	require.Equal(t, "Example Agent Services", env.Result.Name)
	require.Equal(t, "www.example-agent.com", env.Result.URL)

	status, body = get(t, client, base, "ak-test", "sk-test", "/documents?limit=3")
	require.Equal(t, http.StatusOK, status)
	require.True(t, strings.HasPrefix(string(body), `{"success":"true",`), "%s", body)

	status, body = get(t, client, base, "ak-test", "wrong-secret", "/documents")
	require.Equal(t, http.StatusUnauthorized, status)
	require.Contains(t, string(body), `"success":false`)

	rest, err := stop()
	require.NoError(t, err)
	require.Contains(t, rest, "acctadmin-fake stopped")
	_, err = client.Get(base + "/documents")
	require.Error(t, err, "the server is gone")
}

func TestRandomKeysWithoutSeed(t *testing.T) {
	vars, stop := start(t, "-addr", "127.0.0.1:0")
	require.NotEmpty(t, vars["ACCTADMIN_ACCESS_KEY"])
	require.Len(t, vars["ACCTADMIN_SECRET_KEY"], 64)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	status, body := get(t, &http.Client{Transport: tr}, vars["ACCTADMIN_BASE_URL"], vars["ACCTADMIN_ACCESS_KEY"], vars["ACCTADMIN_SECRET_KEY"], "/companies")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, string(body), `"result":[]`, "no demo data without -seed")
	_, err := stop()
	require.NoError(t, err)
}

func TestBadArguments(t *testing.T) {
	var out strings.Builder
	err := run(context.Background(), []string{"-addr", "127.0.0.1:0", "extra"}, &out)
	require.ErrorContains(t, err, "unexpected arguments")
	err = run(context.Background(), []string{"-nope"}, &out)
	require.ErrorContains(t, err, "flag provided but not defined")
	err = run(context.Background(), []string{"-addr", "256.0.0.1:1"}, &out)
	require.Error(t, err)
	err = run(context.Background(), []string{"-addr", "127.0.0.1:0", "-log-limit", "-1"}, &out)
	require.ErrorContains(t, err, "-log-limit must not be negative")
	err = run(context.Background(), []string{"-addr", "127.0.0.1:0", "-idle-timeout", "0s"}, &out)
	require.ErrorContains(t, err, "must be positive")
	err = run(context.Background(), []string{"-addr", "127.0.0.1:0", "-rate-limit", "-1"}, &out)
	require.ErrorContains(t, err, "-rate-limit must not be negative")
	err = run(context.Background(), []string{"-addr", "127.0.0.1:0", "-strict-signing=path"}, &out)
	require.ErrorContains(t, err, `"path" for -strict-signing: must be query or body`)
}

func TestControlSurfaceOnByDefault(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		status int
	}{
		{nil, http.StatusCreated},
		{[]string{"-no-control"}, http.StatusUnauthorized},
	} {
		vars, stop := start(t, append([]string{"-addr", "127.0.0.1:0"}, tc.args...)...)
		tr := &http.Transport{}
		client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
		base := vars["ACCTADMIN_BASE_URL"]
		resp, err := client.Post(base+"/_fake/companies", "application/json", strings.NewReader(`{"name":"Shell LLC","home_state":"nv"}`))
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, tc.status, resp.StatusCode, "%v: %s", tc.args, body)
		status, list := get(t, client, base, vars["ACCTADMIN_ACCESS_KEY"], vars["ACCTADMIN_SECRET_KEY"], "/companies")
		require.Equal(t, http.StatusOK, status)
		if tc.status == http.StatusCreated {
			require.Contains(t, string(list), `"name":"Shell LLC","home_state":"Nevada"`)
		} else {
			require.Contains(t, string(list), `"result":[]`)
		}
		tr.CloseIdleConnections()
		_, err = stop()
		require.NoError(t, err)
	}
}

// -rate-limit N lets N requests a second through to the API and answers
// 429 with a Retry-After past them; the control surface is not counted.
func TestRateLimitFlag(t *testing.T) {
	vars, stop := start(t, "-addr", "127.0.0.1:0", "-rate-limit", "1")
	base, ak, sk := vars["ACCTADMIN_BASE_URL"], vars["ACCTADMIN_ACCESS_KEY"], vars["ACCTADMIN_SECRET_KEY"]
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	status, body := get(t, client, base, ak, sk, "/companies")
	require.Equal(t, http.StatusOK, status, "%s", body)
	resp, err := client.Get(base + "/_fake/requests")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	req, err := http.NewRequest(http.MethodGet, base+"/companies", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token(ak, sk, "/companies", nil))
	resp, err = client.Do(req)
	require.NoError(t, err)
	body, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "%s", body)
	require.Equal(t, "1", resp.Header.Get("Retry-After"))
	require.Contains(t, string(body), `"success":false`)
	_, err = stop()
	require.NoError(t, err)
}

// With -env the banner is lines a shell takes as they are: the three
// settings as export lines, which reach the server, and the rest as
// comments.
func TestEnvBanner(t *testing.T) {
	vars, stop := start(t, "-addr", "127.0.0.1:0", "-env", "-access-key", "ak-env", "-secret-key", "sk-env")
	require.Equal(t, "ak-env", vars["export ACCTADMIN_ACCESS_KEY"])
	require.Equal(t, "sk-env", vars["export ACCTADMIN_SECRET_KEY"])
	base := vars["export ACCTADMIN_BASE_URL"]
	require.True(t, strings.HasPrefix(base, "http://127.0.0.1:"), "banner: %v", vars)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	status, _ := get(t, &http.Client{Transport: tr}, base, "ak-env", "sk-env", "/companies")
	require.Equal(t, http.StatusOK, status)
	rest, err := stop()
	require.NoError(t, err)
	require.Equal(t, "# acctadmin-fake stopped\n", rest)
}

// Every line of the -env banner is an export line or a comment.
func TestEnvBannerLines(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"-addr", "127.0.0.1:0", "-env"}, pw)
		pw.Close()
		done <- err
	}()
	sc := bufio.NewScanner(pr)
	exports := 0
	for exports < 3 && sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "export ") {
			exports++
			require.Regexp(t, `^export ACCTADMIN_(BASE_URL|ACCESS_KEY|SECRET_KEY)=\S+$`, line)
			continue
		}
		require.True(t, strings.HasPrefix(line, "# "), "a line a shell would run: %q", line)
	}
	require.Equal(t, 3, exports)
	cancel()
	for sc.Scan() {
		require.True(t, strings.HasPrefix(sc.Text(), "# "), "a line a shell would run: %q", sc.Text())
	}
	require.NoError(t, <-done)
}
