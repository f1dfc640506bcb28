package acctadmintest_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

func TestEventsDeliveredSigned(t *testing.T) {
	srv := newServer(t)
	rc := newReceiver(t)
	requireOK(t, do(t, srv, http.MethodPost, "/callbacks", map[string]any{"url": rc.URL + "/hook"}), "true")
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC", HomeState: "Utah"})

	inv := srv.AddInvoice(acctadmintest.InvoiceInput{CompanyID: co.ID})
	ds := waitDeliveries(t, srv, 1)
	require.Len(t, ds, 1)
	require.Equal(t, rc.URL+"/hook", ds[0].URL)
	require.Equal(t, "new-invoice", ds[0].Event)
	require.Equal(t, 1, ds[0].Attempt)
	require.Equal(t, 200, ds[0].StatusCode)
	require.True(t, ds[0].Delivered)
	require.True(t, ds[0].Final)
	require.Empty(t, ds[0].Err)

	doc := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, Title: "Letter"})
	ds = waitDeliveries(t, srv, 2)
	require.Equal(t, "new-document", ds[1].Event)

	bodies, ctypes := rc.received()
	require.Len(t, bodies, 2)
	require.Equal(t, []string{"application/json", "application/json"}, ctypes)

	claims, header := parseEvent(t, srv, bodies[0])
	require.Equal(t, jwt.MapClaims{
		"event": "new-invoice", "invoice_id": inv.ID.String(), "company_id": co.ID.String(), "company_name": "Acme LLC",
	}, claims, "no exp, iat or jti")
	require.Equal(t, srv.AccessKey, header["access_key"])
	require.Equal(t, "HS256", header["alg"])
	require.Equal(t, map[string]any(claims), ds[0].Claims)

	claims, _ = parseEvent(t, srv, bodies[1])
	require.Equal(t, jwt.MapClaims{
		"event": "new-document", "document_id": doc.ID.String(), "company_id": co.ID.String(), "company_name": "Acme LLC",
	}, claims)

	// A token signed with another secret does not verify.
	var env map[string]string
	require.NoError(t, json.Unmarshal(bodies[0], &env))
	_, err := jwt.Parse(env["data"], func(*jwt.Token) (any, error) { return []byte("other"), nil })
	require.ErrorIs(t, err, jwt.ErrTokenSignatureInvalid)
}

func TestEventsGoToEveryCallback(t *testing.T) {
	srv := newServer(t)
	a, b := newReceiver(t), newReceiver(t)
	srv.AddCallback(a.URL)
	srv.AddCallback(b.URL + "/b")
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC"})
	srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID})
	srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID})
	ds := waitDeliveries(t, srv, 4)
	urls := map[string]int{}
	for _, d := range ds {
		urls[d.URL]++
		require.True(t, d.Delivered)
	}
	require.Equal(t, map[string]int{a.URL: 2, b.URL + "/b": 2}, urls)
	require.EqualValues(t, 2, a.calls.Load())
	require.EqualValues(t, 2, b.calls.Load())
}

func TestEventsRetriedAfterFailure(t *testing.T) {
	srv := newServer(t, acctadmintest.WithDeliveryRetry(4, 5*time.Millisecond))
	rc := newReceiver(t, 500, 503)
	srv.AddCallback(rc.URL)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC"})
	srv.AddInvoice(acctadmintest.InvoiceInput{CompanyID: co.ID})

	ds := waitDeliveries(t, srv, 1)
	require.Len(t, ds, 3)
	for i, want := range []int{500, 503, 200} {
		require.Equal(t, i+1, ds[i].Attempt)
		require.Equal(t, want, ds[i].StatusCode)
		require.Equal(t, want == 200, ds[i].Delivered)
		require.Equal(t, want == 200, ds[i].Final)
		require.Equal(t, ds[0].Token, ds[i].Token, "the same event is sent again")
	}
	bodies, _ := rc.received()
	require.Len(t, bodies, 3)
	require.Equal(t, bodies[0], bodies[2])
}

func TestEventsGiveUp(t *testing.T) {
	srv := newServer(t, acctadmintest.WithDeliveryRetry(3, time.Millisecond))
	rc := newReceiver(t, 500, 500, 500, 500)
	// A port nobody listens on: connection refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + ln.Addr().String() + "/hook"
	require.NoError(t, ln.Close())
	srv.AddCallback(rc.URL)
	srv.AddCallback(dead)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC"})
	srv.AddInvoice(acctadmintest.InvoiceInput{CompanyID: co.ID})

	ds := waitDeliveries(t, srv, 2)
	require.Len(t, ds, 6)
	byURL := map[string][]acctadmintest.Delivery{}
	for _, d := range ds {
		byURL[d.URL] = append(byURL[d.URL], d)
	}
	for _, u := range []string{rc.URL, dead} {
		require.Len(t, byURL[u], 3)
		for i, d := range byURL[u] {
			require.False(t, d.Delivered)
			require.Equal(t, i == 2, d.Final)
			if u == dead {
				require.Zero(t, d.StatusCode)
				require.NotEmpty(t, d.Err)
			} else {
				require.Equal(t, 500, d.StatusCode)
			}
		}
	}
	require.EqualValues(t, 3, rc.calls.Load())
}

func TestWaitDeliveriesHonoursContext(t *testing.T) {
	srv := newServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	ds, err := srv.WaitDeliveries(ctx, 1)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Empty(t, ds)
}

func TestCloseCancelsDeliveries(t *testing.T) {
	release := make(chan struct{})
	var started atomic.Int32
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started.Add(1)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hang.Close()
	defer close(release)

	srv := acctadmintest.NewServer(acctadmintest.WithDeliveryTimeout(time.Minute))
	srv.AddCallback(hang.URL)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC"})
	srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID})
	require.Eventually(t, func() bool { return started.Load() == 1 }, 5*time.Second, time.Millisecond)

	t0 := time.Now()
	srv.Close()
	require.Less(t, time.Since(t0), 3*time.Second)
	// No delivery starts after Close.
	srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID})
	require.EqualValues(t, 1, started.Load())
}

func TestNoCallbacksNoDeliveries(t *testing.T) {
	srv := newDemo(t)
	require.Empty(t, srv.Deliveries())
}

func TestDeliveryClientForTLSReceivers(t *testing.T) {
	got := make(chan string, 1)
	tlsRecv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.URL.Path
	}))
	defer tlsRecv.Close()
	srv := newServer(t, acctadmintest.WithDeliveryClient(tlsRecv.Client()))
	srv.AddCallback(tlsRecv.URL + "/secure")
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC"})
	srv.AddInvoice(acctadmintest.InvoiceInput{CompanyID: co.ID})
	ds := waitDeliveries(t, srv, 1)
	require.True(t, ds[0].Delivered, "%+v", ds[0])
	select {
	case p := <-got:
		require.Equal(t, "/secure", p)
	case <-time.After(5 * time.Second):
		t.Fatal("no delivery")
	}
}
