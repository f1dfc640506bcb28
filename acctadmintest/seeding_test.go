package acctadmintest_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

func TestSeedingHelpersPanicOnMistakes(t *testing.T) {
	srv := newServer(t)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC", HomeState: "Utah"})
	srv.AddWebsite(acctadmintest.WebsiteInput{URL: "https://shop.example"})
	for name, f := range map[string]func(){
		"empty company name":  func() { srv.AddCompany(acctadmintest.CompanyInput{}) },
		"duplicate company":   func() { srv.AddCompany(acctadmintest.CompanyInput{Name: "acme llc"}) },
		"bad home state":      func() { srv.AddCompany(acctadmintest.CompanyInput{Name: "X", HomeState: "Utopia"}) },
		"service no company":  func() { srv.AddService(acctadmintest.ServiceInput{CompanyID: uuid.New(), Jurisdiction: "Utah"}) },
		"service bad place":   func() { srv.AddService(acctadmintest.ServiceInput{CompanyID: co.ID, Jurisdiction: "Mars"}) },
		"document no company": func() { srv.AddDocument(acctadmintest.DocumentInput{CompanyID: uuid.New()}) },
		"invoice bad price": func() {
			srv.AddInvoice(acctadmintest.InvoiceInput{CompanyID: co.ID, Items: []acctadmintest.InvoiceItem{{Price: "$5"}}})
		},
		"product no website": func() { srv.AddFilingProduct(acctadmintest.FilingProductInput{WebsiteURL: "https://nope.example"}) },
		"product bad cost": func() {
			srv.AddFilingProduct(acctadmintest.FilingProductInput{WebsiteURL: "https://shop.example", Methods: []acctadmintest.FilingMethod{{Jurisdiction: "Utah", Cost: "1,00"}}})
		},
		"event no due date": func() { srv.AddComplianceEvent(acctadmintest.ComplianceEventInput{CompanyID: co.ID}) },
		"relative callback": func() { srv.AddCallback("/hook") },
		"duplicate website": func() { srv.AddWebsite(acctadmintest.WebsiteInput{URL: "https://shop.example"}) },
		"agent product place": func() {
			srv.AddRegisteredAgentProduct(acctadmintest.RegisteredAgentProductInput{WebsiteURL: "https://shop.example", Jurisdiction: "Xanadu"})
		},
	} {
		require.Panics(t, f, name)
	}
}

func TestSeedingDefaults(t *testing.T) {
	srv := newServer(t)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC", HomeState: "utah"})
	require.Equal(t, "Utah", co.HomeState, "canonical name")
	require.Equal(t, fixedNow, co.CreatedAt)

	d := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID})
	require.Equal(t, "Document", d.Title)
	require.Equal(t, 1, d.Pages)
	require.Equal(t, acctadmintest.DocumentUnread, d.Status)
	require.Equal(t, "Regular Mail", d.Type)
	require.Equal(t, "mail", d.Source)
	require.Equal(t, "Utah", d.Jurisdiction)
	require.Equal(t, "Acme LLC", d.CompanyName)

	s := srv.AddService(acctadmintest.ServiceInput{CompanyID: co.ID, Jurisdiction: "Idaho"})
	require.Equal(t, acctadmintest.ServiceActive, s.Status)
	require.Equal(t, acctadmintest.DefaultServiceType, s.Type)
	idaho, _ := acctadmintest.LookupJurisdiction("Idaho")
	require.Equal(t, idaho.ID, s.JurisdictionID)

	inv := srv.AddInvoice(acctadmintest.InvoiceInput{CompanyID: co.ID, Items: []acctadmintest.InvoiceItem{{Description: "Fee"}}})
	require.Equal(t, acctadmintest.InvoiceUnpaid, inv.Status)
	require.Equal(t, fixedNow.AddDate(0, 0, 30), inv.DueDate)
	require.Equal(t, []acctadmintest.InvoiceItem{{Price: "0.00", Description: "Fee", Quantity: 1}}, inv.Items)
	got, ok := srv.Invoice(inv.ID)
	require.True(t, ok)
	require.Equal(t, inv, got)
	_, ok = srv.Invoice(uuid.New())
	require.False(t, ok)

	ev := srv.AddComplianceEvent(acctadmintest.ComplianceEventInput{CompanyID: co.ID, DueDate: fixedNow.AddDate(0, 1, 0)})
	require.Equal(t, []string{"Utah"}, ev.Jurisdictions)
	require.Equal(t, acctadmintest.ComplianceActive, ev.Status)

	r := srv.AddResource(acctadmintest.ResourceInput{Name: "Form"})
	require.Equal(t, acctadmintest.ResourceDocument, r.Kind)
	require.Equal(t, 1, r.Pages)

	// IDs given are kept.
	id := uuid.MustParse("00000000-0000-4000-8000-000000000001")
	require.Equal(t, id, srv.AddDocument(acctadmintest.DocumentInput{ID: id, CompanyID: co.ID}).ID)
}

func TestStatusSetters(t *testing.T) {
	srv := newServer(t)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC", HomeState: "Utah"})
	d := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID})
	require.True(t, srv.SetDocumentStatus(d.ID, acctadmintest.DocumentRead))
	require.Empty(t, do(t, srv, http.MethodGet, "/documents", nil).Items(t))
	require.False(t, srv.SetDocumentStatus(uuid.New(), acctadmintest.DocumentRead))

	s := srv.AddService(acctadmintest.ServiceInput{CompanyID: co.ID, Jurisdiction: "Utah"})
	require.True(t, srv.SetServiceStatus(s.ID, acctadmintest.ServiceCancelled))
	got, _ := srv.Service(s.ID)
	require.Equal(t, acctadmintest.ServiceCancelled, got.Status)
	require.False(t, srv.SetServiceStatus(uuid.New(), acctadmintest.ServiceCancelled))
	// A cancelled service does not stop a new one in the same place.
	r := do(t, srv, http.MethodPost, "/services", map[string]any{"company": "Acme LLC", "jurisdictions": []string{"Utah"}})
	require.Len(t, r.Items(t), 1)
	require.False(t, srv.SetInvoiceStatus(uuid.New(), acctadmintest.InvoicePaid))
}
