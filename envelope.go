package acctadmin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/google/uuid"
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
	if c, ok := codecs.Load(t); ok {
		t = c.(*recordCodec).wire // a record is read as its wire type
	}
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

// ignored decodes any JSON value and keeps nothing: the result of an
// endpoint whose answer shape is not documented.
type ignored struct{}

// UnmarshalJSON accepts any value.
func (*ignored) UnmarshalJSON([]byte) error { return nil }

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

// firstRecord returns the first of the records an answer held, or nil.
func firstRecord[R any, L ~[]R](list L, err error) (*R, error) {
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return &list[0], nil
}

// companiesKey names the list of PATCH /companies's answer.
type companiesKey struct{}

func (companiesKey) key() string { return "companies" }

// unwrapped returns the object that data, an object without an "id",
// holds under key (GET /account answers {"account": {...}}); otherwise
// data itself.
func unwrapped(data []byte, key string) []byte {
	var probe map[string]json.RawMessage
	if len(data) == 0 || data[0] != '{' || json.Unmarshal(data, &probe) != nil || probe["id"] != nil {
		return data
	}
	if inner := bytes.TrimSpace(probe[key]); len(inner) > 0 && inner[0] == '{' {
		return inner
	}
	return data
}

// firstWithID returns the first of the records an answer held when it has
// an id, or nil: a status object ({"status_code": 200, "success": true},
// the real API's answer to storing a card) read as a record is no record.
func firstWithID[R any, L ~[]R](list L, err error) (*R, error) {
	r, err := firstRecord(list, err)
	if r != nil && reflect.ValueOf(r).Elem().FieldByName("ID").Interface() == uuid.Nil {
		return nil, err
	}
	return r, err
}

// recordsAnyhow is the result of a route whose answer is not documented
// and may be a list of records, one record (an object with an "id"), or
// an object that holds the list under K's key; anything else is no
// records.
type recordsAnyhow[R any, K interface{ key() string }] []R

