package acctadmintest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

func TestControlIsOffUnlessAskedFor(t *testing.T) {
	srv := newServer(t)
	r := ctl(t, srv, http.MethodPost, "/_fake/companies", `{"name":"Nope LLC"}`)
	requireError(t, r, http.StatusUnauthorized, "missing Authorization")
	require.Empty(t, srv.Companies())
}

func TestControlSeedsRecordsTheAPIServes(t *testing.T) {
	srv := newServer(t, acctadmintest.WithControl())
	m := ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/companies", `{"name":"Curl Co LLC","home_state":"ut","entity_type":"LLC"}`), http.StatusCreated)
	require.Equal(t, "Curl Co LLC", m["name"])
	require.Equal(t, "Utah", m["home_state"])
	coID := m["id"].(string)

	m = ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/services", `{"company":"curl co llc","jurisdiction":"WY"}`), http.StatusCreated)
	require.Equal(t, "Wyoming", m["jurisdiction"])
	require.Equal(t, coID, m["company_id"])
	m = ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/documents", `{"company_id":"`+coID+`","title":"Annual report","pages":3}`), http.StatusCreated)
	require.Equal(t, "Annual report", m["title"])
	require.EqualValues(t, 3, m["pages"])
	docID := m["id"].(string)
	m = ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/invoices", `{"company":"Curl Co LLC","due_date":"2025-04-01","items":[{"price":"149.00","description":"Registered agent","quantity":1},{"price":25,"description":"Fee"}]}`), http.StatusCreated)
	require.Equal(t, "unpaid", m["status"])
	require.Equal(t, "2025-04-01", m["due_date"])

	// The API answers what was seeded.
	r := do(t, srv, http.MethodGet, "/companies", nil)
	requireOK(t, r, "true")
	require.Len(t, r.Items(t), 1)
	r = do(t, srv, http.MethodGet, "/documents/"+docID, nil)
	requireOK(t, r, "true")
	r = do(t, srv, http.MethodGet, "/services?company_id="+coID, nil)
	require.Len(t, r.Items(t), 1)
	r = do(t, srv, http.MethodGet, "/invoices?company_ids[]="+coID, nil)
	items := r.Items(t)
	require.Len(t, items, 1)
	require.Contains(t, string(r.Body), `"price":149.00`)
	require.Contains(t, string(r.Body), `"price":25,`)
	require.Len(t, srv.Invoices(), 1)
}

func TestControlTriggersSignedEvents(t *testing.T) {
	srv := newServer(t, acctadmintest.WithControl())
	rc := newReceiver(t)
	requireOK(t, do(t, srv, http.MethodPost, "/callbacks", map[string]any{"url": rc.URL + "/hook"}), "true")
	ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/companies", `{"name":"Events LLC"}`), http.StatusCreated)
	doc := ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/documents", `{"company":"Events LLC"}`), http.StatusCreated)
	inv := ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/invoices", `{"company":"Events LLC","items":[{"price":"10.00"}]}`), http.StatusCreated)
	waitDeliveries(t, srv, 2)

	bodies, _ := rc.received()
	require.Len(t, bodies, 2)
	events := map[string]map[string]any{}
	for _, b := range bodies {
		claims, header := parseEvent(t, srv, b)
		require.Equal(t, srv.AccessKey, header["access_key"])
		events[claims["event"].(string)] = claims
	}
	require.Equal(t, doc["id"], events["new-document"]["document_id"])
	require.Equal(t, inv["id"], events["new-invoice"]["invoice_id"])
	require.Equal(t, "Events LLC", events["new-invoice"]["company_name"])

	// The delivery log, as curl reads it.
	r := ctl(t, srv, http.MethodGet, "/_fake/deliveries", "")
	require.Equal(t, http.StatusOK, r.Status)
	var ds []map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &ds))
	require.Len(t, ds, 2)
	for _, d := range ds {
		require.Equal(t, true, d["delivered"])
		require.EqualValues(t, 200, d["status_code"])
		require.Equal(t, rc.URL+"/hook", d["url"])
		require.NotContains(t, d, "token", "the signed token is not echoed")
	}
}

