package acctadmin

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// tokenLike matches a bearer token as a server may echo it: a JWT, whole
// or cut short, with or without the Bearer scheme.
var tokenLike = regexp.MustCompile(`(?i:bearer\s+)?eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*)?`)

const (
	// minSecret is the shortest secret looked for wherever it occurs.
	minSecret = 6
	// minShortSecret is the shortest secret of a request body looked for
	// where it stands alone: a 3-digit CVC.
	minShortSecret = 3
	// minPersonal is the shortest form value looked for standing alone.
	minPersonal = 4
	// A body's card number (12 to 19 digits), or a form's number (6 to
	// 32), is looked for however its digits are grouped, with up to
	// three cardSeparators between two digits.
	minCardDigits     = 12
	maxCardDigits     = 19
	minPersonalDigits = 6
	maxPersonalDigits = 32
	personalSeps      = " -./()+" // what may group the digits of a form's number
	cardSeparators    = `[\s.\-\x{00A0}\x{2007}\x{2009}\x{202F}\x{2010}-\x{2015}\x{2212}]{0,3}`
	// The bounds of a header shown: fields, bytes a value, bytes in all.
	maxHeaderFields = 64
	maxHeaderValue  = 1 << 10
	maxHeaderBytes  = 16 << 10
	// maxDetail bounds an answer's detail in an error: a host, a JSON path.
	maxDetail = 200
)

// redactor takes secrets out of every text a server controls before an
// error, a log record, a hook or a Response shows it (see Redaction in
// the package doc). The zero redactor takes out what looks like a token.
type redactor struct {
	secrets []string         // each at least minSecret bytes, longest first
	marks   []string         // what each secret reads as instead
	short   []string         // shorter ones, taken out only where they stand alone
	cards   []*regexp.Regexp // the numbers looked for however grouped
}

// add looks for secret, shown as mark instead.
func (r *redactor) add(secret, mark string) {
	if len(secret) < minSecret || slices.Contains(r.secrets, secret) {
		return
	}
	// Longest first: a secret that contains another is replaced whole.
	i := len(r.secrets)
	for i > 0 && len(r.secrets[i-1]) < len(secret) {
		i--
	}
	r.secrets = slices.Insert(r.secrets, i, secret)
	r.marks = slices.Insert(r.marks, i, mark)
}

// digitsOf returns v's digits, or "" if it holds more than digits and seps.
func digitsOf(v, seps string) string {
	if strings.Trim(v, "0123456789"+seps) != "" {
		return "" // a character that is neither
	}
	return strings.Map(func(c rune) rune {
		if strings.ContainsRune(seps, c) {
			return -1
		}
		return c
	}, v)
}

// addNumber looks for min to max digits d, however grouped.
func (r *redactor) addNumber(d string, min, max int) {
	if len(d) < min || len(d) > max {
		return
	}
	pattern := strings.Join(strings.Split(d, ""), cardSeparators)
	if !slices.ContainsFunc(r.cards, func(c *regexp.Regexp) bool { return c.String() == pattern }) {
		r.cards = append(r.cards, regexp.MustCompile(pattern))
	}
}

// addSensitive looks for a body's secret: a card number, a CVC, a password.
func (r *redactor) addSensitive(secret string) {
	r.addNumber(digitsOf(secret, " -."), minCardDigits, maxCardDigits)
	r.addValue(secret, minShortSecret)
}

// addPersonal looks for a value of a body's form.
func (r *redactor) addPersonal(v string) {
	r.addNumber(digitsOf(v, personalSeps), minPersonalDigits, maxPersonalDigits)
	r.addValue(v, minPersonal)
}

// addValue looks for v wherever it occurs or, shorter than minSecret, where
// it stands alone if it has short bytes or more.
func (r *redactor) addValue(v string, short int) {
	switch {
	case len(v) >= minSecret:
		r.add(v, redactedText)
	case len(v) >= short && !slices.Contains(r.short, v):
		r.short = append(r.short, v)
	}
}

// addCallValue looks for a value of CallRedact as a body's secret and a
// form's value.
func (r *redactor) addCallValue(v string) {
	r.addPersonal(v)
	r.addSensitive(v)
}

// addBodyValues adds each of values with add, as given and JSON-escaped.
func (r *redactor) addBodyValues(values []string, add func(*redactor, string)) {
	for _, v := range values {
		add(r, v)
		if enc, _ := json.Marshal(v); len(enc) > 2 && string(enc[1:len(enc)-1]) != v {
			add(r, string(enc[1:len(enc)-1]))
		}
	}
}

// formValues returns every string and long number in a form's JSON.
func formValues(form any) []string {
	var out []string
	walkForm(form, func(v any) any {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case json.Number:
			if d := digitsOf(string(v), personalSeps); len(d) >= minPersonalDigits && len(d) <= maxPersonalDigits {
				out = append(out, string(v))
			}
		}
		return v
	})
	return out
}

