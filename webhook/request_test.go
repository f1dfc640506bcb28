package webhook_test

import (
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/webhook"
)

func TestVerifyRequestCarriages(t *testing.T) {
	tok := sign(t, invoiceClaims())
	other := sign(t, documentClaims())
	cases := []struct {
		name string
		req  func() *http.Request
	}{
		{"data object", func() *http.Request { return newRequest(`{"data":"` + tok + `"}`) }},
		{"data object with other fields", func() *http.Request {
			return newRequest(`{"event":"new-document","data":"` + tok + `","sent_at":1}`)
		}},
		{"data object with surrounding whitespace", func() *http.Request { return newRequest("\n {\"data\": \"" + tok + "\"}\r\n") }},
		{"Data object", func() *http.Request { return newRequest(`{"Data":"` + tok + `"}`) }},
		{"token field", func() *http.Request { return newRequest(`{"token":"` + tok + `"}`) }},
		{"jwt field", func() *http.Request { return newRequest(`{"jwt":"` + tok + `"}`) }},
		{"payload field", func() *http.Request { return newRequest(`{"payload":"` + tok + `"}`) }},
		{"raw body", func() *http.Request { return newRequest(tok, "Content-Type", "text/plain") }},
		{"raw body with a trailing newline", func() *http.Request { return newRequest(tok + "\n") }},
		{"raw body with CR LF around it", func() *http.Request { return newRequest("\r\n" + tok + "\r\n") }},
		{"form data field", func() *http.Request {
			return newRequest("data="+tok, "Content-Type", "application/x-www-form-urlencoded")
		}},
		{"form token field with others", func() *http.Request { return newRequest("event=x&token=" + url.QueryEscape(tok)) }},
		{"bearer header", func() *http.Request { return newRequest("", "Authorization", "Bearer "+tok) }},
		{"bearer header in other case and spacing", func() *http.Request { return newRequest("  \n", "Authorization", "bearer   "+tok+" ") }},
		{"bearer header without a body", func() *http.Request {
			r := newRequest("", "Authorization", "Bearer "+tok)
			r.Body = nil
			return r
		}},
		{"body wins over the header", func() *http.Request {
			return newRequest(`{"data":"`+tok+`"}`, "Authorization", "Bearer "+other)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := newVerifier(t).VerifyRequest(tc.req())
			require.NoError(t, err)
			assert.Equal(t, webhook.EventNewInvoice, ev.Name)
			assert.Equal(t, testInvoiceID, ev.InvoiceID)
			assert.Equal(t, testCompanyID, ev.CompanyID)
			assert.Equal(t, "Acme Widgets LLC", ev.CompanyName)
		})
	}
}