func TestControlRequestLogFaultsAndReset(t *testing.T) {
	srv := newDemo(t, acctadmintest.WithControl())
	requireOK(t, do(t, srv, http.MethodGet, "/callbacks", nil), "true")
	r := ctl(t, srv, http.MethodGet, "/_fake/requests", "")
	var log []map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &log))
	require.Len(t, log, 1, "control requests are not in the API's log")
	require.Equal(t, "GET", log[0]["method"])
	require.Equal(t, "/callbacks", log[0]["route"])
	require.EqualValues(t, 200, log[0]["status"])

	ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/faults", `{"method":"get","path":"/callbacks","status":503,"retry_after":"1","count":1}`), http.StatusCreated)
	m := ctlJSON(t, ctl(t, srv, http.MethodGet, "/_fake/faults", ""), http.StatusOK)
	require.EqualValues(t, 1, m["active"])
	r = do(t, srv, http.MethodGet, "/callbacks", nil)
	requireError(t, r, http.StatusServiceUnavailable, "service unavailable")
	require.Equal(t, "1", r.Header.Get("Retry-After"))
	requireOK(t, do(t, srv, http.MethodGet, "/callbacks", nil), "true")

	ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/faults", `{"path":"/companies","status":500}`), http.StatusCreated)
	requireError(t, do(t, srv, http.MethodGet, "/companies", nil), http.StatusInternalServerError, "")
	ctlJSON(t, ctl(t, srv, http.MethodDelete, "/_fake/faults", ""), http.StatusOK)
	requireOK(t, do(t, srv, http.MethodGet, "/companies", nil), "true")
	require.Equal(t, 2, srv.FaultsFired())

	ctlJSON(t, ctl(t, srv, http.MethodDelete, "/_fake/requests", ""), http.StatusOK)
	require.Empty(t, srv.Requests())

	m = ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/reset", ""), http.StatusOK)
	require.EqualValues(t, 0, m["companies"])
	require.Empty(t, srv.Companies())
	require.Empty(t, srv.Documents())
	r = do(t, srv, http.MethodGet, "/companies", nil)
	require.JSONEq(t, `[]`, string(mustRaw(t, r)))
	m = ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/reset?demo=true", ""), http.StatusOK)
	require.EqualValues(t, 6, m["companies"])
	_, ok := srv.Document(acctadmintest.DemoID("document", 1))
	require.True(t, ok)

	m = ctlJSON(t, ctl(t, srv, http.MethodGet, "/_fake/", ""), http.StatusOK)
	require.Len(t, m["api"], len(acctadmintest.Routes()))
	require.Contains(t, m["control"], "POST /_fake/documents")
}

