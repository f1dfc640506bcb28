// Package strictjson reads the JSON objects inside callback tokens more
// strictly than encoding/json: one object and nothing after it, bounded
// nesting, and no key repeated in any object. encoding/json keeps the last
// of two equal keys while other parsers keep the first, so the same bytes
// could otherwise mean two different events.
//
// Decode is the package's only entry point. It reads plain JSON (the
// claims tokens carry in practice) in one pass, and falls back to a walk
// with encoding/json's tokenizer for anything its fast path is not certain
// to read exactly as encoding/json does.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// maxDepth caps the nesting of the JSON inside a token. Event claims are
// at most two levels deep.
const maxDepth = 32

// Decode decodes b, which must hold exactly one JSON object, surrounded by
// nothing but whitespace, nested at most 32 deep, whose objects (at every
// depth) have unique keys. It returns what encoding/json would: a
// map[string]any, numbers as json.Number, arrays as []any. The errors it
// returns never quote b.
func Decode(b []byte) (map[string]any, error) {
	if m, ok := decodePlainObject(b); ok {
		return m, nil
	}
	return decodeChecked(b)
}

// decodeChecked is Decode without its fast path: checkObject, then
// encoding/json with numbers as json.Number.
func decodeChecked(b []byte) (map[string]any, error) {
	if err := checkObject(b); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, errNotJSON
	}
	return m, nil
}

var (
	errNotJSON      = errors.New("not valid JSON")
	errNotObject    = errors.New("not a JSON object")
	errDuplicateKey = errors.New("duplicate key in a JSON object")
	errTooDeep      = errors.New("JSON nested too deeply")
	errTrailing     = errors.New("data after the JSON object")
)

// jsonFrame is one open object or array during checkObject's walk.
type jsonFrame struct {
	keys    map[string]struct{} // nil for an array
	wantKey bool                // the next token in this object is a key or '}'
}

