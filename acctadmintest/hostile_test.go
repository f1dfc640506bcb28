package acctadmintest_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

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

func TestHostilePathTraversalIsNoSuchEndpoint(t *testing.T) {
	srv := newServer(t)
	cb := srv.AddCallback("http://127.0.0.1:1/keep")
	id := cb.ID.String()
	for _, target := range []string{
		"/documents/../callbacks",
		"/documents/%2e%2e/callbacks",
		"/callbacks/" + id + "/../" + id,
		"/callbacks/./" + id,
		"//callbacks/" + id,
		"/callbacks//" + id,
	} {
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			// Signed for exactly the path sent, so only routing decides.
			path := target
			tok := signJWT(t, srv.AccessKey, srv.SecretKey, path, nil)
			status, header, body := rawRequest(t, srv, method, target, map[string]string{"Authorization": "Bearer " + tok}, "")
			if status == http.StatusUnauthorized {
				// The client-side path and the server's unescaped one
				// differ (%2e): still refused, never served.
				require.Contains(t, body, "path claim", "%s %s", method, target)
				continue
			}
			require.Equal(t, http.StatusNotFound, status, "%s %s: %s", method, target, body)
			require.Contains(t, body, "no such endpoint", "%s %s", method, target)
			require.Empty(t, header.Get("Location"), "no redirect to the cleaned path")
		}
	}
	require.Len(t, srv.Callbacks(), 1, "nothing was deleted")
	require.Empty(t, srv.Writes())
}

func TestHostileIDsInPaths(t *testing.T) {
	srv := newDemo(t)
	for _, id := range []string{"%00", "' OR 1=1 --", "00000000-0000-0000-0000-000000000000", strings.Repeat("a", 10000), "%F0%9F%92%A9"} {
		target := "/documents/" + strings.ReplaceAll(id, " ", "%20")
		r := do(t, srv, http.MethodGet, target, nil)
		require.Equal(t, http.StatusNotFound, r.Status, "%s: %s", id, r.Body)
		require.Contains(t, string(r.Body), "document not found")
	}
	// An escaped slash makes an empty segment: no endpoint has one.
	r := do(t, srv, http.MethodGet, "/documents/%2F", nil)
	requireError(t, r, http.StatusNotFound, "no such endpoint")
	r = do(t, srv, http.MethodPost, "/services/'%3B--/cancel-request", nil)
	requireError(t, r, http.StatusNotFound, "service not found")
	require.Empty(t, srv.Writes())
}