func TestControlRefusesBadInputAndChangesNothing(t *testing.T) {
	srv := newServer(t, acctadmintest.WithControl())
	ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/companies", `{"name":"Taken LLC"}`), http.StatusCreated)
	cases := []struct {
		path, body string
		status     int
		msg        string
	}{
		{"/_fake/companies", `{"name":""}`, 400, "name minimum string length is 1"},
		{"/_fake/companies", `{"name":"Taken LLC"}`, 409, "exists"},
		{"/_fake/companies", `{"name":"X","home_state":"Atlantis"}`, 400, "unknown jurisdiction"},
		{"/_fake/companies", `{"name":"X","nmae":"typo"}`, 400, "nmae is not a field"},
		{"/_fake/companies", `{"name":"X"} {"name":"Y"}`, 400, "more than one"},
		{"/_fake/companies", `[1,2]`, 400, "request body"},
		{"/_fake/documents", `{"title":"No company"}`, 400, "company_id or company is required"},
		{"/_fake/documents", `{"company":"Nobody"}`, 404, "no company named Nobody"},
		{"/_fake/documents", `{"company_id":"` + uuid.NewString() + `"}`, 400, "unknown company"},
		{"/_fake/documents", `{"company":"Taken LLC","pages":100000}`, 400, "pages"},
		{"/_fake/documents", `{"company":"Taken LLC","pdf_size":-1}`, 400, "pdf_size"},
		{"/_fake/documents", `{"company":"Taken LLC","status":"burnt"}`, 400, "status"},
		{"/_fake/invoices", `{"company":"Taken LLC","items":[{"price":"1e400"}]}`, 400, "items[0].price must be of type number or string"},
		{"/_fake/invoices", `{"company":"Taken LLC","items":[{"price":"abc"}]}`, 400, "items[0].price must be of type"},
		{"/_fake/invoices", `{"company":"Taken LLC","due_date":"tomorrow"}`, 400, "due_date"},
		{"/_fake/invoices", `{"company":"Taken LLC","items":[{"price":"1.00","quantity":-2}]}`, 400, "quantity"},
		{"/_fake/services", `{"company":"Taken LLC","jurisdiction":"Narnia"}`, 400, "unknown jurisdiction"},
		{"/_fake/faults", `{"status":503,"probability":2}`, 400, "probability"},
		{"/_fake/faults", `{"status":99}`, 400, "status"},
		{"/_fake/faults", `{"latency":"forever"}`, 400, "latency"},
		{"/_fake/faults", `{"latency":"-1s"}`, 400, "latency"},
		{"/_fake/faults", `{"path":"callbacks","status":500}`, 400, "path"},
		{"/_fake/faults", `{"status":500,"retry_after":"1\r\nX-Evil: 1"}`, 400, "retry_after"},
		{"/_fake/faults", `{"method":"GET"}`, 400, "a fault needs"},
		{"/_fake/faults", `{"status":500,"count":-1}`, 400, "count"},
	}
	for _, tc := range cases {
		m := ctlJSON(t, ctl(t, srv, http.MethodPost, tc.path, tc.body), tc.status)
		require.Contains(t, m["error"], tc.msg, "%s %s", tc.path, tc.body)
	}
	huge := `{"name":"` + strings.Repeat("x", 2<<20) + `"}`
	ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/companies", huge), http.StatusRequestEntityTooLarge)

	require.Len(t, srv.Companies(), 1)
	require.Empty(t, srv.Documents())
	require.Empty(t, srv.Invoices())
	require.Empty(t, srv.Services())
	m := ctlJSON(t, ctl(t, srv, http.MethodGet, "/_fake/faults", ""), http.StatusOK)
	require.EqualValues(t, 0, m["active"])
	require.Empty(t, srv.Deliveries())

	// Unknown control paths and methods.
	m = ctlJSON(t, ctl(t, srv, http.MethodGet, "/_fake/nothing", ""), http.StatusNotFound)
	require.Contains(t, m["error"], "no such control endpoint")
	r := ctl(t, srv, http.MethodPut, "/_fake/companies", "{}")
	require.Equal(t, http.StatusMethodNotAllowed, r.Status)
	require.Equal(t, "POST", r.Header.Get("Allow"))
	r = ctl(t, srv, http.MethodPut, "/_fake/faults", "{}")
	require.Equal(t, http.StatusMethodNotAllowed, r.Status)
	require.Equal(t, "GET, POST, DELETE", r.Header.Get("Allow"))
}

func TestControlAnswersOnlyLocalCallers(t *testing.T) {
	srv := newServer(t, acctadmintest.WithControl())
	// A page in a browser that posts to the fake sends an Origin.
	m := ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/companies", `{"name":"CSRF LLC"}`, "Origin", "https://evil.example"), http.StatusForbidden)
	require.Contains(t, m["error"], "web pages")
	// A rebound DNS name reaches loopback with a foreign Host.
	m = ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/reset", "", "Host", "attacker.example:8089"), http.StatusForbidden)
	require.Contains(t, m["error"], "loopback host")
	for _, h := range []string{"localhost:1", "127.0.0.1", "[::1]:8089", "LOCALHOST"} {
		ctlJSON(t, ctl(t, srv, http.MethodGet, "/_fake/faults", "", "Host", h), http.StatusOK)
	}
	require.Empty(t, srv.Companies())

	// A peer that is not on loopback is refused, whatever it asks.
	rec := &recorder{header: http.Header{}}
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/_fake/companies", strings.NewReader(`{"name":"Remote LLC"}`))
	require.NoError(t, err)
	req.RemoteAddr = "192.0.2.7:40000"
	srv.Fake.ServeHTTP(rec, req)
	require.Equal(t, http.StatusForbidden, rec.status)
	require.Contains(t, rec.body.String(), "loopback clients only")
	require.Empty(t, srv.Companies())
}

// recorder is a minimal http.ResponseWriter.
type recorder struct {
	header http.Header
	status int
	body   strings.Builder
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}
func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(p)
}

