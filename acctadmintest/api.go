package acctadmintest

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// maxBody caps request bodies; larger ones are answered with 413.
const maxBody = 1 << 20

// Wire forms of times.
const (
	// TimeLayout is the documented form of timestamps and DateTime fields.
	TimeLayout = "2006-01-02 15:04:05 -0700"
	// ISOTimeLayout is the form the cancel-request response uses instead.
	ISOTimeLayout = "2006-01-02T15:04:05.000-07:00"
	// DateLayout is the form of Date fields and parameters.
	DateLayout = "2006-01-02"
)

// emptySHA256 is the hex SHA-256 of the empty string: the content claim of
// a request without a body.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// route is one endpoint: a method and a path pattern whose segments that
// start with ':' match any one segment.
type route struct {
	method  string
	pattern string
	segs    []string
	handle  func(*call) error
}

// routes is the API. Patterns name their parameters as the spec does.
var routes = func() []*route {
	rs := []*route{
		{method: http.MethodGet, pattern: "/services", handle: listServices},
		{method: http.MethodPost, pattern: "/services", handle: createServices},
		{method: http.MethodPost, pattern: "/services/:id/cancel-request", handle: requestCancellation},
		{method: http.MethodGet, pattern: "/documents", handle: listDocuments},
		{method: http.MethodGet, pattern: "/documents/:id", handle: getDocument},
		{method: http.MethodGet, pattern: "/documents/:id/page/:page_number", handle: documentPage},
		{method: http.MethodGet, pattern: "/documents/:id/download", handle: downloadDocument},
		{method: http.MethodGet, pattern: "/resources", handle: listResources},
		{method: http.MethodGet, pattern: "/resources/:id", handle: getResource},
		{method: http.MethodGet, pattern: "/resources/:id/page/:page_number", handle: resourcePage},
		{method: http.MethodGet, pattern: "/resources/:id/download", handle: downloadResource},
		{method: http.MethodGet, pattern: "/filing-products", handle: listFilingProducts},
		{method: http.MethodGet, pattern: "/compliance-events", handle: listComplianceEvents},
		{method: http.MethodGet, pattern: "/websites", handle: getWebsite},
		{method: http.MethodGet, pattern: "/callbacks", handle: listCallbacks},
		{method: http.MethodPost, pattern: "/callbacks", handle: createCallback},
		{method: http.MethodDelete, pattern: "/callbacks/:id", handle: deleteCallback},
		{method: http.MethodGet, pattern: "/companies", handle: listCompanies},
		{method: http.MethodPost, pattern: "/companies", handle: createCompanies},
		{method: http.MethodPatch, pattern: "/companies", handle: updateCompanies},
		{method: http.MethodGet, pattern: "/invoices", handle: listInvoices},
		{method: http.MethodGet, pattern: "/registered-agent-products", handle: listRegisteredAgentProducts},
	}
	for _, r := range rs {
		r.segs = strings.Split(strings.TrimPrefix(r.pattern, "/"), "/")
	}
	return rs
}()

// Routes lists the endpoints the fake serves as "METHOD /pattern" strings,
// with path parameters written ":name" (for example
// "GET /documents/:id/page/:page_number"). These patterns are what
// Fault.Path, Request.Route and RequestCount take.
func Routes() []string {
	out := make([]string, len(routes))
	for i, r := range routes {
		out[i] = r.method + " " + r.pattern
	}
	return out
}

// matchRoute finds the route for method and path. When the path matches
// but not the method, it returns the pattern and the methods allowed.
func matchRoute(method, path string) (rt *route, pattern string, params map[string]string, allowed []string) {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for _, r := range routes {
		p, ok := matchSegs(r.segs, segs)
		if !ok {
			continue
		}
		if r.method == method {
			return r, r.pattern, p, nil
		}
		pattern = r.pattern
		allowed = append(allowed, r.method)
	}
	return nil, pattern, nil, allowed
}

