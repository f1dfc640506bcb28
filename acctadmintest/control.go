package acctadmintest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// ControlPrefix is the path prefix of the control surface that WithControl
// adds. The API has no path that starts with it: its paths are lowercase
// words and ids, never an underscore.
const ControlPrefix = "/_fake/"

// WithControl adds the control surface: plain JSON endpoints under
// ControlPrefix, on the same address as the API, with which programs that
// are not written in Go (or curl) do what a Go test does with the Fake's
// methods. See the package documentation for the endpoints.
//
// The control surface asks for no token, so it answers only requests that
// come from a loopback address and name a loopback host, and refuses any
// request a browser sends on behalf of a web page (one with an Origin
// header): a page that a developer visits cannot drive it. It also
// refuses any request a proxy relayed (one with Forwarded,
// X-Forwarded-For, X-Real-IP, X-Forwarded-Host or Via): a reverse proxy
// or tunnel on the same machine would otherwise hand it to the network.
func WithControl() Option {
	return optionFunc(func(c *config) { c.control = true })
}

// Reset empties the account (every record and callback), removes every
// fault and empties the request and write logs, as if the fake had just
// been created without data. Deliveries already under way finish, and
// the delivery log is kept, so that WaitDeliveries keeps counting.
func (f *Fake) Reset() {
	f.mu.Lock()
	f.st = newState(f)
	f.faults = nil
	f.deliveryFaults = nil
	f.mu.Unlock()
	f.ResetRequests()
}

// maxControlBody caps a control request's body.
const maxControlBody = 1 << 20

// controlError is an answer of the control surface other than success.
type controlError struct {
	status int
	msg    string
	allow  string       // the Allow header of a 405
	fields []fieldError // the fields at fault of a 400
}

func (e *controlError) Error() string { return e.msg }

func badControl(format string, args ...any) error {
	return &controlError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

// controlHandler is one endpoint of the control surface: it returns the
// value to answer as JSON, or an error.
type controlHandler func(r *http.Request, body []byte) (status int, result any, err error)

// newControl builds the control surface.
func newControl(f *Fake) http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern string, h controlHandler) {
		mux.Handle(pattern, f.controlEndpoint(h))
	}
	handle("GET "+ControlPrefix+"{$}", f.ctlIndex)
	handle("POST "+ControlPrefix+"companies", f.ctlAddCompany)
	handle("POST "+ControlPrefix+"services", f.ctlAddService)
	handle("POST "+ControlPrefix+"documents", f.ctlAddDocument)
	handle("POST "+ControlPrefix+"invoices", f.ctlAddInvoice)
	handle("POST "+ControlPrefix+"callbacks", f.ctlAddCallback)
	handle("POST "+ControlPrefix+"compliance-events", f.ctlAddComplianceEvent)
	handle("POST "+ControlPrefix+"resources", f.ctlAddResource)
	handle("POST "+ControlPrefix+"order-items", f.ctlAddOrderItem)
	handle("PATCH "+ControlPrefix+"documents/{id}", f.ctlSetStatus("document", f.SetDocumentStatus, DocumentRead, DocumentUnread))
	handle("PATCH "+ControlPrefix+"invoices/{id}", f.ctlSetStatus("invoice", f.SetInvoiceStatus, InvoiceUnpaid, InvoicePaid, InvoiceCancelled))
	handle("PATCH "+ControlPrefix+"services/{id}", f.ctlSetStatus("service", f.SetServiceStatus, ServiceActive, ServiceCancelled, ServiceAwaitingClientInput, ServiceCancelRequested))
	handle("GET "+ControlPrefix+"requests", f.ctlRequests)
	handle("DELETE "+ControlPrefix+"requests", f.ctlResetRequests)
	handle("GET "+ControlPrefix+"deliveries", f.ctlDeliveries)
	handle("GET "+ControlPrefix+"faults", f.ctlFaults)
	handle("POST "+ControlPrefix+"faults", f.ctlInjectFault)
	handle("DELETE "+ControlPrefix+"faults", f.ctlClearFaults)
	handle("POST "+ControlPrefix+"reset", f.ctlReset)
	handle("GET "+ControlPrefix+"auth/reset-token", f.ctlResetToken)
	handle("GET "+ControlPrefix+"clock", f.ctlClock)
	handle("POST "+ControlPrefix+"events", f.ctlSendEvent)
	handle("POST "+ControlPrefix+"deliveries/resend", f.ctlRedeliver)
	handle("POST "+ControlPrefix+"delivery-faults", f.ctlInjectDeliveryFault)
	handle("DELETE "+ControlPrefix+"delivery-faults", f.ctlClearDeliveryFaults)
	handle("POST "+ControlPrefix+"clock", f.ctlSetClock)
	handle(ControlPrefix, controlNotFound)
	return mux
}