// TestControlSeedsCallbacksAndHandsOutResetTokens: a callback seeded
// without a token is listed by the API; the reset token the control
// surface hands out resets the password, once.
func TestControlSeedsCallbacksAndHandsOutResetTokens(t *testing.T) {
	srv := newServer(t, acctadmintest.WithControl())
	m := ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/callbacks", `{"url":"http://127.0.0.1:9/hook"}`), http.StatusCreated)
	cbs := do(t, srv, http.MethodGet, "/callbacks", nil).Items(t)
	require.Len(t, cbs, 1)
	require.Equal(t, m["id"], cbs[0]["id"])
	requireControlError(t, ctl(t, srv, http.MethodPost, "/_fake/callbacks", `{"url":"ftp://x"}`), http.StatusBadRequest, "url")
	require.Len(t, srv.Callbacks(), 1, "nothing added by the refused one")

	tok := ctlJSON(t, ctl(t, srv, http.MethodGet, "/_fake/auth/reset-token", ""), http.StatusOK)
	require.Equal(t, acctadmintest.DemoUserEmail, tok["email"])
	reset := map[string]string{"token": tok["token"].(string), "password": "new-password-1", "password_confirmation": "new-password-1"}
	require.Equal(t, http.StatusOK, do(t, srv, http.MethodPost, "/auth/reset-password", reset).Status)
	requireFieldError(t, do(t, srv, http.MethodPost, "/auth/reset-password", reset), "token")
	login := map[string]string{"email": acctadmintest.DemoUserEmail, "password": "new-password-1"}
	require.Equal(t, http.StatusOK, do(t, srv, http.MethodPost, "/auth/login", login).Status)
	login["password"] = acctadmintest.DemoUserPassword
	requireError(t, do(t, srv, http.MethodPost, "/auth/login", login), http.StatusUnauthorized, "e-mail or password")
	for _, q := range srv.Requests() {
		require.NotContains(t, string(q.Body), "new-password-1", "passwords never reach the log")
		require.NotContains(t, string(q.Body), reset["token"])
	}
}

// TestControlRefusesRelayedRequests: a request a proxy relayed comes from
// loopback but not from this machine's user; it is refused, and changes
// nothing.
func TestControlRefusesRelayedRequests(t *testing.T) {
	srv := newServer(t, acctadmintest.WithControl())
	for _, h := range [][]string{
		{"Forwarded", "for=203.0.113.9"},
		{"X-Forwarded-For", "203.0.113.9"},
		{"X-Real-IP", "203.0.113.9"},
		{"X-Forwarded-Host", "fake.example.com"},
		{"Via", "1.1 tunnel"},
	} {
		r := ctl(t, srv, http.MethodPost, "/_fake/companies", `{"name":"Relayed LLC"}`, h...)
		requireControlError(t, r, http.StatusForbidden, "relayed")
	}
	require.Empty(t, srv.Companies())
	ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/companies", `{"name":"Local LLC"}`), http.StatusCreated)
}

// TestControlClock: the clock is set and advanced from outside; records,
// timestamps and the expiry of file URLs follow it.
func TestControlClock(t *testing.T) {
	srv := newDemo(t, acctadmintest.WithControl())
	m := ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/clock", `{"now":"2030-06-01T12:00:00Z"}`), http.StatusOK)
	require.Equal(t, "2030-06-01T12:00:00Z", m["now"])
	r := do(t, srv, http.MethodPost, "/companies", map[string]any{"companies": []any{map[string]any{"name": "Clockwork LLC"}}})
	require.Contains(t, string(r.Body), `"created_at":"2030-06-01 05:00:00 -0700"`)

	doc := acctadmintest.DemoID("document", 1).String()
	var link struct {
		URL string `json:"url"`
	}
	do(t, srv, http.MethodGet, "/documents/"+doc+"/page/0/url", nil).Result(t, &link)
	get := func() int {
		resp, err := srv.Client().Get(link.URL)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, http.StatusOK, get())
	m = ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/clock", `{"advance":"16m"}`), http.StatusOK)
	require.Equal(t, "2030-06-01T12:16:00Z", m["now"])
	require.Equal(t, http.StatusGone, get(), "the URL expired with the clock")
	require.Equal(t, "2030-06-01T12:16:00Z", srv.Now().UTC().Format(time.RFC3339))

	for body, msg := range map[string]string{
		`{}`:                 "give now",
		`{"advance":"soon"}`: "duration",
		`{"now":"2030-01-01T00:00:00Z","advance":"1h"}`: "not both",
	} {
		requireControlError(t, ctl(t, srv, http.MethodPost, "/_fake/clock", body), http.StatusBadRequest, msg)
	}
}