// checkObject walks b with a json.Decoder token by token: b must hold one
// JSON object and nothing after it, nested at most maxDepth deep, and
// no object may repeat a key. encoding/json would otherwise keep the last
// of two equal keys while other parsers keep the first, so the same bytes
// could mean two different events.
func checkObject(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return errNotJSON
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return errNotObject
	}
	stack := []jsonFrame{{keys: map[string]struct{}{}, wantKey: true}}
	for len(stack) > 0 {
		tok, err := dec.Token()
		if err != nil {
			return errNotJSON
		}
		top := &stack[len(stack)-1]
		if top.keys != nil && top.wantKey {
			if key, ok := tok.(string); ok {
				if _, dup := top.keys[key]; dup {
					return errDuplicateKey
				}
				top.keys[key] = struct{}{}
				top.wantKey = false
				continue
			}
			// Otherwise tok is the closing '}', handled below; the
			// decoder refuses anything else in key position.
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if len(stack) == maxDepth {
				return errTooDeep
			}
			f := jsonFrame{}
			if tok == json.Delim('{') {
				f = jsonFrame{keys: map[string]struct{}{}, wantKey: true}
			}
			stack = append(stack, f)
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended: a scalar, or the object or array just closed.
		if len(stack) > 0 && stack[len(stack)-1].keys != nil {
			stack[len(stack)-1].wantKey = true
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return errTrailing
	}
	return nil
}

// decodePlainObject is the fast path of Decode for the JSON that
// tokens carry in practice. It reads b once and returns what encoding/json
// would (a map[string]any, numbers as json.Number, arrays as []any), when b
// is one JSON object, surrounded by nothing but whitespace, nested at most
// maxDepth deep, with no key repeated in any object, and all its keys
// plain (see plainScanner.str).
//
// ok false means only "not certain": the caller then runs checkObject and
// encoding/json, which decide (and say why). To stay on the safe side it
// gives up on whatever it would not decode exactly as encoding/json does:
// a key with an escape or a non-ASCII byte (encoding/json decodes those
// before comparing them), and any input that is not valid JSON. Strings
// with escapes or non-ASCII bytes are decoded by encoding/json itself.
func decodePlainObject(b []byte) (m map[string]any, ok bool) {
	s := plainScanner{b: b}
	s.skipSpace()
	if s.i >= len(b) || b[s.i] != '{' {
		return nil, false
	}
	m, ok = s.object(1)
	if !ok {
		return nil, false
	}
	s.skipSpace()
	return m, s.i == len(b)
}

type plainScanner struct {
	b []byte
	i int
}

func (s *plainScanner) skipSpace() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value reads the JSON value at s.i, inside depth open objects and arrays.
func (s *plainScanner) value(depth int) (any, bool) {
	if s.i >= len(s.b) {
		return nil, false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		if depth >= maxDepth {
			return nil, false
		}
		return s.object(depth + 1)
	case c == '[':
		if depth >= maxDepth {
			return nil, false
		}
		return s.array(depth + 1)
	case c == '"':
		start := s.i
		plain, ok := s.str()
		if !ok {
			return nil, false
		}
		if plain {
			return string(s.b[start+1 : s.i-1]), true
		}
		var v string
		if json.Unmarshal(s.b[start:s.i], &v) != nil {
			return nil, false
		}
		return v, true
	case c == '-' || '0' <= c && c <= '9':
		start := s.i
		if !s.number() {
			return nil, false
		}
		return json.Number(s.b[start:s.i]), true
	case c == 't':
		return true, s.literal("true")
	case c == 'f':
		return false, s.literal("false")
	case c == 'n':
		return nil, s.literal("null")
	}
	return nil, false
}

// object reads the object at s.i, the depth-th open object or array.
func (s *plainScanner) object(depth int) (map[string]any, bool) {
	s.i++ // '{'
	m := make(map[string]any)
	s.skipSpace()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return m, true
	}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return nil, false
		}
		start := s.i + 1
		plain, ok := s.str()
		if !ok || !plain {
			return nil, false
		}
		key := s.b[start : s.i-1]
		if _, dup := m[string(key)]; dup {
			return nil, false
		}
		s.skipSpace()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return nil, false
		}
		s.i++
		s.skipSpace()
		v, ok := s.value(depth)
		if !ok {
			return nil, false
		}
		m[string(key)] = v
		s.skipSpace()
		if s.i >= len(s.b) {
			return nil, false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.skipSpace()
		case '}':
			s.i++
			return m, true
		default:
			return nil, false
		}
	}
}

// array reads the array at s.i, the depth-th open object or array.
func (s *plainScanner) array(depth int) ([]any, bool) {
	s.i++ // '['
	a := []any{}
	s.skipSpace()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return a, true
	}
	for {
		v, ok := s.value(depth)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		s.skipSpace()
		if s.i >= len(s.b) {
			return nil, false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.skipSpace()
		case ']':
			s.i++
			return a, true
		default:
			return nil, false
		}
	}
}

// str reads a string literal. It reports whether it is valid JSON, and
// whether it is plain: printable ASCII without escapes, so that its bytes
// are its value.
func (s *plainScanner) str() (plain, ok bool) {
	s.i++ // opening quote
	plain = true
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return plain, true
		case c < 0x20:
			return false, false
		case c == '\\':
			plain = false
			if s.i+1 >= len(s.b) {
				return false, false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					return false, false
				}
				for _, h := range s.b[s.i+2 : s.i+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false, false
					}
				}
				s.i += 6
			default:
				return false, false
			}
		default:
			if c >= 0x80 {
				plain = false
			}
			s.i++
		}
	}
	return false, false
}

// number reads a number in JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *plainScanner) number() bool {
	if s.b[s.i] == '-' {
		s.i++
	}
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '0':
		s.i++
	case '1' <= c && c <= '9':
		s.digits()
	default:
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *plainScanner) digits() int {
	n := 0
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

func (s *plainScanner) literal(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}