func TestHostileTokens(t *testing.T) {
	srv := newServer(t)
	claims := map[string]any{"path": "/callbacks", "content": emptyHash}
	attacker := "attacker-secret"
	cases := map[string]string{
		"lowercase alg":     handJWT(t, map[string]any{"alg": "hs256", "access_key": srv.AccessKey}, claims, srv.SecretKey),
		"jku to own key":    handJWT(t, map[string]any{"alg": "HS256", "access_key": srv.AccessKey, "jku": "http://127.0.0.1:1/jwks", "kid": "1"}, claims, attacker),
		"access key as key": handJWT(t, map[string]any{"alg": "HS256", "access_key": srv.AccessKey}, claims, srv.AccessKey),
		"empty secret":      handJWT(t, map[string]any{"alg": "HS256", "access_key": srv.AccessKey}, claims, ""),
		"access key number": handJWT(t, map[string]any{"alg": "HS256", "access_key": 12345}, claims, srv.SecretKey),
		"four segments":     handJWT(t, map[string]any{"alg": "HS256", "access_key": srv.AccessKey}, claims, srv.SecretKey) + ".x",
		"no signature":      strings.TrimRight(handJWT(t, map[string]any{"alg": "HS256", "access_key": srv.AccessKey}, claims, srv.SecretKey), "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"),
		"path as array":     handJWT(t, map[string]any{"alg": "HS256", "access_key": srv.AccessKey}, map[string]any{"path": []string{"/callbacks"}, "content": emptyHash}, srv.SecretKey),
	}
	// A header whose duplicate alg says none after HS256.
	dup := `{"alg":"HS256","access_key":"` + srv.AccessKey + `","alg":"none"}`
	good := handJWT(t, map[string]any{"alg": "HS256", "access_key": srv.AccessKey}, claims, srv.SecretKey)
	parts := strings.Split(good, ".")
	cases["duplicate alg"] = b64url(dup) + "." + parts[1] + "." + parts[2]
	for name, tok := range cases {
		r := doToken(t, srv, http.MethodGet, "/callbacks", nil, tok)
		requireError(t, r, http.StatusUnauthorized, "unauthorized")
		require.NotContains(t, string(r.Body), srv.SecretKey, name)
		require.NotContains(t, string(r.Body), tok, name)
	}
	// The good token still works, and a 2 MiB Authorization header is
	// refused by the server before the fake reads it.
	requireOK(t, doToken(t, srv, http.MethodGet, "/callbacks", nil, good), "true")
	status, _, _ := rawRequest(t, srv, http.MethodGet, "/callbacks", map[string]string{"Authorization": "Bearer " + strings.Repeat("a", 2<<20)}, "")
	require.Equal(t, http.StatusRequestHeaderFieldsTooLarge, status)
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

func TestHostileQueries(t *testing.T) {
	srv := newDemo(t)
	acme := acctadmintest.DemoID("company", 1).String()
	cases := []struct {
		target string
		status int
		msg    string
	}{
		{"/services?company=Acme%20Widgets%20LLC%26limit%3D1", 404, "company not found"},
		{"/services?limit=100000000000000000000", 400, "limit must be an integer"},
		{"/services?limit=%205", 400, "limit must be an integer"},
		{"/services?offset=-1", 400, "offset must be at least 0"},
		{"/services?limit=101", 400, "limit must be at most 100"},
		{"/documents?limit=201", 400, "limit must be at most 200"},
		{"/companies?limit=0", 400, "limit must be at least 1"},
		{"/documents/" + acctadmintest.DemoID("document", 1).String() + "/page/0?dpi=96", 400, "dpi must be one of 72, 150, 300"},
		{"/documents/" + acctadmintest.DemoID("document", 1).String() + "/page/0?dpi=high", 400, "dpi must be an integer"},
		{"/services?company_id=" + acme + "%00", 400, "company_id must be a UUID"},
		{"/documents?status=unread%00", 400, "status must be read or unread"},
		{"/documents?%zz=1", 400, "malformed query string"},
		{"/compliance-events?start_date=2025-01-01&end_date=2025-12-31&jurisdictions[]=Utah%00", 400, "unknown jurisdiction"},
		{"/compliance-events?start_date=2025-01-01&end_date=2025-12-31&jurisdictions[]=UT&jurisdiction_ids[]=x", 400, "must not both be given"},
		{"/invoices?companies[]=%27%20OR%201%3D1", 404, "not found"},
		{"/filing-products?url=javascript:alert(1)", 404, "website javascript:alert(1) not found"},
	}
	for _, tc := range cases {
		r := do(t, srv, http.MethodGet, tc.target, nil)
		requireError(t, r, tc.status, tc.msg)
	}
	// A repeated scalar takes its first value: the second cannot widen
	// the listing.
	r := do(t, srv, http.MethodGet, "/services?company_id="+acme+"&company_id=", nil)
	requireOK(t, r, "true")
	for _, s := range r.Items(t) {
		require.Equal(t, acme, s["company_id"])
	}
	// A 64 KiB query is read, not a crash.
	r = do(t, srv, http.MethodGet, "/documents?x="+strings.Repeat("y", 64<<10), nil)
	requireOK(t, r, `"true"`)
}

func TestHostileBodies(t *testing.T) {
	srv := newServer(t)
	nested := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	cases := []struct {
		method, path, body string
		field, msg         string
	}{
		{http.MethodPost, "/companies", `{"companies":` + nested + `}`, "", "not valid JSON"},
		{http.MethodPost, "/callbacks", `{"url":"http://127.0.0.1:1/a","url":"javascript:alert(1)"}`, "url", ""},
		{http.MethodPost, "/callbacks", `{"url":"file:///etc/passwd"}`, "url", ""},
		{http.MethodPost, "/callbacks", "\xef\xbb\xbf" + `{"url":"http://127.0.0.1:1/a"}`, "", "JSON object"},
		{http.MethodPost, "/callbacks", `{"url":"http://127.0.0.1:1/a"} trailing`, "", "not valid JSON"},
		{http.MethodPost, "/companies", `{"companies":[{"name":"` + strings.Repeat("\u202e", 10) + `","home_state":"ZZ"}]}`, "companies[0].home_state", ""},
		{http.MethodPatch, "/companies", `{"companies":[{"company":"Nobody","company_id":"x"}]}`, "companies[0].company", ""},
	}
	for _, tc := range cases {
		r := do(t, srv, tc.method, tc.path, tc.body)
		if tc.field != "" {
			requireFieldError(t, r, tc.field)
		} else {
			requireError(t, r, http.StatusBadRequest, tc.msg)
		}
	}
	// A method override header changes nothing: this POST registers.
	body := []byte(`{"url":"http://127.0.0.1:1/override"}`)
	tok := signJWT(t, srv.AccessKey, srv.SecretKey, "/callbacks", body)
	status, _, resp := rawRequest(t, srv, http.MethodPost, "/callbacks", map[string]string{"Authorization": "Bearer " + tok, "X-HTTP-Method-Override": "DELETE"}, string(body))
	require.Equal(t, http.StatusOK, status, resp)
	require.Len(t, srv.Callbacks(), 1)
	require.Empty(t, srv.Companies())
	require.Len(t, srv.Writes(), 1)
}

func TestHostileControlBoundary(t *testing.T) {
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

func TestHostileControlUnderConcurrency(t *testing.T) {
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

func TestHostileLogsStayBounded(t *testing.T) {
	srv := newServer(t, acctadmintest.WithLogLimit(10))
	rc := newReceiver(t)
	srv.AddCallback(rc.URL + "/hook")
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Busy LLC"})
	for i := 0; i < 25; i++ {
		requireOK(t, do(t, srv, http.MethodGet, fmt.Sprintf("/callbacks?n=%d", i), nil), "true")
		require.LessOrEqual(t, len(srv.Requests()), 10)
		requireOK(t, do(t, srv, http.MethodPost, "/companies", map[string]any{"companies": []map[string]any{{"name": fmt.Sprintf("Busy %d", i)}}}), "true")
		require.LessOrEqual(t, len(srv.Writes()), 10)
		srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID})
	}
	ds := waitDeliveries(t, srv, 25)
	require.LessOrEqual(t, len(ds), 10, "the delivery log is bounded")
	require.True(t, ds[len(ds)-1].Final)

	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	require.Equal(t, "POST", last.Method)
	require.Equal(t, http.StatusOK, last.Status, "the status reaches the latest entries")
	require.Equal(t, "n=24", reqs[len(reqs)-2].Query)
	require.Equal(t, 50, srv.TotalRequests(), "counts stay exact")
	require.Equal(t, 25, srv.RequestCount(http.MethodGet, "/callbacks"))
	w := srv.Writes()
	require.Contains(t, string(w[len(w)-1].Body), "Busy 24")
	require.Len(t, srv.Companies(), 26, "the account is not trimmed")
}
