package acctadmintest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Names in the demo account of SeedDemo.
const (
	// DemoWebsiteURL is the demo website, with filing products and
	// registered-agent products, registered as the real server registers
	// an account's website: without scheme or slash
	// (spec/recorded-behaviour.md, W1). The url of GET /websites and the
	// product listings must be this text exactly.
	DemoWebsiteURL = "www.example-agent.com"
	// DemoBareWebsiteURL is a second demo website without emails, phone
	// numbers, addresses or products, registered the same way.
	DemoBareWebsiteURL = "www.example-filings.com"
	// DemoUnpaidCompany is the demo company with unpaid invoices: a
	// cancel-request on its services is refused.
	DemoUnpaidCompany = "Bluebird Bakery Inc"
	// DemoNoHomeStateCompany is the demo company without a home state:
	// services created for it await client input.
	DemoNoHomeStateCompany = "Foxglove Studio LLC"
)

// DemoNamespace is the UUID namespace of the demo records' IDs: the ID of
// the n-th (from 1) record of a kind is uuid.NewSHA1(DemoNamespace,
// "kind/n"), with kind one of company, service, document, invoice,
// resource, website, filing-product, filing-method,
// registered-agent-product and compliance-event. The IDs are the same in
// every run.
var DemoNamespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://github.com/acctadmin/acctadmin-go/acctadmintest/demo"))

// DemoID returns the ID of the n-th (from 1) demo record of a kind; see
// DemoNamespace.
func DemoID(kind string, n int) uuid.UUID {
	return uuid.NewSHA1(DemoNamespace, []byte(fmt.Sprintf("%s/%d", kind, n)))
}

// Demo is what SeedDemo added, for tests that want to pick records.
type Demo struct {
	Companies []Company
	Services  []Service
	Documents []Document
	Invoices  []Invoice
	Resources []Resource
	// Events are the compliance events, due within the next 12 months.
	Events []ComplianceEvent
}

