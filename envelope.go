package acctadmin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
)

// The envelope every JSON answer comes in, its decoding into a typed
// result, and the *DecodeError that names the endpoint and the JSON path of
// a field that could not be read. The values inside records (times, dates,
// amounts, turnarounds) are read by their own types in values.go.

// envelope is the API's response wrapper: {"success", "timestamp",
// "result"}. The timestamp is not read: the SDK never uses it, and a shape
// of it the SDK does not know must not fail a good answer. The success
// flag is JSON true/false or the strings "true"/"false"; decodeEnvelope
// reads it.
type envelope[T any] struct {
	Success json.RawMessage `json:"success"`
	Result  T               `json:"result"`
}

// errNotEnvelope says that a JSON body is not {"success", "result"}.
var errNotEnvelope = errors.New("answer is not the API's envelope (no success field)")

// decodeEnvelope is decodeEnvelopeInto without the null flag.
func decodeEnvelope[T any](endpoint string, body []byte, out *T) (success bool, err error) {
	success, _, err = decodeEnvelopeInto(endpoint, body, out)
	return success, err
}

// envelopeDecoder is a result that reads its envelope itself.
type envelopeDecoder interface {
	decodeEnvelope(endpoint string, body []byte) (success bool, err error)
}

// decodeEnvelopeInto reads the API envelope in body and reports its
// success flag; endpoint names the request in errors. The result is
// decoded into *out as it stands, as encoding/json does (a slice's
// backing array is written over; pass a zero value for a fresh result),
// unless *out reads its envelope itself (envelopeDecoder). null reports
// that the result was JSON null (*out is then left as it was).
func decodeEnvelopeInto[T any](endpoint string, body []byte, out *T) (success, null bool, err error) {
	if d, ok := any(out).(envelopeDecoder); ok {
		success, err = d.decodeEnvelope(endpoint, body)
		return success, false, err
	}
	env := envelope[*T]{Result: out}
	if err := json.Unmarshal(body, &env); err != nil {
		return false, false, decodeFailure(endpoint, body, reflect.TypeOf(env), err)
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

// decodeFailure turns an encoding/json error into a *DecodeError that
// names the JSON path of the bad field. encoding/json does not report the
// path of errors raised inside custom decoders, nor array indexes, so on
// this (rare) path the body is walked once more, field by field, against
// the target type.
func decodeFailure(endpoint string, body []byte, t reflect.Type, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return &DecodeError{Endpoint: endpoint, Err: fmt.Errorf("answer is not valid JSON (offset %d)", syn.Offset)}
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return &DecodeError{Endpoint: endpoint, Err: errNotEnvelope}
	}
	path, cause := locate(trimmed, t, "", 0)
	if cause == nil {
		path, cause = "", err
	}
	var ute *json.UnmarshalTypeError
	if errors.As(cause, &ute) {
		cause = errors.New(typeErrorText(ute))
	}
	return &DecodeError{Endpoint: endpoint, Path: path, Err: cause}
}

var (
	unmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
	timeType        = reflect.TypeOf(time.Time{})
	wireTimeType    = reflect.TypeOf(Time{})
)

// locate finds the first value in data that cannot be decoded into t and
// returns its JSON path and error; a nil error means it found none.
func locate(data []byte, t reflect.Type, path string, depth int) (string, error) {
	if depth > 64 {
		return "", nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == timeType {
		// A record's time.Time is read by Time, through its wire type.
		t = wireTimeType
	}
	if string(data) == "null" {
		return "", nil
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) || t.Kind() != reflect.Struct && t.Kind() != reflect.Slice && t.Kind() != reflect.Map {
		err := json.Unmarshal(data, reflect.New(t).Interface())
		if err == nil {
			return "", nil
		}
		// A record with its own decoder: look for the field at fault
		// inside it before blaming the record as a whole.
		if t.Kind() == reflect.Struct && len(data) > 0 && data[0] == '{' {
			if p, ferr := locateFields(data, t, path, depth); ferr != nil && p != path {
				return p, ferr
			}
		}
		return path, err
	}
	switch t.Kind() {
	case reflect.Struct:
		return locateFields(data, t, path, depth)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "", nil
		}
		var a []json.RawMessage
		if err := json.Unmarshal(data, &a); err != nil {
			return path, fmt.Errorf("want a JSON array, got %s", describe(data))
		}
		for i, raw := range a {
			if p, err := locate(raw, t.Elem(), fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
				return p, err
			}
		}
	case reflect.Map:
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			return path, fmt.Errorf("want a JSON object, got %s", describe(data))
		}
		for key, raw := range m {
			if p, err := locate(raw, t.Elem(), joinPath(path, key), depth+1); err != nil {
				return p, err
			}
		}
	}
	return "", nil
}

// locateFields runs locate over the fields of the JSON object data,
// decoded as struct type t.
func locateFields(data []byte, t reflect.Type, path string, depth int) (string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return path, fmt.Errorf("want a JSON object, got %s", describe(data))
	}
	fields := jsonFields(t)
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	sort.Strings(keys) // the same answer names the same field every time
	for _, key := range keys {
		ft, ok := fields[strings.ToLower(key)]
		if !ok {
			continue
		}
		if p, err := locate(m[key], ft, joinPath(path, key), depth+1); err != nil {
			return p, err
		}
	}
	return "", nil
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
	var walk func(t reflect.Type, depth int)
	walk = func(t reflect.Type, depth int) {
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
			walk(e, depth+1)
		}
	}
	walk(t, 0)
	return out
}

// recordsOrOne is the result of a route whose answer is not documented and
// may be a list of records, one record, or something else: a list is
// read as it is, an object as a list of that one record, and anything
// else (null, true, a message) as no records.
type recordsOrOne[R any] []R

func (a *recordsOrOne[R]) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	*a = nil
	if len(data) == 0 {
		return nil
	}
	switch data[0] {
	case '[':
		var list []R
		if err := json.Unmarshal(data, &list); err != nil {
			return err
		}
		*a = list
	case '{':
		var r R
		if err := json.Unmarshal(data, &r); err != nil {
			return err
		}
		*a = []R{r}
	}
	return nil
}

// withTop is a result T read together with fields the envelope carries
// beside "result", decoded into X: checkout's invoice_ids sit there.
type withTop[T, X any] struct {
	result T
	top    X
}

func (w *withTop[T, X]) decodeEnvelope(endpoint string, body []byte) (bool, error) {
	success, _, err := decodeEnvelopeInto(endpoint, body, &w.result)
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(body, &w.top); err != nil {
		return false, decodeFailure(endpoint, body, reflect.TypeOf(w.top), err)
	}
	return success, nil
}
