package acctadmintest_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// fixedNow is the clock of most tests.
var fixedNow = time.Date(2025, time.March, 14, 15, 9, 26, 0, time.UTC)

func fixedClock() time.Time { return fixedNow }

// newServer starts a fake with a fixed clock and seed, closed at the end
// of the test.
func newServer(t testing.TB, opts ...acctadmintest.Option) *acctadmintest.Server {
	t.Helper()
	opts = append([]acctadmintest.Option{
		acctadmintest.WithClock(fixedClock), acctadmintest.WithSeed(1),
		// Every answer of every test is held against the contract.
		acctadmintest.WithContractChecks(func(err error) { t.Error(err) }),
	}, opts...)
	srv := acctadmintest.NewServer(opts...)
	t.Cleanup(srv.Close)
	return srv
}

// newDemo is newServer with the demo account.
func newDemo(t testing.TB, opts ...acctadmintest.Option) *acctadmintest.Server {
	return newServer(t, append(opts, acctadmintest.WithDemoData())...)
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// signJWT makes a request token the way the API wants it, with golang-jwt.
func signJWT(t testing.TB, accessKey, secret, path string, body []byte) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"path": path, "content": sha256Hex(body)})
	tok.Header["access_key"] = accessKey
	s, err := tok.SignedString([]byte(secret))
	require.NoError(t, err)
	return s
}

// claimsFor is the path and content claims of form A: the path as given
// and the hash of body.
func claimsFor(path string, body []byte) map[string]any {
	return map[string]any{"path": path, "content": sha256Hex(body)}
}

// handJWT makes a token without any JWT library: base64url segments and
// an HMAC, with whatever header and claims the test wants.
func handJWT(t testing.TB, header, claims map[string]any, secret string) string {
	t.Helper()
	h, err := json.Marshal(header)
	require.NoError(t, err)
	c, err := json.Marshal(claims)
	require.NoError(t, err)
	input := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(input))
	return input + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// response is an answer read whole.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic map.
func (r response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &m), "body: %s", r.Body)
	return m
}

// Result decodes the result of the envelope into v.
func (r response) Result(t testing.TB, v any) {
	t.Helper()
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &env), "body: %s", r.Body)
	require.NoError(t, json.Unmarshal(env.Result, v), "result: %s", env.Result)
}

// Items decodes an array result into generic maps.
func (r response) Items(t testing.TB) []map[string]any {
	t.Helper()
	var items []map[string]any
	r.Result(t, &items)
	return items
}

// do sends a request signed by hand to the fake. target is a path with an
// optional query; body is nil, a string, []byte or a value to marshal.
func do(t testing.TB, srv *acctadmintest.Server, method, target string, body any) response {
	t.Helper()
	var b []byte
	switch v := body.(type) {
	case nil:
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		var err error
		b, err = json.Marshal(v)
		require.NoError(t, err)
	}
	u, err := url.Parse(target)
	require.NoError(t, err)
	return doToken(t, srv, method, target, b, signJWT(t, srv.AccessKey, srv.SecretKey, u.Path, b))
}

// doToken sends a request with the given body and bearer token ("" sends
// no Authorization header).
func doToken(t testing.TB, srv *acctadmintest.Server, method, target string, body []byte, token string) response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+target, rd)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	return readResponse(t, resp)
}

// readResponse reads a whole answer.
func readResponse(t testing.TB, resp *http.Response) response {
	t.Helper()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return response{Status: resp.StatusCode, Header: resp.Header, Body: data}
}

// mustRaw returns the raw JSON of the result.
func mustRaw(t testing.TB, r response) json.RawMessage {
	t.Helper()
	var raw json.RawMessage
	r.Result(t, &raw)
	return raw
}

var (
	timestampRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{4}$`)
	isoRE       = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$`)
)

// requireOK checks a successful JSON answer and its envelope; success is
// the raw JSON of the success field, true or "true".
func requireOK(t testing.TB, r response, success string) {
	t.Helper()
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	require.True(t, strings.HasPrefix(string(r.Body), `{"success":`+success+`,"timestamp":"`), "body: %.200s", r.Body)
	m := r.JSON(t)
	require.Regexp(t, timestampRE, m["timestamp"])
	require.Contains(t, m, "result")
}

// requireError checks an error answer: its status, the error shape and a
// part of its message. It returns the decoded body.
func requireError(t testing.TB, r response, status int, msgPart string) map[string]any {
	t.Helper()
	require.Equal(t, status, r.Status, "body: %s", r.Body)
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	m := r.JSON(t)
	require.Equal(t, false, m["success"], "body: %s", r.Body)
	ts, _ := m["timestamp"].(string)
	require.True(t, timestampRE.MatchString(ts) || isoRE.MatchString(ts), "timestamp %q", ts)
	require.Contains(t, m["message"], msgPart)
	return m
}

