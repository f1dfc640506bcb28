package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/internal/redisserver"
	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/acctadmin/acctadmin-go/webhook/redisreplay"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestMain checks that the program leaves no goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// noKeys clears the environment so that run uses the built-in fake.
func noKeys(t *testing.T) {
	t.Setenv(acctadmin.EnvAccessKey, "")
	t.Setenv(acctadmin.EnvSecretKey, "")
	t.Setenv(acctadmin.EnvBaseURL, "")
}

// syncBuffer is a bytes.Buffer that run's goroutines and the test may use
// at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until the log matches re and returns the submatches.
func waitFor(t *testing.T, log *syncBuffer, re string) []string {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := rx.FindStringSubmatch(log.String()); m != nil {
			return m
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the log never matched %s:\n%s", re, log.String())
	return nil
}

const uuidRE = `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`

func TestRoundTripOnTheFake(t *testing.T) {
	noKeys(t)
	var out bytes.Buffer
	if err := run(testContext(t), []string{"-addr", "127.0.0.1:0"}, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	log := out.String()
	for _, want := range []string{
		`msg="callback registered" url=http://127\.0\.0\.1:\d+/callbacks`,
		`msg="event verified" event=new-document document_id=` + uuidRE + ` company_id=` + uuidRE + ` company="Acme Widgets LLC"`,
		`msg="event verified" event=new-invoice invoice_id=` + uuidRE + ` company_id=` + uuidRE + ` company="Acme Widgets LLC"`,
		`msg="both events received and verified"`,
		`msg="callback removed"`,
	} {
		if !regexp.MustCompile(want).MatchString(log) {
			t.Errorf("log lacks %s:\n%s", want, log)
		}
	}
	if n := strings.Count(log, `msg="event verified"`); n != 2 {
		t.Errorf("%d events logged, want 2:\n%s", n, log)
	}
	if strings.Contains(log, "request refused") {
		t.Errorf("a request was refused:\n%s", log)
	}
}

func TestServeKeepsServingUntilInterrupted(t *testing.T) {
	noKeys(t)
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-serve"}, out) }()

	url := waitFor(t, out, `msg=listening url=(\S+)`)[1]
	waitFor(t, out, `msg="serving until interrupted"`)
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("the server stopped serving: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET %s = %d, want 405", url, resp.StatusCode)
	}
	select {
	case err := <-done:
		t.Fatalf("run returned while it should serve: %v", err)
	default:
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
}

func TestServesWithTheSecretKey(t *testing.T) {
	const secret = "test-secret-key"
	t.Setenv(acctadmin.EnvAccessKey, "")
	t.Setenv(acctadmin.EnvSecretKey, secret)
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-addr", "127.0.0.1:0"}, out) }()
	url := waitFor(t, out, `msg=listening url=(\S+)`)[1]

	invoice := uuid.New()
	if code := post(t, url, sign(t, secret, invoice)); code != http.StatusOK {
		t.Fatalf("a signed event was answered %d", code)
	}
	waitFor(t, out, `msg="event verified" event=new-invoice invoice_id=`+invoice.String())
	if code := post(t, url, sign(t, "another-key", uuid.New())); code != http.StatusUnauthorized {
		t.Fatalf("a forged event was answered %d", code)
	}
	waitFor(t, out, `level=WARN msg="request refused" method=POST status=401`)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
}

func TestRegistersTheCallbackWhileServing(t *testing.T) {
	api := acctadmintest.NewServer()
	t.Cleanup(api.Close)
	t.Setenv(acctadmin.EnvAccessKey, api.AccessKey)
	t.Setenv(acctadmin.EnvSecretKey, api.SecretKey)
	t.Setenv(acctadmin.EnvBaseURL, api.URL)
	const public = "https://receiver.example.com/callbacks"
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-register", public}, out) }()

	waitFor(t, out, `msg="serving until interrupted"`)
	if cbs := api.Callbacks(); len(cbs) != 1 || cbs[0].URL != public {
		t.Fatalf("callbacks while serving: %+v", cbs)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if cbs := api.Callbacks(); len(cbs) != 0 {
		t.Errorf("callbacks left after stopping: %+v", cbs)
	}
}

// sign makes a new-invoice event as the API would send it.
func sign(t *testing.T, secret string, invoice uuid.UUID) string {
	t.Helper()
	token, err := webhook.Sign(map[string]any{
		"event":        webhook.EventNewInvoice,
		"invoice_id":   invoice.String(),
		"company_id":   "9a7e5c3b-2d1f-4e0a-b8c6-d4e2f0a1b303",
		"company_name": "Acme Widgets LLC",
	}, []byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// post delivers token to url as the API does, as {"data": token}.
func post(t *testing.T, url, token string) int {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"data": token})
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// The handler can be tested on its own with webhook.Sign and httptest: no
// network, no API.
func TestHandlerPassesOnlyVerifiedEvents(t *testing.T) {
	const secret = "test-secret-key"
	var logged bytes.Buffer
	var got []*webhook.Event
	h, err := newHandler([]byte(secret), "", webhook.NewMemoryReplayCache(0, 0), slog.New(slog.NewTextHandler(&logged, nil)), func(ev *webhook.Event) {
		got = append(got, ev)
	})
	if err != nil {
		t.Fatal(err)
	}
	deliver := func(method, token string) int {
		body, _ := json.Marshal(map[string]string{"data": token})
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(method, callbackPath, bytes.NewReader(body)))
		return w.Code
	}

	invoice := uuid.New()
	good := sign(t, secret, invoice)
	for _, c := range []struct {
		name, method, token string
		want                int
	}{
		{"signed with the secret", http.MethodPost, good, http.StatusOK},
		{"delivered again: acknowledged, not passed on", http.MethodPost, good, http.StatusOK},
		{"signed with another key", http.MethodPost, sign(t, "another-key", uuid.New()), http.StatusUnauthorized},
		{"not a token", http.MethodPost, "not a token", http.StatusBadRequest},
		{"not a POST", http.MethodGet, good, http.StatusMethodNotAllowed},
	} {
		if code := deliver(c.method, c.token); code != c.want {
			t.Errorf("%s: answered %d, want %d", c.name, code, c.want)
		}
	}
	if len(got) != 1 || got[0].InvoiceID != invoice || got[0].CompanyName != "Acme Widgets LLC" {
		t.Fatalf("events passed on: %+v", got)
	}
	if n := strings.Count(logged.String(), `msg="request refused"`); n != 3 {
		t.Errorf("%d refusals logged, want 3:\n%s", n, logged.String())
	}
}

func TestBadArguments(t *testing.T) {
	noKeys(t)
	for _, args := range [][]string{{"-nope"}, {"extra"}, {"-register", "https://example.com/cb"}} {
		if err := run(testContext(t), args, &bytes.Buffer{}); err == nil {
			t.Errorf("run(%q) = nil, want an error", args)
		}
	}
	t.Setenv(acctadmin.EnvAccessKey, "some-access-key")
	if err := run(testContext(t), []string{"-addr", "127.0.0.1:0"}, &bytes.Buffer{}); err == nil {
		t.Error("run with an access key and no secret key = nil, want an error")
	}
}

// TestServerTimeouts checks that the server bounds every phase of a
// connection, and that the logging wrapper lets the webhook handler set
// the connection's read deadline: a body trickled one byte at a time is
// cut off by the handler's own bound, not left to the server's.
func TestServerTimeouts(t *testing.T) {
	srv, err := listen(slog.New(slog.NewTextHandler(io.Discard, nil)), "127.0.0.1:0", http.NotFoundHandler())
	require.NoError(t, err)
	defer srv.stop(slog.New(slog.NewTextHandler(io.Discard, nil)))
	assert.Equal(t, readHeaderTimeout, srv.ReadHeaderTimeout)
	assert.Equal(t, readTimeout, srv.ReadTimeout)
	assert.Equal(t, writeTimeout, srv.WriteTimeout)
	assert.Equal(t, idleTimeout, srv.IdleTimeout)
	for _, d := range []time.Duration{srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout} {
		assert.Positive(t, d)
	}
	assert.Less(t, srv.ReadHeaderTimeout, srv.ReadTimeout)

	// The recorder passes deadlines through to the connection.
	var deadlineErr error
	var wg sync.WaitGroup
	wg.Add(1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer wg.Done()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		deadlineErr = http.NewResponseController(rec).SetReadDeadline(time.Now().Add(time.Minute))
	}))
	defer ts.Close()
	resp, err := ts.Client().Get(ts.URL)
	require.NoError(t, err)
	resp.Body.Close()
	wg.Wait()
	assert.NoError(t, deadlineErr, "SetReadDeadline through the recorder")
}

// TestReceiversShareRedis runs two receivers with -redis on one real
// Redis: an event delivered to both is processed by one of them only, and
// its key is in Redis.
func TestReceiversShareRedis(t *testing.T) {
	srv := redisserver.Start(t)
	const secret = "test-secret-key"
	t.Setenv(acctadmin.EnvAccessKey, "")
	t.Setenv(acctadmin.EnvSecretKey, secret)
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	var outs []*syncBuffer
	var urls []string
	done := make(chan error, 2)
	for range 2 {
		out := &syncBuffer{}
		go func() {
			done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-redis", "redis://" + srv.Addr + "/3"}, out)
		}()
		urls = append(urls, waitFor(t, out, `msg=listening url=(\S+)`)[1])
		waitFor(t, out, `msg="remembering accepted events in Redis" addr=`+regexp.QuoteMeta(srv.Addr)+` db=3`)
		outs = append(outs, out)
	}

	invoice := uuid.New()
	token := sign(t, secret, invoice)
	for _, url := range urls {
		if code := post(t, url, token); code != http.StatusOK {
			t.Fatalf("the event was answered %d", code)
		}
	}
	verified := 0
	for _, out := range outs {
		verified += strings.Count(out.String(), invoice.String())
	}
	assert.Equal(t, 1, verified, "the event was processed by exactly one receiver")

	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, DB: 3})
	defer rdb.Close()
	keys, err := rdb.Keys(ctx, redisreplay.DefaultPrefix+"*").Result()
	require.NoError(t, err)
	assert.Len(t, keys, 1, "the event is recorded in Redis")

	cancel()
	for range 2 {
		require.NoError(t, <-done)
	}
}

// TestRedisMustAnswer checks that a receiver does not start without the
// Redis it was given, and does not repeat a password from the URL.
func TestRedisMustAnswer(t *testing.T) {
	noKeys(t)
	port := freeLoopbackPort(t)
	var out bytes.Buffer
	err := run(testContext(t), []string{"-redis", "redis://:hunter2@127.0.0.1:" + port + "/0"}, &out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not answer")
	assert.NotContains(t, err.Error()+out.String(), "hunter2")

	err = run(testContext(t), []string{"-redis", "http://:hunter2@x"}, &out)
	require.EqualError(t, err, "-redis: not a redis:// URL")
}

// freeLoopbackPort returns a port nothing listens on.
func freeLoopbackPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	return port
}
