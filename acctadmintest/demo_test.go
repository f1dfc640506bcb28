package acctadmintest_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

func TestDemoAccount(t *testing.T) {
	srv := newDemo(t)
	require.Len(t, srv.Companies(), 6)
	docs := srv.Documents()
	require.Len(t, docs, 120)
	read := 0
	for _, d := range docs {
		require.GreaterOrEqual(t, d.Pages, 1)
		require.LessOrEqual(t, d.Pages, 5)
		if d.Status == acctadmintest.DocumentRead {
			read++
		}
	}
	require.Greater(t, read, 20)
	require.Less(t, read, 100)

	unread := 0
	for off := 0; ; off += 200 {
		n := len(do(t, srv, http.MethodGet, "/documents?limit=200&offset="+itoa(off), nil).Items(t))
		unread += n
		if n < 200 {
			break
		}
	}
	require.Equal(t, 120-read, unread)

	// One company has unpaid invoices and its cancel-requests are refused.
	var unpaid int
	for _, inv := range srv.Invoices() {
		if inv.Status == acctadmintest.InvoiceUnpaid {
			require.Equal(t, acctadmintest.DemoUnpaidCompany, inv.Company)
			unpaid++
		}
	}
	require.Equal(t, 2, unpaid)
	for _, s := range srv.Services() {
		if s.Company == acctadmintest.DemoUnpaidCompany {
			requireError(t, do(t, srv, http.MethodPost, "/services/"+s.ID.String()+"/cancel-request", nil), http.StatusBadRequest, "unpaid")
		}
		if s.Company == acctadmintest.DemoNoHomeStateCompany {
			require.Equal(t, acctadmintest.ServiceAwaitingClientInput, s.Status)
		}
	}

	// Compliance events fall within the next 12 months.
	evs := srv.ComplianceEvents()
	require.GreaterOrEqual(t, len(evs), 12)
	for _, ev := range evs {
		require.True(t, ev.DueDate.After(fixedNow), ev.DueDate)
		require.True(t, ev.DueDate.Before(fixedNow.AddDate(1, 0, 0)), ev.DueDate)
	}
	r := do(t, srv, http.MethodGet, "/compliance-events?start_date=2025-03-14&end_date=2026-03-14&limit=100", nil)
	require.Len(t, r.Items(t), len(evs))

	require.Len(t, srv.Resources(), 33)
	require.Len(t, srv.FilingProducts(), 4)
	require.Len(t, srv.Websites(), 2)
	require.Equal(t, acctadmintest.DemoID("document", 1), docs[0].ID)
}

func TestDemoIsDeterministic(t *testing.T) {
	a, b := newDemo(t), newDemo(t, acctadmintest.WithSeed(99))
	require.Equal(t, a.Documents(), b.Documents())
	require.Equal(t, a.Services(), b.Services())
	require.Equal(t, a.Invoices(), b.Invoices())
	require.Equal(t, a.ComplianceEvents(), b.ComplianceEvents())
	require.Equal(t, a.Resources(), b.Resources())
	require.Equal(t, string(do(t, a, http.MethodGet, "/filing-products?url="+demoURL+"&jurisdiction=Utah", nil).Body),
		string(do(t, b, http.MethodGet, "/filing-products?url="+demoURL+"&jurisdiction=Utah", nil).Body))
}

func TestSeedDemoReturnsRecords(t *testing.T) {
	srv := newServer(t)
	demo := srv.SeedDemo()
	require.Len(t, demo.Companies, 6)
	require.Len(t, demo.Documents, 120)
	require.Len(t, demo.Services, 12)
	require.Len(t, demo.Invoices, 9)
	require.Equal(t, srv.Documents(), demo.Documents)
}
