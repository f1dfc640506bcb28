package acctadmintest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// seedServices adds n services for one company in Utah.
func seedServices(t *testing.T, srv *acctadmintest.Server, n int) acctadmintest.Company {
	t.Helper()
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC", HomeState: "Utah", EntityType: "LLC"})
	for i := 0; i < n; i++ {
		srv.AddService(acctadmintest.ServiceInput{
			CompanyID:    co.ID,
			Jurisdiction: acctadmintest.Jurisdictions()[i%51].Name,
			CreatedAt:    fixedNow.Add(time.Duration(i) * time.Minute),
		})
	}
	return co
}

func TestServicesListShapeAndPaging(t *testing.T) {
	srv := newServer(t)
	co := seedServices(t, srv, 130)

	r := do(t, srv, http.MethodGet, "/services", nil)
	requireOK(t, r, "true")
	items := r.Items(t)
	require.Len(t, items, 50, "default limit")
	first := items[0]
	require.Equal(t, "Alabama", first["jurisdiction"])
	require.Equal(t, acctadmintest.Jurisdictions()[0].ID.String(), first["jurisdiction_id"])
	require.Equal(t, "Acme LLC", first["company"])
	require.Equal(t, co.ID.String(), first["company_id"])
	require.Equal(t, "active", first["status"])
	require.Equal(t, acctadmintest.DefaultServiceType, first["type"])
	require.Equal(t, "2025-03-14 08:09:26 -0700", first["created_at"])
	require.Equal(t, "2025-03-14 08:09:26 -0700", first["updated_at"])
	require.EqualValues(t, 1, first["legacy_id"], "an undocumented field rides along")

	r = do(t, srv, http.MethodGet, "/services?limit=100&offset=120", nil)
	requireOK(t, r, "true")
	last := r.Items(t)
	require.Len(t, last, 10, "short last page")
	require.Equal(t, srv.Services()[120].ID.String(), last[0]["id"])

	r = do(t, srv, http.MethodGet, "/services?limit=100&offset=200", nil)
	requireOK(t, r, "true")
	require.Equal(t, "[]", string(mustRaw(t, r)))

	// Pages do not overlap and cover everything in order.
	var ids []string
	for off := 0; off < 130; off += 40 {
		r := do(t, srv, http.MethodGet, "/services?limit=40&offset="+itoa(off), nil)
		for _, it := range r.Items(t) {
			ids = append(ids, it["id"].(string))
		}
	}
	require.Len(t, ids, 130)
	for i, s := range srv.Services() {
		require.Equal(t, s.ID.String(), ids[i])
	}
}

func TestServicesListValidation(t *testing.T) {
	srv := newServer(t)
	co := seedServices(t, srv, 3)
	for _, q := range []string{"limit=101", "limit=0", "limit=-1", "limit=ten", "limit=1.5", "offset=-1", "offset=x"} {
		field := strings.SplitN(q, "=", 2)[0]
		requireFieldError(t, do(t, srv, http.MethodGet, "/services?"+q, nil), field)
	}
	r := do(t, srv, http.MethodGet, "/services?company=Acme+LLC&company_id="+co.ID.String(), nil)
	requireFieldError(t, r, "company_id")
	requireError(t, r, http.StatusBadRequest, "company and company_id must not both be given")
	requireFieldError(t, do(t, srv, http.MethodGet, "/services?company_id=nope", nil), "company_id")
	requireError(t, do(t, srv, http.MethodGet, "/services?company=Nobody", nil), http.StatusNotFound, "company not found")
	requireError(t, do(t, srv, http.MethodGet, "/services?company_id="+uuid.NewString(), nil), http.StatusNotFound, "company not found")
}

func TestServicesListByCompany(t *testing.T) {
	srv := newServer(t)
	a := seedServices(t, srv, 3)
	b := srv.AddCompany(acctadmintest.CompanyInput{Name: "Beta Inc", HomeState: "Idaho"})
	srv.AddService(acctadmintest.ServiceInput{CompanyID: b.ID, Jurisdiction: "Idaho"})

	r := do(t, srv, http.MethodGet, "/services?company=beta+inc", nil)
	requireOK(t, r, "true")
	items := r.Items(t)
	require.Len(t, items, 1)
	require.Equal(t, b.ID.String(), items[0]["company_id"])
	require.Equal(t, "Beta Inc", items[0]["company"])

	r = do(t, srv, http.MethodGet, "/services?company_id="+a.ID.String(), nil)
	require.Len(t, r.Items(t), 3)
}

