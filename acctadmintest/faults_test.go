package acctadmintest_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

func TestFaultStatusWithRetryAfter(t *testing.T) {
	srv := newServer(t)
	srv.InjectFault(acctadmintest.Fault{Method: http.MethodGet, Path: "/services", Count: 2, Status: 503, RetryAfter: "7"})
	for i := 0; i < 2; i++ {
		r := do(t, srv, http.MethodGet, "/services", nil)
		requireError(t, r, http.StatusServiceUnavailable, "service unavailable")
		require.Equal(t, "7", r.Header.Get("Retry-After"))
	}
	requireOK(t, do(t, srv, http.MethodGet, "/services", nil), "true")
	require.Equal(t, 2, srv.FaultsFired())
	log := srv.Requests()
	require.Len(t, log, 3)
	require.True(t, log[0].Faulted)
	require.Equal(t, 503, log[0].Status)
	require.False(t, log[2].Faulted)
	require.Equal(t, 3, srv.RequestCount(http.MethodGet, "/services"))
}

func TestFault429UntilCleared(t *testing.T) {
	srv := newServer(t)
	srv.InjectFault(acctadmintest.Fault{Status: 429, RetryAfter: "Wed, 21 Oct 2025 07:28:00 GMT", Message: "slow down"})
	for _, p := range []string{"/services", "/callbacks", "/no-such"} {
		r := do(t, srv, http.MethodGet, p, nil)
		requireError(t, r, http.StatusTooManyRequests, "slow down")
		require.Equal(t, "Wed, 21 Oct 2025 07:28:00 GMT", r.Header.Get("Retry-After"))
	}
	// Faults come before authentication, like a gateway's.
	requireError(t, doToken(t, srv, http.MethodGet, "/services", nil, ""), http.StatusTooManyRequests, "slow down")
	srv.ClearFaults()
	requireOK(t, do(t, srv, http.MethodGet, "/services", nil), "true")
}

func TestFaultMatching(t *testing.T) {
	srv := newServer(t)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC", HomeState: "Utah"})
	doc := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID})
	srv.InjectFault(acctadmintest.Fault{Path: "/documents/:id/download", Status: 500})
	srv.InjectFault(acctadmintest.Fault{Method: http.MethodPost, Path: "/callbacks", Status: 502})
	srv.InjectFault(acctadmintest.Fault{Path: "/resources", Status: 504})

	requireError(t, do(t, srv, http.MethodGet, "/documents/"+doc.ID.String()+"/download", nil), 500, "internal server error")
	requireOK(t, do(t, srv, http.MethodGet, "/documents/"+doc.ID.String(), nil), "true")
	requireOK(t, do(t, srv, http.MethodGet, "/documents", nil), `"true"`)
	requireError(t, do(t, srv, http.MethodPost, "/callbacks", map[string]string{"url": "http://127.0.0.1:1/"}), 502, "bad gateway")
	requireOK(t, do(t, srv, http.MethodGet, "/callbacks", nil), "true")
	requireError(t, do(t, srv, http.MethodGet, "/resources", nil), 504, "gateway timeout")
	requireError(t, do(t, srv, http.MethodGet, "/resources/"+doc.ID.String()+"/page/0", nil), 504, "gateway timeout")
	require.Empty(t, srv.Callbacks(), "a status fault comes before the write")
	d, _ := srv.Document(doc.ID)
	require.Equal(t, acctadmintest.DocumentUnread, d.Status)
}

func TestFaultLatency(t *testing.T) {
	srv := newServer(t)
	srv.InjectFault(acctadmintest.Fault{Path: "/services", Latency: 150 * time.Millisecond, Count: 1})
	t0 := time.Now()
	requireOK(t, do(t, srv, http.MethodGet, "/services", nil), "true")
	require.GreaterOrEqual(t, time.Since(t0), 150*time.Millisecond)
	t0 = time.Now()
	requireOK(t, do(t, srv, http.MethodGet, "/services", nil), "true")
	require.Less(t, time.Since(t0), 150*time.Millisecond)

	srv.SetLatency(100 * time.Millisecond)
	t0 = time.Now()
	requireOK(t, do(t, srv, http.MethodGet, "/callbacks", nil), "true")
	require.GreaterOrEqual(t, time.Since(t0), 100*time.Millisecond)
	srv.SetLatency(0)
}

func TestFaultDropConnectionBeforeApply(t *testing.T) {
	srv := newServer(t)
	srv.InjectFault(acctadmintest.Fault{Method: http.MethodPost, Path: "/callbacks", DropConnection: true, Count: 1})
	client := freshClient(t)
	body := []byte(`{"url":"http://127.0.0.1:1/hook"}`)
	_, _, err := send(t, srv, client, http.MethodPost, "/callbacks", body)
	require.Error(t, err)
	require.Empty(t, srv.Callbacks(), "dropped before the write")
	require.Empty(t, srv.Writes())
	require.Equal(t, 0, srv.Requests()[0].Status)

	resp, _, err := send(t, srv, client, http.MethodPost, "/callbacks", body)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	require.Len(t, srv.Callbacks(), 1)
}

func TestFaultDropConnectionAfterApply(t *testing.T) {
	srv := newServer(t)
	srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC", HomeState: "Utah"})
	srv.InjectFault(acctadmintest.Fault{Method: http.MethodPost, Path: "/services", DropConnection: true, AfterApply: true, Count: 1})
	client := freshClient(t)
	body := []byte(`{"company":"Acme LLC","jurisdictions":["Utah","Idaho"]}`)
	_, _, err := send(t, srv, client, http.MethodPost, "/services", body)
	require.Error(t, err)
	require.Len(t, srv.Services(), 2, "applied before the drop")
	w := srv.Writes()
	require.Len(t, w, 1)
	require.Len(t, w[0].Created, 2)
	require.Equal(t, string(body), string(w[0].Body))

	// A client that repeats the write shows up as a second write.
	resp, data, err := send(t, srv, client, http.MethodPost, "/services", body)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	require.Contains(t, string(data), `"result":[]`)
	require.Len(t, srv.Writes(), 2)
	require.Len(t, srv.Services(), 2)
}

