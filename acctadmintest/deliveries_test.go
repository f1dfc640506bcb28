package acctadmintest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/webhook"
)

// tokens reads the tokens a receiver got, in order.
func tokens(t *testing.T, rc *receiver) []string {
	t.Helper()
	bodies, _ := rc.received()
	out := make([]string, len(bodies))
	for i, b := range bodies {
		var env struct {
			Data string `json:"data"`
		}
		require.NoError(t, json.Unmarshal(b, &env))
		out[i] = env.Data
	}
	return out
}

func waitFor(t *testing.T, srv *acctadmintest.Server, n int) []acctadmintest.Delivery {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ds, err := srv.WaitDeliveries(ctx, n)
	require.NoError(t, err)
	return ds
}

// TestResendAndForgeEvents: a receiver's tests get the same event again,
// and events it must refuse: wrongly signed, expired, about a record the
// account does not have. Each is checked with the webhook package.
func TestResendAndForgeEvents(t *testing.T) {
	srv := newDemo(t, acctadmintest.WithControl(), acctadmintest.WithDeliveryRetry(1, 0))
	rc := newReceiver(t)
	srv.AddCallback(rc.URL)
	v, err := webhook.NewVerifier([]byte(srv.SecretKey), webhook.WithAccessKey(srv.AccessKey), webhook.WithClock(srv.Now))
	require.NoError(t, err)

	inv := acctadmintest.DemoID("invoice", 4)
	require.NoError(t, srv.SendEvent(acctadmintest.EventInput{Event: "new-invoice", RecordID: inv}))
	waitFor(t, srv, 1)
	ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/deliveries/resend", `{"index":0,"copies":2}`), http.StatusAccepted)
	waitFor(t, srv, 3)
	toks := tokens(t, rc)
	require.Len(t, toks, 3)
	require.Equal(t, toks[0], toks[1], "the same event again")
	require.Equal(t, toks[0], toks[2])
	ev, err := v.Verify(toks[0])
	require.NoError(t, err)
	require.Equal(t, inv, ev.InvoiceID)

	for forge, want := range map[string]error{
		acctadmintest.ForgeBadSignature: webhook.ErrInvalidSignature,
		acctadmintest.ForgeExpired:      webhook.ErrExpired,
	} {
		before := len(tokens(t, rc))
		ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/events", `{"event":"new-invoice","record_id":"`+inv.String()+`","forge":"`+forge+`"}`), http.StatusAccepted)
		waitFor(t, srv, before+1)
		toks = tokens(t, rc)
		_, err := v.Verify(toks[len(toks)-1])
		require.ErrorIs(t, err, want, forge)
	}
	before := len(tokens(t, rc))
	require.NoError(t, srv.SendEvent(acctadmintest.EventInput{Event: "new-document", Forge: acctadmintest.ForgeUnknownRecord}))
	waitFor(t, srv, before+1)
	toks = tokens(t, rc)
	ev, err = v.Verify(toks[len(toks)-1])
	require.NoError(t, err, "well signed")
	_, known := srv.Document(ev.DocumentID)
	require.False(t, known, "about a document the account does not have")

	for body, msg := range map[string]string{
		`{"event":"new-thing","record_id":"` + inv.String() + `"}`:                            `event must be one of "new-invoice", "new-document"`,
		`{"event":"new-invoice","record_id":"` + acctadmintest.DemoID("x", 1).String() + `"}`: "no invoice",
		`{"event":"new-invoice","record_id":"` + inv.String() + `","forge":"maybe"}`:          `forge must be one of "", "bad-signature", "expired", "unknown-record"`,
		`{"index":99}`: "index is not a field of this endpoint",
	} {
		requireControlError(t, ctl(t, srv, http.MethodPost, "/_fake/events", body), http.StatusBadRequest, msg)
	}
	requireControlError(t, ctl(t, srv, http.MethodPost, "/_fake/deliveries/resend", `{"index":99}`), http.StatusBadRequest, "no delivery 99")
	require.Len(t, tokens(t, rc), before+1, "nothing sent by the refused ones")
}

// TestDeliveryFaults: a dropped attempt is retried; latency delays; both
// are cleared.
func TestDeliveryFaults(t *testing.T) {
	srv := newDemo(t, acctadmintest.WithControl(), acctadmintest.WithDeliveryRetry(3, time.Millisecond))
	rc := newReceiver(t)
	srv.AddCallback(rc.URL)
	ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/delivery-faults", `{"drop":true,"count":1}`), http.StatusCreated)
	require.NoError(t, srv.SendEvent(acctadmintest.EventInput{Event: "new-invoice", RecordID: acctadmintest.DemoID("invoice", 1)}))
	ds := waitFor(t, srv, 1)
	require.Len(t, ds, 2)
	require.Equal(t, "dropped by a delivery fault", ds[0].Err)
	require.False(t, ds[0].Delivered)
	require.True(t, ds[1].Delivered)
	require.Len(t, tokens(t, rc), 1, "the dropped attempt never reached the receiver")

	requireControlError(t, ctl(t, srv, http.MethodPost, "/_fake/delivery-faults", `{"count":1}`), http.StatusBadRequest, "drop or latency")
	ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/delivery-faults", `{"drop":true}`), http.StatusCreated)
	ctlJSON(t, ctl(t, srv, http.MethodDelete, "/_fake/delivery-faults", ""), http.StatusOK)
	require.NoError(t, srv.SendEvent(acctadmintest.EventInput{Event: "new-invoice", RecordID: acctadmintest.DemoID("invoice", 1)}))
	ds = waitFor(t, srv, 2)
	require.True(t, ds[len(ds)-1].Delivered)
	require.Equal(t, 1, ds[len(ds)-1].Attempt, "cleared: delivered at once")
}
