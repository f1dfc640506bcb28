package acctadmin

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// tokenLike matches a bearer token as a server may echo it into a message
// ("invalid token eyJ…"): a JWT, whole or cut short, with or without the
// Bearer scheme. Messages are shown by Error, and so end up in logs.
var tokenLike = regexp.MustCompile(`(?i:bearer\s+)?eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*)?`)

// Redaction and bounds. Every text a server controls (a message, a
// header, a Location, a field it got wrong) passes through one redactor
// before an error, a log record, a hook or a Response shows it, and is
// then cut to a bound. The redactor knows the call's secrets: the keys
// the client was built with, every token it sent, the parts of those
// tokens, and the query string, as sent and decoded.

const (
	// minSecret is the shortest secret the redactor looks for: a shorter
	// one would match ordinary text and cannot identify anything.
	minSecret = 6
	// minShortSecret is the shortest value of a request body's secrets
	// that the redactor looks for where it stands alone (see
	// redactor.short): a 3-digit CVC.
	minShortSecret = 3
	// maxHeaderFields bounds the header fields an error or a Response
	// keeps; maxHeaderValue bounds each value (cut, marked "…"), and
	// maxHeaderBytes all of them together.
	maxHeaderFields = 64
	maxHeaderValue  = 1 << 10
	maxHeaderBytes  = 16 << 10
	// maxDetail bounds a detail taken from an answer into an error text:
	// a redirect's host, a JSON path.
	maxDetail = 200
)

// redactor takes secrets out of texts. The zero redactor still takes out
// anything shaped like a token.
type redactor struct {
	secrets []string // each at least minSecret bytes, longest first
	marks   []string // what each secret reads as instead
	// short are secrets a request body carried that are shorter than
	// minSecret (a CVC): they are taken out only where they stand alone,
	// between characters that are not letters or digits, as "cvc 987" or
	// "cvc":"987", and left inside longer words and numbers ("9870").
	short []string
	// cards match the card numbers, and the numbers of a form (see
	// addPersonal), a request body carried however they are grouped (see
	// cardPattern); cardDigits are their digits.
	cards      []*regexp.Regexp
	cardDigits []string
}

// Card numbers. A server may echo a card number the call sent grouped as
// people write it, "4111-1111-1111-1111", "3782 822463 10005": a value a
// request body carried that is 12 to 19 digits, written with or without
// separators, is taken out with any split of its digits, up to three
// separators between two digits.
const (
	minCardDigits = 12
	maxCardDigits = 19
	// cardSeparators are what may stand between the groups of a card
	// number: white space (a no-break or thin space too), hyphens and
	// dashes, and dots.
	cardSeparators = `[\s.\-\x{00A0}\x{2007}\x{2009}\x{202F}\x{2010}-\x{2015}\x{2212}]{0,3}`
)

// cardNumber returns the digits of secret when it is written as a card
// number: 12 to 19 digits, possibly grouped by cardSeparators.
func cardNumber(secret string) (string, bool) {
	var b strings.Builder
	for _, c := range secret {
		switch {
		case '0' <= c && c <= '9':
			b.WriteRune(c)
		case c == ' ' || c == '-' || c == '.':
		default:
			return "", false
		}
	}
	d := b.String()
	return d, len(d) >= minCardDigits && len(d) <= maxCardDigits
}

// cardPattern matches digits however they are grouped.
func cardPattern(digits string) *regexp.Regexp {
	var b strings.Builder
	for i := 0; i < len(digits); i++ {
		if i > 0 {
			b.WriteString(cardSeparators)
		}
		b.WriteByte(digits[i])
	}
	return regexp.MustCompile(b.String())
}

// add makes the redactor look for secret, shown as mark instead.
func (r *redactor) add(secret, mark string) {
	if len(secret) < minSecret {
		return
	}
	for _, s := range r.secrets {
		if s == secret {
			return
		}
	}
	// Longest first: a secret that contains another is replaced whole.
	i := len(r.secrets)
	for i > 0 && len(r.secrets[i-1]) < len(secret) {
		i--
	}
	r.secrets = append(r.secrets[:i], append([]string{secret}, r.secrets[i:]...)...)
	r.marks = append(r.marks[:i], append([]string{mark}, r.marks[i:]...)...)
}

