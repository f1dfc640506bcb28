package webhook_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/acctadmin/acctadmin-go/webhook"
)

// A Verifier, or a struct that holds one, prints, logs and marshals
// without its secrets or its access key, under every verb.
func TestVerifierPrintsNoKey(t *testing.T) {
	v := newVerifier(t, webhook.WithAccessKey(testAccessKey), webhook.WithSecrets(testOldSecret))
	type config struct {
		Name     string
		Verifier *webhook.Verifier
	}
	type private struct {
		name     string
		verifier *webhook.Verifier
		value    webhook.Verifier
	}
	values := []any{v, *v, config{"hooks", v}, private{"hooks", v, *v}, &private{"hooks", v, *v},
		[]*webhook.Verifier{v}, map[string]*webhook.Verifier{"hooks": v}}
	var needles []string
	for _, k := range []string{string(testSecret), string(testOldSecret), testAccessKey} {
		needles = append(needles, k, hex.EncodeToString([]byte(k)), strings.ToUpper(hex.EncodeToString([]byte(k))),
			strings.Trim(fmt.Sprint([]byte(k)), "[]"))
	}
	for _, val := range values {
		var texts []string
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3v"} {
			texts = append(texts, verb+": "+fmt.Sprintf(verb, val))
		}
		var logs bytes.Buffer
		for _, h := range []slog.Handler{slog.NewTextHandler(&logs, nil), slog.NewJSONHandler(&logs, nil)} {
			slog.New(h).Info("config", "v", val)
		}
		texts = append(texts, fmt.Sprint(val), logs.String())
		if b, err := json.Marshal(val); err == nil {
			texts = append(texts, string(b))
		}
		for _, text := range texts {
			for _, n := range needles {
				if strings.Contains(text, n) {
					t.Errorf("%T shows a key (%d bytes of it): %.200s", val, len(n), text)
				}
			}
		}
	}
	const want = "webhook.Verifier([redacted])"
	for _, val := range []any{v, *v} {
		if got := fmt.Sprintf("%v", val); got != want {
			t.Errorf("%%v of %T = %.200q, want %q", val, got, want)
		}
	}
}
