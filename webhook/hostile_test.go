package webhook_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/webhook"
)

// The cases below attack the verifier and its handler as a security
// reviewer would. Each one is counted in RELIABILITY.md.

// TestHostileAlgorithms tries headers meant to make the verifier pick
// another algorithm or another key: every one is refused before a key is
// used, with the error that names why.
func TestHostileAlgorithms(t *testing.T) {
	payload := mustJSON(invoiceClaims())
	pem := []byte("-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n")
	for _, tc := range []struct {
		name, header string
		key          []byte
		want         error
	}{
		{"alg HS256 with a NUL after it", `{"alg":"HS256\u0000"}`, testSecret, webhook.ErrAlgorithm},
		{"alg with a leading space", `{"alg":" HS256"}`, testSecret, webhook.ErrAlgorithm},
		{"alg HS-256", `{"alg":"HS-256"}`, testSecret, webhook.ErrAlgorithm},
		{"alg Hs256", `{"alg":"Hs256"}`, testSecret, webhook.ErrAlgorithm},
		{"alg with a Cyrillic S", `{"alg":"H\u0405256"}`, testSecret, webhook.ErrAlgorithm},
		{"alg HS1024", `{"alg":"HS1024"}`, testSecret, webhook.ErrAlgorithm},
		{"alg empty", `{"alg":""}`, testSecret, webhook.ErrAlgorithm},
		{"alg an array", `{"alg":["HS256"]}`, testSecret, webhook.ErrMalformed},
		{"alg an object", `{"alg":{"":"HS256"}}`, testSecret, webhook.ErrMalformed},
		{"alg null", `{"alg":null}`, testSecret, webhook.ErrMalformed},
		{"alg spelled with an escape twice", `{"alg":"none","\u0061lg":"HS256"}`, testSecret, webhook.ErrMalformed},
		{"RS256 signed with HMAC over a public key", `{"alg":"RS256"}`, pem, webhook.ErrAlgorithm},
		{"HS256 signed with a public key as the secret", `{"alg":"HS256"}`, pem, webhook.ErrInvalidSignature},
		{"HS256 signed with an empty key", `{"alg":"HS256"}`, []byte{}, webhook.ErrInvalidSignature},
		{"kid pointing at a file", `{"alg":"HS256","kid":"../../../../dev/null"}`, []byte{}, webhook.ErrInvalidSignature},
		{"embedded jwk", `{"alg":"HS256","jwk":{"kty":"oct","k":""}}`, []byte{}, webhook.ErrAlgorithm},
		{"empty crit", `{"alg":"HS256","crit":[]}`, testSecret, webhook.ErrAlgorithm},
		{"jku to a key set", `{"alg":"HS256","jku":"http://127.0.0.1/keys"}`, testSecret, webhook.ErrAlgorithm},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// HMAC with SHA-256 whatever the header claims: the attacker
			// signs as best he can.
			tok := rawToken(tc.header, payload, "HS256", tc.key)
			ev, err := newVerifier(t).Verify(tok)
			assert.Nil(t, ev)
			requireOnly(t, err, tc.want, tok)
		})
	}
}

