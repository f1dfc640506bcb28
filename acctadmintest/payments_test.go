package acctadmintest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// luhnComplete appends the check digit that makes digits pass the Luhn
// check.
func luhnComplete(digits string) string {
	sum := 0
	for i := range len(digits) {
		d := int(digits[len(digits)-1-i] - '0')
		if i%2 == 0 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return digits + fmt.Sprint((10-sum%10)%10)
}

// TestCardSecretsNeverKeptGenerated: whatever card a client sends (valid
// or not, spaced or not, created or updated, with passwords and reset
// tokens beside), its number and CVC, and the passwords, appear in no
// answer, no record, no request or write log, no log on the control
// surface. Only the last four digits come back.
func TestCardSecretsNeverKeptGenerated(t *testing.T) {
	srv := newServer(t, acctadmintest.WithControl())
	rapid.Check(t, func(rt *rapid.T) {
		prefix := rapid.SampledFrom([]string{"4", "51", "55", "2221", "34", "37", "6011", "9"}).Draw(rt, "prefix")
		length := rapid.IntRange(12, 19).Draw(rt, "length")
		body := prefix + rapid.StringMatching(fmt.Sprintf("[0-9]{%d}", length-len(prefix)-1)).Draw(rt, "body")
		number := luhnComplete(body)
		if rapid.Bool().Draw(rt, "corrupt") {
			last := number[len(number)-1]
			number = number[:len(number)-1] + string('0'+(last-'0'+1)%10)
		}
		spaced := number
		if rapid.Bool().Draw(rt, "spaces") {
			var b strings.Builder
			for i, c := range number {
				if i > 0 && i%4 == 0 {
					b.WriteByte(' ')
				}
				b.WriteRune(c)
			}
			spaced = b.String()
		}
		cvc := rapid.StringMatching(`[0-9]{3,4}`).Draw(rt, "cvc")
		password := "pw-" + rapid.StringMatching(`[a-zA-Z0-9]{5,20}`).Draw(rt, "password")
		card := map[string]any{
			"number": spaced, "cvc": cvc,
			"exp_month":  rapid.SampledFrom([]any{"05", 5, "13", "1"}).Draw(rt, "month"),
			"exp_year":   rapid.SampledFrom([]any{"2031", 2031, "2020", "20x1"}).Draw(rt, "year"),
			"first_name": "Ada", "last_name": "Lovelace",
		}
		srv.ResetRequests()
		var seen strings.Builder
		before := map[any]bool{}
		for _, it := range do(t, srv, http.MethodGet, "/payment-methods", nil).Items(t) {
			before[it["id"]] = true
		}
		r := do(t, srv, http.MethodPost, "/payment-methods", card)
		seen.Write(r.Body)
		if r.Status == http.StatusOK {
			// The answer does not hold the card: the listing does.
			list := do(t, srv, http.MethodGet, "/payment-methods", nil)
			seen.Write(list.Body)
			var added []map[string]any
			for _, it := range list.Items(t) {
				if !before[it["id"]] {
					added = append(added, it)
				}
			}
			require.Len(rt, added, 1)
			require.Equal(rt, number[len(number)-4:], added[0]["last4"])
			r = do(t, srv, http.MethodPatch, "/payment-methods/"+added[0]["id"].(string), card)
			seen.Write(r.Body)
			seen.Write(do(t, srv, http.MethodGet, "/payment-methods", nil).Body)
		}
		reset := map[string]string{"token": srv.ResetToken(), "password": password, "password_confirmation": password}
		seen.Write(do(t, srv, http.MethodPost, "/auth/reset-password", reset).Body)
		seen.Write(do(t, srv, http.MethodPost, "/auth/login", map[string]string{"email": acctadmintest.DemoUserEmail, "password": password}).Body)

		for _, q := range srv.Requests() {
			seen.Write(q.Body)
			h, _ := json.Marshal(q.Header)
			seen.Write(h)
		}
		for _, w := range srv.Writes() {
			seen.Write(w.Body)
		}
		seen.Write(ctl(t, srv, http.MethodGet, "/_fake/requests", "").Body)
		fmt.Fprintf(&seen, "%+v", srv.PaymentMethods())
		all := seen.String()
		// The CVC is short: look for it where it would be, as a field.
		for _, secret := range []string{number, spaced, `"cvc":"` + cvc, `\"cvc\":\"` + cvc, password, reset["token"]} {
			require.NotContains(rt, all, secret)
		}
	})
}

// TestCardsAreNeverKept: the number and the CVC appear in no answer, no
// record and no log entry; only brand, last four and expiry are kept.
func TestCardsAreNeverKept(t *testing.T) {
	srv := newServer(t)
	const number, cvc = "4111 1111 1111 1111", "987"
	body := card(number, "12", "2031")
	body["cvc"] = cvc
	r := do(t, srv, http.MethodPost, "/payment-methods", body)
	requireCardWritten(t, r)
	id := do(t, srv, http.MethodGet, "/payment-methods", nil).Items(t)[0]["id"].(string)
	r2 := do(t, srv, http.MethodPatch, "/payment-methods/"+id, body)
	requireCardWritten(t, r2)
	// The contract refuses what is malformed; the fake what is not a card.
	bad := card("4111111111111111", "12", "20x1")
	bad["cvc"] = "12a"
	r3 := do(t, srv, http.MethodPost, "/payment-methods", bad)
	require.Equal(t, http.StatusBadRequest, r3.Status)
	require.ElementsMatch(t, []string{"exp_year", "cvc"}, errorFields(t, r3))
	r4 := do(t, srv, http.MethodPost, "/payment-methods", card("4111111111111112", "13", "2031"))
	require.Equal(t, http.StatusBadRequest, r4.Status)
	require.ElementsMatch(t, []string{"number", "exp_month"}, errorFields(t, r4))
	r5 := do(t, srv, http.MethodPost, "/payment-methods", card("4111111111111111", "01", "2020"))
	require.Equal(t, http.StatusBadRequest, r5.Status)
	require.Contains(t, string(r5.Body), "expired")
	require.Len(t, do(t, srv, http.MethodGet, "/payment-methods", nil).Items(t), 1, "no refused card was stored")

	digits := strings.ReplaceAll(number, " ", "")
	seen := string(r.Body) + string(r2.Body) + string(r3.Body) + string(r4.Body) + string(do(t, srv, http.MethodGet, "/payment-methods", nil).Body)
	for _, q := range srv.Requests() {
		seen += string(q.Body) + q.Query
	}
	for _, w := range srv.Writes() {
		seen += string(w.Body)
	}
	for _, secret := range []string{digits, number, "4111111111111112", `"` + cvc + `"`, `"12a"`} {
		require.NotContains(t, seen, secret)
	}
	require.Contains(t, seen, `"last4":"1111"`)
}

// TestCardWritesAnswerAsTheRealServer: POST, PATCH and DELETE
// /payment-methods answer result {"status_code": 200, "success": true}, as
// the real server does, with quirks or without; the card written is seen
// by listing alone.
func TestCardWritesAnswerAsTheRealServer(t *testing.T) {
	for name, opts := range map[string][]acctadmintest.Option{"quirks": nil, "without quirks": {acctadmintest.WithoutQuirks()}} {
		t.Run(name, func(t *testing.T) {
			srv := newServer(t, opts...)
			requireCardWritten(t, do(t, srv, http.MethodPost, "/payment-methods", card("4111 1111 1111 1111", "05", "2031")))
			listed := do(t, srv, http.MethodGet, "/payment-methods", nil).Items(t)
			require.Len(t, listed, 1)
			id := listed[0]["id"].(string)
			require.Equal(t, map[string]any{"last4": "1111", "exp_month": float64(5), "exp_year": float64(2031), "brand": "visa"},
				map[string]any{"last4": listed[0]["last4"], "exp_month": listed[0]["exp_month"], "exp_year": listed[0]["exp_year"], "brand": listed[0]["brand"]})

			requireCardWritten(t, do(t, srv, http.MethodPatch, "/payment-methods/"+id, card("5555555555554444", "09", "2033")))
			listed = do(t, srv, http.MethodGet, "/payment-methods", nil).Items(t)
			require.Len(t, listed, 1)
			require.Equal(t, []any{id, "4444", float64(9), float64(2033)}, []any{listed[0]["id"], listed[0]["last4"], listed[0]["exp_month"], listed[0]["exp_year"]})

			requireCardWritten(t, do(t, srv, http.MethodDelete, "/payment-methods/"+id, nil))
			require.Empty(t, do(t, srv, http.MethodGet, "/payment-methods", nil).Items(t))
			requireError(t, do(t, srv, http.MethodDelete, "/payment-methods/"+id, nil), http.StatusNotFound, "payment method not found")
		})
	}
}