// TestControlSeedsEveryTable: what a test in another language needs, for
// example "companies with a due date within 30 days and unpaid invoices",
// is seeded without a token and read back through the API.
func TestControlSeedsEveryTable(t *testing.T) {
	srv := newServer(t, acctadmintest.WithControl())
	co := ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/companies", `{"name":"Due Soon LLC","home_state":"UT"}`), http.StatusCreated)
	soon := fixedNow.AddDate(0, 0, 10).Format("2006-01-02")
	ev := ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/compliance-events", `{"company":"Due Soon LLC","filing":"Annual Report","due_date":"`+soon+`","jurisdictions":["UT"]}`), http.StatusCreated)
	require.Equal(t, soon, ev["due_date"])
	inv := ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/invoices", `{"company":"Due Soon LLC","items":[{"price":"149.00","description":"Annual report"}]}`), http.StatusCreated)
	res := ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/resources", `{"name":"Utah Annual Report","jurisdiction":"UT","entity_types":["LLC"],"pages":2}`), http.StatusCreated)
	require.Equal(t, "Utah", res["jurisdiction"])
	svc := ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/services", `{"company":"Due Soon LLC","jurisdiction":"UT"}`), http.StatusCreated)
	doc := ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/documents", `{"company":"Due Soon LLC","title":"Notice"}`), http.StatusCreated)

	var panel struct {
		UnpaidInvoices   int `json:"unpaid_invoices"`
		UnreadDocuments  int `json:"unread_documents"`
		UpcomingDueDates []struct {
			Company string `json:"company"`
			DueDate string `json:"due_date"`
		} `json:"upcoming_due_dates"`
	}
	do(t, srv, http.MethodGet, "/account/dashpanel", nil).Result(t, &panel)
	require.Equal(t, 1, panel.UnpaidInvoices)
	require.Equal(t, 1, panel.UnreadDocuments)
	require.Len(t, panel.UpcomingDueDates, 1)
	require.Equal(t, "Due Soon LLC", panel.UpcomingDueDates[0].Company)

	// Statuses change from outside.
	ctlJSON(t, ctl(t, srv, http.MethodPatch, "/_fake/invoices/"+inv["id"].(string), `{"status":"paid"}`), http.StatusOK)
	ctlJSON(t, ctl(t, srv, http.MethodPatch, "/_fake/documents/"+doc["id"].(string), `{"status":"read"}`), http.StatusOK)
	ctlJSON(t, ctl(t, srv, http.MethodPatch, "/_fake/services/"+svc["id"].(string), `{"status":"cancelled"}`), http.StatusOK)
	do(t, srv, http.MethodGet, "/account/dashpanel", nil).Result(t, &panel)
	require.Zero(t, panel.UnpaidInvoices)
	require.Zero(t, panel.UnreadDocuments)
	requireControlError(t, ctl(t, srv, http.MethodPatch, "/_fake/invoices/"+inv["id"].(string), `{"status":"gone"}`), http.StatusBadRequest, `status must be one of "unpaid", "paid", "cancelled"`)
	requireControlError(t, ctl(t, srv, http.MethodPatch, "/_fake/invoices/"+co["id"].(string), `{"status":"paid"}`), http.StatusNotFound, "no invoice")

	// An order item waiting for form data.
	srv.SeedDemo()
	oi := ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/order-items", `{"company":"Due Soon LLC","filing_method_id":"`+acctadmintest.DemoEINMethodID.String()+`"}`), http.StatusCreated)
	require.Equal(t, "requiring-client-attention", oi["status"])
	require.Equal(t, "Standard Federal EIN - Tax Id filing", oi["name"])
	items := do(t, srv, http.MethodGet, "/order-items/requiring-attention?company_ids[]="+co["id"].(string), nil).Items(t)
	require.Len(t, items, 1)

	for path, body := range map[string]string{
		"/_fake/compliance-events": `{"company":"Due Soon LLC","due_date":"soon"}`,
		"/_fake/resources":         `{"name":"X","jurisdiction":"Gondor"}`,
		"/_fake/order-items":       `{"company":"Due Soon LLC","filing_method_id":"` + co["id"].(string) + `"}`,
	} {
		r := ctl(t, srv, http.MethodPost, path, body)
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", path, r.Body)
	}
}