// errReader fails every read.
type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestVerifyRequestRefuses(t *testing.T) {
	tok := sign(t, invoiceClaims())
	bad := rawToken(`{"alg":"HS256"}`, mustJSON(invoiceClaims()), "HS256", []byte("wrong"))
	small := []webhook.Option{webhook.WithMaxBodySize(1024)}
	cases := []struct {
		name string
		req  func() *http.Request
		opts []webhook.Option
		want error
	}{
		{"no body and no header", func() *http.Request { return newRequest("") }, nil, webhook.ErrMalformed},
		{"whitespace body and no header", func() *http.Request { return newRequest(" \r\n\t") }, nil, webhook.ErrMalformed},
		{"empty object", func() *http.Request { return newRequest(`{}`) }, nil, webhook.ErrMalformed},
		{"object without a token field", func() *http.Request { return newRequest(`{"event":"new-invoice"}`) }, nil, webhook.ErrMalformed},
		{"data not a string", func() *http.Request { return newRequest(`{"data":{"event":"new-invoice"}}`) }, nil, webhook.ErrMalformed},
		{"data null", func() *http.Request { return newRequest(`{"data":null}`) }, nil, webhook.ErrMalformed},
		{"two token fields", func() *http.Request { return newRequest(`{"data":"` + tok + `","token":"` + tok + `"}`) }, nil, webhook.ErrMalformed},
		{"data and Data", func() *http.Request { return newRequest(`{"data":"` + tok + `","Data":"` + tok + `"}`) }, nil, webhook.ErrMalformed},
		{"duplicate data keys", func() *http.Request { return newRequest(`{"data":"` + tok + `","data":"` + tok + `"}`) }, nil, webhook.ErrMalformed},
		{"bad JSON", func() *http.Request { return newRequest(`{"data":`) }, nil, webhook.ErrMalformed},
		{"JSON followed by more", func() *http.Request { return newRequest(`{"data":"` + tok + `"} {}`) }, nil, webhook.ErrMalformed},
		{"JSON array", func() *http.Request { return newRequest(`["` + tok + `"]`) }, nil, webhook.ErrMalformed},
		{"JSON string", func() *http.Request { return newRequest(`"` + tok + `"`) }, nil, webhook.ErrMalformed},
		{"form without a token field", func() *http.Request { return newRequest("event=new-invoice") }, nil, webhook.ErrMalformed},
		{"form with the field twice", func() *http.Request { return newRequest("data=" + tok + "&data=" + tok) }, nil, webhook.ErrMalformed},
		{"form with a bad escape", func() *http.Request { return newRequest("data=%zz") }, nil, webhook.ErrMalformed},
		{"padded raw token", func() *http.Request { return newRequest(tok + "=") }, nil, webhook.ErrMalformed},
		{"raw body with a space inside", func() *http.Request { return newRequest(tok[:10] + " " + tok[10:]) }, nil, webhook.ErrMalformed},
		{"raw body with two tokens", func() *http.Request { return newRequest(tok + "\n" + tok) }, nil, webhook.ErrMalformed},
		{"basic authorization", func() *http.Request { return newRequest("", "Authorization", "Basic dXNlcjpwYXNz") }, nil, webhook.ErrMalformed},
		{"bearer without a token", func() *http.Request { return newRequest("", "Authorization", "Bearer") }, nil, webhook.ErrMalformed},
		{"two authorization headers", func() *http.Request {
			return newRequest("", "Authorization", "Bearer "+tok, "Authorization", "Bearer "+tok)
		}, nil, webhook.ErrMalformed},
		{"body read fails", func() *http.Request {
			r := newRequest("")
			r.Body = io.NopCloser(errReader{})
			return r
		}, nil, webhook.ErrMalformed},
		{"bad signature in data", func() *http.Request { return newRequest(`{"data":"` + bad + `"}`) }, nil, webhook.ErrInvalidSignature},
		{"bad signature in the header", func() *http.Request { return newRequest("", "Authorization", "Bearer "+bad) }, nil, webhook.ErrInvalidSignature},
		{"body over the cap with Content-Length", func() *http.Request { return newRequest(strings.Repeat(" ", 1025)) }, small, webhook.ErrBodyTooLarge},
		{"body over the cap without Content-Length", func() *http.Request {
			r := newRequest("")
			r.Body = io.NopCloser(strings.NewReader(`{"data":"` + tok + `"}` + strings.Repeat(" ", 1024)))
			r.ContentLength = -1
			return r
		}, small, webhook.ErrBodyTooLarge},
		{"Content-Length over the cap", func() *http.Request {
			r := newRequest(tok)
			r.ContentLength = 1 << 30
			return r
		}, nil, webhook.ErrBodyTooLarge},
		{"10 MB body", func() *http.Request { return newRequest(`{"data":"` + strings.Repeat("A", 10<<20) + `"}`) }, nil, webhook.ErrBodyTooLarge},
		{"one byte under a cap of one", func() *http.Request { return newRequest("x") }, []webhook.Option{webhook.WithMaxBodySize(1)}, webhook.ErrMalformed},
		{"two bytes over a cap of one, length unannounced", func() *http.Request {
			r := newRequest("xy")
			r.ContentLength = -1
			return r
		}, []webhook.Option{webhook.WithMaxBodySize(1)}, webhook.ErrBodyTooLarge},
		{"two bytes over a cap of one, length announced", func() *http.Request { return newRequest("xy") }, []webhook.Option{webhook.WithMaxBodySize(1)}, webhook.ErrBodyTooLarge},
		{"token one byte over the cap is refused, not cut", func() *http.Request {
			r := newRequest(tok)
			r.ContentLength = -1
			return r
		}, []webhook.Option{webhook.WithMaxBodySize(int64(len(tok)) - 1)}, webhook.ErrBodyTooLarge},
		// A read deadline set by the server or the caller is ErrReadTimeout,
		// and no other sentinel.
		{"body read times out", func() *http.Request {
			r := newRequest("")
			r.Body = io.NopCloser(timeoutReader{})
			r.ContentLength = -1
			return r
		}, nil, webhook.ErrReadTimeout},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := newVerifier(t, tc.opts...).VerifyRequest(tc.req())
			assert.Nil(t, ev)
			requireOnly(t, err, tc.want, tok)
		})
	}
}

// TestVerifyRequestBodyAtTheCap checks that a body of exactly the maximum
// size is read in full and accepted, whether or not its length is
// announced, and that every positive WithMaxBodySize, up to
// math.MaxInt64, caps the body there and no lower.
func TestVerifyRequestBodyAtTheCap(t *testing.T) {
	tok := sign(t, invoiceClaims())
	padded := `{"data":"` + tok + `"}`
	padded += strings.Repeat(" ", 1024-len(padded))
	require.Len(t, padded, 1024)
	cases := []struct {
		name          string
		max           int64
		body          string
		contentLength int64
	}{
		{"1024 bytes under a cap of 1024, length unannounced", 1024, padded, -1},
		{"cap MaxInt64, length unannounced", math.MaxInt64, tok, -1},
		{"cap MaxInt64, length announced", math.MaxInt64, tok, int64(len(tok))},
		{"cap MaxInt64-1, length unannounced", math.MaxInt64 - 1, tok, -1},
		{"cap MaxInt64-1, length announced", math.MaxInt64 - 1, tok, int64(len(tok))},
		{"cap MaxInt32, length unannounced", math.MaxInt32, tok, -1},
		{"cap MaxInt32, length announced", math.MaxInt32, tok, int64(len(tok))},
		{"cap the token's length, length unannounced", int64(len(tok)), tok, -1},
		{"cap the token's length, length announced", int64(len(tok)), tok, int64(len(tok))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRequest("")
			r.Body = io.NopCloser(strings.NewReader(tc.body))
			r.ContentLength = tc.contentLength
			ev, err := newVerifier(t, webhook.WithMaxBodySize(tc.max)).VerifyRequest(r)
			require.NoError(t, err)
			assert.Equal(t, testInvoiceID, ev.InvoiceID)
		})
	}
}

// timeoutReader fails as a connection whose read deadline passed.
type timeoutReader struct{}

func (timeoutReader) Read([]byte) (int, error) {
	return 0, &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
}
