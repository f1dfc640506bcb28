package acctadmin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"pgregory.net/rapid"
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

// sensitiveNeedles are the planted values no output may show.
var sensitiveNeedles = []string{wcCardNumber, "4242 4242", wcPassword, wcResetToken, wcSession}

// Params and records that hold a card number, a CVC, a password or a
// token print, log and marshal redacted, under every verb.
func TestSensitiveValuesFormatRedacted(t *testing.T) {
	card := wcCardParams()
	card.Number = "4242 4242 4242 4242"
	login := &LoginParams{Email: "u@example.com", Password: wcPassword}
	reset := &ResetPasswordParams{Token: wcResetToken, Password: wcPassword, PasswordConfirmation: wcPassword}
	session := &Session{Token: wcSession}
	type holder struct {
		Card  *Card
		Login *LoginParams
		Reset *ResetPasswordParams
		Sess  *Session
	}
	values := []any{
		card, *card, login, *login, reset, *reset, session, *session,
		Secret(wcPassword),
		// In containers and behind pointers, where fmt prints the
		// %!s(*T=…) form of a value without its own Format.
		[]*Card{card}, map[string]*Card{"card": card}, []Card{*card},
		[]*LoginParams{login}, map[string]*ResetPasswordParams{"reset": reset}, []*Session{session},
		holder{card, login, reset, session}, &holder{card, login, reset, session},
		[]Secret{Secret(wcPassword)}, map[string]Secret{"pw": Secret(wcPassword)},
	}
	needles := append([]string{wcCVC}, sensitiveNeedles...)
	for _, v := range values {
		var texts []string
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3v"} {
			texts = append(texts, fmt.Sprintf(verb, v))
		}
		texts = append(texts, fmt.Sprint(v), fmt.Sprintln(v))
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
		var logs bytes.Buffer
		// No time in the records: its digits could spell a needle.
		noTime := &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}
		for _, h := range []slog.Handler{slog.NewTextHandler(&logs, noTime), slog.NewJSONHandler(&logs, noTime)} {
			slog.New(h).Info("params", "p", v, slog.Any("any", v))
		}
		texts = append(texts, logs.String())
		for _, text := range texts {
			for _, n := range needles {
				if strings.Contains(text, n) {
					t.Errorf("%T shows %q: %s", v, n, text)
				}
			}
		}
		if !strings.Contains(fmt.Sprintf("%+v", v), "[redacted]") {
			t.Errorf("%T does not say it holds a redacted value: %+v", v, v)
		}
	}
	if s := Secret(""); fmt.Sprint(s) != "" || s.Reveal() != "" {
		t.Errorf("the empty Secret prints %q", fmt.Sprint(s))
	}
	if Secret(wcPassword).Reveal() != wcPassword {
		t.Error("Reveal does not give the value back")
	}
}

// Every method of the routes beyond the first spec, on success and on
// every way of failing, with a server that echoes the request body into
// its answer (its headers, its message, its per-field errors): no error,
// log line, hook argument, Response or returned record shows a planted
// card number, password, reset token or session token.
func TestSensitiveValuesNeverLeak(t *testing.T) {
	echo := func(r *http.Request) string {
		b, _ := io.ReadAll(r.Body)
		return string(b)
	}
	servers := []struct {
		name string
		h    http.HandlerFunc
	}{
		{"success", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Echo", echo(r))
			writeJSON(w, 200, `{"success":true,"result":null}`)
		}},
		{"422 echoing the body", func(w http.ResponseWriter, r *http.Request) {
			sent := echo(r)
			w.Header().Set("X-Echo", sent)
			body, _ := json.Marshal(map[string]any{"success": false, "message": "refused " + sent,
				"errors": []map[string]string{{"field": "password " + sent, "message": "bad " + sent}}})
			writeJSON(w, 422, string(body))
		}},
		{"503 echoing the body", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 503, `{"message":"down `+strings.ReplaceAll(echo(r), `"`, `'`)+`"}`)
		}},
		{"success false", func(w http.ResponseWriter, r *http.Request) {
			body, _ := json.Marshal(map[string]any{"success": false, "message": echo(r)})
			writeJSON(w, 200, string(body))
		}},
		{"reset", func(w http.ResponseWriter, r *http.Request) { _ = echo(r); resetConn(w) }},
	}
	var logs tpLog
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var mu sync.Mutex
	var texts []string
	note := func(format string, args ...any) {
		mu.Lock()
		texts = append(texts, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	hooks := Hooks{
		CallStart: func(ctx context.Context, c CallInfo) context.Context { note("%+v %#v", c, c); return ctx },
		CallEnd:   func(_ context.Context, c CallInfo) { note("%+v %#v %v", c, c, c.Err) },
		AttemptStart: func(ctx context.Context, a AttemptInfo) context.Context {
			note("%+v", a)
			return ctx
		},
		AttemptEnd: func(_ context.Context, a AttemptInfo) { note("%+v %#v %v", a, a, a.Err) },
	}
	calls := 0
	for _, s := range servers {
		srv := newAPIServer(t, s.h)
		c := newTestClient(t, srv, WithLogger(logger), WithHooks(hooks), WithTimeout(2*time.Second))
		for _, wc := range wireCases() {
			var meta Response
			got, err := wc.run(WithResponseInto(context.Background(), &meta), c)
			calls++
			note("%v %+v %#v %s %q", err, err, err, err, err)
			if err != nil {
				note("%s", err.Error())
				var ae *APIError
				if errors.As(err, &ae) {
					note("%s %+v %s", ae.Body, ae.Fields, ae.Header)
				}
			}
			note("%+v %#v %v", meta, meta, meta.Header)
			note("%+v %#v", got, got)
			if b, err := json.Marshal(got); err == nil {
				note("%s", b)
			}
		}
	}
	texts = append(texts, logs.String())
	for _, text := range texts {
		for _, n := range sensitiveNeedles {
			if strings.Contains(text, n) {
				t.Errorf("an output shows %q: %.300s", n, text)
			}
		}
	}
	if calls < 100 || len(texts) < 500 {
		t.Errorf("%d calls and %d texts: too few to show anything", calls, len(texts))
	}
}

// Over generated passwords, reset tokens and card numbers, and servers
// that echo the body raw or as JSON, in a message, a field error or a
// header, on success or failure: no output shows a planted value, in
// the form it was given or as JSON wrote it.
func TestSensitiveValuesNeverLeakGenerated(t *testing.T) {
	var echoMode, status int
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		sent := string(b)
		if echoMode == 1 { // decoded: the server echoes the values as it read them
			var m map[string]any
			_ = json.Unmarshal(b, &m)
			sent = fmt.Sprint(m)
		}
		w.Header().Set("X-Echo", strings.ReplaceAll(strings.ReplaceAll(sent, "\r", ""), "\n", ""))
		body, _ := json.Marshal(map[string]any{"success": status == 200, "message": "saw " + sent, "result": nil,
			"errors": []map[string]string{{"field": "x", "message": sent}}})
		writeJSON(w, status, string(body))
	})
	var logs tpLog
	c := newTestClient(t, srv, WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
		WithMaxRetries(0))
	rapid.Check(t, func(rt *rapid.T) {
		password := rapid.StringMatching(`[ -~é]{8,30}`).Draw(rt, "password")
		token := rapid.StringMatching(`[A-Za-z0-9<>&"\\]{8,30}`).Draw(rt, "token")
		number := rapid.StringMatching(`[0-9]{16}`).Draw(rt, "number")
		echoMode = rapid.IntRange(0, 1).Draw(rt, "echo")
		status = rapid.SampledFrom([]int{200, 400, 422, 500}).Draw(rt, "status")
		logs.mu.Lock()
		logs.buf.Reset()
		logs.mu.Unlock()
		card := wcCardParams()
		card.Number = Secret(number)
		var meta Response
		ctx := WithResponseInto(context.Background(), &meta)
		var errs []error
		_, err := c.Auth.Login(ctx, &LoginParams{Email: "u@example.com", Password: Secret(password)})
		errs = append(errs, err)
		errs = append(errs, c.Auth.ResetPassword(ctx, &ResetPasswordParams{Token: Secret(token), Password: Secret(password)}))
		_, err = c.PaymentMethods.Create(ctx, card)
		errs = append(errs, err)
		texts := []string{logs.String(), fmt.Sprintf("%+v %v", meta, meta.Header)}
		for _, err := range errs {
			texts = append(texts, fmt.Sprintf("%v %+v %#v", err, err, err))
			var ae *APIError
			if errors.As(err, &ae) {
				texts = append(texts, string(ae.Body), fmt.Sprint(ae.Fields), fmt.Sprint(ae.Header))
			}
		}
		var needles []string
		for _, v := range []string{password, token, number} {
			enc, _ := json.Marshal(v)
			needles = append(needles, v, string(enc[1:len(enc)-1]))
		}
		for _, text := range texts {
			for _, n := range needles {
				if strings.Contains(text, n) {
					rt.Fatalf("an output shows %q: %.300s", n, text)
				}
			}
		}
	})
}

