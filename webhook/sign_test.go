package webhook_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/webhook"
)

// decodeSegment decodes one segment of tok as JSON.
func decodeSegment(t *testing.T, tok string, i int) map[string]any {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[i])
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

func TestSign(t *testing.T) {
	cases := []struct {
		name   string
		opts   []webhook.SignOption
		header map[string]any
	}{
		{"default", nil, map[string]any{"alg": "HS256", "typ": "JWT"}},
		{"HS384", []webhook.SignOption{webhook.WithAlgorithm("HS384")}, map[string]any{"alg": "HS384", "typ": "JWT"}},
		{"hs512 in lower case", []webhook.SignOption{webhook.WithAlgorithm("hs512")}, map[string]any{"alg": "HS512", "typ": "JWT"}},
		{"access key", []webhook.SignOption{webhook.WithSignAccessKey(testAccessKey)}, map[string]any{"alg": "HS256", "typ": "JWT", "access_key": testAccessKey}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tok := sign(t, invoiceClaims(), tc.opts...)
			assert.Equal(t, tc.header, decodeSegment(t, tok, 0))
			assert.Equal(t, invoiceClaims(), decodeSegment(t, tok, 1), "Sign adds no claims")
			assert.True(t, independentlyValid(tok, testSecret))

			ev, err := newVerifier(t, webhook.WithAccessKey(testAccessKey)).Verify(tok)
			require.NoError(t, err)
			assert.Equal(t, testInvoiceID, ev.InvoiceID)
		})
	}
}

func TestSignNilClaims(t *testing.T) {
	tok := sign(t, nil)
	assert.Equal(t, map[string]any{}, decodeSegment(t, tok, 1))
	ev, err := newVerifier(t).Verify(tok)
	require.NoError(t, err)
	assert.Empty(t, ev.Name)
	assert.Empty(t, ev.Claims)
}

func TestSignRefuses(t *testing.T) {
	cases := []struct {
		name   string
		claims map[string]any
		secret []byte
		opts   []webhook.SignOption
		want   string
	}{
		{"empty secret", invoiceClaims(), nil, nil, "webhook: empty secret"},
		{"whitespace secret", invoiceClaims(), []byte(" \n"), nil, "webhook: empty secret"},
		{"RS256", invoiceClaims(), testSecret, []webhook.SignOption{webhook.WithAlgorithm("RS256")}, `webhook: unsupported signing algorithm "RS256" (want HS256, HS384 or HS512)`},
		{"none", invoiceClaims(), testSecret, []webhook.SignOption{webhook.WithAlgorithm("none")}, `webhook: unsupported signing algorithm "none" (want HS256, HS384 or HS512)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := webhook.Sign(tc.claims, tc.secret, tc.opts...)
			assert.Empty(t, tok)
			require.EqualError(t, err, tc.want)
		})
	}

	tok, err := webhook.Sign(map[string]any{"bad": func() {}}, testSecret)
	assert.Empty(t, tok)
	require.ErrorContains(t, err, "webhook: sign: ")
}