// controlNotFound answers a control request that no endpoint takes: 405
// with Allow when the path has endpoints for other methods, 404 otherwise.
func controlNotFound(r *http.Request, _ []byte) (int, any, error) {
	var allowed []string
	for _, rt := range controlRoutes {
		if method, p, _ := strings.Cut(rt, " "); p == r.URL.Path {
			allowed = append(allowed, method)
		}
	}
	if len(allowed) > 0 {
		return 0, nil, &controlError{status: http.StatusMethodNotAllowed, msg: "method " + r.Method + " is not allowed on " + r.URL.Path,
			allow: strings.Join(allowed, ", ")}
	}
	return 0, nil, &controlError{status: http.StatusNotFound, msg: "no such control endpoint: " + r.Method + " " + r.URL.Path}
}

// controlEndpoint checks where a control request comes from, reads its
// body and writes the answer: the result as JSON, or {"error": "..."}.
func (f *Fake) controlEndpoint(h controlHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status, result, err := f.serveControl(h, r)
		if err != nil {
			var ce *controlError
			if !errors.As(err, &ce) {
				ce = &controlError{status: http.StatusInternalServerError, msg: err.Error()}
			}
			if ce.allow != "" {
				w.Header().Set("Allow", ce.allow)
			}
			writeJSON(w, ce.status, controlErrorWire{Error: ce.msg, Errors: ce.fields})
			return
		}
		writeJSON(w, status, result)
	})
}

func (f *Fake) serveControl(h controlHandler, r *http.Request) (status int, result any, err error) {
	if msg := controlRefusal(r); msg != "" {
		return 0, nil, &controlError{status: http.StatusForbidden, msg: msg}
	}
	var body bytes.Buffer
	if _, err := body.ReadFrom(http.MaxBytesReader(nil, r.Body, maxControlBody)); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return 0, nil, &controlError{status: http.StatusRequestEntityTooLarge, msg: "request body is larger than 1 MiB"}
		}
		return 0, nil, badControl("request body could not be read")
	}
	if e := validateControl(r, body.Bytes()); e != nil {
		return 0, nil, e
	}
	// The seeding helpers panic on input a Go test could only get wrong
	// by mistake; here the input comes from outside, so it is a 400.
	defer func() {
		if p := recover(); p != nil {
			msg, ok := p.(string)
			if !ok || !strings.HasPrefix(msg, "acctadmintest: ") {
				panic(p)
			}
			status, result, err = 0, nil, badControl("%s", strings.TrimPrefix(msg, "acctadmintest: "))
		}
	}()
	return h(r, body.Bytes())
}

// controlRefusal says why a control request is refused, "" when it is
// not: it must come from loopback, name a loopback host, and not be sent
// by a browser for a web page.
func controlRefusal(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return "the control surface answers loopback clients only"
	}
	if !loopbackHost(r.Host) {
		return "the control surface answers requests for a loopback host only"
	}
	if r.Header.Get("Origin") != "" {
		return "the control surface does not answer requests from web pages"
	}
	for _, h := range relayHeaders {
		if _, ok := r.Header[h]; ok {
			return "the control surface does not answer relayed requests (" + h + "): a proxy or tunnel on this machine would open it to the network"
		}
	}
	return ""
}

// relayHeaders mark a request a proxy relayed: its peer is the proxy on
// loopback, its client anywhere.
var relayHeaders = []string{"Forwarded", "X-Forwarded-For", "X-Real-Ip", "X-Forwarded-Host", "Via"}

// loopbackHost reports whether a Host header names this machine:
// localhost or a loopback IP, with or without a port.
func loopbackHost(h string) bool {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// decodeControl reads a JSON object body strictly: unknown fields are an
// error, so that a misspelt field is not silently ignored.
func decodeControl(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badControl("request body: %v", err)
	}
	if dec.More() {
		return badControl("request body: more than one JSON value")
	}
	return nil
}