// TestControlTakesJSONWhateverItsLabel: curl -d labels a body as a form;
// the control surface and the API read it as JSON all the same.
func TestControlTakesJSONWhateverItsLabel(t *testing.T) {
	srv := newServer(t, acctadmintest.WithControl())
	for _, ct := range []string{"application/x-www-form-urlencoded", "text/plain", ""} {
		r := ctl(t, srv, http.MethodPost, "/_fake/companies", `{"name":"Label `+ct+`"}`, "Content-Type", ct)
		ctlJSON(t, r, http.StatusCreated)
	}
	body := []byte(`{"url":"http://127.0.0.1:9/hook"}`)
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/callbacks", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+signJWT(t, srv.AccessKey, srv.SecretKey, "/callbacks", body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Len(t, srv.Companies(), 3)
}

// TestControlClockFarTimes: the control surface keeps times centuries
// away, and refuses, naming the range, a time the API could not write
// with a four-digit year; a refusal leaves the clock where it was.
func TestControlClockFarTimes(t *testing.T) {
	srv := newServer(t, acctadmintest.WithControl())
	set := func(body string) map[string]any {
		t.Helper()
		return ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/clock", body), http.StatusOK)
	}
	m := set(`{"now":"2400-01-01T00:00:00Z"}`)
	require.Equal(t, "2400-01-01T00:00:00Z", m["now"])
	require.Equal(t, "2400-01-01T00:00:00Z", ctlJSON(t, ctl(t, srv, http.MethodGet, "/_fake/clock", ""), http.StatusOK)["now"])
	r := do(t, srv, http.MethodPost, "/companies", map[string]any{"companies": []any{map[string]any{"name": "Far Future LLC"}}})
	require.Contains(t, string(r.Body), `"created_at":"2399-12-31 17:00:00 -0700"`)

	y2200 := time.Date(2200, time.January, 1, 0, 0, 0, 0, time.UTC)
	set(`{"now":"2200-01-01T00:00:00Z"}`)
	m = set(`{"advance":"1314000h"}`) // 150 years of 365 days
	require.Equal(t, y2200.Add(1314000*time.Hour).Format(time.RFC3339Nano), m["now"])
	require.Equal(t, "2349-11-", m["now"].(string)[:8])
	m = set(`{"advance":"2562047h47m16.854775807s"}`) // the longest Duration
	require.Equal(t, y2200.Add(1314000*time.Hour).Add(math.MaxInt64).Format(time.RFC3339Nano), m["now"])

	// The bounds are kept; one nanosecond past them is refused.
	require.Equal(t, "0001-01-01T00:00:00Z", set(`{"now":"0001-01-01T00:00:00Z"}`)["now"])
	refused := func(body, field string) {
		t.Helper()
		before := srv.Now()
		r := ctl(t, srv, http.MethodPost, "/_fake/clock", body)
		requireControlError(t, r, http.StatusBadRequest, "0001-01-01T00:00:00Z to 9999-12-31T00:00:00Z")
		require.Equal(t, []string{field}, errorFields(t, r), "%s", r.Body)
		require.True(t, srv.Now().Equal(before), "a refusal leaves the clock at %s, not %s", before, srv.Now())
	}
	refused(`{"advance":"-1ns"}`, "advance")
	refused(`{"now":"0000-12-31T23:59:59.999999999Z"}`, "now")
	refused(`{"now":"0001-01-01T00:00:00+00:01"}`, "now")
	require.Equal(t, "9999-12-31T00:00:00Z", set(`{"now":"9999-12-31T00:00:00Z"}`)["now"])
	refused(`{"advance":"1ns"}`, "advance")
	refused(`{"now":"9999-12-31T00:00:00.000000001Z"}`, "now")
	refused(`{"now":"9999-12-31T23:59:59Z"}`, "now")
	require.Equal(t, "9999-12-30T23:59:59.999999999Z", set(`{"advance":"-1ns"}`)["now"])
	m = set(`{"now":"2200-01-01T00:00:00Z"}`)
	require.Equal(t, "2200-01-01T00:00:00Z", m["now"])
}