// SeedDemo fills the fake with a realistic account: six companies in
// several states (one without a home state), their services, 120 documents
// of 1 to 5 pages (read and unread), invoices (DemoUnpaidCompany has
// unpaid ones), resources for eight jurisdictions, the websites
// DemoWebsiteURL and DemoBareWebsiteURL with filing products, filing
// methods and registered-agent products, compliance events over the
// next 12 months, and for the commerce routes: the federal EIN ("tax id")
// product the provider's end-to-end example orders (DemoEINProductID,
// DemoEINMethodID), two simple products, signed forms, a stored card
// (DemoID("payment-method", 1)), a cart item (DemoID("cart-item", 1)) and
// an order item waiting for its form data (DemoID("order-item", 1)), all
// of the first company. Everything is the same in every run except the times,
// which are relative to the fake's clock (fix it with WithClock to fix
// them too). Call it once; the names would clash a second time.
func (f *Fake) SeedDemo() Demo {
	rng := rand.New(rand.NewPCG(2019, 509))
	now := f.now().Truncate(time.Second)
	day := 24 * time.Hour
	var d Demo

	companies := []struct{ name, home, entity string }{
		{"Acme Widgets LLC", "Utah", "LLC"},
		{DemoUnpaidCompany, "Idaho", "Corporation"},
		{"Cedar Ridge Holdings LLC", "Wyoming", "LLC"},
		{"Delta Freight Co", "Texas", "Corporation"},
		{"Evergreen Consulting PLLC", "Washington", "PLLC"},
		{DemoNoHomeStateCompany, "", "LLC"},
	}
	for i, c := range companies {
		d.Companies = append(d.Companies, f.AddCompany(CompanyInput{
			ID:         DemoID("company", i+1),
			Name:       c.name,
			HomeState:  c.home,
			EntityType: c.entity,
			CreatedAt:  now.Add(-time.Duration(420-i*7) * day),
		}))
	}
	co := func(i int) Company { return d.Companies[i] }

	services := []struct {
		company      int
		jurisdiction string
		status       string
	}{
		{0, "Utah", ServiceActive}, {0, "Idaho", ServiceActive}, {0, "Nevada", ServiceActive},
		{1, "Idaho", ServiceActive}, {1, "Washington", ServiceActive},
		{2, "Wyoming", ServiceActive}, {2, "Colorado", ServiceCancelled},
		{3, "Texas", ServiceActive}, {3, "Oklahoma", ServiceCancelRequested},
		{4, "Washington", ServiceActive}, {4, "Oregon", ServiceActive},
		{5, "Delaware", ServiceAwaitingClientInput},
	}
	for i, s := range services {
		d.Services = append(d.Services, f.AddService(ServiceInput{
			ID:           DemoID("service", i+1),
			CompanyID:    co(s.company).ID,
			Jurisdiction: s.jurisdiction,
			Status:       s.status,
			CreatedAt:    co(s.company).CreatedAt.Add(time.Duration(i+1) * day),
		}))
	}

	titles := []string{
		"Annual Report Reminder", "Service of Process", "Notice of Tax Due",
		"Statement of Information", "Certificate of Good Standing",
		"Articles of Organization", "Rejection Notice", "Franchise Tax Notice",
		"Change of Address Confirmation", "Registered Agent Consent",
	}
	types := []string{
		"Regular Mail", "State Compliance", "Initial Filing", "Annual Report",
		"Filing Document", "Delivered Service of Process", "Original Filing",
		"High Priority", "Ongoing Filing", "Rejection Notice",
	}
	sources := []string{"mail", "generated", "hand-delivered"}
	for i := 0; i < 120; i++ {
		c := co(i % len(companies))
		j := c.HomeState
		if j == "" {
			j = "Delaware"
		}
		status := DocumentUnread
		if rng.IntN(100) < 45 {
			status = DocumentRead
		}
		t := rng.IntN(len(titles))
		d.Documents = append(d.Documents, f.AddDocument(DocumentInput{
			ID:            DemoID("document", i+1),
			CompanyID:     c.ID,
			Title:         fmt.Sprintf("%s %03d", titles[t], i+1),
			Pages:         1 + rng.IntN(5),
			Status:        status,
			Type:          types[(t+rng.IntN(2))%len(types)],
			Source:        sources[rng.IntN(len(sources))],
			Jurisdiction:  j,
			PaymentLocked: c.HomeState == "",
			CreatedAt:     now.Add(-time.Duration(120-i)*36*time.Hour - time.Duration(rng.IntN(600))*time.Minute),
		}))
	}

	invoices := []struct {
		company int
		status  string
		ago     int // days
		items   []InvoiceItem
	}{
		{0, InvoicePaid, 300, []InvoiceItem{{Price: "119.00", Description: "Registered agent service, Utah", Quantity: 1}}},
		{0, InvoicePaid, 60, []InvoiceItem{{Price: "119.00", Description: "Registered agent service, Idaho", Quantity: 1}, {Price: "119.00", Description: "Registered agent service, Nevada", Quantity: 1}}},
		{1, InvoicePaid, 280, []InvoiceItem{{Price: "119.00", Description: "Registered agent service, Idaho", Quantity: 1}}},
		{1, InvoiceUnpaid, 40, []InvoiceItem{{Price: "149.00", Description: "Annual report filing", Quantity: 1}, {Price: "30.00", Description: "State filing fee", Quantity: 1}}},
		{1, InvoiceUnpaid, 10, []InvoiceItem{{Price: "119.00", Description: "Registered agent service, Washington", Quantity: 1}}},
		{2, InvoiceCancelled, 200, []InvoiceItem{{Price: "119.00", Description: "Registered agent service, Colorado", Quantity: 1}}},
		{2, InvoicePaid, 150, []InvoiceItem{{Price: "49.50", Description: "Certificate of good standing", Quantity: 2}}},
		{3, InvoicePaid, 90, []InvoiceItem{{Price: "119.00", Description: "Registered agent service, Texas", Quantity: 1}}},
		{4, InvoicePaid, 30, []InvoiceItem{{Price: "238.00", Description: "Registered agent service, Washington and Oregon", Quantity: 1}}},
	}
	for i, inv := range invoices {
		at := now.Add(-time.Duration(inv.ago) * day)
		d.Invoices = append(d.Invoices, f.AddInvoice(InvoiceInput{
			ID:        DemoID("invoice", i+1),
			CompanyID: co(inv.company).ID,
			Status:    inv.status,
			CreatedAt: at,
			DueDate:   at.AddDate(0, 0, 30),
			Items:     inv.items,
		}))
	}

	agencies := map[string]string{
		"Utah": "Division of Corporations and Commercial Code", "Idaho": "Secretary of State",
		"Wyoming": "Secretary of State", "Texas": "Secretary of State",
		"Washington": "Secretary of State", "Nevada": "Secretary of State",
		"Delaware": "Division of Corporations", "Colorado": "Secretary of State",
	}
	n := 0
	addResource := func(in ResourceInput) {
		n++
		in.ID = DemoID("resource", n)
		d.Resources = append(d.Resources, f.AddResource(in))
	}
	for _, j := range []string{"Utah", "Idaho", "Wyoming", "Texas", "Washington", "Nevada", "Delaware", "Colorado"} {
		slug := strings.ToLower(strings.ReplaceAll(j, " ", "-"))
		base := "https://forms.example.gov/" + slug
		addResource(ResourceInput{Name: j + " Articles of Organization", URL: base + "/articles-of-organization.pdf", Jurisdiction: j, Agency: agencies[j], EntityTypes: []string{"LLC"}, Pages: 2})
		addResource(ResourceInput{Name: j + " Articles of Incorporation", URL: base + "/articles-of-incorporation.pdf", Jurisdiction: j, Agency: agencies[j], EntityTypes: []string{"Corporation"}, Pages: 3})
		addResource(ResourceInput{Name: j + " Annual Report", URL: base + "/annual-report.pdf", Jurisdiction: j, Agency: agencies[j], EntityTypes: []string{"LLC", "Corporation", "PLLC"}, Pages: 1})
		addResource(ResourceInput{Name: j + " Business Entity Search", URL: base + "/search", Kind: ResourceURL, Jurisdiction: j, Agency: agencies[j]})
	}
	addResource(ResourceInput{Name: "Texas Franchise Tax Report", URL: "https://forms.example.gov/texas/franchise-tax.pdf", Jurisdiction: "Texas", Agency: "Comptroller of Public Accounts", EntityTypes: []string{"LLC", "Corporation"}, Pages: 4})

	f.AddWebsite(WebsiteInput{
		ID:           DemoID("website", 1),
		Name:         "Example Agent Services",
		URL:          DemoWebsiteURL,
		BillingName:  "Example Agent Services LLC",
		LoginURL:     "https://" + DemoWebsiteURL + "/login",
		CreatedAt:    now.Add(-900 * day),
		Emails:       []string{"support@example-agent.com", "billing@example-agent.com"},
		PhoneNumbers: []string{"+1 208-555-0100"},
		Addresses: []Address{{
			Line1: "100 Main Street", Line2: "Suite 200", City: "Boise",
			State: "ID", ZipCode: "83702", Country: "US",
		}},
	})
	f.AddWebsite(WebsiteInput{
		ID:        DemoID("website", 2),
		Name:      "Example Filings",
		URL:       DemoBareWebsiteURL,
		LoginURL:  "https://" + DemoBareWebsiteURL + "/login",
		CreatedAt: now.Add(-600 * day),
	})

	m := 0
	method := func(j, name, typ, cost string, filed, docs Turnaround) FilingMethod {
		m++
		return FilingMethod{
			ID: DemoID("filing-method", m), Name: name, Type: typ, Cost: cost,
			FiledIn: filed, DocsIn: docs, AgencyName: agencies[j],
			FilingDescription: name + " with the " + j + " " + agencies[j], Jurisdiction: j,
		}
	}
	products := []FilingProductInput{
		{Name: "Annual Report", FilingName: "annual report", Price: "149.00", Methods: []FilingMethod{
			method("Utah", "Annual Report (online)", FilingOnline, "20.00", Turnaround{1, 0}, Turnaround{0, 4}),
			method("Utah", "Annual Report (mail)", FilingMail, "20.00", Turnaround{10, 0}, Turnaround{2, 0}),
			method("Idaho", "Annual Report (online)", FilingOnline, "0.00", Turnaround{0, 12}, Turnaround{0, 2}),
			method("Wyoming", "Annual Report (online)", FilingOnline, "60.00", Turnaround{1, 0}, Turnaround{0, 4}),
			method("Wyoming", "Annual Report (mail)", FilingMail, "60.00", Turnaround{14, 0}, Turnaround{3, 0}),
		}},
		{Name: "Articles of Organization", FilingName: "formation", Price: "99.00", Methods: []FilingMethod{
			method("Utah", "Articles of Organization (online)", FilingOnline, "59.00", Turnaround{2, 0}, Turnaround{1, 0}),
			method("Idaho", "Certificate of Organization (online)", FilingOnline, "100.00", Turnaround{3, 0}, Turnaround{1, 0}),
			method("Wyoming", "Articles of Organization (online)", FilingOnline, "102.00", Turnaround{2, 0}, Turnaround{1, 0}),
			method("Texas", "Certificate of Formation (online)", FilingOnline, "300.00", Turnaround{3, 0}, Turnaround{1, 0}),
			method("Texas", "Certificate of Formation (fax)", FilingFax, "300.00", Turnaround{5, 0}, Turnaround{1, 12}),
		}},
		{Name: "Certificate of Good Standing", FilingName: "good standing", Price: "49.50", Methods: []FilingMethod{
			method("Utah", "Certificate of Existence (online)", FilingOnline, "12.00", Turnaround{0, 4}, Turnaround{0, 1}),
			method("Idaho", "Certificate of Existence (mail)", FilingMail, "10.00", Turnaround{7, 0}, Turnaround{2, 0}),
			method("Texas", "Certificate of Fact (fax)", FilingFax, "15.00", Turnaround{3, 0}, Turnaround{1, 0}),
		}},
		{Name: "Amendment", FilingName: "amendment", Price: "75.00", Methods: []FilingMethod{
			method("Utah", "Amendment (online)", FilingOnline, "37.00", Turnaround{2, 0}, Turnaround{1, 0}),
			method("Wyoming", "Amendment (mail)", FilingMail, "60.00", Turnaround{15, 0}, Turnaround{3, 0}),
		}},
	}
	for i, p := range products {
		p.ID = DemoID("filing-product", i+1)
		p.WebsiteURL = DemoWebsiteURL
		f.AddFilingProduct(p)
	}
	for i, j := range []string{"Utah", "Idaho", "Wyoming", "Texas", "Washington", "Nevada", "Delaware", "Florida"} {
		price := "119.00"
		if j == "Delaware" {
			price = "50.00"
		}
		abbr, _ := LookupJurisdiction(j)
		f.AddRegisteredAgentProduct(RegisteredAgentProductInput{
			ID:           DemoID("registered-agent-product", i+1),
			WebsiteURL:   DemoWebsiteURL,
			Name:         "Registered Agent Service - " + j,
			Jurisdiction: j,
			Price:        price,
			Duration:     12,
			URL:          "https://" + DemoWebsiteURL + "/registered-agent/" + strings.ToLower(abbr.Abbreviation),
		})
	}

	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	e := 0
	event := func(company int, filing, status string, months, dayOfMonth int, js ...string) {
		e++
		due := time.Date(today.Year(), today.Month()+time.Month(months), dayOfMonth, 0, 0, 0, 0, time.UTC)
		d.Events = append(d.Events, f.AddComplianceEvent(ComplianceEventInput{
			ID:            DemoID("compliance-event", e),
			CompanyID:     co(company).ID,
			Status:        status,
			DueDate:       due,
			Jurisdictions: js,
			Filing:        filing,
			CreatedAt:     now.Add(-time.Duration(e) * day),
		}))
	}
	for i, s := range services {
		if s.status == ServiceCancelled {
			continue
		}
		event(s.company, "Annual Report", ComplianceActive, 1+(i*5)%11, 1+(i*7)%28, s.jurisdiction)
	}
	event(3, "Franchise Tax Report", ComplianceActive, 5, 15, "Texas")
	event(0, "Beneficial Ownership Update", ComplianceActive, 3, 1, "Utah", "Idaho", "Nevada")
	event(4, "Annual Report", ComplianceNoneRequired, 8, 10, "Oregon")
	event(2, "Annual Report", ComplianceActive, 11, 28, "Wyoming")

	f.mu.Lock()
	f.seedCommerce(now, *f.websiteByURL(DemoWebsiteURL), d.Companies)
	f.mu.Unlock()
	return d
}