func TestFaultStatusAfterApply(t *testing.T) {
	srv := newServer(t)
	srv.InjectFault(acctadmintest.Fault{Method: http.MethodPost, Status: 502, AfterApply: true, Count: 1})
	r := do(t, srv, http.MethodPost, "/callbacks", map[string]string{"url": "http://127.0.0.1:1/a"})
	requireError(t, r, http.StatusBadGateway, "bad gateway")
	require.Len(t, srv.Callbacks(), 1)
	require.Len(t, srv.Writes(), 1)
}

func TestFaultTruncateBody(t *testing.T) {
	srv := newServer(t)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC", HomeState: "Utah"})
	for i := 0; i < 20; i++ {
		srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID})
	}
	big := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, PDFSize: 2 << 20})
	srv.InjectFault(acctadmintest.Fault{Method: http.MethodGet, Path: "/documents", TruncateBody: true, Count: 1})
	srv.InjectFault(acctadmintest.Fault{Path: "/documents/:id/download", TruncateBody: true, Count: 1})
	client := freshClient(t)

	resp, data, err := send(t, srv, client, http.MethodGet, "/documents", nil)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	require.Equal(t, 200, resp.StatusCode)
	require.Equal(t, int(resp.ContentLength)/2, len(data))
	require.True(t, strings.HasPrefix(string(data), `{"success":"true"`))

	resp, data, err = send(t, srv, client, http.MethodGet, "/documents/"+big.ID.String()+"/download", nil)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	require.EqualValues(t, 2<<20, resp.ContentLength)
	require.Equal(t, 1<<20, len(data))
	require.True(t, bytes.HasPrefix(data, []byte("%PDF-1.4")))

	resp, data, err = send(t, srv, client, http.MethodGet, "/documents", nil)
	require.NoError(t, err)
	require.Equal(t, int(resp.ContentLength), len(data))
}

func TestFaultProbabilityIsSeeded(t *testing.T) {
	statuses := func() []int {
		srv := newServer(t, acctadmintest.WithSeed(42))
		srv.InjectFault(acctadmintest.Fault{Status: 500, Probability: 0.3})
		var out []int
		for i := 0; i < 100; i++ {
			out = append(out, do(t, srv, http.MethodGet, "/callbacks", nil).Status)
		}
		return out
	}
	a, b := statuses(), statuses()
	require.Equal(t, a, b, "the same seed fires the same requests")
	fired := 0
	for _, s := range a {
		if s == 500 {
			fired++
		}
	}
	require.Greater(t, fired, 10)
	require.Less(t, fired, 50)
}

func TestFaultCountWithProbability(t *testing.T) {
	srv := newServer(t)
	srv.InjectFault(acctadmintest.Fault{Status: 503, Probability: 0.5, Count: 3})
	n := 0
	for i := 0; i < 200; i++ {
		if do(t, srv, http.MethodGet, "/callbacks", nil).Status == 503 {
			n++
		}
	}
	require.Equal(t, 3, n)
	require.Equal(t, 3, srv.FaultsFired())
}

// WithRateLimit: n requests go through at once and the next is refused
// with 429, a Retry-After in whole seconds and the API's error envelope,
// unapplied, before its token is checked and before any fault; the
// control surface is not counted; a token comes back every 1/n second.
func TestRateLimit(t *testing.T) {
	srv := newServer(t, acctadmintest.WithRateLimit(1), acctadmintest.WithControl())
	srv.InjectFault(acctadmintest.Fault{Path: "/services", Status: 500})
	requireOK(t, do(t, srv, http.MethodGet, "/callbacks", nil), "true")
	for i := 0; i < 3; i++ {
		require.Equal(t, http.StatusOK, ctl(t, srv, http.MethodGet, "/_fake/requests", "").Status)
	}
	r := do(t, srv, http.MethodPost, "/callbacks", map[string]string{"url": "http://127.0.0.1:1/"})
	body := requireError(t, r, http.StatusTooManyRequests, "rate limit exceeded")
	require.Equal(t, "1", r.Header.Get("Retry-After"))
	require.Equal(t, false, body["success"])
	require.NotEmpty(t, body["timestamp"])
	requireError(t, doToken(t, srv, http.MethodGet, "/callbacks", nil, "not a token"), http.StatusTooManyRequests, "rate limit")
	requireError(t, do(t, srv, http.MethodGet, "/services", nil), http.StatusTooManyRequests, "rate limit")
	require.Equal(t, 0, srv.FaultsFired())
	require.Empty(t, srv.Writes())

	var statuses []int
	for _, q := range srv.Requests() {
		statuses = append(statuses, q.Status)
	}
	require.Equal(t, []int{200, 429, 429, 429}, statuses)

	time.Sleep(1100 * time.Millisecond) // a token comes back every second
	requireOK(t, do(t, srv, http.MethodGet, "/callbacks", nil), "true")
}

// Without WithRateLimit (or with n <= 0) nothing is refused.
func TestRateLimitOff(t *testing.T) {
	for _, srv := range []*acctadmintest.Server{newServer(t), newServer(t, acctadmintest.WithRateLimit(-1))} {
		for i := 0; i < 50; i++ {
			requireOK(t, do(t, srv, http.MethodGet, "/callbacks", nil), "true")
		}
	}
}