// TestHostileReplays delivers one event in the ways an attacker or a
// confused sender would: re-signed, re-encoded, and many times at once.
// The function runs once; every redelivery is acknowledged.
func TestHostileReplays(t *testing.T) {
	var calls atomic.Int32
	v := newVerifier(t, webhook.WithReplayCache(webhook.NewMemoryReplayCache(100, time.Hour)), webhook.WithSecrets(testOldSecret))
	h := v.Handler(func(context.Context, *webhook.Event) error {
		calls.Add(1)
		return nil
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	client := srv.Client()
	t.Cleanup(client.CloseIdleConnections)
	post := func(body string) int {
		resp, err := client.Post(srv.URL, "application/jwt", strings.NewReader(body))
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}

	first := sign(t, invoiceClaims())
	// 64 deliveries of one token at once.
	var wg sync.WaitGroup
	codes := make([]int, 64)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Post(srv.URL, "application/jwt", strings.NewReader(first))
			if err != nil {
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			codes[i] = resp.StatusCode
		}()
	}
	wg.Wait()
	for i, c := range codes {
		assert.Equal(t, http.StatusOK, c, "delivery %d", i)
	}
	assert.Equal(t, int32(1), calls.Load(), "64 concurrent deliveries processed once")

	for name, tok := range map[string]string{
		"re-signed with HS512":           sign(t, invoiceClaims(), webhook.WithAlgorithm("HS512")),
		"re-signed with the old secret":  signWith(t, invoiceClaims(), testOldSecret),
		"claims spelled another way":     sign(t, map[string]any{"eventName": webhook.EventNewInvoice, "data": map[string]any{"invoiceId": strings.ToUpper(testInvoiceID.String()), "companyId": testCompanyID.String(), "companyName": "Acme Widgets LLC"}}),
		"braced UUIDs":                   sign(t, with(invoiceClaims(), "invoice_id", "{"+testInvoiceID.String()+"}")),
		"in a JSON body":                 `{"data":"` + first + `"}`,
		"in a form body":                 "token=" + first,
		"with extra unsigned JSON field": `{"data":"` + first + `","replay":true}`,
	} {
		assert.Equal(t, http.StatusOK, post(tok), name)
	}
	assert.Equal(t, int32(1), calls.Load(), "re-signed and re-encoded copies are the same event")

	// A new jti is a new event: only the API, holding the secret, can
	// mint one, and keying on jti is what lets it send two events with
	// equal ids.
	assert.Equal(t, http.StatusOK, post(sign(t, with(invoiceClaims(), "jti", "a"))))
	assert.Equal(t, http.StatusOK, post(sign(t, with(invoiceClaims(), "jti", "b"))))
	assert.Equal(t, http.StatusOK, post(sign(t, with(invoiceClaims(), "jti", "a"))))
	assert.Equal(t, int32(3), calls.Load())
}

// panicReader fails the test if a body is read at all.
type panicReader struct{ t *testing.T }

func (p panicReader) Read([]byte) (int, error) {
	p.t.Error("the body was read")
	return 0, io.EOF
}

// TestHostileSizes sends bodies and tokens beyond every cap.
func TestHostileSizes(t *testing.T) {
	var calls atomic.Int32
	v := newVerifier(t)
	h := v.Handler(func(context.Context, *webhook.Event) error {
		calls.Add(1)
		return nil
	})

	// An announced length past the cap is refused without reading.
	r := newRequest("")
	r.Body = io.NopCloser(panicReader{t})
	r.ContentLength = 1 << 62
	assert.Equal(t, http.StatusRequestEntityTooLarge, serve(h, r).Code)

	// A body of unannounced length one byte past the cap.
	r = newRequest(strings.Repeat("a", 1<<20+1))
	r.ContentLength = -1
	assert.Equal(t, http.StatusRequestEntityTooLarge, serve(h, r).Code)

	// A token past its own cap inside a body under the body cap.
	big := sign(t, with(invoiceClaims(), "pad", strings.Repeat("x", 64<<10)))
	assert.Equal(t, http.StatusBadRequest, serve(h, newRequest(`{"data":"`+big+`"}`)).Code)

	// Nesting far past the limit in the body and in the payload.
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	assert.Equal(t, http.StatusBadRequest, serve(h, newRequest(`{"data":"x","n":`+deep+`}`)).Code)
	tok := rawToken(`{"alg":"HS256"}`, `{"n":`+strings.Repeat("[", 20000)+strings.Repeat("]", 20000)+`}`, "HS256", testSecret)
	assert.Equal(t, http.StatusBadRequest, serve(h, newRequest(tok)).Code)

	assert.Zero(t, calls.Load())
}

// TestHostileJSON tries payloads that parsers disagree on or that stress
// them: each is refused, or accepted with valid strings only.
func TestHostileJSON(t *testing.T) {
	v := newVerifier(t)
	for _, tc := range []struct{ name, payload string }{
		{"jti twice, once escaped", `{"jti":"a","\u006ati":"b","event":"new-invoice"}`},
		{"event twice", `{"event":"new-invoice","event":"new-document"}`},
		{"exp past float64", `{"event":"new-invoice","exp":1e400}`},
		{"iat far before the epoch", `{"event":"new-invoice","iat":-1e300}`},
		{"exp as a string", `{"event":"new-invoice","exp":"9999999999"}`},
		{"exp NaN", `{"event":"new-invoice","exp":NaN}`},
		{"nbf Infinity", `{"event":"new-invoice","nbf":Infinity}`},
		{"number with a leading zero", `{"event":"new-invoice","n":012}`},
		{"hex number", `{"event":"new-invoice","n":0x10}`},
		{"single quotes", `{'event':'new-invoice'}`},
		{"comment", `{"event":"new-invoice"/* c */}`},
		{"trailing comma", `{"event":"new-invoice",}`},
		{"BOM before the object", "\ufeff{\"event\":\"new-invoice\"}"},
		{"two objects", `{"event":"new-invoice"}{"event":"new-document"}`},
		{"lone surrogate escape in a key twice", `{"\ud800":1,"\ud800":2}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := rawToken(`{"alg":"HS256"}`, tc.payload, "HS256", testSecret)
			ev, err := v.Verify(tok)
			assert.Nil(t, ev)
			requireOnly(t, err, webhook.ErrMalformed, tok)
		})
	}

	// Invalid UTF-8 inside strings and keys is accepted as encoding/json
	// reads it: every string handed out is valid UTF-8.
	tok := rawToken(`{"alg":"HS256"}`, "{\"event\":\"new-\xffinvoice\",\"company_name\":\"Ac\xc3me\",\"k\xfe\":\"v\xfd\",\"jti\":\"\xed\xa0\x80\"}", "HS256", testSecret)
	ev, err := v.Verify(tok)
	require.NoError(t, err)
	for _, s := range []string{ev.Name, ev.CompanyName, ev.ID} {
		assert.True(t, utf8.ValidString(s), "%q is not valid UTF-8", s)
	}
	assert.Equal(t, "new-\ufffdinvoice", ev.Name)
	for k, val := range ev.Claims {
		assert.True(t, utf8.ValidString(k), "claim name %q", k)
		if s, ok := val.(string); ok {
			assert.True(t, utf8.ValidString(s), "claim %q", s)
		}
	}
}

// TestHostileHeaders checks that headers cannot override or smuggle in
// what the body says.
func TestHostileHeaders(t *testing.T) {
	var got []*webhook.Event
	h := newVerifier(t).Handler(func(_ context.Context, ev *webhook.Event) error {
		got = append(got, ev)
		return nil
	})
	good := sign(t, invoiceClaims())
	forged := signWith(t, documentClaims(), []byte("attacker-secret"))

	// A forged body is not rescued by a good header, nor a good body
	// spoiled by a forged one.
	assert.Equal(t, http.StatusUnauthorized, serve(h, newRequest(forged, "Authorization", "Bearer "+good)).Code)
	assert.Equal(t, http.StatusOK, serve(h, newRequest(good, "Authorization", "Bearer "+forged)).Code)
	require.Len(t, got, 1)
	assert.Equal(t, testInvoiceID, got[0].InvoiceID)

	for name, r := range map[string]*http.Request{
		"two bearer headers, good first": newRequest("", "Authorization", "Bearer "+good, "Authorization", "Bearer "+forged),
		"two tokens in one header":       newRequest("", "Authorization", "Bearer "+good+" "+forged),
		"token after a comma":            newRequest("", "Authorization", "Bearer "+good+", Bearer "+forged),
		"Basic carrying a token":         newRequest("", "Authorization", "Basic "+good),
	} {
		code := serve(h, r).Code
		assert.True(t, code == http.StatusBadRequest || code == http.StatusUnauthorized, "%s: answered %d", name, code)
	}
	// The Content-Type header does not change how the body is read.
	assert.Equal(t, http.StatusOK, serve(h, newRequest(`{"data":"`+sign(t, documentClaims())+`"}`, "Content-Type", "application/x-www-form-urlencoded")).Code)
	assert.Len(t, got, 2)
}

// TestHostileSmuggling sends a request whose Content-Length and
// Transfer-Encoding disagree to a real server: it is refused before the
// handler runs.
func TestHostileSmuggling(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(newVerifier(t).Handler(func(context.Context, *webhook.Event) error {
		calls.Add(1)
		return nil
	}))
	t.Cleanup(srv.Close)
	tok := sign(t, invoiceClaims())
	for _, head := range []string{
		"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
		"Content-Length: 5\r\nContent-Length: 6\r\n",
		"Transfer-Encoding: identity, chunked\r\n",
	} {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		require.NoError(t, err)
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		body := strings.Repeat("x", 5)
		_, err = io.WriteString(conn, "POST / HTTP/1.1\r\nHost: r\r\n"+head+"\r\n"+body+"\r\n\r\n"+tok)
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		require.NoError(t, err)
		resp.Body.Close()
		conn.Close()
		assert.Contains(t, []int{http.StatusBadRequest, http.StatusNotImplemented}, resp.StatusCode, "%q", head)
	}
	assert.Zero(t, calls.Load())
}