func TestServicesCreateReturnsOnlyNewServices(t *testing.T) {
	srv := newServer(t)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC", HomeState: "Utah"})
	srv.AddService(acctadmintest.ServiceInput{CompanyID: co.ID, Jurisdiction: "Utah"})

	r := do(t, srv, http.MethodPost, "/services", map[string]any{"company": "Acme LLC", "jurisdictions": []string{"Utah", "Idaho", "nevada"}})
	requireOK(t, r, "true")
	items := r.Items(t)
	require.Len(t, items, 2, "Utah exists already")
	require.Equal(t, "Idaho", items[0]["jurisdiction"])
	require.Equal(t, "Nevada", items[1]["jurisdiction"])
	for _, it := range items {
		require.Equal(t, "active", it["status"])
		require.Equal(t, co.ID.String(), it["company_id"])
	}
	require.Len(t, srv.Services(), 3)

	// By ids, again: nothing new.
	idaho, _ := acctadmintest.LookupJurisdiction("Idaho")
	r = do(t, srv, http.MethodPost, "/services", map[string]any{"company_id": co.ID, "jurisdiction_ids": []uuid.UUID{idaho.ID}})
	requireOK(t, r, "true")
	require.Equal(t, "[]", string(mustRaw(t, r)))

	writes := srv.Writes()
	require.Len(t, writes, 2)
	require.Len(t, writes[0].Created, 2)
	require.Empty(t, writes[1].Created)
	require.Equal(t, "/services", writes[0].Route)
}

func TestServicesCreateAwaitsClientInputWithoutHomeState(t *testing.T) {
	srv := newServer(t)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Nomad LLC"})
	wy, _ := acctadmintest.LookupJurisdiction("Wyoming")
	r := do(t, srv, http.MethodPost, "/services", map[string]any{"company_id": co.ID.String(), "jurisdiction_ids": []string{wy.ID.String()}})
	requireOK(t, r, "true")
	items := r.Items(t)
	require.Len(t, items, 1)
	require.Equal(t, "awaiting-client-input", items[0]["status"])
	require.Equal(t, wy.ID.String(), items[0]["jurisdiction_id"])
}

func TestServicesCreateValidation(t *testing.T) {
	srv := newServer(t)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC", HomeState: "Utah"})
	utah, _ := acctadmintest.LookupJurisdiction("Utah")
	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"no company", map[string]any{"jurisdictions": []string{"Utah"}}, "company"},
		{"both companies", map[string]any{"company": "Acme LLC", "company_id": co.ID, "jurisdictions": []string{"Utah"}}, "company_id"},
		{"no jurisdictions", map[string]any{"company": "Acme LLC"}, "jurisdictions"},
		{"empty jurisdictions", map[string]any{"company": "Acme LLC", "jurisdictions": []string{}}, "jurisdictions"},
		{"both jurisdictions", map[string]any{"company": "Acme LLC", "jurisdictions": []string{"Utah"}, "jurisdiction_ids": []uuid.UUID{utah.ID}}, "jurisdiction_ids"},
		{"unknown jurisdiction", map[string]any{"company": "Acme LLC", "jurisdictions": []string{"Narnia"}}, "jurisdictions"},
		{"unknown jurisdiction id", map[string]any{"company": "Acme LLC", "jurisdiction_ids": []string{uuid.NewString()}}, "jurisdiction_ids"},
		{"bad jurisdiction id", map[string]any{"company": "Acme LLC", "jurisdiction_ids": []string{"utah"}}, "jurisdiction_ids"},
		{"bad company id", map[string]any{"company_id": "7", "jurisdictions": []string{"Utah"}}, "company_id"},
		{"wrong type", map[string]any{"company": "Acme LLC", "jurisdictions": "Utah"}, "jurisdictions"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			requireFieldError(t, do(t, srv, http.MethodPost, "/services", tc.body), tc.field)
		})
	}
	requireError(t, do(t, srv, http.MethodPost, "/services", "[1]"), http.StatusBadRequest, "JSON object")
	requireError(t, do(t, srv, http.MethodPost, "/services", "{"), http.StatusBadRequest, "not valid JSON")
	requireError(t, do(t, srv, http.MethodPost, "/services", nil), http.StatusBadRequest, "JSON object")
	requireError(t, do(t, srv, http.MethodPost, "/services", map[string]any{"company": "Nobody", "jurisdictions": []string{"Utah"}}), http.StatusNotFound, "company not found")
	require.Empty(t, srv.Services())
	require.Empty(t, srv.Writes())
}