func (f *Fake) ctlIndex(*http.Request, []byte) (int, any, error) {
	return http.StatusOK, map[string]any{
		"api":     Routes(),
		"control": controlRoutes,
	}, nil
}

// controlRoutes lists the control surface for its index.
var controlRoutes = []string{
	"GET " + ControlPrefix,
	"POST " + ControlPrefix + "companies",
	"POST " + ControlPrefix + "services",
	"POST " + ControlPrefix + "documents",
	"POST " + ControlPrefix + "invoices",
	"POST " + ControlPrefix + "callbacks",
	"POST " + ControlPrefix + "compliance-events",
	"POST " + ControlPrefix + "resources",
	"POST " + ControlPrefix + "order-items",
	"PATCH " + ControlPrefix + "documents/{id}",
	"PATCH " + ControlPrefix + "invoices/{id}",
	"PATCH " + ControlPrefix + "services/{id}",
	"GET " + ControlPrefix + "requests",
	"DELETE " + ControlPrefix + "requests",
	"GET " + ControlPrefix + "deliveries",
	"GET " + ControlPrefix + "faults",
	"POST " + ControlPrefix + "faults",
	"DELETE " + ControlPrefix + "faults",
	"POST " + ControlPrefix + "reset",
	"GET " + ControlPrefix + "auth/reset-token",
	"GET " + ControlPrefix + "clock",
	"POST " + ControlPrefix + "events",
	"POST " + ControlPrefix + "deliveries/resend",
	"POST " + ControlPrefix + "delivery-faults",
	"DELETE " + ControlPrefix + "delivery-faults",
	"POST " + ControlPrefix + "clock",
}

