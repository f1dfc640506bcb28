package acctadmin_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/mailroom"
	"github.com/google/uuid"
)

// The examples run against the fake API of package acctadmintest, seeded
// by hand so that their output is the same in every run. Against the real
// API only the making of the client differs: NewClientFromEnv, or
// NewClient with the account's keys.

// start is the fixed time the examples' records are created at.
var start = time.Date(2026, time.January, 5, 9, 0, 0, 0, time.UTC)

// NewClientFromEnv reads the keys from ACCTADMIN_ACCESS_KEY and
// ACCTADMIN_SECRET_KEY, and the base URL from ACCTADMIN_BASE_URL when it is
// set. Here the environment points at the fake API for the length of the
// example.
func ExampleNewClientFromEnv() {
	srv := acctadmintest.NewServer()
	defer srv.Close()
	srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah", EntityType: "LLC"})

	defer restoreEnv(acctadmin.EnvAccessKey, acctadmin.EnvSecretKey, acctadmin.EnvBaseURL)()
	os.Setenv(acctadmin.EnvAccessKey, srv.AccessKey)
	os.Setenv(acctadmin.EnvSecretKey, srv.SecretKey)
	os.Setenv(acctadmin.EnvBaseURL, srv.URL)

	c, err := acctadmin.NewClientFromEnv()
	if err != nil {
		log.Fatal(err)
	}

	companies, err := c.Companies.List(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, co := range companies {
		fmt.Println(co.Name, co.HomeState, co.EntityType)
	}
	// Output:
	// Acme Widgets LLC Utah LLC
}

// restoreEnv returns a function that puts the environment variables keys
// back as they are now.
func restoreEnv(keys ...string) func() {
	saved := make(map[string]*string, len(keys))
	for _, k := range keys {
		if v, ok := os.LookupEnv(k); ok {
			saved[k] = &v
		} else {
			saved[k] = nil
		}
	}
	return func() {
		for k, v := range saved {
			if v == nil {
				os.Unsetenv(k)
			} else {
				os.Setenv(k, *v)
			}
		}
	}
}

// NewClient takes the account's keys and options. Every option has a
// default that suits most programs; these are the ones worth knowing.
func ExampleNewClient() {
	srv := acctadmintest.NewServer()
	defer srv.Close()
	accessKey, secretKey, baseURL := srv.AccessKey, srv.SecretKey, srv.URL

	c, err := acctadmin.NewClient(accessKey, secretKey,
		acctadmin.WithBaseURL(baseURL), // the default is acctadmin.DefaultBaseURL
		acctadmin.WithMaxRetries(5),    // GET and DELETE only; 3 by default
		acctadmin.WithRetryWait(500*time.Millisecond, 15*time.Second),
		acctadmin.WithTimeout(time.Minute), // each attempt; 30s by default
		acctadmin.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, nil))),
		acctadmin.WithUserAgent("billing-sync/1.2"),
	)
	if err != nil {
		log.Fatal(err)
	}

	callbacks, err := c.Callbacks.List(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(callbacks), "callbacks")
	// Output:
	// 0 callbacks
}

// All walks every page of a listing in a range-over-func loop, reading the
// next page while the loop works on the current one. An error ends the
// loop: it is yielded once, as the last item.
func ExampleServicesClient_All() {
	srv := acctadmintest.NewServer()
	defer srv.Close()
	acme := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})
	bluebird := srv.AddCompany(acctadmintest.CompanyInput{Name: "Bluebird Bakery Inc", HomeState: "Idaho"})
	for i, s := range []acctadmintest.ServiceInput{
		{CompanyID: acme.ID, Jurisdiction: "Utah"},
		{CompanyID: acme.ID, Jurisdiction: "Nevada"},
		{CompanyID: bluebird.ID, Jurisdiction: "Idaho", Status: acctadmintest.ServiceCancelRequested},
	} {
		s.CreatedAt = start.AddDate(0, 0, i)
		srv.AddService(s)
	}

	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	for s, err := range c.Services.All(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(s.Company, s.Jurisdiction, s.Status)
	}

	// Params filter the listing; their zero values are not sent.
	acmeOnly := &acctadmin.ServiceListParams{Company: "Acme Widgets LLC"}
	n := 0
	for _, err := range c.Services.All(ctx, acmeOnly) {
		if err != nil {
			log.Fatal(err)
		}
		n++
	}
	fmt.Println(n, "services of Acme Widgets LLC")
	// Output:
	// Acme Widgets LLC Utah active
	// Acme Widgets LLC Nevada active
	// Bluebird Bakery Inc Idaho cancel-requested
	// 2 services of Acme Widgets LLC
}