// addSensitive makes the redactor look for a value a request body
// carried that no message may show (a card number, a CVC, a password),
// however short.
func (r *redactor) addSensitive(secret string) {
	if d, ok := cardNumber(secret); ok && !slices.Contains(r.cardDigits, d) {
		r.cardDigits = append(r.cardDigits, d)
		r.cards = append(r.cards, cardPattern(d))
	}
	if len(secret) >= minSecret {
		r.add(secret, redactedText)
		return
	}
	if len(secret) < minShortSecret || slices.Contains(r.short, secret) {
		return
	}
	r.short = append(r.short, secret)
}

// Personal data. The values of a form a request body carried (the
// FormData of OrderItemFormDataParams and CartAddParams: an SSN, a date
// of birth, a name) are taken out of every text an answer echoes them
// into, as secrets are: a value of minSecret bytes or more wherever it
// occurs, one of minPersonal to minSecret-1 bytes where it stands alone
// (see redactor.short), and a number (digits and the separators people
// write in one: "123-45-6789", "(801) 555-0100", "1990-01-31") of
// minPersonalDigits to maxPersonalDigits digits however its digits are
// grouped, as card numbers are ("123456789", "123 45 6789"). Shorter
// values ("CA", "no", "12") are not looked for: they would take words
// and numbers out of every message and identify no one.
const (
	minPersonal       = 4
	minPersonalDigits = 6
	maxPersonalDigits = 32
)

// personalNumber returns the digits of v when v is written as a number:
// minPersonalDigits to maxPersonalDigits digits, possibly grouped by
// spaces, hyphens, dots, slashes or parentheses, or led by a plus.
func personalNumber(v string) (string, bool) {
	var b strings.Builder
	for _, c := range v {
		switch {
		case '0' <= c && c <= '9':
			b.WriteRune(c)
		case strings.ContainsRune(" -./()+", c):
		default:
			return "", false
		}
	}
	d := b.String()
	return d, len(d) >= minPersonalDigits && len(d) <= maxPersonalDigits
}

// addPersonal makes the redactor look for a value of a form a request
// body carried (see minPersonal).
func (r *redactor) addPersonal(v string) {
	if d, ok := personalNumber(v); ok && !slices.Contains(r.cardDigits, d) {
		r.cardDigits = append(r.cardDigits, d)
		r.cards = append(r.cards, cardPattern(d))
	}
	switch {
	case len(v) >= minSecret:
		r.add(v, redactedText)
	case len(v) >= minPersonal && !slices.Contains(r.short, v):
		r.short = append(r.short, v)
	}
}

// addCallValue makes the redactor look for a value of CallRedact: as a
// secret a request body carried (see addSensitive) and, when it is
// written as a number, however its digits are grouped (see addPersonal).
func (r *redactor) addCallValue(v string) {
	r.addPersonal(v)
	r.addSensitive(v)
}

// addBodyValues makes the redactor look for each of values with add,
// both as given and as a JSON body carried it, for a server that echoes
// JSON.
func (r *redactor) addBodyValues(values []string, add func(*redactor, string)) {
	for _, v := range values {
		add(r, v)
		if enc, _ := json.Marshal(v); len(enc) > 2 && string(enc[1:len(enc)-1]) != v {
			add(r, string(enc[1:len(enc)-1]))
		}
	}
}

// formValues returns the values of a form as its JSON carries them: every
// string, and every number of minPersonalDigits digits or more, at any
// depth of objects and arrays. Nil when form does not encode.
func formValues(form any) []string {
	var out []string
	walkForm(form, func(v any) any {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case json.Number:
			if _, ok := personalNumber(string(v)); ok {
				out = append(out, string(v))
			}
		}
		return v
	})
	return out
}