// companyRef resolves the company_id or company (name) of a control body.
func (f *Fake) companyRef(id uuid.UUID, name string) (uuid.UUID, error) {
	if id != uuid.Nil {
		return id, nil
	}
	if name == "" {
		return uuid.Nil, badControl("company_id or company is required")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	co := f.companyByName(name)
	if co == nil {
		return uuid.Nil, &controlError{status: http.StatusNotFound, msg: "no company named " + name}
	}
	return co.ID, nil
}

// created answers a record just added, in the API's wire form; a reset
// may have removed it meanwhile.
func created[T, W any](f *Fake, t *table[T], id uuid.UUID, write func(*T) W) (int, any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := t.get(id)
	if r == nil {
		return 0, nil, &controlError{status: http.StatusConflict, msg: "the record was removed by a reset meanwhile"}
	}
	return http.StatusCreated, write(r), nil
}

func (f *Fake) ctlAddCompany(_ *http.Request, body []byte) (int, any, error) {
	var in struct {
		ID         uuid.UUID `json:"id"`
		Name       string    `json:"name"`
		HomeState  string    `json:"home_state"`
		EntityType string    `json:"entity_type"`
		CreatedAt  time.Time `json:"created_at"`
	}
	if err := decodeControl(body, &in); err != nil {
		return 0, nil, err
	}
	f.mu.Lock()
	taken := f.companyByName(in.Name) != nil || in.ID != uuid.Nil && f.st.companies.get(in.ID) != nil
	f.mu.Unlock()
	if taken {
		return 0, nil, &controlError{status: http.StatusConflict, msg: "a company with that name or id exists"}
	}
	co := f.AddCompany(CompanyInput{ID: in.ID, Name: in.Name, HomeState: in.HomeState, EntityType: in.EntityType, CreatedAt: in.CreatedAt})
	return created(f, &f.st.companies, co.ID, f.wire(false).company)
}

func (f *Fake) ctlAddService(_ *http.Request, body []byte) (int, any, error) {
	var in struct {
		ID           uuid.UUID `json:"id"`
		CompanyID    uuid.UUID `json:"company_id"`
		Company      string    `json:"company"`
		Jurisdiction string    `json:"jurisdiction"`
		Type         string    `json:"type"`
		Status       string    `json:"status"`
		CreatedAt    time.Time `json:"created_at"`
	}
	if err := decodeControl(body, &in); err != nil {
		return 0, nil, err
	}
	cid, err := f.companyRef(in.CompanyID, in.Company)
	if err != nil {
		return 0, nil, err
	}
	s := f.AddService(ServiceInput{ID: in.ID, CompanyID: cid, Jurisdiction: in.Jurisdiction, Type: in.Type, Status: in.Status, CreatedAt: in.CreatedAt})
	wf := f.wire(false)
	return created(f, &f.st.services, s.ID, func(s *Service) serviceWire { return f.serviceWire(wf, s) })
}

func (f *Fake) ctlAddDocument(_ *http.Request, body []byte) (int, any, error) {
	var in struct {
		ID            uuid.UUID `json:"id"`
		CompanyID     uuid.UUID `json:"company_id"`
		Company       string    `json:"company"`
		Title         string    `json:"title"`
		Pages         int       `json:"pages"`
		Status        string    `json:"status"`
		Type          string    `json:"type"`
		Source        string    `json:"source"`
		Jurisdiction  string    `json:"jurisdiction"`
		PaymentLocked bool      `json:"payment_locked"`
		UnlockPrice   string    `json:"unlock_price"`
		CreatedAt     time.Time `json:"created_at"`
		PDFSize       int64     `json:"pdf_size"`
	}
	if err := decodeControl(body, &in); err != nil {
		return 0, nil, err
	}
	switch {
	case in.Pages < 0 || in.Pages > 1000:
		return 0, nil, badControl("pages must be from 1 to 1000")
	case in.PDFSize < 0:
		return 0, nil, badControl("pdf_size must not be negative")
	case in.Status != "" && in.Status != DocumentRead && in.Status != DocumentUnread:
		return 0, nil, badControl("status must be read or unread")
	case in.UnlockPrice != "" && !decimalRE.MatchString(in.UnlockPrice):
		return 0, nil, badControl("unlock_price must be decimal text like 25.00")
	}
	cid, err := f.companyRef(in.CompanyID, in.Company)
	if err != nil {
		return 0, nil, err
	}
	d := f.AddDocument(DocumentInput{
		ID: in.ID, CompanyID: cid, Title: in.Title, Pages: in.Pages, Status: in.Status, Type: in.Type,
		Source: in.Source, Jurisdiction: in.Jurisdiction, PaymentLocked: in.PaymentLocked, UnlockPrice: in.UnlockPrice,
		CreatedAt: in.CreatedAt, PDFSize: in.PDFSize,
	})
	wf := f.wire(false)
	return created(f, &f.st.documents, d.ID, func(d *Document) documentWire { return f.documentWire(wf, d, false) })
}

func (f *Fake) ctlAddInvoice(_ *http.Request, body []byte) (int, any, error) {
	var in struct {
		ID        uuid.UUID `json:"id"`
		CompanyID uuid.UUID `json:"company_id"`
		Company   string    `json:"company"`
		Status    string    `json:"status"`
		CreatedAt time.Time `json:"created_at"`
		DueDate   string    `json:"due_date"`
		Items     []struct {
			Price       json.Number `json:"price"`
			Description string      `json:"description"`
			Quantity    int         `json:"quantity"`
		} `json:"items"`
	}
	if err := decodeControl(body, &in); err != nil {
		return 0, nil, err
	}
	cid, err := f.companyRef(in.CompanyID, in.Company)
	if err != nil {
		return 0, nil, err
	}
	var due time.Time
	if in.DueDate != "" {
		if due, err = time.Parse(DateLayout, in.DueDate); err != nil {
			return 0, nil, badControl("due_date must be a date like 2006-01-02")
		}
	}
	items := make([]InvoiceItem, len(in.Items))
	for i, it := range in.Items {
		if it.Quantity < 0 {
			return 0, nil, badControl("items[%d].quantity must not be negative", i)
		}
		items[i] = InvoiceItem{Price: it.Price.String(), Description: it.Description, Quantity: it.Quantity}
	}
	inv := f.AddInvoice(InvoiceInput{ID: in.ID, CompanyID: cid, Status: in.Status, CreatedAt: in.CreatedAt, DueDate: due, Items: items})
	wf := f.wire(false)
	return created(f, &f.st.invoices, inv.ID, func(i *Invoice) invoiceWire { return f.invoiceWire(wf, i) })
}

// requestWire is a request of the log as the control surface writes it.
type requestWire struct {
	Method  string              `json:"method"`
	Path    string              `json:"path"`
	Query   string              `json:"query"`
	Route   string              `json:"route"`
	Headers map[string][]string `json:"headers"`
	Body    string              `json:"body"`
	Status  int                 `json:"status"`
	Faulted bool                `json:"faulted"`
	Time    string              `json:"time"`
}

func (f *Fake) ctlRequests(*http.Request, []byte) (int, any, error) {
	reqs := f.Requests()
	out := make([]requestWire, len(reqs))
	for i, r := range reqs {
		out[i] = requestWire{Method: r.Method, Path: r.Path, Query: r.Query, Route: r.Route, Headers: r.Header, Body: string(r.Body),
			Status: r.Status, Faulted: r.Faulted, Time: r.Time.Format(time.RFC3339Nano)}
	}
	return http.StatusOK, out, nil
}

func (f *Fake) ctlResetRequests(*http.Request, []byte) (int, any, error) {
	f.ResetRequests()
	return http.StatusOK, map[string]bool{"reset": true}, nil
}

// deliveryWire is a delivery attempt as the control surface writes it.
type deliveryWire struct {
	URL        string         `json:"url"`
	Event      string         `json:"event"`
	Claims     map[string]any `json:"claims"`
	Attempt    int            `json:"attempt"`
	StatusCode int            `json:"status_code"`
	Err        string         `json:"error,omitempty"`
	Delivered  bool           `json:"delivered"`
	Final      bool           `json:"final"`
	Time       string         `json:"time"`
}

func (f *Fake) ctlDeliveries(*http.Request, []byte) (int, any, error) {
	ds := f.Deliveries()
	out := make([]deliveryWire, len(ds))
	for i, d := range ds {
		out[i] = deliveryWire{URL: d.URL, Event: d.Event, Claims: d.Claims, Attempt: d.Attempt, StatusCode: d.StatusCode,
			Err: d.Err, Delivered: d.Delivered, Final: d.Final, Time: d.Time.Format(time.RFC3339Nano)}
	}
	return http.StatusOK, out, nil
}

func (f *Fake) ctlFaults(*http.Request, []byte) (int, any, error) {
	f.mu.Lock()
	active := len(f.faults)
	f.mu.Unlock()
	return http.StatusOK, map[string]int{"active": active, "fired": f.FaultsFired()}, nil
}

// ctlInjectFault adds a fault. The control document bounds status to
// 200..599 (net/http panics on a status outside 100..999, and a 1xx is
// no answer), so a typo such as 5003 is a 400 naming status.
func (f *Fake) ctlInjectFault(_ *http.Request, body []byte) (int, any, error) {
	var in struct {
		Method         string  `json:"method"`
		Path           string  `json:"path"`
		Count          int     `json:"count"`
		Probability    float64 `json:"probability"`
		Status         int     `json:"status"`
		RetryAfter     string  `json:"retry_after"`
		Message        string  `json:"message"`
		Latency        string  `json:"latency"`
		DropConnection bool    `json:"drop_connection"`
		TruncateBody   bool    `json:"truncate_body"`
		AfterApply     bool    `json:"after_apply"`
	}
	if err := decodeControl(body, &in); err != nil {
		return 0, nil, err
	}
	ft := Fault{
		Method: strings.ToUpper(in.Method), Path: in.Path, Count: in.Count, Probability: in.Probability,
		Status: in.Status, RetryAfter: in.RetryAfter, Message: in.Message,
		DropConnection: in.DropConnection, TruncateBody: in.TruncateBody, AfterApply: in.AfterApply,
	}
	if in.Latency != "" {
		d, err := time.ParseDuration(in.Latency)
		if err != nil || d < 0 || d > time.Hour {
			return 0, nil, badControl("latency must be a duration like 250ms, at most 1h")
		}
		ft.Latency = d
	}
	switch {
	case ft.Count < 0:
		return 0, nil, badControl("count must not be negative")
	case ft.Probability < 0 || ft.Probability > 1:
		return 0, nil, badControl("probability must be from 0 to 1")
	case ft.Path != "" && !strings.HasPrefix(ft.Path, "/"):
		return 0, nil, badControl("path must start with /")
	case ft.Status == 0 && ft.Latency == 0 && !ft.DropConnection && !ft.TruncateBody:
		return 0, nil, badControl("a fault needs status, latency, drop_connection or truncate_body")
	case strings.ContainsAny(ft.RetryAfter, "\r\n"):
		return 0, nil, badControl("retry_after must be one line")
	}
	f.InjectFault(ft)
	return http.StatusCreated, map[string]bool{"injected": true}, nil
}

func (f *Fake) ctlClearFaults(*http.Request, []byte) (int, any, error) {
	f.ClearFaults()
	return http.StatusOK, map[string]bool{"cleared": true}, nil
}

func (f *Fake) ctlReset(r *http.Request, _ []byte) (int, any, error) {
	f.Reset()
	demo := r.URL.Query().Get("demo")
	if demo == "1" || strings.EqualFold(demo, "true") {
		f.SeedDemo()
	}
	f.mu.Lock()
	n := f.st.companies.len()
	f.mu.Unlock()
	return http.StatusOK, map[string]int{"companies": n}, nil
}

// ctlResetToken hands out the reset token that POST /auth/forgot-password
// would have e-mailed to the account's user.
func (f *Fake) ctlResetToken(*http.Request, []byte) (int, any, error) {
	f.mu.Lock()
	email := f.st.account.Email
	f.mu.Unlock()
	return http.StatusOK, map[string]string{"email": email, "token": f.ResetToken()}, nil
}

// ctlAddCallback registers a callback URL, as POST /callbacks does, without
// a token.
func (f *Fake) ctlAddCallback(_ *http.Request, body []byte) (int, any, error) {
	var in struct {
		URL string `json:"url"`
	}
	if err := decodeControl(body, &in); err != nil {
		return 0, nil, err
	}
	if !validCallbackURL(in.URL) {
		return 0, nil, badControl("url must be an absolute http or https URL")
	}
	cb := f.AddCallback(in.URL)
	return created(f, &f.st.callbacks, cb.ID, f.wire(false).callback)
}

func (f *Fake) ctlClock(*http.Request, []byte) (int, any, error) {
	return http.StatusOK, map[string]string{"now": f.now().Format(time.RFC3339Nano)}, nil
}

// ctlSetClock sets the clock ({"now": RFC 3339 time}) or advances it
// ({"advance": "36h"}), and answers the new time. It keeps the clock from
// minClock to maxClock: a time outside is a 400 that names the range.
func (f *Fake) ctlSetClock(_ *http.Request, body []byte) (int, any, error) {
	var in struct {
		Now     *time.Time `json:"now"`
		Advance string     `json:"advance"`
	}
	if err := decodeControl(body, &in); err != nil {
		return 0, nil, err
	}
	var move func(time.Time) time.Time
	field := "now"
	switch {
	case in.Now != nil && in.Advance != "":
		return 0, nil, badControl("give now or advance, not both")
	case in.Now != nil:
		move = func(time.Time) time.Time { return *in.Now }
	case in.Advance != "":
		d, err := time.ParseDuration(in.Advance)
		if err != nil {
			return 0, nil, badControl("advance must be a duration like 36h or -15m")
		}
		move = func(now time.Time) time.Time { return now.Add(d) }
		field = "advance"
	default:
		return 0, nil, badControl("give now (an RFC 3339 time) or advance (a duration)")
	}
	if !f.moveClock(move, clockInRange) {
		msg := "the clock must stay from " + minClock.Format(time.RFC3339) + " to " + maxClock.Format(time.RFC3339)
		return 0, nil, &controlError{status: http.StatusBadRequest, msg: field + ": " + msg,
			fields: []fieldError{{Field: field, Message: msg}}}
	}
	return f.ctlClock(nil, nil)
}

// ctlSendEvent sends an event about a record, possibly forged.
func (f *Fake) ctlSendEvent(_ *http.Request, body []byte) (int, any, error) {
	var in struct {
		Event    string    `json:"event"`
		RecordID uuid.UUID `json:"record_id"`
		URL      string    `json:"url"`
		Forge    string    `json:"forge"`
		Copies   int       `json:"copies"`
	}
	if err := decodeControl(body, &in); err != nil {
		return 0, nil, err
	}
	if err := f.SendEvent(EventInput{Event: in.Event, RecordID: in.RecordID, URL: in.URL, Forge: in.Forge, Copies: in.Copies}); err != nil {
		return 0, nil, badControl("%s", err.Error())
	}
	return http.StatusAccepted, map[string]bool{"sent": true}, nil
}

// ctlRedeliver posts a logged delivery's token again.
func (f *Fake) ctlRedeliver(_ *http.Request, body []byte) (int, any, error) {
	var in struct {
		Index  *int `json:"index"`
		Copies int  `json:"copies"`
	}
	if err := decodeControl(body, &in); err != nil {
		return 0, nil, err
	}
	if in.Index == nil {
		return 0, nil, badControl("index is required: the position of the delivery in GET %sdeliveries, from 0", ControlPrefix)
	}
	if err := f.Redeliver(*in.Index, in.Copies); err != nil {
		return 0, nil, badControl("%s", err.Error())
	}
	return http.StatusAccepted, map[string]bool{"sent": true}, nil
}

func (f *Fake) ctlInjectDeliveryFault(_ *http.Request, body []byte) (int, any, error) {
	var in struct {
		URL     string `json:"url"`
		Count   int    `json:"count"`
		Drop    bool   `json:"drop"`
		Latency string `json:"latency"`
	}
	if err := decodeControl(body, &in); err != nil {
		return 0, nil, err
	}
	df := DeliveryFault{URL: in.URL, Count: in.Count, Drop: in.Drop}
	if in.Latency != "" {
		d, err := time.ParseDuration(in.Latency)
		if err != nil || d < 0 || d > time.Hour {
			return 0, nil, badControl("latency must be a duration like 250ms, at most 1h")
		}
		df.Latency = d
	}
	switch {
	case df.Count < 0:
		return 0, nil, badControl("count must not be negative")
	case !df.Drop && df.Latency == 0:
		return 0, nil, badControl("a delivery fault needs drop or latency")
	}
	f.InjectDeliveryFault(df)
	return http.StatusCreated, map[string]bool{"injected": true}, nil
}

func (f *Fake) ctlClearDeliveryFaults(*http.Request, []byte) (int, any, error) {
	f.ClearDeliveryFaults()
	return http.StatusOK, map[string]bool{"cleared": true}, nil
}

func (f *Fake) ctlAddComplianceEvent(_ *http.Request, body []byte) (int, any, error) {
	var in struct {
		ID            uuid.UUID `json:"id"`
		CompanyID     uuid.UUID `json:"company_id"`
		Company       string    `json:"company"`
		Filing        string    `json:"filing"`
		Status        string    `json:"status"`
		DueDate       string    `json:"due_date"`
		Jurisdictions []string  `json:"jurisdictions"`
		CreatedAt     time.Time `json:"created_at"`
	}
	if err := decodeControl(body, &in); err != nil {
		return 0, nil, err
	}
	due, err := time.Parse(DateLayout, in.DueDate)
	if err != nil {
		return 0, nil, badControl("due_date is required: a date like 2006-01-02")
	}
	if in.Status != "" && in.Status != ComplianceActive && in.Status != ComplianceNoneRequired {
		return 0, nil, badControl("status must be %s or %s", ComplianceActive, ComplianceNoneRequired)
	}
	cid, err := f.companyRef(in.CompanyID, in.Company)
	if err != nil {
		return 0, nil, err
	}
	ev := f.AddComplianceEvent(ComplianceEventInput{ID: in.ID, CompanyID: cid, Filing: in.Filing, Status: in.Status,
		DueDate: due, Jurisdictions: in.Jurisdictions, CreatedAt: in.CreatedAt})
	wf := f.wire(false)
	return created(f, &f.st.events, ev.ID, func(e *ComplianceEvent) complianceEventWire { return f.complianceWire(wf, e) })
}

func (f *Fake) ctlAddResource(_ *http.Request, body []byte) (int, any, error) {
	var in struct {
		ID           uuid.UUID `json:"id"`
		Name         string    `json:"name"`
		URL          string    `json:"url"`
		Kind         string    `json:"kind"`
		Jurisdiction string    `json:"jurisdiction"`
		Agency       string    `json:"agency"`
		EntityTypes  []string  `json:"entity_types"`
		Pages        int       `json:"pages"`
	}
	if err := decodeControl(body, &in); err != nil {
		return 0, nil, err
	}
	switch {
	case in.Name == "":
		return 0, nil, badControl("name is required")
	case in.Kind != "" && in.Kind != ResourceDocument && in.Kind != ResourceURL:
		return 0, nil, badControl("kind must be %s or %s", ResourceDocument, ResourceURL)
	case in.Pages < 0 || in.Pages > 1000:
		return 0, nil, badControl("pages must be from 1 to 1000")
	}
	r := f.AddResource(ResourceInput{ID: in.ID, Name: in.Name, URL: in.URL, Kind: in.Kind, Jurisdiction: in.Jurisdiction,
		Agency: in.Agency, EntityTypes: in.EntityTypes, Pages: in.Pages})
	return created(f, &f.st.resources, r.ID, f.wire(false).resource)
}

func (f *Fake) ctlAddOrderItem(_ *http.Request, body []byte) (int, any, error) {
	var in struct {
		ID             uuid.UUID `json:"id"`
		CompanyID      uuid.UUID `json:"company_id"`
		Company        string    `json:"company"`
		FilingMethodID uuid.UUID `json:"filing_method_id"`
		Name           string    `json:"name"`
		Status         string    `json:"status"`
		Quantity       int       `json:"quantity"`
	}
	if err := decodeControl(body, &in); err != nil {
		return 0, nil, err
	}
	if in.Status != "" && in.Status != OrderItemNew && in.Status != OrderItemRequiringAttention {
		return 0, nil, badControl("status must be %s or %s", OrderItemNew, OrderItemRequiringAttention)
	}
	if in.Quantity < 0 {
		return 0, nil, badControl("quantity must not be negative")
	}
	cid, err := f.companyRef(in.CompanyID, in.Company)
	if err != nil {
		return 0, nil, err
	}
	f.mu.Lock()
	_, m := f.findMethod(in.FilingMethodID)
	f.mu.Unlock()
	if m == nil {
		return 0, nil, badControl("filing_method_id must name a filing method (GET /filing-methods lists them)")
	}
	oi := f.AddOrderItem(OrderItemInput{ID: in.ID, CompanyID: cid, FilingMethodID: in.FilingMethodID, Name: in.Name, Status: in.Status, Quantity: in.Quantity})
	wf := f.wire(false)
	return created(f, &f.st.orders, oi.ID, func(o *OrderItem) orderItemWire { return f.orderItemWire(wf, o) })
}

// ctlSetStatus changes the status of a record: {"status": one of allowed}.
func (f *Fake) ctlSetStatus(what string, set func(uuid.UUID, string) bool, allowed ...string) controlHandler {
	return func(r *http.Request, body []byte) (int, any, error) {
		id, err := uuid.Parse(r.PathValue("id"))
		if err != nil {
			return 0, nil, &controlError{status: http.StatusNotFound, msg: "no " + what + " " + r.PathValue("id")}
		}
		var in struct {
			Status string `json:"status"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		if !slices.Contains(allowed, in.Status) {
			return 0, nil, badControl("status must be one of %s", strings.Join(allowed, ", "))
		}
		if !set(id, in.Status) {
			return 0, nil, &controlError{status: http.StatusNotFound, msg: "no " + what + " " + id.String()}
		}
		return http.StatusOK, map[string]string{"id": id.String(), "status": in.Status}, nil
	}
}

// controlErrorWire is a refusal of the control surface.
type controlErrorWire struct {
	Error  string       `json:"error"`
	Errors []fieldError `json:"errors,omitempty"`
}

// validateControl checks a control request against the control surface's
// OpenAPI document: a wrong field or type is a 400 naming the field and
// what it must be.
func validateControl(r *http.Request, body []byte) error {
	method, path, ok := strings.Cut(r.Pattern, " ")
	if !ok || !strings.HasPrefix(path, ControlPrefix) || path == ControlPrefix {
		return nil
	}
	op, err := documentRoute(mustDocument(controlContract), method, path)
	if err != nil {
		return nil // an endpoint the document does not describe is refused by its handler
	}
	if _, e := validateRequest(op, r, body); e != nil {
		return &controlError{status: http.StatusBadRequest, msg: e.msg, fields: e.fields}
	}
	return nil
}
