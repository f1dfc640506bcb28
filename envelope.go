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

// The envelope every JSON answer comes in, its decoding into a typed
// result, and the *DecodeError that names the endpoint and the JSON path of
// a field that could not be read. Records read themselves with plain
// encoding/json: each record type's UnmarshalJSON reads the API's shapes
// through field types that do (Time, listedID, flexInt, … in values.go).

// envelope is the API's response wrapper: {"success", "timestamp",
// "result"}, its result decoded into the pointer Result holds. The
// timestamp is not read: the SDK never uses it, and a shape of it the SDK
// does not know must not fail a good answer. The success flag is JSON
// true/false or the strings "true"/"false"; decodeEnvelope reads it.
type envelope struct {
	Success json.RawMessage `json:"success"`
	Result  any             `json:"result"`
}

// errNotEnvelope says that a JSON body is not {"success", "result"}.
var errNotEnvelope = errors.New("answer is not the API's envelope (no success field)")

// decodeEnvelope is decodeEnvelopeInto without the null flag.
func decodeEnvelope(endpoint string, body []byte, out any) (success bool, err error) {
	success, _, err = decodeEnvelopeInto(endpoint, body, out)
	return success, err
}

// envelopeDecoder is a result that reads its envelope itself: an answer
// that puts fields beside "result".
type envelopeDecoder interface {
	decodeEnvelope(endpoint string, body []byte) (success bool, err error)
}

// decodeEnvelopeInto reads the API envelope in body and reports its
// success flag; endpoint names the request in errors. The result is
// decoded into *out as it stands, as encoding/json does (a slice's
// backing array is written over; pass a zero value for a fresh result),
// unless *out reads its envelope itself (envelopeDecoder). null reports
// that the result was JSON null (*out is then left as it was).
func decodeEnvelopeInto(endpoint string, body []byte, out any) (success, null bool, err error) {
	if d, ok := out.(envelopeDecoder); ok {
		success, err = d.decodeEnvelope(endpoint, body)
		return success, false, err
	}
	env := envelope{Result: out}
	if err := json.Unmarshal(body, &env); err != nil {
		return false, false, resultFailure(endpoint, body, reflect.TypeOf(out), err)
	}
	switch string(env.Success) {
	case "true", `"true"`:
		return true, env.Result == nil, nil
	case "false", `"false"`:
		return false, env.Result == nil, nil
	case "", "null":
		return false, false, &DecodeError{Endpoint: endpoint, Err: errNotEnvelope}
	}
	return false, false, &DecodeError{Endpoint: endpoint, Path: "success", Err: fmt.Errorf("want a boolean, got %s", describe(env.Success))}
}

// resultFailure is decodeFailure for an envelope whose result, read as a
// t, failed: the path it names starts at "result".
func resultFailure(endpoint string, body []byte, t reflect.Type, err error) error {
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(body, &env) != nil || len(env.Result) == 0 {
		return decodeFailure(endpoint, body, reflect.TypeOf(env), err)
	}
	path, cause := locateIn(bytes.TrimSpace(env.Result), t, "result", err, 0)
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
func sortedKeys[V any](fields map[string]V) []string {
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

// readRecord reads data, a JSON object, into w, a record's JSON form:
// the record's own fields beside those that read the API's shapes. null
// leaves w as it is.
func readRecord(data []byte, w any) error {
	if string(data) == "null" {
		return nil
	}
	if len(data) == 0 || data[0] != '{' {
		return fmt.Errorf("want a JSON object, got %s", describe(data))
	}
	return json.Unmarshal(data, w)
}

// keepRaw returns a copy of data, for a record's Raw.
func keepRaw(data []byte) json.RawMessage {
	if string(data) == "null" {
		return nil
	}
	return append(json.RawMessage(nil), data...)
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

// listOrOne reads an answer whose shape is not documented into *list: a
// list of records as it is, one record (an object) as a list of it, and
// anything else (null, true, a message) as no records.
func listOrOne[R any](data []byte, list *[]R) error {
	*list = nil
	data = bytes.TrimSpace(data)
	switch {
	case len(data) > 0 && data[0] == '[':
		return json.Unmarshal(data, list)
	case len(data) > 0 && data[0] == '{':
		*list = make([]R, 1)
		return json.Unmarshal(data, &(*list)[0])
	}
	return nil
}

// records returns the records of a page read as their JSON forms (a type
// without UnmarshalJSON, which encoding/json fills in one pass); a null
// page is nil.
func records[J, R any](page []J, record func(*J) R) []R {
	if page == nil {
		return nil
	}
	out := make([]R, len(page))
	for i := range page {
		out[i] = record(&page[i])
	}
	return out
}