func matchSegs(pattern, segs []string) (map[string]string, bool) {
	if len(pattern) != len(segs) {
		return nil, false
	}
	var params map[string]string
	for i, p := range pattern {
		if strings.HasPrefix(p, ":") {
			if segs[i] == "" {
				return nil, false
			}
			if params == nil {
				params = make(map[string]string)
			}
			params[p[1:]] = segs[i]
			continue
		}
		if p != segs[i] {
			return nil, false
		}
	}
	return params, true
}

// ServeHTTP serves the API: it applies latency and injected faults, checks
// the request's token, routes, and answers in the API's envelope.
func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt, pattern, params, allowed := matchRoute(r.Method, r.URL.Path)
	idx := f.logRequest(r, pattern)
	sw := &statusWriter{ResponseWriter: w, f: f, idx: idx}

	if d := time.Duration(f.latency.Load()); d > 0 && !f.sleep(r, d) {
		f.abandon(sw)
		return
	}
	ft, faulted := f.pickFault(r.Method, pattern, r.URL.Path)
	if faulted {
		f.markFaulted(idx)
		if ft.Latency > 0 && !f.sleep(r, ft.Latency) {
			f.abandon(sw)
			return
		}
		if !ft.AfterApply && !ft.TruncateBody {
			switch {
			case ft.DropConnection:
				dropConnection(w)
				return
			case ft.Status != 0:
				writeFaultStatus(sw, ft, f.envelopeTime(false))
				return
			}
		}
	}

	// Where the real answer goes: to the client, or, for faults that act
	// after the request was applied, through a filter.
	var out http.ResponseWriter = sw
	switch {
	case faulted && ft.TruncateBody:
		out = &truncatingWriter{ResponseWriter: sw, limit: -1}
	case faulted && ft.AfterApply && (ft.DropConnection || ft.Status != 0):
		out = &discardWriter{header: make(http.Header)}
	}

	c := &call{f: f, w: out, r: r, params: params, route: pattern, idx: idx}
	if err := f.serve(c, rt, allowed); err != nil {
		c.writeError(err)
	}

	if faulted {
		switch {
		case ft.TruncateBody:
			_ = http.NewResponseController(w).Flush()
			dropConnection(w)
		case ft.AfterApply && ft.DropConnection:
			dropConnection(w)
		case ft.AfterApply && ft.Status != 0:
			writeFaultStatus(sw, ft, f.envelopeTime(false))
		}
	}
}

// abandon ends a request whose wait was cut short: the client has gone, or
// the fake is closing, which it tells with a 503.
func (f *Fake) abandon(w http.ResponseWriter) {
	if f.ctx.Err() != nil {
		writeJSON(w, http.StatusServiceUnavailable, errorEnvelope{Timestamp: f.envelopeTime(false), Message: "server is shutting down"})
	}
}

// serve reads and authenticates the request and runs its route.
func (f *Fake) serve(c *call, rt *route, allowed []string) error {
	r := c.r
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return &apiError{status: http.StatusBadRequest, msg: "request body could not be read"}
	}
	if len(body) > maxBody {
		return &apiError{status: http.StatusRequestEntityTooLarge, msg: "request body is larger than 1 MiB"}
	}
	c.body = body
	f.logBody(c.idx, body)

	if msg := f.authenticate(r, body); msg != "" {
		c.w.Header().Set("WWW-Authenticate", `Bearer realm="acctadmin"`)
		return &apiError{status: http.StatusUnauthorized, msg: "unauthorized: " + msg}
	}
	if rt == nil {
		if allowed != nil {
			sort.Strings(allowed)
			c.w.Header().Set("Allow", strings.Join(allowed, ", "))
			return &apiError{status: http.StatusMethodNotAllowed, msg: fmt.Sprintf("method %s is not allowed on %s", r.Method, c.route)}
		}
		return &apiError{status: http.StatusNotFound, msg: "no such endpoint: " + r.Method + " " + r.URL.Path}
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return &apiError{status: http.StatusBadRequest, msg: "malformed query string"}
	}
	c.query = q
	return rt.handle(c)
}

