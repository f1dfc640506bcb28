package acctadmin

import (
	"context"
	"errors"
	"fmt"
	"io"
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

// A token sent before a same-host redirect is redacted from the answer
// after it, and a server that quotes the token's signature in a status
// line it garbles does not get it into the error.
func TestTokensOfTheCallAreRedactedWhereverEchoed(t *testing.T) {
	var first string
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/callbacks" {
			first = strings.Split(rdToken(r), ".")[2]
			http.Redirect(w, r, "/moved", http.StatusFound)
			return
		}
		writeJSON(w, http.StatusBadRequest, `{"success":false,"message":"first signature was `+first+`"}`)
	})
	_, err := newTestClient(t, srv).Callbacks.List(context.Background())
	if first == "" || strings.Contains(err.Error(), first) || tpAPIError(t, err).Message != "first signature was [redacted]" {
		t.Fatalf("err = %v, want the earlier token's signature redacted", err)
	}

	raw := newRDServer(t)
	raw.reset(func(r *http.Request) []byte {
		return rawAnswer("HTTP/1.1 "+rdTokenPart(2)(r)+" Oops", nil, nil)
	})
	c, err := NewClient(testAccessKey, testSecretKey, WithBaseURL("http://"+raw.ln.Addr().String()), WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Callbacks.List(context.Background())
	var te *TransportError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "[redacted]") {
		t.Fatalf("err = %v, want a *TransportError with the signature redacted", err)
	}
	for _, n := range raw.needles() {
		if strings.Contains(err.Error(), n) || strings.Contains(te.Err.Error(), n) {
			t.Fatalf("err shows %q: %v", n, err)
		}
	}
}

// A cause whose text is redacted keeps its sentinel for errors.Is.
func TestRedactedCauseKeepsItsSentinel(t *testing.T) {
	c, err := NewClient(testAccessKey, testSecretKey)
	if err != nil {
		t.Fatal(err)
	}
	st := &callState{c: c, method: http.MethodGet, path: "/x"}
	got := st.redact(fmt.Errorf("server said %s: %w", testAccessKey, io.ErrUnexpectedEOF))
	if !errors.Is(got, io.ErrUnexpectedEOF) || strings.Contains(got.Error(), testAccessKey) {
		t.Fatalf("redact = %v: want io.ErrUnexpectedEOF kept and the key out", got)
	}
	for e := got; e != nil; e = errors.Unwrap(e) {
		if strings.Contains(e.Error(), testAccessKey) {
			t.Fatalf("%T in the chain shows the key: %v", e, e)
		}
	}
}