// redactedForm returns a copy of a form, as its JSON carries it, whose
// strings and numbers read "[redacted]"; keys, booleans and nulls are
// kept. A form that does not encode reads "[redacted]" whole.
func redactedForm(form any) any {
	if form == nil {
		return nil
	}
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

// walkForm encodes form as JSON, decodes it again (numbers as
// json.Number) and returns it with each value that is not an object or
// an array replaced by what leaf makes of it; false when form does not
// encode.
func walkForm(form any, leaf func(any) any) (any, bool) {
	b, err := json.Marshal(form)
	if err != nil {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
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

// replaceStandalone replaces each occurrence of secret in s that stands
// alone (see redactor.short) with mark.
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
	if from == 0 {
		return s
	}
	b.WriteString(s[from:])
	return b.String()
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// addToken makes the redactor look for a bearer token the call sent, and
// for each of its parts (a server may echo only the signature).
func (r *redactor) addToken(authorization string) {
	tok := strings.TrimSpace(authorization)
	if t, ok := cutPrefixFold(tok, "bearer "); ok {
		tok = strings.TrimSpace(t)
	}
	r.add(tok, "[redacted]")
	for _, part := range strings.Split(tok, ".") {
		r.add(part, "[redacted]")
	}
}

// addQuery makes the redactor look for a query string, as sent and as a
// server may have decoded it.
func (r *redactor) addQuery(q string) {
	if q == "" {
		return
	}
	r.add(q, "[query]")
	if dec, err := url.QueryUnescape(q); err == nil {
		r.add(dec, "[query]")
	}
	// Each value too, as sent and decoded: a server may echo one alone.
	vals, _ := url.ParseQuery(q)
	for _, vs := range vals {
		for _, v := range vs {
			r.add(v, "[query]")
			r.add(url.QueryEscape(v), "[query]")
		}
	}
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// redact returns s with every secret of r, and anything shaped like a
// token, replaced; invalid UTF-8 is replaced too, so that a cut secret
// cannot hide in it.
func (r *redactor) redact(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	// Tokens first, so that "Bearer eyJ…" goes as a whole.
	if strings.Contains(s, "eyJ") {
		s = tokenLike.ReplaceAllString(s, "[redacted]")
	}
	if r != nil {
		// Card numbers first, so that a grouped one goes as a whole
		// before a shorter secret takes a group of it.
		for _, card := range r.cards {
			s = card.ReplaceAllString(s, redactedText)
		}
		for i, secret := range r.secrets {
			if strings.Contains(s, secret) {
				s = strings.ReplaceAll(s, secret, r.marks[i])
			}
		}
		for _, secret := range r.short {
			if strings.Contains(s, secret) {
				s = replaceStandalone(s, secret, redactedText)
			}
		}
	}
	return s
}

// clean is the one redaction and bound: s redacted, then cut to at most n
// bytes (plus the mark of the cut). Redacting first means a cut cannot
// leave part of a secret behind, out of reach of the patterns.
func (r *redactor) clean(s string, n int) string {
	return truncate(r.redact(s), n)
}

// cleanBytes is clean for a body: redacted, then cut to at most n bytes
// on a rune boundary (redaction may have made an invalid byte the three
// of U+FFFD), so that the body stays valid UTF-8.
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

// cleanHeader returns a copy of h without credentials and bounded: the
// headers in secretHeaders are dropped, every name and value is redacted,
// a value is cut to maxHeaderValue bytes, and at most maxHeaderFields
// values and maxHeaderBytes bytes are kept, in the order of the sorted
// names (the rest are dropped). Nil for nil.
func (r *redactor) cleanHeader(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make(http.Header, min(len(h), maxHeaderFields))
	fields, size := 0, 0
	for _, k := range names {
		if isSecretHeader(k) {
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

// secretHeaders are dropped from headers shown to callers: they carry
// credentials or session state.
var secretHeaders = []string{"Authorization", "Proxy-Authorization", "Set-Cookie", "Cookie", "Www-Authenticate", "Proxy-Authenticate"}

func isSecretHeader(name string) bool {
	for _, s := range secretHeaders {
		if strings.EqualFold(name, s) {
			return true
		}
	}
	return false
}

// The params that carry a form: the call's redactor learns the form's
// values, and the params print and marshal them redacted.