// requireFieldError checks a 400 whose errors name field.
func requireFieldError(t testing.TB, r response, field string) {
	t.Helper()
	m := requireError(t, r, http.StatusBadRequest, "")
	errs, ok := m["errors"].([]any)
	require.True(t, ok, "no errors array: %s", r.Body)
	var fields []string
	for _, e := range errs {
		em := e.(map[string]any)
		require.NotEmpty(t, em["message"])
		fields = append(fields, em["field"].(string))
	}
	require.Contains(t, fields, field, "body: %s", r.Body)
}

func itoa(n int) string { return strconv.Itoa(n) }

// errorFields returns the fields a 400 names in its errors array.
func errorFields(t testing.TB, r response) []string {
	t.Helper()
	var env struct {
		Errors []struct {
			Field   string `json:"field"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &env), "body: %s", r.Body)
	var fields []string
	for _, e := range env.Errors {
		require.NotEmpty(t, e.Message, "body: %s", r.Body)
		fields = append(fields, e.Field)
	}
	return fields
}

// rawRequest sends a request line exactly as given, without a client
// cleaning or escaping its target, and returns the status and body.
func rawRequest(t *testing.T, srv *acctadmintest.Server, method, target string, header map[string]string, body string) (int, http.Header, string) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\nContent-Length: %d\r\n", method, target, strings.TrimPrefix(srv.URL, "http://"), len(body))
	for k, v := range header {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	b.WriteString("\r\n" + body)
	_, err = io.WriteString(conn, b.String())
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, string(data)
}

func b64url(s string) string {
	const enc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var b strings.Builder
	data := []byte(s)
	for i := 0; i < len(data); i += 3 {
		var n uint32
		k := min(3, len(data)-i)
		for j := 0; j < k; j++ {
			n |= uint32(data[i+j]) << (16 - 8*j)
		}
		for j := 0; j < k+1; j++ {
			b.WriteByte(enc[(n>>(18-6*j))&63])
		}
	}
	return b.String()
}

// call makes a signed request from any goroutine and returns its status.
func call(srv *acctadmintest.Server, method, path string, body []byte) (int, error) {
	status, _, err := callBody(srv, method, path, body)
	return status, err
}

// callBody is call that also returns the body.
func callBody(srv *acctadmintest.Server, method, path string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(method, srv.URL+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"path": req.URL.Path, "content": sha256Hex(body)})
	tok.Header["access_key"] = srv.AccessKey
	s, err := tok.SignedString([]byte(srv.SecretKey))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+s)
	resp, err := srv.Client().Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
}

// einFormData is the provider's data/form_data_ein_tax_id.json.
const einFormData = `{"ssn":"555-55-5555","start_date":"04/04/2023","fiscal_year_end":"01",
"entity_type":"Limited Liability Company","ein_trucking":true,"ein_excise_tax":true,"ein_sell_tobacco":true,
"ein_has_employees":true,"number_of_members":"1","responsible_party":{"last_name":"Prime Corporate Services Test",
"first_name":"Tester McTestington","phone_number":"5555555555"},"principal_activity":"Just a Test",
"ein_other_employees":"1","ein_involves_gambling":true,"company_mailing_address":{"city":"Spokane",
"line1":"123 Test St","county":"Spokane","country":"US","zip_postal_code":"99223","state_province_region":"WA"},
"company_principal_address":{"city":"Spokane","line1":"123 Test St","county":"Spokane","country":"US",
"zip_postal_code":"99223","state_province_region":"WA"},"ein_first_date_wages_paid":"04/17/2023",
"ein_agricultural_employees":"1","ein_employee_tax_liability_1000":true}`

// card is the card body the provider's end-to-end flows send.
func card(number, month, year string) map[string]any {
	return map[string]any{
		"number": number, "exp_month": month, "exp_year": year, "cvc": "314",
		"first_name": "Tester", "last_name": "McTestington",
		"billing_address": map[string]any{"city": "Queens", "state": "NY", "zip": "11101", "country": "US", "address1": "1 Test Ave", "address2": nil},
	}
}

// pick returns the first item whose fields equal want.
func pick(t *testing.T, items []map[string]any, want map[string]any) map[string]any {
	t.Helper()
	for _, it := range items {
		ok := true
		for k, v := range want {
			if it[k] != v {
				ok = false
			}
		}
		if ok {
			return it
		}
	}
	t.Fatalf("no item with %v among %v", want, items)
	return nil
}

// requireCardWritten checks the answer the real server gives to a card
// written (stored, changed or removed): 200 and result {"status_code":
// 200, "success": true}, nothing else beside the envelope.
func requireCardWritten(t testing.TB, r response) {
	t.Helper()
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
	m := r.JSON(t)
	require.True(t, timestampRE.MatchString(m["timestamp"].(string)), "timestamp %v", m["timestamp"])
	delete(m, "timestamp")
	require.Equal(t, map[string]any{"success": true, "result": map[string]any{"status_code": float64(200), "success": true}}, m)
}

// storeCard stores a card and returns it as listed: the one card listed
// after the POST that was not before (the answer does not hold it).
func storeCard(t testing.TB, srv *acctadmintest.Server, body map[string]any) map[string]any {
	t.Helper()
	before := map[any]bool{}
	for _, it := range do(t, srv, http.MethodGet, "/payment-methods", nil).Items(t) {
		before[it["id"]] = true
	}
	requireCardWritten(t, do(t, srv, http.MethodPost, "/payment-methods", body))
	var added []map[string]any
	for _, it := range do(t, srv, http.MethodGet, "/payment-methods", nil).Items(t) {
		if !before[it["id"]] {
			added = append(added, it)
		}
	}
	require.Len(t, added, 1, "one new card listed")
	return added[0]
}

// requireDeclined stores the card number given and checks that it is
// declined at checkout: 402 naming payment_token, no invoice made, the
// cart item kept.
func requireDeclined(t testing.TB, srv *acctadmintest.Server, number, cartItem string) {
	t.Helper()
	stored := storeCard(t, srv, card(number, "12", "2031"))
	require.Equal(t, "0002", stored["last4"], "%q", number)
	invoicesBefore := len(srv.Invoices())
	r := do(t, srv, http.MethodPost, "/shopping-cart/checkout", map[string]any{"item_ids": []string{cartItem}, "payment_token": stored["id"]})
	requireError(t, r, http.StatusPaymentRequired, "declined")
	require.Equal(t, []string{"payment_token"}, errorFields(t, r), "%q", number)
	require.Len(t, srv.Invoices(), invoicesBefore, "%q", number)
	require.Len(t, do(t, srv, http.MethodGet, "/shopping-cart", nil).Items(t), 1, "%q: the cart is untouched", number)
}

// ctl sends a control request as curl would: no token, a JSON body.
func ctl(t *testing.T, srv *acctadmintest.Server, method, path, body string, header ...string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		if strings.EqualFold(header[i], "Host") {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	return readResponse(t, resp)
}

func ctlJSON(t *testing.T, r response, status int) map[string]any {
	t.Helper()
	require.Equal(t, status, r.Status, "body: %s", r.Body)
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &m), "body: %s", r.Body)
	return m
}

// requireControlError checks a control error: its status, and a message
// that mentions part.
func requireControlError(t *testing.T, r response, status int, part string) {
	t.Helper()
	m := ctlJSON(t, r, status)
	require.Contains(t, m["error"], part)
}

// receiver is a callback endpoint that records what it is sent and answers
// with the statuses of its script in turn (200 once the script is spent).
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	ctypes []string
	script []int
	calls  atomic.Int32
}

func newReceiver(t *testing.T, script ...int) *receiver {
	t.Helper()
	rc := &receiver{script: script}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(rc.calls.Add(1)) - 1
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.bodies = append(rc.bodies, body)
		rc.ctypes = append(rc.ctypes, r.Header.Get("Content-Type"))
		rc.mu.Unlock()
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		if n < len(rc.script) {
			w.WriteHeader(rc.script[n])
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) received() ([][]byte, []string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([][]byte(nil), rc.bodies...), append([]string(nil), rc.ctypes...)
}

// parseEvent verifies an event body as a receiver would, with golang-jwt
// and the secret.
func parseEvent(t *testing.T, srv *acctadmintest.Server, body []byte) (jwt.MapClaims, map[string]any) {
	t.Helper()
	var env map[string]string
	require.NoError(t, json.Unmarshal(body, &env))
	require.Len(t, env, 1)
	claims := jwt.MapClaims{}
	tok, err := jwt.ParseWithClaims(env["data"], claims, func(*jwt.Token) (any, error) { return []byte(srv.SecretKey), nil },
		jwt.WithValidMethods([]string{"HS256"}))
	require.NoError(t, err)
	return claims, tok.Header
}

func waitDeliveries(t *testing.T, srv *acctadmintest.Server, n int) []acctadmintest.Delivery {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ds, err := srv.WaitDeliveries(ctx, n)
	require.NoError(t, err)
	return ds
}

// send makes a signed request with client and returns the answer or the
// transport error, reading the whole body.
func send(t *testing.T, srv *acctadmintest.Server, client *http.Client, method, path string, body []byte) (*http.Response, []byte, error) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+signJWT(t, srv.AccessKey, srv.SecretKey, req.URL.Path, body))
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp, data, err
}

// freshClient makes one connection per request, so a dropped connection
// is never retried by the transport.
func freshClient(t *testing.T) *http.Client {
	tr := &http.Transport{DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// requirePNG decodes a page image and checks its size.
func requirePNG(t *testing.T, r response, w, h int) {
	t.Helper()
	require.Equal(t, http.StatusOK, r.Status, "body: %.300s", r.Body)
	require.Equal(t, "image/png", r.Header.Get("Content-Type"))
	require.Equal(t, strconv.Itoa(len(r.Body)), r.Header.Get("Content-Length"))
	cfg, err := png.DecodeConfig(bytes.NewReader(r.Body))
	require.NoError(t, err)
	require.Equal(t, w, cfg.Width)
	require.Equal(t, h, cfg.Height)
	if w*h > 2_500_000 {
		// Decoding every pixel at 300 dpi is slow under the race detector
		// and checks the same encoder as the smaller sizes.
		return
	}
	img, err := png.Decode(bytes.NewReader(r.Body))
	require.NoError(t, err)
	require.Equal(t, w, img.Bounds().Dx())
	require.Equal(t, h, img.Bounds().Dy())
	// Black border on white paper.
	margin := w / 17
	require.Equal(t, color.GrayModel.Convert(color.White), color.GrayModel.Convert(img.At(margin/2, h/2)))
	require.Equal(t, color.GrayModel.Convert(color.Black), color.GrayModel.Convert(img.At(margin, h/2)))
}

var (
	pageObjRE  = regexp.MustCompile(`/Type\s*/Page\b`)
	countRE    = regexp.MustCompile(`/Type\s*/Pages\b[^>]*/Count\s+(\d+)`)
	objRE      = regexp.MustCompile(`(?m)^(\d+) 0 obj\b`)
	startxRE   = regexp.MustCompile(`startxref\n(\d+)\n%%EOF\n$`)
	xrefHeadRE = regexp.MustCompile(`^xref\n0 (\d+)\n`)
)

// requirePDF checks that a PDF has pages pages and a cross-reference table
// whose offsets point at its objects.
func requirePDF(t *testing.T, pdf []byte, pages int) {
	t.Helper()
	require.True(t, bytes.HasPrefix(pdf, []byte("%PDF-1.")), "header: %q", pdf[:min(len(pdf), 16)])
	// The objects are all outside the padding of a large file: look at
	// its ends only, which keeps the regular expressions fast.
	text := pdf
	if len(pdf) > 1<<18 {
		text = append(append([]byte(nil), pdf[:1<<16]...), pdf[len(pdf)-1<<16:]...)
	}
	require.Len(t, pageObjRE.FindAll(text, -1), pages, "/Type /Page objects")
	m := countRE.FindSubmatch(text)
	require.NotNil(t, m, "no /Count")
	require.Equal(t, strconv.Itoa(pages), string(m[1]))
	checkXref(t, pdf)
}

// checkXref follows startxref to the table and checks every entry.
func checkXref(t *testing.T, pdf []byte) {
	t.Helper()
	m := startxRE.FindSubmatch(pdf)
	require.NotNil(t, m, "no startxref at the end")
	at, err := strconv.Atoi(string(m[1]))
	require.NoError(t, err)
	table := pdf[at:]
	h := xrefHeadRE.FindSubmatch(table)
	require.NotNil(t, h, "startxref does not point at the xref table: %q", table[:min(len(table), 20)])
	n, _ := strconv.Atoi(string(h[1]))
	entries := table[len(h[0]):]
	require.Equal(t, "0000000000 65535 f \n", string(entries[:20]))
	head := pdf[:min(len(pdf), 1<<16)]
	require.Len(t, objRE.FindAll(head, -1), n-1, "objects in the file")
	for i := 1; i < n; i++ {
		e := entries[i*20 : (i+1)*20]
		off, err := strconv.Atoi(string(e[:10]))
		require.NoError(t, err)
		require.True(t, bytes.HasPrefix(pdf[off:], []byte(strconv.Itoa(i)+" 0 obj\n")), "object %d not at %d", i, off)
	}
}

var demoURL = url.QueryEscape(acctadmintest.DemoWebsiteURL)

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
