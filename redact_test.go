package acctadmin

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// A card number the call sent is redacted however it is grouped: 4-4-4-4
// with spaces, hyphens, dots, no-break spaces or dashes, the 4-6-5 of an
// American Express card, or any other split of its digits. Its digits
// inside other text are redacted as well; other numbers are left alone.
func TestRedactorCardNumberGroupings(t *testing.T) {
	var r redactor
	r.addSensitive("4111 1111 1111 1111")
	r.addSensitive("378282246310005")
	r.addSensitive("6011000990139424123") // 19 digits, the most a card has
	r.addSensitive("501971701010")        // 12 digits, the fewest
	r.addSensitive("50197170101")         // 11 digits: an exact echo only
	for _, sep := range groupSeparators {
		for _, in := range []string{
			"4111" + sep + "1111" + sep + "1111" + sep + "1111",
			"3782" + sep + "822463" + sep + "10005",
			"41" + sep + "1111111" + sep + "11111" + sep + "11",
			"378" + sep + "2822" + sep + "4631" + sep + "0005",
		} {
			if got, want := r.redact("card "+in+" was declined"), "card [redacted] was declined"; got != want {
				t.Errorf("redact(card %q) = %q, want %q", in, got, want)
			}
		}
	}
	for in, want := range map[string]string{
		"4111111111111111":                     "[redacted]",
		"x4111-1111-1111-1111y":                "x[redacted]y",
		"4111-1111-1111-1112":                  "4111-1111-1111-1112",
		"4111-1111-1111":                       "4111-1111-1111",
		"4111_1111_1111_1111":                  "4111_1111_1111_1111",
		"order 4111 1111 1111 111 of":          "order 4111 1111 1111 111 of",
		"3782-822463-10005, 3782 822463 10005": "[redacted], [redacted]",
		"6011 0009 9013 9424 123":              "[redacted]",
		"5019-7170-1010":                       "[redacted]",
		"5019-7170-101":                        "5019-7170-101",
	} {
		if got := r.redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// The boundary between the sensitive values the redactor takes out
// anywhere and those it takes out only where they stand alone: a value of
// minSecret bytes (6) goes inside other text too, one a byte shorter only
// alone, one of minShortSecret bytes (3, a CVC) alone, and a shorter one
// not at all. The client's keys obey the same minimum.
func TestRedactorShortSecretBoundary(t *testing.T) {
	if minSecret != 6 || minShortSecret != 3 {
		t.Fatalf("minSecret = %d, minShortSecret = %d: the cases below are written for 6 and 3", minSecret, minShortSecret)
	}
	var r redactor
	r.addSensitive("123456") // 6 bytes: anywhere
	r.addSensitive("ab345")  // 5 bytes: where it stands alone
	r.addSensitive("987")    // 3 bytes: where it stands alone
	r.addSensitive("42")     // 2 bytes: not looked for
	for in, want := range map[string]string{
		"x123456y":       "x[redacted]y",
		"123456":         "[redacted]",
		"x12345y 12345":  "x12345y 12345",
		"xab345y ab345":  "xab345y [redacted]",
		"ab3456":         "ab3456",
		"x987y 987 9870": "x987y [redacted] 9870",
		"x42y 42":        "x42y 42",
	} {
		if got := r.redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
	var keys redactor
	keys.add("key-56", "[redacted]") // 6 bytes: looked for
	keys.add("key-5", "[redacted]")  // 5 bytes: too short to identify anything
	if got, want := keys.redact("key-56 key-5"), "[redacted] key-5"; got != want {
		t.Errorf("keys: redact = %q, want %q", got, want)
	}
}

// A message longer than the cap that echoes the query: the query is
// replaced before the message is cut, so no part of it survives.
func TestAPIErrorMessageRedactsBeforeCutting(t *testing.T) {
	for pad := 440; pad <= 520; pad += 3 {
		for _, form := range []string{"raw", "decoded"} {
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				echo := r.URL.RawQuery
				if form == "decoded" {
					echo, _ = url.QueryUnescape(echo)
				}
				msg := strings.Repeat("x", pad) + " bad query: " + echo
				writeJSON(w, http.StatusBadRequest, `{"message":`+strconv.Quote(msg)+`}`)
			})
			c := newTestClient(t, srv)
			_, err := c.Services.List(context.Background(), &ServiceListParams{Company: "Top Secret Holdings"})
			var ae *APIError
			if !errors.As(err, &ae) {
				t.Fatalf("pad %d: err = %v, want an *APIError", pad, err)
			}
			for _, leak := range []string{"Top", "Secret", "company=", "compan"} {
				if strings.Contains(ae.Message, leak) || strings.Contains(err.Error(), leak) {
					t.Fatalf("pad %d, %s: message keeps %q: %s", pad, form, leak, ae.Message)
				}
			}
			if len(ae.Message) > 500+len("…") {
				t.Fatalf("pad %d: message of %d bytes, over the cap", pad, len(ae.Message))
			}
		}
	}
}