// Pulling mail: All walks the unread documents (the listing's default) and
// each one is downloaded to a file. A download marks the document read and
// so takes it out of the very listing being walked; All still yields every
// unread document exactly once. Here 250 documents fill two pages of 200.
func ExampleDocumentsClient_All() {
	srv := acctadmintest.NewServer()
	defer srv.Close()
	acme := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})
	for i := range 250 {
		srv.AddDocument(acctadmintest.DocumentInput{
			CompanyID: acme.ID,
			Title:     fmt.Sprintf("Letter %03d", i+1),
			CreatedAt: start.Add(time.Duration(i) * time.Minute),
		})
	}

	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "mail-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	store := mailroom.Dir(dir) // <id>.pdf, written whole or not at all
	for d, err := range c.Documents.All(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		f, err := c.Documents.Download(ctx, d.ID) // marks the document read
		if err != nil {
			log.Fatal(err)
		}
		err = store.Save(ctx, d, f) // temporary name, fsync, then the final name
		f.Close()
		if err != nil {
			log.Fatal(err)
		}
	}

	files, err := filepath.Glob(filepath.Join(dir, "*.pdf"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(files), "files")
	fmt.Println(srv.RequestCount("GET", "/documents/:id/download"), "downloads")
	unread, err := c.Documents.List(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(unread), "unread documents left")
	// Output:
	// 250 files
	// 250 downloads
	// 0 unread documents left
}

// Download streams a document's PDF: copy it where it belongs and close
// it. Nothing holds the whole file in memory. The API marks an unread
// document read once it is downloaded.
func ExampleDocumentsClient_Download() {
	srv := acctadmintest.NewServer()
	defer srv.Close()
	acme := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})
	doc := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: acme.ID, Title: "Service of Process", Pages: 3})

	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "mail-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	f, err := c.Documents.Download(ctx, doc.ID)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	name := f.Filename // a bare file name, or "" when the API gave none
	if name == "" {
		name = doc.ID.String() + ".pdf"
	}
	dst, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		log.Fatal(err)
	}
	n, err := io.Copy(dst, f)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(name, f.ContentType, n == f.ContentLength)

	head := make([]byte, 5)
	if pdf, err := os.Open(filepath.Join(dir, name)); err == nil {
		_, _ = io.ReadFull(pdf, head)
		pdf.Close()
	}
	fmt.Printf("%s\n", head)

	d, err := c.Documents.Get(ctx, doc.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Title, d.Status)
	// Output:
	// Service of Process.pdf application/pdf true
	// %PDF-
	// Service of Process read
}

// The due dates of a quarter. Both ends of the range count; in a program
// the range would start today, at acctadmin.DateOf(time.Now()).
func ExampleComplianceEventsClient_All() {
	srv := acctadmintest.NewServer()
	defer srv.Close()
	acme := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})
	bluebird := srv.AddCompany(acctadmintest.CompanyInput{Name: "Bluebird Bakery Inc", HomeState: "Idaho"})
	due := func(month time.Month, day int) time.Time { return time.Date(2026, month, day, 0, 0, 0, 0, time.UTC) }
	for _, e := range []acctadmintest.ComplianceEventInput{
		{CompanyID: acme.ID, Filing: "Annual Report", DueDate: due(time.March, 1), Jurisdictions: []string{"Utah"}},
		{CompanyID: bluebird.ID, Filing: "Annual Report", DueDate: due(time.February, 15), Jurisdictions: []string{"Idaho"}},
		{CompanyID: acme.ID, Filing: "Beneficial Ownership Update", DueDate: due(time.April, 1), Jurisdictions: []string{"Utah", "Nevada"}},
		{CompanyID: acme.ID, Filing: "Annual Report", DueDate: due(time.September, 1), Jurisdictions: []string{"Nevada"}},
	} {
		e.CreatedAt = start
		srv.AddComplianceEvent(e)
	}

	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	from := acctadmin.Date{Year: 2026, Month: time.January, Day: 1}
	params := &acctadmin.ComplianceEventListParams{StartDate: from, EndDate: from.AddDays(90)}
	for e, err := range c.ComplianceEvents.All(ctx, params) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(e.DueDate, e.Company, e.Filing, e.Jurisdictions)
	}
	// Output:
	// 2026-02-15 Bluebird Bakery Inc Annual Report [Idaho]
	// 2026-03-01 Acme Widgets LLC Annual Report [Utah]
	// 2026-04-01 Acme Widgets LLC Beneficial Ownership Update [Utah Nevada]
}