// A server that echoes the card's body shows neither the number (as sent,
// or as digits alone) nor the CVC as the body carried it.
func TestCardEchoRedacted(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		body, _ := json.Marshal(map[string]any{"message": "declined " + string(b) + " card 4242424242424242"})
		writeJSON(w, 402, string(body))
	})
	card := wcCardParams()
	card.Number = "4242 4242 4242 4242"
	_, err := newTestClient(t, srv).PaymentMethods.Create(context.Background(), card)
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != 402 {
		t.Fatalf("err = %v", err)
	}
	for _, text := range []string{err.Error(), string(ae.Body)} {
		for _, n := range []string{"4242 4242 4242 4242", "4242424242424242", `"cvc":"` + wcCVC + `"`} {
			if strings.Contains(text, n) {
				t.Errorf("%q shows %q", text, n)
			}
		}
	}
}

// A secret named to Client.Do that is a card number written with
// hyphens or dots is taken for a card number: the server's echo of its
// digits alone, or grouped otherwise, is redacted as the echo of the
// number as sent is.
func TestDoSecretCardNumberWithSeparatorsRedacted(t *testing.T) {
	for _, number := range []string{"4111-1111-1111-1111", "4111.1111.1111.1111"} {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 402, `{"message":"card 4111111111111111 (4111 1111 1111 1111, sent as `+number+`) declined"}`)
		})
		err := newTestClient(t, srv).Do(context.Background(), &RawRequest{
			Method: http.MethodPost, Path: "/payment-methods/verify",
			Body: map[string]string{"number": number}, Secrets: []string{number},
		}, nil)
		var ae *APIError
		if !errors.As(err, &ae) || ae.StatusCode != 402 {
			t.Fatalf("%s: err = %v, want a 402 *APIError", number, err)
		}
		if !strings.Contains(err.Error(), "declined") {
			t.Fatalf("%s: the error %q lost the message", number, err)
		}
		for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), string(ae.Body)} {
			for _, shown := range []string{"4111111111111111", "4111 1111 1111 1111", number} {
				if strings.Contains(text, shown) {
					t.Errorf("%s: %q shows %q", number, text, shown)
				}
			}
		}
	}
}

type secMethod struct {
	name string
	call func(ctx context.Context, c *Client) error
}

// secFirstErr runs an All loop and returns its first error.
func secFirstErr[T any](seq func(func(T, error) bool)) error {
	for _, err := range seq {
		if err != nil {
			return err
		}
	}
	return nil
}

// secFile returns the error of a call that returns a file, closing any.
func secFile(f *File, err error) error {
	if f != nil {
		f.Close()
	}
	return err
}