func TestCancelRequestRefusedWithUnpaidInvoices(t *testing.T) {
	srv := newServer(t)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Debtor Inc", HomeState: "Idaho"})
	svc := srv.AddService(acctadmintest.ServiceInput{CompanyID: co.ID, Jurisdiction: "Idaho"})
	paid := srv.AddInvoice(acctadmintest.InvoiceInput{CompanyID: co.ID, Status: acctadmintest.InvoicePaid, Items: []acctadmintest.InvoiceItem{{Price: "10.00", Description: "old"}}})
	unpaid := srv.AddInvoice(acctadmintest.InvoiceInput{CompanyID: co.ID, Items: []acctadmintest.InvoiceItem{{Price: "149.00", Description: "Annual report", Quantity: 2}}})

	path := "/services/" + svc.ID.String() + "/cancel-request"
	r := do(t, srv, http.MethodPost, path, nil)
	require.Equal(t, http.StatusBadRequest, r.Status)
	m := r.JSON(t)
	require.Equal(t, false, m["success"])
	require.Equal(t, "service has unpaid invoices", m["message"])
	require.Regexp(t, isoRE, m["timestamp"], "the cancel-request answer uses ISO times")
	items := r.Items(t)
	require.Len(t, items, 1)
	require.Equal(t, unpaid.ID.String(), items[0]["id"])
	require.Equal(t, "unpaid", items[0]["status"])
	require.Regexp(t, isoRE, items[0]["created_at"])
	require.Contains(t, string(r.Body), `"items":[{"price":149.00,"description":"Annual report","quantity":2}]`)
	got, _ := srv.Service(svc.ID)
	require.Equal(t, acctadmintest.ServiceActive, got.Status, "unchanged")
	_ = paid

	require.True(t, srv.SetInvoiceStatus(unpaid.ID, acctadmintest.InvoicePaid))
	r = do(t, srv, http.MethodPost, path, nil)
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
	require.True(t, strings.HasPrefix(string(r.Body), `{"success":true,"timestamp":"2025-03-14T08:09:26.000-07:00","result":{`), "%s", r.Body)
	var s map[string]any
	r.Result(t, &s)
	require.Equal(t, "cancel-requested", s["status"])
	require.Equal(t, svc.ID.String(), s["id"])
	require.Regexp(t, isoRE, s["created_at"])
	require.Regexp(t, isoRE, s["updated_at"])
	got, _ = srv.Service(svc.ID)
	require.Equal(t, acctadmintest.ServiceCancelRequested, got.Status)
}

func TestCancelRequestUnknownService(t *testing.T) {
	srv := newServer(t)
	requireError(t, do(t, srv, http.MethodPost, "/services/"+uuid.NewString()+"/cancel-request", nil), http.StatusNotFound, "service not found")
	requireError(t, do(t, srv, http.MethodPost, "/services/not-a-uuid/cancel-request", nil), http.StatusNotFound, "service not found")
	requireError(t, do(t, srv, http.MethodGet, "/services/"+uuid.NewString()+"/cancel-request", nil), http.StatusMethodNotAllowed, "not allowed")
}

// TestCancelRequestOfANewService: the invoice POST /services makes for a
// service does not hold back that service's cancel-request, which cancels
// it; another unpaid invoice of the company does (another service's, or
// any other), and the refusal lists those alone.
func TestCancelRequestOfANewService(t *testing.T) {
	srv := newDemo(t)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "TEST Cancel LLC", HomeState: "Utah", EntityType: "LLC"})
	create := func(j string) string {
		r := do(t, srv, http.MethodPost, "/services", map[string]any{"company_id": co.ID.String(), "jurisdictions": []string{j}})
		requireOK(t, r, "true")
		return r.Items(t)[0]["id"].(string)
	}
	invoiceStatus := func() map[string]string {
		out := map[string]string{}
		for _, inv := range do(t, srv, http.MethodGet, "/invoices?company_id="+co.ID.String(), nil).Items(t) {
			items := inv["items"].([]any)
			out[items[0].(map[string]any)["description"].(string)] = inv["status"].(string)
		}
		return out
	}
	ut := create("Utah")
	require.Equal(t, map[string]string{"Registered Agent Service - Utah": "unpaid"}, invoiceStatus())
	r := do(t, srv, http.MethodPost, "/services/"+ut+"/cancel-request", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Contains(t, string(r.Body), `"status":"cancel-requested"`)
	require.Equal(t, map[string]string{"Registered Agent Service - Utah": "cancelled"}, invoiceStatus())

	// Another service's unpaid invoice holds a service back.
	id := create("Idaho")
	create("Texas")
	r = do(t, srv, http.MethodPost, "/services/"+id+"/cancel-request", nil)
	requireError(t, r, http.StatusBadRequest, "unpaid invoices")
	var listed []map[string]any
	r.Result(t, &listed)
	require.Len(t, listed, 1)
	require.Contains(t, string(r.Body), "Registered Agent Service - Texas")
	require.NotContains(t, string(r.Body), "Registered Agent Service - Idaho")
	require.Equal(t, map[string]string{"Registered Agent Service - Utah": "cancelled", "Registered Agent Service - Idaho": "unpaid",
		"Registered Agent Service - Texas": "unpaid"}, invoiceStatus())
}
