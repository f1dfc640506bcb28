package acctadmin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

var errNotEnvelope = errors.New("answer is not the API's envelope (no success field)")

// envelopeFailure is the error of a success flag missing, null or not a
// boolean.
func envelopeFailure(endpoint string, success json.RawMessage) error {
	switch string(success) {
	case "", "null":
		return &DecodeError{Endpoint: endpoint, Err: errNotEnvelope}
	}
	return &DecodeError{Endpoint: endpoint, Path: "success", Err: fmt.Errorf("want a boolean, got %s", describe(success))}
}

// resultFailure is the *DecodeError of an envelope whose result, read
// into out, failed with err.
func resultFailure(endpoint string, body []byte, out any, err error) error {
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(body, &env) != nil || len(env.Result) == 0 {
		return decodeFailure(endpoint, body, reflect.TypeOf(env), "", err)
	}
	return decodeFailure(endpoint, bytes.TrimSpace(env.Result), reflect.TypeOf(out), "result", err)
}

// decodeFailure is the *DecodeError of data (at path in the answer), read
// as a t with the error err. It names the JSON path of the bad field,
// which encoding/json does not report inside custom decoders nor in
// lists.
func decodeFailure(endpoint string, data []byte, t reflect.Type, path string, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return &DecodeError{Endpoint: endpoint, Err: fmt.Errorf("answer is not valid JSON (offset %d)", syn.Offset)}
	}
	if data = bytes.TrimSpace(data); path == "" && (len(data) == 0 || data[0] != '{') {
		return &DecodeError{Endpoint: endpoint, Err: errNotEnvelope}
	}
	path, cause := locateIn(data, t, path, err, 0)
	var ute *json.UnmarshalTypeError
	if errors.As(cause, &ute) {
		cause = errors.New(typeErrorText(ute))
	}
	return &DecodeError{Endpoint: endpoint, Path: path, Err: cause}
}

// locateIn returns the JSON path and the error of the value at fault in
// data, which reads as a t with the error err: the first item of a list,
// or field of an object, that fails, looked into. A value with a decoder
// of its own and no fields (an amount, a time) is judged whole.
func locateIn(data []byte, t reflect.Type, path string, err error, depth int) (string, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	kind := t.Kind()
	if depth > 64 || len(data) == 0 || kind != reflect.Struct && reflect.PointerTo(t).Implements(unmarshalerType) {
		return path, err
	}
	switch {
	case kind == reflect.Slice && data[0] == '[':
		var items []json.RawMessage
		_ = json.Unmarshal(data, &items)
		for i, item := range items {
			if ierr := json.Unmarshal(item, reflect.New(t.Elem()).Interface()); ierr != nil {
				return locateIn(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i), ierr, depth+1)
			}
		}
	case kind == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		return path, fmt.Errorf("want a JSON array, got %s", describe(data))
	case data[0] == '{':
		if p, inner := locateField(data, t, path, depth); inner != nil {
			return p, inner
		}
	}
	return path, err
}

// locateField reads each field of data alone into t, a struct or a map,
// in sorted order, so that a record's own decoder judges it, and looks
// into the first that fails when the field's own type fails alike.
func locateField(data []byte, t reflect.Type, path string, depth int) (string, error) {
	types := jsonFields(t)
	if t.Kind() != reflect.Map && len(types) == 0 {
		return "", nil
	}
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(data, &fields)
	for _, key := range sortedKeys(fields) {
		alone, _ := json.Marshal(map[string]json.RawMessage{key: fields[key]})
		err := json.Unmarshal(alone, reflect.New(t).Interface())
		if err == nil {
			continue
		}
		ft, ok := types[strings.ToLower(key)]
		if t.Kind() == reflect.Map {
			ft, ok = t.Elem(), true
		}
		if ok && sameError(json.Unmarshal(fields[key], reflect.New(ft).Interface()), err) {
			return locateIn(fields[key], ft, joinPath(path, key), err, depth+1)
		}
		return joinPath(path, key), err
	}
	return "", nil
}

var unmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

// sortedKeys returns the keys of an object in order: the same answer
// names the same field every time.
func sortedKeys[V any](fields map[string]V) []string {
	keys := make([]string, 0, len(fields))
	for key := range fields {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}

// sameError reports whether a and b are the same failure (encoding/json's
// text of a refusal also names where).
func sameError(a, b error) bool {
	var ua, ub *json.UnmarshalTypeError
	if errors.As(a, &ua) && errors.As(b, &ub) {
		return ua.Value == ub.Value && ua.Type == ub.Type
	}
	return a == nil && b == nil || a != nil && b != nil && a.Error() == b.Error()
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// jsonFields maps the lower-cased JSON name of every field of struct type
// t to its type; an embedded struct (Time's time.Time) is none.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; t.Kind() == reflect.Struct && i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		if _, taken := out[strings.ToLower(name)]; f.IsExported() && !f.Anonymous && name != "-" && !taken {
			out[strings.ToLower(name)] = f.Type
		}
	}
	return out
}

// decodeJSON reads data into *v; an error is a *DecodeError.
func decodeJSON[T any](endpoint string, data []byte, v *T) error {
	if err := json.Unmarshal(data, v); err != nil {
		return decodeFailure(endpoint, data, reflect.TypeOf(v), "", err)
	}
	return nil
}

// ignored decodes any JSON value and keeps nothing.
type ignored struct{}

func (*ignored) UnmarshalJSON([]byte) error { return nil }
