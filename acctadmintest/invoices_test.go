package acctadmintest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

func TestInvoicesListAndFilters(t *testing.T) {
	srv := newServer(t)
	a := srv.AddCompany(acctadmintest.CompanyInput{Name: "Alpha LLC"})
	b := srv.AddCompany(acctadmintest.CompanyInput{Name: "Beta Inc"})
	c := srv.AddCompany(acctadmintest.CompanyInput{Name: "Gamma Co"})
	ia := srv.AddInvoice(acctadmintest.InvoiceInput{CompanyID: a.ID, CreatedAt: fixedNow.Add(-time.Hour), Items: []acctadmintest.InvoiceItem{{Price: "119.00", Description: "Registered agent"}}})
	ib := srv.AddInvoice(acctadmintest.InvoiceInput{CompanyID: b.ID, Status: acctadmintest.InvoicePaid, DueDate: time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC)})
	ic := srv.AddInvoice(acctadmintest.InvoiceInput{CompanyID: c.ID, Status: acctadmintest.InvoiceCancelled})

	r := do(t, srv, http.MethodGet, "/invoices", nil)
	requireOK(t, r, "true")
	items := r.Items(t)
	require.Len(t, items, 3)
	require.Equal(t, map[string]any{
		"id": ia.ID.String(), "status": "unpaid", "company": "Alpha LLC", "company_id": a.ID.String(),
		"created_at": "2025-03-14 07:09:26 -0700", "updated_at": "2025-03-14 07:09:26 -0700", "due_date": "2025-04-13",
		"items": []any{map[string]any{"price": 119.0, "description": "Registered agent", "quantity": 1.0}},
	}, items[0])
	require.Contains(t, string(r.Body), `"items":[{"price":119.00,"description":"Registered agent","quantity":1}]`)
	require.Equal(t, "2025-04-01", items[1]["due_date"])
	require.Equal(t, []any{}, items[1]["items"])

	ids := func(q string) []string {
		var out []string
		for _, it := range do(t, srv, http.MethodGet, "/invoices?"+q, nil).Items(t) {
			out = append(out, it["id"].(string))
		}
		return out
	}
	require.Equal(t, []string{ia.ID.String(), ic.ID.String()}, ids("company_ids[]="+a.ID.String()+"&company_ids[]="+c.ID.String()))
	require.Equal(t, []string{ib.ID.String()}, ids("companies[]=beta+inc"))
	require.Equal(t, []string{ib.ID.String()}, ids("company_ids="+b.ID.String()))
	require.Equal(t, []string{ib.ID.String()}, ids("limit=1&offset=1"))

	requireFieldError(t, do(t, srv, http.MethodGet, "/invoices?companies[]=Alpha+LLC&company_ids[]="+a.ID.String(), nil), "company_ids")
	requireFieldError(t, do(t, srv, http.MethodGet, "/invoices?company_ids[]=alpha", nil), "company_ids")
	requireFieldError(t, do(t, srv, http.MethodGet, "/invoices?limit=500", nil), "limit")
	requireError(t, do(t, srv, http.MethodGet, "/invoices?companies[]=Nobody", nil), http.StatusNotFound, "company Nobody not found")
	requireError(t, do(t, srv, http.MethodGet, "/invoices?company_ids[]="+uuid.NewString(), nil), http.StatusNotFound, "not found")
}

func TestInvoicesByDatesAndStatus(t *testing.T) {
	srv := newServer(t)
	a := srv.AddCompany(acctadmintest.CompanyInput{Name: "Alpha LLC"})
	day := func(m time.Month, d int) time.Time { return time.Date(2025, m, d, 12, 0, 0, 0, time.UTC) }
	jan := srv.AddInvoice(acctadmintest.InvoiceInput{CompanyID: a.ID, CreatedAt: day(time.January, 31), Status: acctadmintest.InvoicePaid})
	feb := srv.AddInvoice(acctadmintest.InvoiceInput{CompanyID: a.ID, CreatedAt: day(time.February, 1)})
	mar := srv.AddInvoice(acctadmintest.InvoiceInput{CompanyID: a.ID, CreatedAt: day(time.March, 1), Status: acctadmintest.InvoiceCancelled})
	ids := func(q string) []string {
		out := []string{}
		for _, it := range do(t, srv, http.MethodGet, "/invoices?"+q, nil).Items(t) {
			out = append(out, it["id"].(string))
		}
		return out
	}
	require.Equal(t, []string{jan.ID.String(), feb.ID.String()}, ids("start_date=2025-01-31&end_date=2025-02-01"))
	require.Equal(t, []string{feb.ID.String(), mar.ID.String()}, ids("start_date=2025-02-01"))
	require.Equal(t, []string{jan.ID.String()}, ids("end_date=2025-01-31"))
	require.Equal(t, []string{jan.ID.String()}, ids("status=paid"))
	require.Equal(t, []string{feb.ID.String()}, ids("status=unpaid&start_date=2025-01-01"))
	require.Equal(t, []string{mar.ID.String()}, ids("status=cancelled&company_ids[]="+a.ID.String()))
	require.Equal(t, []string{}, ids("status=paid&start_date=2025-02-01"))
	for _, tc := range []struct{ q, field string }{
		{"start_date=2025-02-30", "start_date"},
		{"end_date=01/31/2025", "end_date"},
		{"start_date=2025-02-02&end_date=2025-02-01", "end_date"},
		{"status=refunded", "status"},
	} {
		requireFieldError(t, do(t, srv, http.MethodGet, "/invoices?"+tc.q, nil), tc.field)
	}
}