// authenticate checks the request token as the real API does, and returns
// why it is refused, or "" when it is good.
func (f *Fake) authenticate(r *http.Request, body []byte) string {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "missing Authorization header"
	}
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return "Authorization header is not a Bearer token"
	}
	token = strings.TrimSpace(token)
	hdrPart, _, _ := strings.Cut(token, ".")
	var hdr struct {
		Alg       string `json:"alg"`
		AccessKey any    `json:"access_key"`
	}
	raw, err := base64.RawURLEncoding.DecodeString(hdrPart)
	if err != nil || json.Unmarshal(raw, &hdr) != nil || strings.Count(token, ".") != 2 {
		return "token is not a JWT"
	}
	if hdr.Alg != jwt.SigningMethodHS256.Alg() {
		return fmt.Sprintf("token algorithm must be HS256, not %q", hdr.Alg)
	}
	ak, _ := hdr.AccessKey.(string)
	if ak == "" {
		return "token header has no access_key"
	}
	if subtle.ConstantTimeCompare([]byte(ak), []byte(f.AccessKey)) != 1 {
		return "unknown access key"
	}
	claims := jwt.MapClaims{}
	_, err = jwt.ParseWithClaims(token, claims, func(*jwt.Token) (any, error) {
		return []byte(f.SecretKey), nil
	}, jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}))
	switch {
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return "token signature is invalid"
	case err != nil:
		return "token is invalid: " + err.Error()
	}
	for k := range claims {
		if k != "path" && k != "content" {
			return fmt.Sprintf("unexpected claim %q (the claims are exactly path and content)", k)
		}
	}
	path, ok := claims["path"].(string)
	if !ok {
		return "token has no path claim"
	}
	if path != r.URL.EscapedPath() && path != r.URL.Path {
		return "path claim does not match the request path"
	}
	content, ok := claims["content"].(string)
	if !ok {
		return "token has no content claim"
	}
	sum := sha256.Sum256(body)
	if content == hex.EncodeToString(sum[:]) {
		return ""
	}
	// The provider's JavaScript client sends "{}" with DELETE while
	// signing the empty content, and the API accepts it.
	if r.Method == http.MethodDelete && string(bytes.TrimSpace(body)) == "{}" && content == emptySHA256 {
		return ""
	}
	return "content claim does not match the SHA-256 of the request body"
}

// call is one request being handled.
type call struct {
	f      *Fake
	w      http.ResponseWriter
	r      *http.Request
	body   []byte
	params map[string]string
	query  url.Values
	route  string
	idx    int // number of the request in the log
}

// fieldError is one entry of the errors array of a validation error: the
// parameter at fault and what is wrong with it.
type fieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// apiError is an answer other than success.
type apiError struct {
	status int
	msg    string
	fields []fieldError
	result any  // the cancel-request 400 carries the unpaid invoices
	iso    bool // timestamp in the ISO form
}

func (e *apiError) Error() string { return e.msg }

// invalid is a 400 about one parameter: the message reads "field problem".
func invalid(field, problem string) *apiError {
	return &apiError{
		status: http.StatusBadRequest,
		msg:    field + " " + problem,
		fields: []fieldError{{Field: field, Message: problem}},
	}
}

// invalidf is a 400 about a rule between parameters.
func invalidf(fields []fieldError, format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...), fields: fields}
}

func notFound(what string) *apiError {
	return &apiError{status: http.StatusNotFound, msg: what + " not found"}
}

// successEnvelope is every successful JSON answer.
type successEnvelope struct {
	Success   any    `json:"success"`
	Timestamp string `json:"timestamp"`
	Result    any    `json:"result"`
}

// errorEnvelope is every error answer.
type errorEnvelope struct {
	Success   bool         `json:"success"`
	Timestamp string       `json:"timestamp"`
	Message   string       `json:"message"`
	Errors    []fieldError `json:"errors,omitempty"`
	Result    any          `json:"result,omitempty"`
}

// answer says how a result is written.
type answer struct {
	stringSuccess bool // success as the text "true" (a quirk)
	iso           bool // times in the ISO form (a quirk of cancel-request)
}

// ok writes a successful answer.
func (c *call) ok(result any, a answer) error {
	var success any = true
	if a.stringSuccess && c.f.cfg.quirks {
		success = "true"
	}
	writeJSON(c.w, http.StatusOK, successEnvelope{
		Success:   success,
		Timestamp: c.f.envelopeTime(a.iso),
		Result:    result,
	})
	return nil
}