// redactedForm returns a form as its JSON carries it, its strings and
// numbers (or, when it does not encode, all of it) "[redacted]".
func redactedForm(form any) any {
	v, ok := walkForm(form, func(v any) any {
		switch v.(type) {
		case string, json.Number:
			return redactedText
		}
		return v
	})
	if !ok {
		return redactedText
	}
	return v
}

// walkForm returns form as its JSON decodes, each value that is not an
// object or an array replaced by leaf's; false when form does not encode.
func walkForm(form any, leaf func(any) any) (any, bool) {
	var v any
	if b, err := json.Marshal(form); err != nil || decodeNumbers(b, &v) != nil {
		return nil, false
	}
	var walk func(any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				v[k] = walk(e)
			}
			return v
		case []any:
			for i, e := range v {
				v[i] = walk(e)
			}
			return v
		}
		return leaf(v)
	}
	return walk(v), true
}

// replaceStandalone replaces each standalone secret in s with mark.
func replaceStandalone(s, secret, mark string) string {
	var b strings.Builder
	from := 0
	for i := 0; ; {
		j := strings.Index(s[i:], secret)
		if j < 0 {
			break
		}
		at, end := i+j, i+j+len(secret)
		if (at == 0 || !isAlnum(s[at-1])) && (end == len(s) || !isAlnum(s[end])) {
			b.WriteString(s[from:at])
			b.WriteString(mark)
			from = end
		}
		i = at + 1
	}
	b.WriteString(s[from:])
	return b.String()
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// addToken looks for a token the call sent and for each of its parts.
func (r *redactor) addToken(authorization string) {
	tok := strings.TrimSpace(authorization)
	if len(tok) >= 7 && strings.EqualFold(tok[:7], "bearer ") {
		tok = strings.TrimSpace(tok[7:])
	}
	r.add(tok, "[redacted]")
	for _, part := range strings.Split(tok, ".") {
		r.add(part, "[redacted]")
	}
}

// addQuery looks for a query string and its values, as sent and decoded.
func (r *redactor) addQuery(q string) {
	r.add(q, "[query]")
	if dec, err := url.QueryUnescape(q); err == nil {
		r.add(dec, "[query]")
	}
	vals, _ := url.ParseQuery(q)
	for _, vs := range vals {
		for _, v := range vs {
			r.add(v, "[query]")
			r.add(url.QueryEscape(v), "[query]")
		}
	}
}

// redact returns s with every secret of r, anything shaped like a token,
// and invalid UTF-8 (where a cut secret could hide) replaced.
func (r *redactor) redact(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.Contains(s, "eyJ") {
		s = tokenLike.ReplaceAllString(s, "[redacted]")
	}
	if r != nil {
		// Grouped numbers first, before a shorter secret takes a group.
		for _, card := range r.cards {
			s = card.ReplaceAllString(s, redactedText)
		}
		for i, secret := range r.secrets {
			s = strings.ReplaceAll(s, secret, r.marks[i])
		}
		for _, secret := range r.short {
			if strings.Contains(s, secret) {
				s = replaceStandalone(s, secret, redactedText)
			}
		}
	}
	return s
}

// clean is s redacted, then cut to at most n bytes (plus the mark of the
// cut): redacting first leaves no part of a secret behind.
func (r *redactor) clean(s string, n int) string {
	return truncate(r.redact(s), n)
}

// cleanBytes is clean for a body, cut on a rune boundary and unmarked.
func (r *redactor) cleanBytes(b []byte, n int) []byte {
	if len(b) == 0 {
		return nil
	}
	s := r.redact(string(b))
	if len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n]
	}
	return []byte(s)
}

// cleanHeader returns a copy of h without the secretHeaders, redacted and
// bounded, in the order of the sorted names. Nil for nil.
func (r *redactor) cleanHeader(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, min(len(h), maxHeaderFields))
	fields, size := 0, 0
	for _, k := range sortedKeys(h) {
		if secretHeaders[http.CanonicalHeaderKey(k)] {
			continue
		}
		name := r.clean(k, maxDetail)
		for _, v := range h[k] {
			v = r.clean(v, maxHeaderValue)
			if fields == maxHeaderFields || size+len(name)+len(v) > maxHeaderBytes {
				return out
			}
			out[name] = append(out[name], v)
			fields++
			size += len(name) + len(v)
		}
	}
	return out
}

// secretHeaders carry credentials or session state.
var secretHeaders = map[string]bool{"Authorization": true, "Proxy-Authorization": true, "Set-Cookie": true, "Cookie": true,
	"Www-Authenticate": true, "Proxy-Authenticate": true}
