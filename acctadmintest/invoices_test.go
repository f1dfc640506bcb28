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
