package main

import (
	"strings"
	"testing"
)

// TestRedactBody: secret fields and card numbers are hidden at any depth,
// everything else keeps its value and its order.
func TestRedactBody(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"z":1,"a":"x"}`, `{"z":1,"a":"x"}`},
		{`{"number":"4111111111111111","cvc":987,"name":"A"}`, `{"number":"[redacted]","cvc":"[redacted]","name":"A"}`},
		{`{"user":{"Password":"p","tags":["a",null,true,2.50]}}`, `{"user":{"Password":"[redacted]","tags":["a",null,true,2.50]}}`},
		{`{"secret_key":{"k":["v"]},"ok":"4111-1111-1111-1111"}`, `{"secret_key":{"k":["[redacted]"]},"ok":"[redacted]"}`},
		{`["4111111111111112","12345"]`, `["4111111111111112","12345"]`},
		{`{"payment_token":"1c0b"}`, `{"payment_token":"1c0b"}`},
		{`not json 4111111111111111`, `"[body redacted: not JSON]"`},
	}
	for _, c := range cases {
		if got := string(redactBody([]byte(c.in))); got != c.want {
			t.Errorf("redactBody(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestRedactURL: a URL's password is hidden whether the URL parses or not;
// a URL without one is left alone.
func TestRedactURL(t *testing.T) {
	cases := []struct{ in, want string }{
		{"http://hook:SECRET@127.0.0.1:9/cb", "http://hook:xxxxx@127.0.0.1:9/cb"},
		{"http://hook:SE CRET@127.0.0.1:9/cb", "http://hook:xxxxx@127.0.0.1:9/cb"},
		{"hook:SECRET@host", "hook:xxxxx@host"},
		{"https://example.com:8443/hooks?x=1", "https://example.com:8443/hooks?x=1"},
		{"http://only-user@host/", "http://only-user@host/"},
	}
	for _, c := range cases {
		got := redactURL(c.in)
		if got != c.want || strings.Contains(got, "CRET") {
			t.Errorf("redactURL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
