package webhook

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func TestInspectRefusesHeaderNumbersBeyondFloat64(t *testing.T) {
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	token := enc(`{"alg":"HS256","x":[{"y":1e400}]}`) + "." + enc(`{"event":"new-invoice"}`) + "." + enc(strings.Repeat("s", 32))
	_, err := inspect(token)
	if !errors.Is(err, ErrMalformed) {
		t.Fatalf("inspect: %v, want ErrMalformed", err)
	}
	token = enc(`{"alg":"HS256","x":[{"y":1e300}]}`) + "." + enc(`{"event":"new-invoice","n":1e400}`) + "." + enc(strings.Repeat("s", 32))
	if _, err := inspect(token); err != nil {
		t.Fatalf("inspect: %v", err)
	}
}