// secMethods is every public method of every resource client, each called
// with parameters that fill its query string or body.
func secMethods() []secMethod {
	since := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	start := Date{2024, time.May, 1}
	events := &ComplianceEventListParams{Company: secCompany, StartDate: start, EndDate: start.AddDays(90), Jurisdictions: []string{"Utah", "Idaho"}, Limit: 9}
	return append([]secMethod{
		{"Services.List", func(ctx context.Context, c *Client) error {
			_, err := c.Services.List(ctx, &ServiceListParams{Company: secCompany, Limit: 7})
			return err
		}},
		{"Services.All", func(ctx context.Context, c *Client) error {
			return secFirstErr(c.Services.All(ctx, &ServiceListParams{Company: secCompany}))
		}},
		{"Services.Create", func(ctx context.Context, c *Client) error {
			_, err := c.Services.Create(ctx, &ServiceCreateParams{Company: secCompany, Jurisdictions: []string{"Utah"}})
			return err
		}},
		{"Services.RequestCancellation", func(ctx context.Context, c *Client) error {
			_, err := c.Services.RequestCancellation(ctx, secID)
			return err
		}},
		{"Documents.List", func(ctx context.Context, c *Client) error {
			_, err := c.Documents.List(ctx, &DocumentListParams{Status: DocumentRead, Start: since, Limit: 9})
			return err
		}},
		{"Documents.All", func(ctx context.Context, c *Client) error {
			return secFirstErr(c.Documents.All(ctx, &DocumentListParams{Start: since}))
		}},
		{"Documents.Get", func(ctx context.Context, c *Client) error {
			_, err := c.Documents.Get(ctx, secID)
			return err
		}},
		{"Documents.Page", func(ctx context.Context, c *Client) error {
			return secFile(c.Documents.Page(ctx, secID, 1, &PageParams{DPI: 150}))
		}},
		{"Documents.Download", func(ctx context.Context, c *Client) error {
			return secFile(c.Documents.Download(ctx, secID))
		}},
		{"Documents.Pull", func(ctx context.Context, c *Client) error {
			return c.Documents.Pull(ctx, &PullParams{DocumentListParams: DocumentListParams{Start: since, Limit: 9}},
				func(context.Context, Document, *File) error { return nil })
		}},
		{"Resources.List", func(ctx context.Context, c *Client) error {
			_, err := c.Resources.List(ctx, &ResourceListParams{Name: secCompany, Jurisdiction: "Utah", Limit: 9})
			return err
		}},
		{"Resources.All", func(ctx context.Context, c *Client) error {
			return secFirstErr(c.Resources.All(ctx, &ResourceListParams{Agency: secCompany}))
		}},
		{"Resources.Get", func(ctx context.Context, c *Client) error {
			_, err := c.Resources.Get(ctx, secID)
			return err
		}},
		{"Resources.Page", func(ctx context.Context, c *Client) error {
			return secFile(c.Resources.Page(ctx, secID, 0, &PageParams{DPI: 300}))
		}},
		{"Resources.Download", func(ctx context.Context, c *Client) error {
			return secFile(c.Resources.Download(ctx, secID))
		}},
		{"FilingProducts.List", func(ctx context.Context, c *Client) error {
			_, err := c.FilingProducts.List(ctx, &FilingProductListParams{URL: secSite, Jurisdiction: "Utah"})
			return err
		}},
		{"ComplianceEvents.List", func(ctx context.Context, c *Client) error {
			_, err := c.ComplianceEvents.List(ctx, events)
			return err
		}},
		{"ComplianceEvents.All", func(ctx context.Context, c *Client) error {
			return secFirstErr(c.ComplianceEvents.All(ctx, events))
		}},
		{"Websites.Get", func(ctx context.Context, c *Client) error {
			_, err := c.Websites.Get(ctx, secSite)
			return err
		}},
		{"Callbacks.List", func(ctx context.Context, c *Client) error {
			_, err := c.Callbacks.List(ctx)
			return err
		}},
		{"Callbacks.Create", func(ctx context.Context, c *Client) error {
			_, err := c.Callbacks.Create(ctx, secSite)
			return err
		}},
		{"Callbacks.Delete", func(ctx context.Context, c *Client) error {
			return c.Callbacks.Delete(ctx, secID)
		}},
		{"Callbacks.Ensure", func(ctx context.Context, c *Client) error {
			_, err := c.Callbacks.Ensure(ctx, secSite)
			return err
		}},
		{"Companies.List", func(ctx context.Context, c *Client) error {
			_, err := c.Companies.List(ctx)
			return err
		}},
		{"Companies.All", func(ctx context.Context, c *Client) error {
			return secFirstErr(c.Companies.All(ctx, &CompanyListParams{Names: []string{secCompany}}))
		}},
		{"Companies.Create", func(ctx context.Context, c *Client) error {
			_, err := c.Companies.Create(ctx, CompanyCreateParams{Name: secCompany, HomeState: "Utah"})
			return err
		}},
		{"Companies.Update", func(ctx context.Context, c *Client) error {
			_, err := c.Companies.Update(ctx, CompanyUpdateParams{Company: secCompany, Name: secCompany + " II"})
			return err
		}},
		{"Invoices.List", func(ctx context.Context, c *Client) error {
			_, err := c.Invoices.List(ctx, &InvoiceListParams{Companies: []string{secCompany}, Limit: 9})
			return err
		}},
		{"Invoices.All", func(ctx context.Context, c *Client) error {
			return secFirstErr(c.Invoices.All(ctx, &InvoiceListParams{Companies: []string{secCompany}}))
		}},
		{"RegisteredAgentProducts.List", func(ctx context.Context, c *Client) error {
			_, err := c.RegisteredAgentProducts.List(ctx, &RegisteredAgentProductListParams{URL: secSite})
			return err
		}},
		{"FilingProducts.Find", func(ctx context.Context, c *Client) error {
			_, err := c.FilingProducts.Find(ctx, &OfferingParams{CompanyID: secID, Jurisdiction: "Utah"}, "EIN")
			return err
		}},
		{"ShoppingCart.AddItem", func(ctx context.Context, c *Client) error {
			_, err := c.ShoppingCart.AddItem(ctx, &CartAddParams{CompanyID: secID, ProductID: wcProduct, ProductOptionID: wcMethod, Quantity: 1})
			return err
		}},
		{"ShoppingCart.CheckoutOrder", func(ctx context.Context, c *Client) error {
			_, err := c.ShoppingCart.CheckoutOrder(ctx, &CheckoutParams{ItemIDs: []uuid.UUID{secID}, PaymentMethodID: wcCard})
			return err
		}},
		{"PaymentMethods.Store", func(ctx context.Context, c *Client) error {
			_, err := c.PaymentMethods.Store(ctx, wcCardParams())
			return err
		}},
	}, secNewMethods()...)
}

