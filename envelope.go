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

// What a decode that failed says: the *DecodeError that names the
// endpoint and the JSON path of the field at fault. Records read
// themselves with plain encoding/json (see values.go for the field types
// that read the API's shapes).

// errNotEnvelope says that a JSON body is not {"success", "result"}.
var errNotEnvelope = errors.New("answer is not the API's envelope (no success field)")

// decodeEnvelope is decodeEnvelopeInto without the null flag.
func decodeEnvelope(endpoint string, body []byte, out any) (success bool, err error) {
	success, _, err = decodeEnvelopeInto(endpoint, body, out)
	return success, err
}

// envelopeFailure is the error of an envelope whose success flag is
// missing, null or not a boolean.
func envelopeFailure(endpoint string, success json.RawMessage) error {
	switch string(success) {
	case "", "null":
		return &DecodeError{Endpoint: endpoint, Err: errNotEnvelope}
	}
	return &DecodeError{Endpoint: endpoint, Path: "success", Err: fmt.Errorf("want a boolean, got %s", describe(success))}
}

// resultFailure is decodeFailure for an envelope whose result, read into
// out, failed: the path it names starts at "result".
func resultFailure(endpoint string, body []byte, out any, err error) error {
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(body, &env) != nil || len(env.Result) == 0 {
		return decodeFailure(endpoint, body, reflect.TypeOf(env), err)
	}
	path, cause := locateIn(bytes.TrimSpace(env.Result), reflect.TypeOf(out), "result", err, 0)
	var ute *json.UnmarshalTypeError
	if errors.As(cause, &ute) {
		cause = errors.New(typeErrorText(ute))
	}
	return &DecodeError{Endpoint: endpoint, Path: path, Err: cause}
}

// decodeFailure turns an encoding/json error into a *DecodeError that
// names the JSON path of the bad field. encoding/json does not report the
// path of errors raised inside custom decoders, nor array indexes, so on
// this (rare) path locate looks for the value at fault.
func decodeFailure(endpoint string, body []byte, t reflect.Type, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return &DecodeError{Endpoint: endpoint, Err: fmt.Errorf("answer is not valid JSON (offset %d)", syn.Offset)}
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return &DecodeError{Endpoint: endpoint, Err: errNotEnvelope}
	}
	path, cause := locateIn(trimmed, t, "", err, 0)
	var ute *json.UnmarshalTypeError
	if errors.As(cause, &ute) {
		cause = errors.New(typeErrorText(ute))
	}
	return &DecodeError{Endpoint: endpoint, Path: path, Err: cause}
}

// locate finds the first value in data that cannot be decoded into t and
// returns its JSON path and error; a nil error means it found none.
func locate(data []byte, t reflect.Type, path string, depth int) (string, error) {
	err := json.Unmarshal(data, reflect.New(t).Interface())
	if err == nil {
		return "", nil
	}
	return locateIn(data, t, path, err, depth)
}

// locateIn finds the value inside data, which reads as a t with the error
// err, that is at fault, and returns its JSON path and its error. A list
// or a map with a decoder of its own is judged whole.
func locateIn(data []byte, t reflect.Type, path string, err error, depth int) (string, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	kind := t.Kind()
	if depth > 64 || len(data) == 0 || kind != reflect.Struct && reflect.PointerTo(t).Implements(unmarshalerType) {
		return path, err
	}
	var p string
	var inner error
	switch {
	case kind == reflect.Slice && data[0] == '[' || kind == reflect.Map && data[0] == '{':
		p, inner = locateItem(data, t, path, depth)
	case kind == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		return path, fmt.Errorf("want a JSON array, got %s", describe(data))
	case kind == reflect.Struct && data[0] == '{':
		p, inner = locateField(data, t, path, depth)
	}
	if inner != nil {
		return p, inner
	}
	return path, err
}

// locateItem reads each item of data, a JSON list or object read as the
// slice or map type t, alone, and looks inside the first that fails.
func locateItem(data []byte, t reflect.Type, path string, depth int) (string, error) {
	var names []string
	var items []json.RawMessage
	if t.Kind() == reflect.Slice {
		_ = json.Unmarshal(data, &items)
		for i := range items {
			names = append(names, fmt.Sprintf("%s[%d]", path, i))
		}
	} else {
		var fields map[string]json.RawMessage
		_ = json.Unmarshal(data, &fields)
		for _, key := range sortedKeys(fields) {
			names, items = append(names, joinPath(path, key)), append(items, fields[key])
		}
	}
	for i, item := range items {
		if err := json.Unmarshal(item, reflect.New(t.Elem()).Interface()); err != nil {
			return locateIn(item, t.Elem(), names[i], err, depth+1)
		}
	}
	return "", nil
}

// locateField reads each field of data, a JSON object read as the struct
// type t, alone into t, in sorted order, so that a record's own decoder
// judges it (second names and tolerant fields included), and looks inside
// the first that fails when the field's own type fails on it alike; a
// field read in a shape of the API's (a time, say) is judged whole.
func locateField(data []byte, t reflect.Type, path string, depth int) (string, error) {
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(data, &fields)
	types := jsonFields(t)
	if len(types) == 0 {
		return "", nil // a value with no fields of its own (an amount) is judged whole
	}
	for _, key := range sortedKeys(fields) {
		alone, _ := json.Marshal(map[string]json.RawMessage{key: fields[key]})
		err := json.Unmarshal(alone, reflect.New(t).Interface())
		if err == nil {
			continue
		}
		if ft, ok := types[strings.ToLower(key)]; ok && sameError(json.Unmarshal(fields[key], reflect.New(ft).Interface()), err) {
			return locateIn(fields[key], ft, joinPath(path, key), err, depth+1)
		}
		return joinPath(path, key), err
	}
	return "", nil
}

var unmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

// sortedKeys returns the keys of an object in order: the same answer
// names the same field every time.
func sortedKeys(fields map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(fields))
	for key := range fields {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}

// sameError reports whether a and b are the same failure: both nil, or
// the same text, or encoding/json's refusal of the same value for the
// same type (its text also names where).
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
// t (embedded structs promoted, shallower fields first) to its type.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		var embedded []reflect.Type
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
				embedded = append(embedded, f.Type)
				continue
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if _, taken := out[strings.ToLower(name)]; !taken {
				out[strings.ToLower(name)] = f.Type
			}
		}
		for _, e := range embedded {
			walk(e)
		}
	}
	walk(t)
	return out
}

// decodeJSON reads data into *v, as an answer's fields beside "result"
// are read; an error is a *DecodeError that names the bad field.
func decodeJSON[T any](endpoint string, data []byte, v *T) error {
	if err := json.Unmarshal(data, v); err != nil {
		return decodeFailure(endpoint, data, reflect.TypeOf(v), err)
	}
	return nil
}

// ignored decodes any JSON value and keeps nothing: the result of an
// endpoint whose answer shape is not documented.
type ignored struct{}

// UnmarshalJSON accepts any value.
func (*ignored) UnmarshalJSON([]byte) error { return nil }