// writeError writes err as the API's error shape.
func (c *call) writeError(err error) {
	var e *apiError
	if !errors.As(err, &e) {
		e = &apiError{status: http.StatusInternalServerError, msg: err.Error()}
	}
	writeJSON(c.w, e.status, errorEnvelope{
		Timestamp: c.f.envelopeTime(e.iso),
		Message:   e.msg,
		Errors:    e.fields,
		Result:    e.result,
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only the fake's own wire types are encoded here.
		panic("acctadmintest: encoding an answer: " + err.Error())
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// envelopeTime is the timestamp of an answer made now.
func (f *Fake) envelopeTime(iso bool) string { return f.wire(iso).time(f.now()) }

// wireFormat writes times and chooses the shapes of quirky fields.
type wireFormat struct {
	quirks bool
	iso    bool
	loc    *time.Location
}

func (f *Fake) wire(iso bool) wireFormat {
	return wireFormat{quirks: f.cfg.quirks, iso: iso && f.cfg.quirks, loc: f.cfg.loc}
}

func (wf wireFormat) time(t time.Time) string {
	if wf.iso {
		return t.In(wf.loc).Format(ISOTimeLayout)
	}
	return t.In(wf.loc).Format(TimeLayout)
}

// date writes the calendar date of t as given, without zone conversion.
func date(t time.Time) string { return t.Format(DateLayout) }

// emptyAsNull returns nil for an empty list when quirks are on, so that it
// is written as null, and an empty non-nil list otherwise.
func emptyAsNull[T any](wf wireFormat, list []T) []T {
	if len(list) == 0 {
		if wf.quirks {
			return nil
		}
		return []T{}
	}
	return list
}

// orEmpty makes a nil list encode as [] rather than null.
func orEmpty[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}

// nullable returns a JSON null for "", the string otherwise.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Parameters.

// scalar returns the first value of a query parameter, "" when absent.
func (c *call) scalar(name string) string {
	if v := c.query[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// list returns the values of an array parameter, given as name[] (the
// form clients use) or as name, skipping empty values.
func (c *call) list(name string) []string {
	var out []string
	for _, v := range append(append([]string(nil), c.query[name+"[]"]...), c.query[name]...) {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// paging reads limit and offset. def is the default limit; max the largest
// limit allowed. A def of 0 means "all" when no limit is given.
func (c *call) paging(def, max int) (limit, offset int, err error) {
	limit = def
	if s := c.scalar("limit"); s != "" {
		n, err := strconv.Atoi(s)
		switch {
		case err != nil:
			return 0, 0, invalid("limit", "must be an integer")
		case n < 1:
			return 0, 0, invalid("limit", "must be at least 1")
		case n > max:
			return 0, 0, invalid("limit", fmt.Sprintf("must be at most %d", max))
		}
		limit = n
	}
	if s := c.scalar("offset"); s != "" {
		n, err := strconv.Atoi(s)
		switch {
		case err != nil:
			return 0, 0, invalid("offset", "must be an integer")
		case n < 0:
			return 0, 0, invalid("offset", "must not be negative")
		}
		offset = n
	}
	return limit, offset, nil
}

// page cuts one page out of a sorted listing; a limit of 0 means all.
func page[T any](list []T, limit, offset int) []T {
	if offset >= len(list) {
		return []T{}
	}
	list = list[offset:]
	if limit > 0 && limit < len(list) {
		list = list[:limit]
	}
	return list
}

// parseUUID reads a UUID parameter.
func parseUUID(field, s string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, invalid(field, "must be a UUID")
	}
	if id == uuid.Nil {
		return uuid.Nil, invalid(field, "must not be the nil UUID")
	}
	return id, nil
}

// pathID reads the :id path parameter; an id that is not a UUID names
// nothing, so it is a 404.
func (c *call) pathID(what string) (uuid.UUID, error) {
	id, err := uuid.Parse(c.params["id"])
	if err != nil {
		return uuid.Nil, notFound(what)
	}
	return id, nil
}

// decodeBody reads a JSON object body into v.
func (c *call) decodeBody(v any) error {
	b := bytes.TrimSpace(c.body)
	if len(b) == 0 || b[0] != '{' {
		return &apiError{status: http.StatusBadRequest, msg: "request body must be a JSON object"}
	}
	if err := json.Unmarshal(b, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return invalid(te.Field, "must be of type "+jsonType(te.Type.Kind().String()))
		}
		return &apiError{status: http.StatusBadRequest, msg: "request body is not valid JSON"}
	}
	return nil
}

func jsonType(kind string) string {
	switch kind {
	case "slice", "array":
		return "array"
	case "struct", "map":
		return "object"
	case "string", "ptr":
		return "string"
	case "bool":
		return "boolean"
	default:
		return "number"
	}
}

// companyParam resolves the company / company_id pair of a request: at
// most one may be given; unknown companies are 404. ok is false when
// neither was given. f.mu must be held.
func (f *Fake) companyParam(name, id string) (co *Company, ok bool, err error) {
	switch {
	case name != "" && id != "":
		return nil, false, invalidf([]fieldError{
			{Field: "company", Message: "must not be given with company_id"},
			{Field: "company_id", Message: "must not be given with company"},
		}, "company and company_id must not both be given")
	case id != "":
		cid, err := parseUUID("company_id", id)
		if err != nil {
			return nil, false, err
		}
		co := f.companyByID(cid)
		if co == nil {
			return nil, false, notFound("company")
		}
		return co, true, nil
	case name != "":
		co := f.companyByName(name)
		if co == nil {
			return nil, false, notFound("company")
		}
		return co, true, nil
	}
	return nil, false, nil
}

// jurisdictionsParam resolves the jurisdictions / jurisdiction_ids pair:
// at most one may be given, every entry must be valid (400 otherwise).
// Duplicates are dropped. ok is false when neither was given.
func jurisdictionsParam(names, ids []string) (out []Jurisdiction, ok bool, err error) {
	switch {
	case len(names) > 0 && len(ids) > 0:
		return nil, false, invalidf([]fieldError{
			{Field: "jurisdictions", Message: "must not be given with jurisdiction_ids"},
			{Field: "jurisdiction_ids", Message: "must not be given with jurisdictions"},
		}, "jurisdictions and jurisdiction_ids must not both be given")
	case len(names) > 0:
		for _, n := range names {
			j, found := LookupJurisdiction(n)
			if !found {
				return nil, false, invalid("jurisdictions", "contains an unknown jurisdiction: "+strconv.Quote(n))
			}
			out = appendJurisdiction(out, j)
		}
		return out, true, nil
	case len(ids) > 0:
		for _, s := range ids {
			id, err := uuid.Parse(s)
			if err != nil {
				return nil, false, invalid("jurisdiction_ids", "must contain UUIDs: "+strconv.Quote(s))
			}
			j, found := LookupJurisdictionID(id)
			if !found {
				return nil, false, invalid("jurisdiction_ids", "contains an unknown jurisdiction id: "+s)
			}
			out = appendJurisdiction(out, j)
		}
		return out, true, nil
	}
	return nil, false, nil
}

func appendJurisdiction(list []Jurisdiction, j Jurisdiction) []Jurisdiction {
	for _, x := range list {
		if x.ID == j.ID {
			return list
		}
	}
	return append(list, j)
}

// byCreated orders records by creation time, then id, so listings are
// stable.
func byCreated(at1, at2 time.Time, id1, id2 uuid.UUID) bool {
	if !at1.Equal(at2) {
		return at1.Before(at2)
	}
	return bytes.Compare(id1[:], id2[:]) < 0
}

// locked runs fn with f.mu held, so that handlers write their answer after
// releasing the lock.
func locked[T any](f *Fake, fn func() (T, error)) (T, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fn()
}

var decimalRE = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// mustPrice checks an amount given to a seeding helper: decimal text such
// as "149.00", written on the wire as that exact JSON number. "" is "0.00".
func mustPrice(helper, s string) string {
	if s == "" {
		return "0.00"
	}
	if !decimalRE.MatchString(s) {
		panic("acctadmintest: " + helper + ": price " + strconv.Quote(s) + " is not decimal text like 149.00")
	}
	return s
}