// secNewMethods calls the methods of the routes beyond the first spec as
// the wire cases do: with a card number, a CVC, passwords and a reset
// token in their bodies.
func secNewMethods() []secMethod {
	var out []secMethod
	for _, wc := range wireCases() {
		out = append(out, secMethod{wc.rt.operation, wc.call})
	}
	return out
}

// The table above must name every method, so that a new one cannot be
// left out of the secrets test.
func TestSecretsMethodTableIsComplete(t *testing.T) {
	c, err := NewClient(testAccessKey, testSecretKey)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, m := range secMethods() {
		listed[m.name] = true
	}
	var missing []string
	v := reflect.ValueOf(c).Elem()
	n := 0
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		typ := f.Type
		for j := 0; j < typ.NumMethod(); j++ {
			n++
			if name := f.Name + "." + typ.Method(j).Name; !listed[name] {
				missing = append(missing, name)
			}
		}
	}
	if len(missing) > 0 || n != len(listed) {
		t.Errorf("the resource clients have %d methods, the table %d; missing %v", n, len(listed), missing)
	}
}

// secSeen collects what the servers received: tokens and query strings.
type secSeen struct {
	mu      sync.Mutex
	tokens  map[string]bool
	queries map[string]bool
}

func (s *secSeen) record(r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		s.tokens[tok] = true
	}
	if r.URL.RawQuery != "" {
		s.queries[r.URL.RawQuery] = true
	}
}

// needles returns every string that must never show.
func (s *secSeen) needles(t *testing.T) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The secrets the wire cases put in bodies (their CVC is three digits,
	// too short to search for inside other text: cvcAlone looks for it
	// where it stands alone).
	out := []string{testSecretKey, testAccessKey, wcCardNumber, wcPassword, wcResetToken}
	for tok := range s.tokens {
		parts := strings.Split(tok, ".")
		if len(parts) != 3 || len(parts[2]) < 40 {
			t.Fatalf("the servers saw a token that is not a JWT: %q", tok)
		}
		out = append(out, tok, "Bearer "+tok, parts[2])
	}
	for q := range s.queries {
		out = append(out, q)
		if dec, err := url.QueryUnescape(q); err == nil {
			out = append(out, dec)
		}
	}
	return out
}

// secEcho writes the request's Authorization header and query string back
// into an error body, in the message and beside it.
func secEcho(w http.ResponseWriter, r *http.Request, status int, message string) {
	auth := r.Header.Get("Authorization")
	sent, _ := io.ReadAll(r.Body)
	if len(sent) > 0 {
		message += " " + string(sent)
	}
	body, _ := json.Marshal(map[string]any{
		"success":       false,
		"message":       message + ": " + auth + " for ?" + r.URL.RawQuery + " (" + r.URL.String() + ")",
		"sent":          string(sent),
		"authorization": auth,
		"query":         r.URL.RawQuery,
		"errors":        []map[string]string{{"field": "token", "message": "bad " + strings.TrimPrefix(auth, "Bearer ")}},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", token="`+strings.TrimPrefix(auth, "Bearer ")+`"`)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// TestSecretsNeverLeak runs every method against servers that fail every
// way (an error that echoes the token and the query string, a 401 that
// does the same, a 200 whose envelope says success false and echoes them,
// a closed port, a dropped connection, a redirect to another host), with
// a Debug logger, and scans each error (Error(), %v, %+v, %#v, and every
// error it wraps) and every log record for the secret key, the access
// key, the tokens the servers received (whole, with "Bearer", and their
// signature) and their query strings (raw and decoded).
func TestSecretsNeverLeak(t *testing.T) {
	seen := &secSeen{tokens: map[string]bool{}, queries: map[string]bool{}}
	serve := func(h http.HandlerFunc) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen.record(r)
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			h(w, r)
		}))
		t.Cleanup(s.Close)
		return s
	}
	other := serve(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			t.Errorf("the other host of a redirect got the Authorization header on %s %s", r.Method, r.URL.Path)
		}
		secEcho(w, r, http.StatusOK, "other host")
	})
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	servers := []struct {
		name  string
		url   string
		check func(t *testing.T, err error)
	}{
		{"500 echoing the request", serve(func(w http.ResponseWriter, r *http.Request) {
			secEcho(w, r, http.StatusInternalServerError, "internal error")
		}).URL, func(t *testing.T, err error) {
			if !errors.Is(err, ErrServer) {
				t.Errorf("err = %v, want ErrServer", err)
			}
		}},
		{"401 echoing the token", serve(func(w http.ResponseWriter, r *http.Request) {
			secEcho(w, r, http.StatusUnauthorized, "invalid token")
		}).URL, func(t *testing.T, err error) {
			if !errors.Is(err, ErrUnauthorized) {
				t.Errorf("err = %v, want ErrUnauthorized", err)
			}
		}},
		{"success false echoing the request", serve(func(w http.ResponseWriter, r *http.Request) {
			secEcho(w, r, http.StatusOK, "refused")
		}).URL, func(t *testing.T, err error) {
			if apiErr := tpAPIError(t, err); apiErr.StatusCode != http.StatusOK {
				t.Errorf("APIError = %v, want the 200 that says success false", apiErr)
			}
		}},
		{"closed port", closedURL, func(t *testing.T, err error) {
			tpTransportError(t, err)
		}},
		{"dropped connection", serve(func(w http.ResponseWriter, r *http.Request) {
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
		}).URL, func(t *testing.T, err error) {
			tpTransportError(t, err)
		}},
		{"redirect to another host", serve(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
		}).URL, func(t *testing.T, err error) {
			if apiErr := tpAPIError(t, err); apiErr.StatusCode != http.StatusTemporaryRedirect {
				t.Errorf("APIError = %v, want the 307 not followed", apiErr)
			}
		}},
	}

	var logs tpLog
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	type finding struct{ where, text string }
	var texts []finding
	calls := 0
	for _, srv := range servers {
		c, err := NewClient(testAccessKey, testSecretKey, WithBaseURL(srv.url), WithLogger(logger),
			WithMaxRetries(1), WithRetryWait(time.Millisecond, 2*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range secMethods() {
			t.Run(srv.name+"/"+m.name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				err := m.call(ctx, c)
				calls++
				if err == nil {
					t.Fatal("the call succeeded against a failing server")
				}
				if ctx.Err() != nil {
					t.Fatalf("the call hung: %v", err)
				}
				var apiErr *APIError
				var te *TransportError
				var de *DecodeError
				if !errors.As(err, &apiErr) && !errors.As(err, &te) && !errors.As(err, &de) {
					t.Fatalf("err = %v (%T), of no SDK type", err, err)
				}
				srv.check(t, err)
				where := srv.name + " " + m.name
				for _, format := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
					texts = append(texts, finding{where + " " + format, fmt.Sprintf(format, err)})
				}
				for e := err; e != nil; e = errors.Unwrap(e) {
					texts = append(texts, finding{where + " Error()", e.Error()})
				}
				if apiErr != nil {
					texts = append(texts, finding{where + " Message", apiErr.Message})
				}
			})
		}
		c.CloseIdleConnections()
	}
	other.CloseClientConnections()

	records := logs.records(t, "")
	for _, rec := range records {
		b, _ := json.Marshal(rec)
		texts = append(texts, finding{"log record", string(b)})
	}
	needles := seen.needles(t)
	if len(seen.tokens) < 20 || len(seen.queries) < 10 { // one token per path and body
		t.Fatalf("the servers saw %d tokens and %d query strings: too few to test anything", len(seen.tokens), len(seen.queries))
	}
	hits := map[string]int{}
	for _, f := range texts {
		for _, needle := range needles {
			if strings.Contains(f.text, needle) {
				hits[f.where]++
				if hits[f.where] == 1 {
					t.Errorf("%s shows a secret or a query string (%.20q…): %s", f.where, needle, f.text)
				}
			}
		}
		if m := tpJWTLike.FindString(f.text); m != "" {
			t.Errorf("%s shows a token: %s", f.where, f.text)
		}
		if cvcAlone.MatchString(f.text) {
			t.Errorf("%s shows the CVC: %s", f.where, f.text)
		}
	}
	wheres := make([]string, 0, len(hits))
	for w := range hits {
		wheres = append(wheres, w)
	}
	sort.Strings(wheres)
	t.Logf("%d calls, %d error texts and %d log records scanned for %d needles (%d tokens, %d query strings): %d hits %v",
		calls, len(texts)-len(records), len(records), len(needles), len(seen.tokens), len(seen.queries), len(hits), wheres)
}