func (a *recordsAnyhow[R, K]) UnmarshalJSON(data []byte) error {
	*a = nil
	if len(data) > 0 && data[0] == '[' {
		return json.Unmarshal(data, (*[]R)(a))
	}
	var k K
	probe := reflect.New(reflect.StructOf([]reflect.StructField{
		{Name: "ID", Type: rawType, Tag: `json:"id"`},
		{Name: "List", Type: rawType, Tag: reflect.StructTag(`json:"` + k.key() + `"`)},
	}))
	if len(data) == 0 || data[0] != '{' {
		return nil
	} else if err := json.Unmarshal(data, probe.Interface()); err != nil {
		return err
	}
	if probe.Elem().Field(0).Bytes() != nil {
		return json.Unmarshal(data, (*recordsOrOne[R])(a))
	}
	if list := probe.Elem().Field(1).Bytes(); len(list) > 0 && list[0] == '[' {
		return json.Unmarshal(list, (*[]R)(a))
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

// A record is one struct with json tags. encoding/json cannot read all of
// it as the API writes it (a time.Time takes RFC 3339 only, an int no
// numeric string), so decodeRecord reads it through its wire type, made
// once per record type by reflection: the record's fields, in the same
// order and memory layout, each with the type that reads it tolerantly
// (Date, Money and Turnaround read themselves),
//
//	time.Time                    as Time: both time shapes, null and ""
//	time.Time `wire:"epoch"`     as epochTime: those, or epoch seconds
//	int `wire:"numeric"`         as flexInt: a number or a numeric string
//	uuid.UUID `wire:"anyid"`     as listedID: an unusable id is none
//	[]string `wire:"names"`      as jurisdictionNames: names or objects
//
// followed by a field for each second name of a string or names field
// (`wire:"or=state"`: the field, when empty, takes the value written under
// that name). An int field `wire:"default=N"` is N when missing or null, a
// record written as a bare JSON string is its string field `wire:"bare"`,
// and a field Raw of type json.RawMessage gets the record's JSON. The wire
// type has no methods, so reading a record through it never calls the
// record's own UnmarshalJSON (decodeRecord).
//
// The record's memory is read as its wire type through package unsafe:
// each wire field type is a defined type over the record field's own
// representation (Time holds one time.Time, flexInt is an int, listedID a
// uuid.UUID, jurisdictionNames a []string), so the two share size,
// alignment and pointer layout. newCodec checks offsets, sizes and
// alignments when it builds a codec and panics on any difference, and the
// race detector's checkptr runs over every decode in the tests. This
// keeps a record one plain struct, with time.Time and uuid.UUID fields,
// and decodes a page with no more allocations than encoding/json.

// recordCodec is how one record type is read.
type recordCodec struct {
	wire     reflect.Type // the wire type; its first fields are laid out as the record's
	extra    bool         // the wire type has fields beyond the record's
	raw      uintptr      // the offset of Raw, or noField
	bare     uintptr      // the offset of the field a bare string fills, or noField
	aliases  []alias
	defaults []intDefault
}

// alias is a second name of a string (or, list set, []string) field: the
// wire's field at from fills the record's at to when that is empty.
type alias struct {
	from, to uintptr
	list     bool
}

// intDefault is the value of the int field at off when it is missing or
// null.
type intDefault struct {
	off uintptr
	n   int
}

// noField is the offset of a field a record does not have.
const noField = ^uintptr(0)

var (
	codecs      sync.Map // reflect.Type of a record, or of its wireOf -> *recordCodec
	rawType     = reflect.TypeOf(json.RawMessage(nil))
	uuidType    = reflect.TypeOf(uuid.UUID{})
	stringsType = reflect.TypeOf([]string(nil))
)

// codecOf returns the codec of record type R, made on first use.
func codecOf[R any]() *recordCodec {
	t := reflect.TypeFor[R]()
	if c, ok := codecs.Load(t); ok {
		return c.(*recordCodec)
	}
	c := newCodec(t)
	codecs.Store(reflect.TypeFor[wireOf[R]](), c)
	actual, _ := codecs.LoadOrStore(t, c)
	return actual.(*recordCodec)
}

// newCodec makes the codec of record type t; a field it cannot read is a
// mistake in the record's declaration, and panics.
func newCodec(t reflect.Type) *recordCodec {
	c := &recordCodec{raw: noField, bare: noField}
	fields := make([]reflect.StructField, 0, t.NumField()+1)
	var extras []reflect.StructField
	var aliasTo []alias
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous || !f.IsExported() {
			panic("acctadmin: record " + t.Name() + " has an embedded or unexported field")
		}
		wf := reflect.StructField{Name: f.Name, Type: f.Type, Tag: f.Tag}
		var aliasOf []string
		if f.Type == timeType {
			wf.Type = wireTimeType
		}
		if f.Name == "Raw" && f.Type == rawType {
			c.raw = f.Offset
		}
		for _, opt := range strings.FieldsFunc(f.Tag.Get("wire"), func(r rune) bool { return r == ',' }) {
			name, arg, _ := strings.Cut(opt, "=")
			switch k := f.Type.Kind(); {
			case name == "numeric" && k == reflect.Int:
				wf.Type = reflect.TypeOf(flexInt(0))
			case name == "default" && k == reflect.Int:
				n, err := strconv.Atoi(arg)
				if err != nil {
					panic("acctadmin: record " + t.Name() + ": bad " + string(f.Tag))
				}
				c.defaults = append(c.defaults, intDefault{f.Offset, n})
			case name == "epoch" && f.Type == timeType:
				wf.Type = reflect.TypeOf(epochTime{})
			case name == "anyid" && f.Type == uuidType:
				wf.Type = reflect.TypeOf(listedID{})
			case name == "names" && f.Type == stringsType:
				wf.Type = reflect.TypeOf(jurisdictionNames(nil))
			case name == "bare" && k == reflect.String:
				c.bare = f.Offset
			case name == "or" && (k == reflect.String || f.Type == stringsType):
				aliasOf = append(aliasOf, arg)
			default:
				panic("acctadmin: record " + t.Name() + ": bad " + string(f.Tag))
			}
		}
		for _, name := range aliasOf {
			// A second name is read as the field is (names included).
			extras = append(extras, reflect.StructField{Name: "Alias" + strconv.Itoa(len(extras)), Type: wf.Type,
				Tag: reflect.StructTag(`json:"` + name + `"`)})
			aliasTo = append(aliasTo, alias{to: f.Offset, list: f.Type == stringsType})
		}
		fields = append(fields, wf)
	}
	c.wire = reflect.StructOf(append(fields, extras...))
	c.extra = len(extras) > 0
	for i, a := range aliasTo {
		a.from = c.wire.Field(t.NumField() + i).Offset
		c.aliases = append(c.aliases, a)
	}
	// The record is read in place of its wire type's first fields: their
	// layout must be the same.
	for i := 0; i < t.NumField(); i++ {
		f, w := t.Field(i), c.wire.Field(i)
		if f.Offset != w.Offset || f.Type.Size() != w.Type.Size() || f.Type.Align() != w.Type.Align() {
			panic("acctadmin: record " + t.Name() + ": field " + f.Name + " has no wire type of its layout")
		}
	}
	return c
}

// decodeRecord is the UnmarshalJSON of a record R: it reads data, an
// object or null, into *r as R's codec says. With it, json.Unmarshal of
// the API's own JSON into a record reads every shape the SDK reads.
func decodeRecord[R any](data []byte, r *R) error {
	var zero R
	*r = zero
	if string(data) == "null" {
		return nil
	}
	c := codecOf[R]()
	if s, ok := unquote(data); ok && c.bare != noField {
		*(*string)(unsafe.Add(unsafe.Pointer(r), c.bare)) = s
		c.keepRaw(unsafe.Pointer(r), data)
		return nil
	}
	if len(data) == 0 || data[0] != '{' {
		return fmt.Errorf("want a JSON object, got %s", describe(data))
	}
	p := unsafe.Pointer(r)
	if c.extra {
		p = reflect.New(c.wire).UnsafePointer()
	}
	c.preset(p)
	if err := json.Unmarshal(data, reflect.NewAt(c.wire, p).Interface()); err != nil {
		return err
	}
	if c.extra {
		*r = *(*R)(p)
	}
	c.finish(unsafe.Pointer(r), p, data)
	return nil
}

// preset gives the wire record at w its defaults.
func (c *recordCodec) preset(w unsafe.Pointer) {
	for _, d := range c.defaults {
		*(*int)(unsafe.Add(w, d.off)) = d.n
	}
}

// finish fills the record at r, read from the wire record at w, from its
// second names, and keeps data in its Raw.
func (c *recordCodec) finish(r, w unsafe.Pointer, data []byte) {
	for _, a := range c.aliases {
		if a.list {
			if to := (*[]string)(unsafe.Add(r, a.to)); len(*to) == 0 {
				*to = *(*[]string)(unsafe.Add(w, a.from))
			}
		} else if to := (*string)(unsafe.Add(r, a.to)); *to == "" {
			*to = *(*string)(unsafe.Add(w, a.from))
		}
	}
	c.keepRaw(r, data)
}

// keepRaw keeps a copy of data in the Raw of the record at r, if it has one.
func (c *recordCodec) keepRaw(r unsafe.Pointer, data []byte) {
	if c.raw != noField {
		*(*json.RawMessage)(unsafe.Add(r, c.raw)) = append(json.RawMessage(nil), data...)
	}
}

// wire is the type a result of records R is read as by fromWire,
// fromWires and listRecords: wireOf[R].
type wire[R any] interface{ record() R }

// wireOf reads a record R as its codec says.
type wireOf[R any] struct{ r R }

func (w wireOf[R]) record() R { return w.r }

func (w *wireOf[R]) UnmarshalJSON(data []byte) error { return decodeRecord(data, &w.r) }

// wireList is a result that is a list of records R. When R keeps no Raw
// and has no defaults, the list is read straight into a slice of R's wire
// type borrowed from a pool (cleared before it goes back), so that reading
// a page allocates its records once and calls no UnmarshalJSON per record.
type wireList[W wire[R], R any] struct{ records []R }

// wireSlices holds a *sync.Pool of slices of each wire type.
var wireSlices sync.Map

// maxPooledWires bounds the slices kept for reuse: a page holds at most
// 200 records, so a longer slice comes from an answer that is not a page
// and is not kept.
const maxPooledWires = 1024

func (l *wireList[W, R]) decodeEnvelope(endpoint string, body []byte) (bool, error) {
	l.records = nil
	c := codecOf[R]()
	if c.raw != noField || len(c.defaults) > 0 {
		var ws []wireOf[R]
		success, null, err := decodeEnvelopeInto(endpoint, body, &ws)
		if err == nil && !null {
			l.records = make([]R, len(ws))
			for i := range ws {
				l.records[i] = ws[i].r
			}
		}
		return success, err
	}
	p, ok := wireSlices.Load(c.wire)
	if !ok {
		st := reflect.SliceOf(c.wire)
		p, _ = wireSlices.LoadOrStore(c.wire, &sync.Pool{New: func() any {
			var ws any = reflect.New(st).Interface()
			return &ws
		}})
	}
	pool := p.(*sync.Pool)
	pooled := pool.Get().(*any) // a *[]W, which the envelope's result is decoded through
	ws := reflect.ValueOf(*pooled)
	defer func() {
		if ws.Elem().Cap() > maxPooledWires {
			return // an answer far longer than any page: let it go
		}
		s := ws.Elem()
		s.Slice(0, s.Cap()).Clear() // no string of this answer stays reachable
		s.SetLen(0)
		pool.Put(pooled)
	}()
	success, null, err := decodeEnvelopeInto(endpoint, body, pooled)
	if err != nil {
		// The same decode again, for the error that names the record
		// and the field at fault (the one above only knows an any).
		if jerr := json.Unmarshal(body, &envelope[any]{Result: *pooled}); jerr != nil {
			err = decodeFailure(endpoint, body, reflect.TypeFor[envelope[*[]R]](), jerr)
		}
	}
	if err == nil && !null {
		s := ws.Elem()
		l.records = make([]R, s.Len())
		size := c.wire.Size()
		for i := range l.records {
			w := unsafe.Add(s.UnsafePointer(), uintptr(i)*size)
			l.records[i] = *(*R)(w)
			c.finish(unsafe.Pointer(&l.records[i]), w, nil)
		}
	}
	return success, err
}

// unlockWire is the answer of POST /documents/unlock/:id, beside result
// or inside it.
type unlockWire struct {
	Action     string      `json:"action"`
	Amount     Money       `json:"amount"`
	InvoiceIDs []uuid.UUID `json:"invoice_ids"`
}

// unlockAnswer reads the answer of POST /documents/unlock/:id.
type unlockAnswer struct{ u DocumentUnlock }

func (a *unlockAnswer) decodeEnvelope(endpoint string, body []byte) (bool, error) {
	var w withTop[json.RawMessage, unlockWire]
	success, err := w.decodeEnvelope(endpoint, body)
	if err != nil || !success {
		return success, err
	}
	top, res := w.top, bytes.TrimSpace(w.result)
	switch {
	case len(res) > 0 && res[0] == '{':
		var in unlockWire
		if err := json.Unmarshal(res, &in); err != nil {
			return false, decodeFailure(endpoint, res, reflect.TypeOf(in), err)
		}
		if top.Action == "" {
			top.Action = in.Action
		}
		if top.Amount.IsZero() {
			top.Amount = in.Amount
		}
		if len(top.InvoiceIDs) == 0 {
			top.InvoiceIDs = in.InvoiceIDs
		}
	case len(res) > 0 && res[0] == '[':
		// The invoices made, as POST /invoices/pay answers them on the
		// SDK's fake.
		var paid []struct {
			ID uuid.UUID `json:"id"`
		}
		if err := json.Unmarshal(res, &paid); err != nil {
			return false, decodeFailure(endpoint, res, reflect.TypeOf(paid), err)
		}
		if len(top.InvoiceIDs) == 0 {
			for _, inv := range paid {
				top.InvoiceIDs = append(top.InvoiceIDs, inv.ID)
			}
		}
	case len(res) > 0 && res[0] == '"':
		_ = json.Unmarshal(res, &a.u.Result)
	}
	a.u.Action, a.u.Amount, a.u.InvoiceIDs = top.Action, top.Amount, top.InvoiceIDs
	return true, nil
}