// TestControlFaultStatusBounds: a fault's status is an HTTP status from
// 200 to 599; anything else (a typo such as 5003 would make net/http
// panic on every matching request) is a 400 naming status, and no fault
// is added. The bounds themselves are taken and answered.
func TestControlFaultStatusBounds(t *testing.T) {
	srv := newServer(t, acctadmintest.WithControl())
	for _, status := range []string{"600", "5003", "1000", "199", "100", "99", "0", "-1", "-503"} {
		r := ctl(t, srv, http.MethodPost, "/_fake/faults", `{"path":"/callbacks","status":`+status+`}`)
		require.Equal(t, http.StatusBadRequest, r.Status, "status %s: %s", status, r.Body)
		require.Equal(t, []string{"status"}, errorFields(t, r), "status %s: %s", status, r.Body)
		require.Contains(t, string(r.Body), "status", "status %s", status)
	}
	require.EqualValues(t, 0, ctlJSON(t, ctl(t, srv, http.MethodGet, "/_fake/faults", ""), http.StatusOK)["active"])

	for _, status := range []int{599, 200} {
		ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/faults", `{"path":"/callbacks","count":1,"status":`+itoa(status)+`}`), http.StatusCreated)
		resp, err := srv.Client().Get(srv.URL + "/callbacks")
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, status, resp.StatusCode)
	}
	require.Equal(t, 2, srv.FaultsFired())
}

// TestControlOnlyAtItsExactPrefix: only /_fake/ as written reaches the
// control surface; near misses and escaped forms are API paths, and a dot
// segment under the prefix is a 404, never resolved or redirected.
func TestControlOnlyAtItsExactPrefix(t *testing.T) {
	srv := newServer(t, acctadmintest.WithControl())
	// Only the prefix as written is the control surface; near misses and
	// escaped forms are API paths, authenticated first.
	for _, target := range []string{"/_fake", "/_FAKE/companies", "/x/_fake/companies", "/_fake%2Fcompanies", "/%5Ffake/companies"} {
		status, _, body := rawRequest(t, srv, http.MethodPost, target, nil, `{"name":"Sneaky LLC"}`)
		require.Equal(t, http.StatusUnauthorized, status, "%s: %s", target, body)
	}
	// A dot segment under the prefix is not resolved, nor redirected.
	status, header, body := rawRequest(t, srv, http.MethodPost, "/_fake/../callbacks", nil, `{"url":"http://127.0.0.1:1/x"}`)
	require.Equal(t, http.StatusNotFound, status, body)
	require.Empty(t, header.Get("Location"))
	require.Empty(t, srv.Companies())
	require.Empty(t, srv.Callbacks())
}

// TestControlUnderConcurrency: seeding, reads, faults and resets from 8
// goroutines at once never fail with a 5xx, and every answer is JSON.
func TestControlUnderConcurrency(t *testing.T) {
	srv := newServer(t, acctadmintest.WithControl())
	ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/companies", `{"name":"Race LLC"}`), http.StatusCreated)
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[int]int{}
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				var method, path, body string
				switch (g + i) % 5 {
				case 0:
					method, path = http.MethodPost, "/_fake/reset"
				case 1:
					method, path, body = http.MethodPost, "/_fake/companies", fmt.Sprintf(`{"name":"Race LLC %d-%d"}`, g, i)
				case 2:
					method, path, body = http.MethodPost, "/_fake/documents", `{"company":"Race LLC"}`
				case 3:
					method, path = http.MethodGet, "/_fake/requests"
				default:
					method, path, body = http.MethodPost, "/_fake/faults", `{"path":"/nowhere","status":500,"count":1}`
				}
				req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
				if err != nil {
					panic(err)
				}
				resp, err := srv.Client().Do(req)
				if err != nil {
					panic(err)
				}
				var m any
				decErr := json.NewDecoder(resp.Body).Decode(&m)
				resp.Body.Close()
				mu.Lock()
				seen[resp.StatusCode]++
				if decErr != nil {
					seen[-1]++
				}
				mu.Unlock()
			}
		}(g)
	}
	wg.Wait()
	for status := range seen {
		// 404: the company went with a reset; 409: the record did.
		require.Contains(t, []int{200, 201, 404, 409}, status, "statuses: %v", seen)
	}
}