// cvcAlone finds the wire cases' CVC where it stands alone, as a server
// that echoes it would show it.
var cvcAlone = regexp.MustCompile(`(^|[^0-9A-Za-z])` + wcCVC + `([^0-9A-Za-z]|$)`)

// TestShortSecretsAreRedactedWhereTheyStandAlone: a secret of a request
// body shorter than the redactor's minimum (a CVC) is taken out where it
// stands alone, and left inside longer words and numbers.
func TestShortSecretsAreRedactedWhereTheyStandAlone(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"987", "[redacted]"},
		{"cvc 987 does not match", "cvc [redacted] does not match"},
		{`{"cvc":"987"}`, `{"cvc":"[redacted]"}`},
		{"987-987/987", "[redacted]-[redacted]/[redacted]"},
		{"ref 9870, 1987, x987, 987a, 987987", "ref 9870, 1987, x987, 987a, 987987"},
		{"9870 987", "9870 [redacted]"},
	} {
		if got := replaceStandalone(tc.in, "987", redactedText); got != tc.want {
			t.Errorf("replaceStandalone(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	var r redactor
	r.addSensitive("12")              // shorter than any CVC: not looked for
	r.addSensitive("987")             // a CVC: where it stands alone
	r.addSensitive("secret-password") // long: anywhere
	if got, want := r.redact("12 987 x987 secret-passwords"), "12 [redacted] x987 [redacted]s"; got != want {
		t.Errorf("redact = %q, want %q", got, want)
	}

	// A server that echoes the CVC into its message.
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusPaymentRequired, `{"success":false,"message":"declined: cvc `+wcCVC+` does not match (ref `+wcCVC+`0)","cvc":"`+wcCVC+`"}`)
	})
	_, err := newTestClient(t, srv).PaymentMethods.Create(context.Background(), wcCardParams())
	apiErr := tpAPIError(t, err)
	if want := "declined: cvc [redacted] does not match (ref " + wcCVC + "0)"; apiErr.Message != want {
		t.Errorf("Message = %q, want %q", apiErr.Message, want)
	}
	for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), string(apiErr.Body)} {
		if cvcAlone.MatchString(text) {
			t.Errorf("the CVC shows: %s", text)
		}
	}
}

