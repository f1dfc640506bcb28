package main

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
)

// redactURL is a URL as the command prints it: its password, if it has
// one, replaced by xxxxx (url.URL.Redacted). A URL that does not parse is
// cut the same way by hand: whatever lies between the first colon after
// the scheme and the last @ is hidden.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		return u.Redacted()
	}
	prefix, rest := "", s
	if i := strings.Index(s, "://"); i >= 0 {
		prefix, rest = s[:i+3], s[i+3:]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return s
	}
	user, _, ok := strings.Cut(rest[:at], ":")
	if !ok {
		return s
	}
	return prefix + user + ":xxxxx" + rest[at:]
}

// secretFields are the names of the fields whose values --dry-run hides:
// card numbers, CVCs, passwords, secret keys, tokens and SSNs. A
// payment_token is the id of a stored card, not a secret, and shows.
var secretFields = map[string]bool{
	"number": true, "card_number": true, "cvc": true, "cvv": true, "cvv2": true,
	"password": true, "current_password": true, "new_password": true, "password_confirmation": true,
	"secret": true, "secret_key": true, "client_secret": true, "api_key": true,
	"token": true, "access_token": true, "refresh_token": true, "id_token": true, "jwt": true,
	"ssn": true,
}

// isSecretField reports whether a field of that name holds a secret.
func isSecretField(name string) bool {
	return secretFields[strings.ToLower(strings.TrimSuffix(name, "[]"))]
}

// redacted replaces a secret's value.
const redacted = "[redacted]"

// redactBody is a JSON body with the values of its secret fields, and any
// string that is a card number, replaced by "[redacted]", its fields in
// their order. A body that is not JSON is hidden whole.
func redactBody(body []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var out bytes.Buffer
	if err := copyRedacted(dec, &out, false); err != nil {
		return []byte(`"[body redacted: not JSON]"`)
	}
	return out.Bytes()
}

// copyRedacted copies the next JSON value of dec to out, every leaf of it
// redacted when secret is set.
func copyRedacted(dec *json.Decoder, out *bytes.Buffer, secret bool) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		open, end := byte(t), byte('}')
		if t == '[' {
			end = ']'
		}
		out.WriteByte(open)
		for i := 0; dec.More(); i++ {
			if i > 0 {
				out.WriteByte(',')
			}
			inner := secret
			if t == '{' {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				name, _ := k.(string)
				writeJSON(out, name)
				out.WriteByte(':')
				inner = secret || isSecretField(name)
			}
			if err := copyRedacted(dec, out, inner); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		out.WriteByte(end)
	case string:
		if secret || isCardNumber(t) {
			t = redacted
		}
		writeJSON(out, t)
	default:
		if secret {
			writeJSON(out, redacted)
		} else {
			writeJSON(out, t)
		}
	}
	return nil
}

// writeJSON writes v as JSON.
func writeJSON(out *bytes.Buffer, v any) {
	b, _ := json.Marshal(v)
	out.Write(b)
}

// redactQuery hides the values of the secret fields of a query string.
func redactQuery(u *url.URL) *url.URL {
	q := u.Query()
	changed := false
	for k, vs := range q {
		for i, v := range vs {
			if isSecretField(k) || isCardNumber(v) {
				vs[i] = redacted
				changed = true
			}
		}
	}
	if !changed {
		return u
	}
	c := *u
	c.RawQuery = q.Encode()
	return &c
}

// isCardNumber reports whether s is a card number: 13 to 19 digits,
// maybe grouped by spaces or dashes, that pass the Luhn check.
func isCardNumber(s string) bool {
	digits := make([]int, 0, 19)
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits = append(digits, int(r-'0'))
		case r == ' ' || r == '-':
		default:
			return false
		}
	}
	if len(digits) < 13 || len(digits) > 19 {
		return false
	}
	sum := 0
	for i := range digits {
		d := digits[len(digits)-1-i]
		if i%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}