// The API refuses to cancel a service while its company has unpaid
// invoices, and lists them; the error is then an *UnpaidInvoicesError.
func ExampleServicesClient_RequestCancellation() {
	srv := acctadmintest.NewServer()
	defer srv.Close()
	acme := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})
	bluebird := srv.AddCompany(acctadmintest.CompanyInput{Name: "Bluebird Bakery Inc", HomeState: "Idaho"})
	paidUp := srv.AddService(acctadmintest.ServiceInput{CompanyID: acme.ID, Jurisdiction: "Utah"})
	owing := srv.AddService(acctadmintest.ServiceInput{CompanyID: bluebird.ID, Jurisdiction: "Idaho"})
	srv.AddInvoice(acctadmintest.InvoiceInput{
		CompanyID: bluebird.ID,
		Status:    acctadmintest.InvoiceUnpaid,
		CreatedAt: start,
		DueDate:   start.AddDate(0, 0, 30),
		Items: []acctadmintest.InvoiceItem{
			{Price: "149.00", Description: "Annual report filing"},
			{Price: "30.00", Description: "State filing fee"},
		},
	})

	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	for _, id := range []uuid.UUID{paidUp.ID, owing.ID} {
		svc, err := c.Services.RequestCancellation(ctx, id)
		var unpaid *acctadmin.UnpaidInvoicesError
		switch {
		case errors.As(err, &unpaid):
			fmt.Println("refused:", len(unpaid.Invoices), "unpaid invoice(s), status", unpaid.Err.StatusCode)
			for _, inv := range unpaid.Invoices {
				fmt.Println(" ", inv.Company, inv.Status, "due", inv.DueDate)
				for _, item := range inv.Items {
					fmt.Println("   ", item.Description, item.Price)
				}
			}
		case err != nil:
			log.Fatal(err)
		default:
			fmt.Println(svc.Company, svc.Jurisdiction, svc.Status)
		}
	}
	// Output:
	// Acme Widgets LLC Utah cancel-requested
	// refused: 1 unpaid invoice(s), status 400
	//   Bluebird Bakery Inc unpaid due 2026-02-04
	//     Annual report filing 149.00
	//     State filing fee 30.00
}

// Errors are typed: errors.Is tells the API's answers apart by status, and
// errors.As reaches the details.
func Example_errors() {
	srv := acctadmintest.NewServer()
	defer srv.Close()
	acme := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})

	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	_, err = c.Documents.Get(ctx, uuid.MustParse("00000000-0000-4000-8000-000000000001"))
	fmt.Println(describe(err))

	_, err = c.Services.List(ctx, &acctadmin.ServiceListParams{Company: acme.Name, CompanyID: acme.ID})
	fmt.Println(describe(err))

	_, err = c.Documents.Page(ctx, uuid.MustParse("00000000-0000-4000-8000-000000000001"), 0, &acctadmin.PageParams{DPI: 96})
	fmt.Println(err)
	// Output:
	// not found
	// refused before sending: company
	// acctadmin: invalid dpi: must be 72, 150 or 300, got 96
}

// describe says what went wrong in a call, the way a program tells the
// errors of this package apart.
func describe(err error) string {
	var apiErr *acctadmin.APIError
	var invalid *acctadmin.ValidationError
	var transport *acctadmin.TransportError
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, acctadmin.ErrNotFound):
		return "not found"
	case errors.As(err, &invalid): // also errors.Is(err, acctadmin.ErrInvalidParams)
		return "refused before sending: " + invalid.Field
	case errors.As(err, &apiErr) && errors.Is(err, acctadmin.ErrRateLimited):
		return "rate limited; the API asked to wait " + apiErr.RetryAfter.String()
	case errors.As(err, &apiErr): // any other answer of the API
		return fmt.Sprintf("the API answered %d: %s", apiErr.StatusCode, apiErr.Message)
	case errors.As(err, &transport): // no answer, after the retries
		return "no answer: " + transport.Error()
	default: // a *DecodeError, or the context's error
		return err.Error()
	}
}

// The fake API serves a whole demo account, with fixed names and IDs, for
// the tests of programs that use this package.
func Example_fakeAPI() {
	srv := acctadmintest.NewServer(acctadmintest.WithDemoData())
	defer srv.Close()
	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}

	companies, err := c.Companies.List(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, co := range companies {
		fmt.Println(co.Name)
	}
	// Output:
	// Acme Widgets LLC
	// Bluebird Bakery Inc
	// Cedar Ridge Holdings LLC
	// Delta Freight Co
	// Evergreen Consulting PLLC
	// Foxglove Studio LLC
}