// A server that echoes the request into its message: Message (and so
// Error) shows neither the token nor the query string, and still says
// what the server said; Body is the answer with the same redaction, still
// JSON, the rest of it as sent.
func TestSecretsEchoedIntoMessageAreRedacted(t *testing.T) {
	var token, query string
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		token, query = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), r.URL.RawQuery
		secEcho(w, r, http.StatusUnauthorized, "invalid token")
	})
	c := newTestClient(t, srv)
	_, err := c.Services.List(context.Background(), &ServiceListParams{Company: secCompany, Limit: 7})
	apiErr := tpAPIError(t, err)
	if want := "invalid token: [redacted] for ?[query] (/services?[query])"; apiErr.Message != want {
		t.Errorf("Message = %q, want %q", apiErr.Message, want)
	}
	if want := "acctadmin: GET /services: 401 invalid token: [redacted] for ?[query] (/services?[query])"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	var echoed struct{ Authorization, Query, Message string }
	if json.Unmarshal(apiErr.Body, &echoed) != nil || echoed.Authorization != "[redacted]" || echoed.Query != "limit=7&company=[query]" ||
		echoed.Message != "invalid token: [redacted] for ?limit=7&company=[query] (/services?limit=7&company=[query])" {
		t.Errorf("Body = %s, want the server's answer with the token and the query's values redacted", apiErr.Body)
	}
	if token == "" || query == "" || strings.Contains(string(apiErr.Body), token) || strings.Contains(string(apiErr.Body), secCompany) {
		t.Errorf("Body = %s shows the token or a query value", apiErr.Body)
	}

	// A token cut short by the message cap is redacted too, and so is a
	// query string the server decoded before echoing it.
	for _, tc := range []struct{ msg, want string }{
		{"bad token eyJhbGciOiJIUzI1NiJ9.eyJwYXRoIjoiLyJ9.c2ln", "bad token [redacted]"},
		{"bad token BEARER  eyJhbGciOiJIUzI1NiJ9.eyJwYXRoIjoiLyJ9", "bad token [redacted]"},
		{"no limit=7&company=" + secCompany + " here", "no [query] here"},
	} {
		body, _ := json.Marshal(map[string]any{"success": false, "message": tc.msg})
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusBadRequest, string(body)) })
		_, err := newTestClient(t, srv).Services.List(context.Background(), &ServiceListParams{Company: secCompany, Limit: 7})
		if got := tpAPIError(t, err).Message; got != tc.want {
			t.Errorf("message %q read as %q, want %q", tc.msg, got, tc.want)
		}
	}
}

// fdOutputs collects everything a call lets a program see: the error
// under every verb, its Body, Fields and Header, the Response, the hooks'
// arguments and the log lines (text and JSON, without times, whose digits
// could spell a value).
type fdOutputs struct {
	mu    sync.Mutex
	texts []string
	logs  tpLog
}

func (o *fdOutputs) note(format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.texts = append(o.texts, fmt.Sprintf(format, args...))
}

func (o *fdOutputs) options() []Option {
	noTime := &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
	hooks := Hooks{
		CallStart: func(ctx context.Context, c CallInfo) context.Context { o.note("%+v %#v", c, c); return ctx },
		CallEnd:   func(_ context.Context, c CallInfo) { o.note("%+v %#v %v", c, c, c.Err) },
		AttemptStart: func(ctx context.Context, a AttemptInfo) context.Context {
			o.note("%+v %#v", a, a)
			return ctx
		},
		AttemptEnd: func(_ context.Context, a AttemptInfo) { o.note("%+v %#v %v", a, a, a.Err) },
	}
	return []Option{WithHooks(hooks), WithMaxRetries(0),
		WithLogger(slog.New(slog.NewJSONHandler(&o.logs, noTime))), WithTimeout(5 * time.Second)}
}

// take notes what a call returned and gives every text seen so far.
func (o *fdOutputs) take(meta *Response, err error) []string {
	o.note("%v|%+v|%#v|%s|%q", err, err, err, err, err)
	var ae *APIError
	if errors.As(err, &ae) {
		o.note("%s|%+v|%s|%v", ae.Body, ae.Fields, ae.Header, ae)
	}
	o.note("%+v|%#v|%v", *meta, *meta, meta.Header)
	var buf bytes.Buffer
	slog.New(slog.NewTextHandler(&buf, nil)).Error("call", "err", err)
	o.note("%s", buf.String())
	o.mu.Lock()
	defer o.mu.Unlock()
	texts := append(o.texts, o.logs.String())
	o.texts = nil
	o.logs.mu.Lock()
	o.logs.buf.Reset()
	o.logs.mu.Unlock()
	return texts
}

// fdDigits returns the digits of v when v is a number written with
// digits and the separators people put in one, and has at least 6.
func fdDigits(v string) string {
	var d strings.Builder
	for _, c := range v {
		switch {
		case '0' <= c && c <= '9':
			d.WriteRune(c)
		case strings.ContainsRune(" -./()+", c):
		default:
			return ""
		}
	}
	if d.Len() < 6 {
		return ""
	}
	return d.String()
}

// fdRegroup writes digits split into groups by seps.
func fdRegroup(digits string, cuts []int, sep string) string {
	var b strings.Builder
	for i := 0; i < len(digits); i++ {
		if i > 0 && slices.Contains(cuts, i) {
			b.WriteString(sep)
		}
		b.WriteByte(digits[i])
	}
	return b.String()
}

// fdFormValue draws a value a form may hold: an SSN or an EIN grouped as
// people write them, a phone number, a date of birth, a name, an
// address line, a short code, a name that JSON escapes, or a value of one to three characters
// (which is too short to be looked for, and is not searched).
func fdFormValue(t *rapid.T, label string) string {
	switch rapid.IntRange(0, 8).Draw(t, label+"-kind") {
	case 0:
		sep := rapid.SampledFrom([]string{"-", " ", ""}).Draw(t, label+"-sep")
		d := rapid.StringMatching(`[1-8][0-9]{8}`).Draw(t, label)
		return d[:3] + sep + d[3:5] + sep + d[5:]
	case 1:
		d := rapid.StringMatching(`[1-8][0-9]{8}`).Draw(t, label)
		return d[:2] + "-" + d[2:]
	case 2:
		return rapid.StringMatching(`\([2-9][0-9]{2}\) [2-9][0-9]{2}-[0-9]{4}|[2-9][0-9]{9}`).Draw(t, label)
	case 3:
		return rapid.StringMatching(`19[0-9]{2}-(0[1-9]|1[0-2])-[0-2][0-9]`).Draw(t, label)
	case 4:
		return rapid.StringMatching(`[QXZ][a-z]{2,8}[qxz] [QXZ][a-z]{2,8}[qxz]`).Draw(t, label)
	case 5:
		return rapid.StringMatching(`[0-9]{2,5} [QXZ][a-z]{3,9}q St(reet)?, (Apt|Suite) [0-9]{1,3}[A-D]`).Draw(t, label)
	case 6:
		return rapid.StringMatching(`[QXZ][0-9][qxz]{2,3}`).Draw(t, label) // 4 or 5: where it stands alone
	case 7: // JSON writes it otherwise: "Qab \u0026 Zcd"
		return rapid.StringMatching(`[QXZ][a-z]{2,6}q ?[&<>"] ?[QXZ][a-z]{2,6}z`).Draw(t, label)
	default:
		return rapid.StringMatching(`[a-z0-9]{1,3}`).Draw(t, label)
	}
}

// fdFormData draws a form: nested objects and lists of values.
func fdFormData(t *rapid.T, label string, depth int) map[string]any {
	form := map[string]any{}
	n := rapid.IntRange(1, 4).Draw(t, label+"-n")
	for i := 0; i < n; i++ {
		key := fmt.Sprintf("%s_%d", rapid.SampledFrom([]string{"ssn", "ein", "dob", "name", "phone", "address", "owner"}).Draw(t, label+"-key"), i)
		switch k := rapid.IntRange(0, 5).Draw(t, label+"-shape"); {
		case k == 0 && depth < 2:
			form[key] = fdFormData(t, label+"."+key, depth+1)
		case k == 1:
			var list []any
			for j := rapid.IntRange(1, 3).Draw(t, label+"-len"); j > 0; j-- {
				list = append(list, fdFormValue(t, label+"."+key+"[]"))
			}
			form[key] = list
		case k == 2:
			form[key] = rapid.Bool().Draw(t, label+"-bool")
		default:
			form[key] = fdFormValue(t, label+"."+key)
		}
	}
	return form
}

// fdStrings returns the string values of a decoded JSON value.
func fdStrings(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case map[string]any:
		var out []string
		for _, e := range v {
			out = append(out, fdStrings(e)...)
		}
		return out
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, fdStrings(e)...)
		}
		return out
	}
	return nil
}

// fdShows reports where text shows value: anywhere when it is 6
// characters or more, where it stands alone when shorter.
func fdShows(text, value string) bool {
	if len(value) >= minSecret {
		return strings.Contains(text, value)
	}
	return replaceStandalone(text, value, "\x00") != text
}

// Over generated forms (SSNs and EINs however grouped, phone numbers,
// dates of birth, names, addresses, short codes, nested in objects and
// lists) sent by OrderItems.SubmitFormData and ShoppingCart.Add, and
// servers that echo any of the values — as sent, as JSON wrote them, or
// as their digits regrouped — in the message, a field error, a header or
// the body, refusing or failing: no error (under any verb, its Body,
// Fields and Header), log line, hook argument or Response shows a value
// of 4 characters or more, nor the digits of a number.
func TestFormDataNeverLeaksGenerated(t *testing.T) {
	// The plan of the server's echo, drawn by the test before each call:
	// how it shows each value, and the status.
	var (
		mu     sync.Mutex
		shows  map[string]string
		status int
	)
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			FormData any `json:"form_data"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &body)
		mu.Lock()
		var shown []string
		for _, v := range fdStrings(body.FormData) {
			shown = append(shown, shows[v])
		}
		status := status
		mu.Unlock()
		message := "invalid: " + strings.Join(shown, ", ") + "."
		w.Header().Set("X-Echo", strings.NewReplacer("\r", "", "\n", "").Replace(message))
		if status == 0 {
			resetConn(w)
			return
		}
		out, _ := json.Marshal(map[string]any{"success": false, "message": message, "result": nil,
			"errors": []map[string]string{{"field": "form_data." + strings.Join(shown, "_"), "message": message}},
			"echo":   json.RawMessage(b)})
		writeJSON(w, status, string(out))
	})
	var out fdOutputs
	c := newTestClient(t, srv, out.options()...)
	rapid.Check(t, func(rt *rapid.T) {
		form := fdFormData(rt, "form", 0)
		var needles []string
		plan := map[string]string{}
		for _, v := range fdStrings(form) {
			if _, ok := plan[v]; ok {
				continue
			}
			switch rapid.IntRange(0, 2).Draw(rt, "echo") {
			case 0:
				plan[v] = v
			case 1: // as a server that wrote it back into JSON
				enc, _ := json.Marshal(v)
				plan[v] = string(enc)
			default: // its digits, regrouped
				plan[v] = v
				if d := fdDigits(v); d != "" {
					cuts := rapid.SliceOfNDistinct(rapid.IntRange(1, len(d)-1), 0, 4, rapid.ID[int]).Draw(rt, "cuts")
					sep := rapid.SampledFrom([]string{"-", " ", ".", "", " - "}).Draw(rt, "sep")
					plan[v] = fdRegroup(d, cuts, sep)
					needles = append(needles, plan[v])
				}
			}
			if len(v) < 4 {
				continue
			}
			enc, _ := json.Marshal(v)
			needles = append(needles, v, string(enc[1:len(enc)-1]))
			if d := fdDigits(v); d != "" {
				needles = append(needles, d)
			}
		}
		mu.Lock()
		shows, status = plan, rapid.SampledFrom([]int{0, 200, 400, 409, 422, 500}).Draw(rt, "status")
		mu.Unlock()
		var meta Response
		ctx := WithResponseInto(context.Background(), &meta)
		var err error
		if rapid.Bool().Draw(rt, "cart") {
			_, err = c.ShoppingCart.Add(ctx, &CartAddParams{CompanyID: wcCompany, ProductID: wcProduct, FormData: form})
		} else {
			_, err = c.OrderItems.SubmitFormData(ctx, &OrderItemFormDataParams{CompanyID: wcCompany, OrderItemID: wcOrder, FormData: form})
		}
		if err == nil {
			rt.Fatal("the call succeeded; every server here refuses it")
		}
		for _, text := range out.take(&meta, err) {
			for _, n := range needles {
				if fdShows(text, n) {
					rt.Fatalf("an output shows %q: %.400s", n, text)
				}
			}
		}
	})
}

// A form refused with 400 whose message and field error quote the SSN
// it was sent (with dashes, without, with spaces): the error, its
// Fields, its Body and a log line of it say [redacted] instead.
func TestFormRefusalDoesNotQuoteTheSSN(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusBadRequest, `{"success":false,"message":"form_data.ssn 123-45-6789 is not valid",
			"errors":[{"field":"form_data.ssn","message":"123456789 (123 45 6789) is not an SSN"}]}`)
	})
	var out fdOutputs
	c := newTestClient(t, srv, out.options()...)
	var meta Response
	_, err := c.OrderItems.SubmitFormData(WithResponseInto(context.Background(), &meta),
		&OrderItemFormDataParams{CompanyID: wcCompany, OrderItemID: wcOrder, FormData: map[string]any{"ssn": "123-45-6789"}})
	ae := tpAPIError(t, err)
	if ae.StatusCode != http.StatusBadRequest || ae.Message != "form_data.ssn [redacted] is not valid" ||
		!reflect.DeepEqual(ae.Fields, []FieldError{{"form_data.ssn", "[redacted] ([redacted]) is not an SSN"}}) {
		t.Errorf("err = %v, Fields = %v: want the 400 with the SSN redacted", err, ae.Fields)
	}
	var logged bytes.Buffer
	log.New(&logged, "", 0).Print(err)
	for _, text := range append(out.take(&meta, err), logged.String()) {
		for _, n := range []string{"123-45-6789", "123456789", "123 45 6789"} {
			if strings.Contains(text, n) {
				t.Errorf("an output shows %q: %s", n, text)
			}
		}
	}
}

// The values of a form: a number of 6 digits or more is redacted however
// its digits are grouped, a value of 6 bytes or more wherever it occurs,
// one of 4 or 5 where it stands alone, and a shorter one not at all.
func TestRedactorPersonalValues(t *testing.T) {
	var r redactor
	for _, v := range []string{"123-45-6789", "UT", "no", "Zed", "Qix7", "Zelda Qwix", "(801) 555-0199", "12-34-56"} {
		r.addPersonal(v)
	}
	for _, tc := range []struct{ in, want string }{
		{"ssn 123-45-6789, 123456789, 123 45 6789, 12-345-67.89", "ssn [redacted], [redacted], [redacted], [redacted]"},
		{"UT no Zed", "UT no Zed"},
		{"Qix7 Qix70 xQix7", "[redacted] Qix70 xQix7"},
		{"owner Zelda Qwixson", "owner [redacted]son"},
		{"phone 801-555-0199 or (801) 555-0199", "phone [redacted] or [redacted]"},
		{"ref 9876543", "ref 9876543"},
		{"code 123456 or 1234 56", "code [redacted] or [redacted]"},
	} {
		if got := r.redact(tc.in); got != tc.want {
			t.Errorf("redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := formValues(map[string]any{"a": []any{"x", 12, 1234567}, "b": map[string]any{"c": "yz"}, "d": true}); len(got) != 3 {
		t.Errorf("formValues = %q, want x, 1234567 and yz", got)
	}
	if got := formValues(func() {}); got != nil {
		t.Errorf("formValues of a value that does not encode = %q", got)
	}
}

// Params that carry a form print, marshal and log its strings and
// numbers redacted, under every verb, in slices and maps and behind
// pointers, and say so; the request body still carries the values.
func TestFormParamsFormatRedacted(t *testing.T) {
	form := map[string]any{"ssn": "123-45-6789", "owner": map[string]any{"name": "Zelda Qwix", "dob": "1984-02-29",
		"phones": []any{"(801) 555-0199"}, "tax_id": 987654321}, "ein_trucking": false}
	order := &OrderItemFormDataParams{CompanyID: wcCompany, OrderItemID: wcOrder, FormData: form}
	cart := &CartAddParams{CompanyID: wcCompany, ProductID: wcProduct, FormData: form}
	needles := []string{"123-45-6789", "Zelda Qwix", "1984-02-29", "555-0199", "987654321"}
	noTime := &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
	for _, v := range []any{order, *order, cart, *cart, []*OrderItemFormDataParams{order}, map[string]CartAddParams{"c": *cart}} {
		var texts []string
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
			texts = append(texts, fmt.Sprintf(verb, v))
		}
		var logs bytes.Buffer
		for _, h := range []slog.Handler{slog.NewTextHandler(&logs, noTime), slog.NewJSONHandler(&logs, noTime)} {
			slog.New(h).Info("params", "p", v)
		}
		texts = append(texts, logs.String())
		for _, text := range texts {
			for _, n := range needles {
				if strings.Contains(text, n) {
					t.Errorf("%T shows %q: %s", v, n, text)
				}
			}
		}
		if s := fmt.Sprintf("%+v", v); !strings.Contains(s, "ssn:[redacted]") || !strings.Contains(s, "ein_trucking:false") {
			t.Errorf("%%+v of %T = %s, want the form's keys with its values redacted", v, s)
		}
		if b, err := json.Marshal(v); err != nil || !strings.Contains(string(b), `"ssn":"[redacted]"`) {
			t.Errorf("json of %T = %s, %v: want the form's keys with its values redacted", v, b, err)
		}
	}
	if !strings.Contains(logsOf(order), `"form_data":{"ein_trucking":false,"owner":{"dob":"[redacted]"`) {
		t.Errorf("slog JSON of the params = %s", logsOf(order))
	}
	for _, v := range []any{bodyOf{order}, bodyOf{cart}} {
		b, err := json.Marshal(v)
		if err != nil || !strings.Contains(string(b), `"ssn":"123-45-6789"`) || !strings.Contains(string(b), `"tax_id":987654321`) {
			t.Errorf("the body of %T = %s, %v: want the form as given", v, b, err)
		}
	}
}

// logsOf is what slog's JSON handler writes of v.
func logsOf(v any) string {
	var b bytes.Buffer
	slog.New(slog.NewJSONHandler(&b, nil)).Info("params", "p", v)
	return b.String()
}
