package acctadmin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

var (
	invoiceAcmeID = uuid.MustParse("5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c01")
	invoiceBetaID = uuid.MustParse("5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c02")
)

const (
	invoiceJSON0 = `{"id":"c0ffee00-1111-4222-8333-444455556601","status":"unpaid","company":"Acme Widgets LLC","company_id":"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c01",
		"created_at":"2024-05-01 10:00:00 -0600","updated_at":"2024-05-01T10:00:00.123-06:00","due_date":"2024-05-31",
		"items":[{"price":149.00,"description":"Registered agent, 1 year","quantity":1},{"price":"0.10","description":"Postage","quantity":3,"sku":"P"}],
		"total":"149.30"}`
	invoiceJSON1 = `{"id":"c0ffee00-1111-4222-8333-444455556602","status":"void","company":"Beta Corp","company_id":"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c02",
		"created_at":null,"updated_at":"","due_date":null,"items":null}`
)

func TestInvoicesListRequest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     *InvoiceListParams
		query string
	}{
		{"nil params", nil, ""},
		{"company ids and paging", &InvoiceListParams{Limit: 25, Offset: 50, CompanyIDs: []uuid.UUID{invoiceAcmeID, invoiceBetaID}},
			"limit=25&offset=50&company_ids[]=5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c01&company_ids[]=5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c02"},
		{"company names", &InvoiceListParams{Companies: []string{"Acme Widgets LLC", "Beta & Co"}},
			"companies[]=Acme+Widgets+LLC&companies[]=Beta+%26+Co"},
		{"a limit with no documented maximum", &InvoiceListParams{Limit: 1000}, "limit=1000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(`[]`))
			c := newTestClient(t, srv)
			got, err := c.Invoices.List(context.Background(), tc.p)
			if err != nil || got == nil || len(got) != 0 {
				t.Fatalf("List = %v, %v; want an empty list", got, err)
			}
			requireSent(t, srv, http.MethodGet, "/invoices", tc.query)
		})
	}
}

func TestInvoicesListDecodes(t *testing.T) {
	srv := newAPIServer(t, okText(`[`+invoiceJSON0+`,`+invoiceJSON1+`]`))
	c := newTestClient(t, srv)
	got, err := c.Invoices.List(context.Background(), &InvoiceListParams{CompanyIDs: []uuid.UUID{invoiceAcmeID}})
	if err != nil {
		t.Fatal(err)
	}
	requireSent(t, srv, http.MethodGet, "/invoices", "company_ids[]=5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c01")
	if len(got) != 2 {
		t.Fatalf("got %d invoices, want 2", len(got))
	}

	inv := got[0]
	requireJSONBody(t, string(inv.Raw), invoiceJSON0)
	if !inv.CreatedAt.Equal(time.Date(2024, 5, 1, 16, 0, 0, 0, time.UTC)) || !inv.UpdatedAt.Equal(time.Date(2024, 5, 1, 16, 0, 0, 123e6, time.UTC)) {
		t.Fatalf("times %v %v", inv.CreatedAt, inv.UpdatedAt)
	}
	if inv.ID != uuid.MustParse("c0ffee00-1111-4222-8333-444455556601") || inv.Status != "unpaid" || inv.Company != "Acme Widgets LLC" ||
		inv.CompanyID != invoiceAcmeID || inv.DueDate != (Date{2024, time.May, 31}) || len(inv.Items) != 2 {
		t.Fatalf("first invoice %+v", inv)
	}
	if it := inv.Items[0]; it.Description != "Registered agent, 1 year" || it.Quantity != 1 {
		t.Fatalf("first item %+v", it)
	}
	requireMoney(t, "items[0].price", inv.Items[0].Price, "149.00", 14900)
	if it := inv.Items[1]; it.Description != "Postage" || it.Quantity != 3 {
		t.Fatalf("second item %+v", it)
	}
	requireMoney(t, "items[1].price", inv.Items[1].Price, "0.10", 10)

	inv = got[1]
	requireJSONBody(t, string(inv.Raw), invoiceJSON1)
	if inv.ID != uuid.MustParse("c0ffee00-1111-4222-8333-444455556602") || inv.Status != InvoiceStatus("void") || inv.Company != "Beta Corp" ||
		inv.CompanyID != invoiceBetaID || !inv.CreatedAt.IsZero() || !inv.UpdatedAt.IsZero() || !inv.DueDate.IsZero() || inv.Items != nil {
		t.Fatalf("second invoice %+v", inv)
	}
}

func TestInvoicesListValidation(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     InvoiceListParams
		field string
	}{
		{"ids and names", InvoiceListParams{CompanyIDs: []uuid.UUID{invoiceAcmeID}, Companies: []string{"Acme"}}, "company_ids"},
		{"nil company id", InvoiceListParams{CompanyIDs: []uuid.UUID{invoiceAcmeID, uuid.Nil}}, "company_ids"},
		{"negative limit", InvoiceListParams{Limit: -1}, "limit"},
		{"negative offset", InvoiceListParams{Offset: -1}, "offset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(`[]`))
			c := newTestClient(t, srv)
			got, err := c.Invoices.List(context.Background(), &tc.p)
			if got != nil {
				t.Fatalf("got %v with an error", got)
			}
			requireRefused(t, srv, err, tc.field)
		})
	}
}

func TestInvoicesWrongFieldTypes(t *testing.T) {
	for _, tc := range []struct {
		name, result, path string
	}{
		{"item price", `[{"items":[]},{"items":[{"price":"1.00"},{"price":"ten"}]}]`, "result[1].items[1].price"},
		{"due date", `[{"due_date":"2024-13-01"}]`, "result[0].due_date"},
		{"status", `[{"status":"paid"},{"status":"paid"},{"status":2}]`, "result[2].status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(tc.result))
			c := newTestClient(t, srv)
			got, err := c.Invoices.List(context.Background(), nil)
			if got != nil {
				t.Fatalf("got %v with an error", got)
			}
			requireDecodeError(t, err, "GET /invoices", tc.path)
		})
	}
}

func TestInvoicesRecordThatIsNotAnObject(t *testing.T) {
	srv := newAPIServer(t, ok(`[null,`+invoiceJSON0+`,"c0ffee00-1111-4222-8333-444455556602"]`))
	c := newTestClient(t, srv)
	got, err := c.Invoices.List(context.Background(), nil)
	if got != nil {
		t.Fatalf("got %v with an error", got)
	}
	de := requireDecodeError(t, err, "GET /invoices", "result[2]")
	if !strings.Contains(de.Error(), "want a JSON object") {
		t.Fatalf("error %q", de)
	}
}

func invoiceJSON(i int) string {
	return fmt.Sprintf(`{"id":"%s","status":"paid","company":"Acme Widgets LLC","items":[{"price":"%d.00","quantity":1}]}`, indexID(i), i)
}

func TestInvoicesAllPages(t *testing.T) {
	srv := newAPIServer(t, offsetPager(230, invoiceJSON))
	c := newTestClient(t, srv)
	got, errs := collectSeq(c.Invoices.All(context.Background(), &InvoiceListParams{Companies: []string{"Acme Widgets LLC"}}))
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if len(got) != 230 {
		t.Fatalf("got %d invoices, want 230", len(got))
	}
	for i, inv := range got {
		if inv.ID != indexID(i) || inv.Items[0].Price.String() != fmt.Sprintf("%d.00", i) {
			t.Fatalf("invoice %d is %+v", i, inv)
		}
	}
	for _, r := range srv.requests() {
		if !r.AuthOK {
			t.Fatalf("request %s did not verify: %s", r.RawQuery, r.AuthErr)
		}
	}
	const rest = "companies[]=Acme+Widgets+LLC"
	checkPagesAsked(t, srv, "limit=100&"+rest, "limit=100&offset=100&"+rest, "limit=100&offset=200&"+rest)
}

// TestInvoicesAllWhenTheAPIDoesNotPage covers an API that ignores limit
// and offset on invoices (their paging is not documented): All must list
// every invoice once and stop, not ask again forever.
func TestInvoicesAllWhenTheAPIDoesNotPage(t *testing.T) {
	for _, tc := range []struct {
		name     string
		total    int
		requests int
	}{
		// Longer than the limit: the whole listing, at once.
		{"more than a page", 130, 1},
		// The same page at three offsets running: the whole listing (a
		// listing may show a row twice, so one repeat proves nothing).
		{"exactly a page", 100, 3},
		{"less than a page", 7, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items := make([]string, tc.total)
			for i := range items {
				items[i] = invoiceJSON(i)
			}
			srv := newAPIServer(t, ok("["+strings.Join(items, ",")+"]"))
			c := newTestClient(t, srv)
			for range 2 { // an iterator can be ranged over again
				got, errs := collectSeq(c.Invoices.All(context.Background(), nil))
				if len(errs) != 0 {
					t.Fatal(errs)
				}
				if len(got) != tc.total {
					t.Fatalf("got %d invoices, want %d", len(got), tc.total)
				}
				for i, inv := range got {
					if inv.ID != indexID(i) {
						t.Fatalf("invoice %d is %s", i, inv.ID)
					}
				}
			}
			// Pages read ahead past the end may be asked for too.
			if n := srv.count(); n < 2*tc.requests || n > 2*(tc.requests+maxReadAhead-1) {
				t.Fatalf("the server received %d requests, want %d", n, 2*tc.requests)
			}
		})
	}
}

func TestInvoicesAllValidation(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv)
	got, errs := collectSeq(c.Invoices.All(context.Background(), &InvoiceListParams{CompanyIDs: []uuid.UUID{invoiceAcmeID}, Companies: []string{"Acme"}}))
	if len(got) != 0 || len(errs) != 1 {
		t.Fatalf("got %d items and errors %v, want one error", len(got), errs)
	}
	requireRefused(t, srv, errs[0], "company_ids")
}

func TestInvoicesNullRecord(t *testing.T) {
	srv := newAPIServer(t, ok(`[null,`+invoiceJSON1+`]`))
	c := newTestClient(t, srv)
	got, err := c.Invoices.List(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !reflect.DeepEqual(got[0], Invoice{}) || got[1].Company != "Beta Corp" {
		t.Fatalf("invoices %+v", got)
	}
	requireJSONBody(t, string(got[1].Raw), invoiceJSON1)
}

// cappedPager is offsetPager on a server that caps its pages at most rows,
// whatever limit asks for.
func cappedPager(total, most int, item func(i int) string) http.HandlerFunc {
	page := offsetPager(total, item)
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if l, _ := strconv.Atoi(q.Get("limit")); l > most || l == 0 {
			q.Set("limit", strconv.Itoa(most))
			r.URL.RawQuery = q.Encode()
		}
		page(w, r)
	}
}

func TestInvoicesAllReadsPastAPageACappingServerShortened(t *testing.T) {
	// 130 invoices from a server that caps pages at 50 while All asks for
	// 100: a short first page is not taken for the whole listing.
	srv := newAPIServer(t, cappedPager(130, 50, invoiceJSON))
	c := newTestClient(t, srv)
	got, errs := collectSeq(c.Invoices.All(context.Background(), nil))
	if len(errs) != 0 || len(got) != 130 {
		t.Fatalf("got %d invoices and errors %v, want 130", len(got), errs)
	}
	for i, inv := range got {
		if inv.ID != indexID(i) {
			t.Fatalf("invoice %d is %s", i, inv.ID)
		}
	}
	checkPagesAsked(t, srv, "limit=100", "limit=100&offset=50", "limit=100&offset=100")
}

func TestInvoicesAllCostsOneMoreRequestOnAnHonestServer(t *testing.T) {
	// A listing shorter than a page: the empty page after it tells it
	// from a capped one, at one more request.
	for _, total := range []int{0, 7, 99} {
		srv := newAPIServer(t, offsetPager(total, invoiceJSON))
		c := newTestClient(t, srv)
		got, errs := collectSeq(c.Invoices.All(context.Background(), nil))
		if len(errs) != 0 || len(got) != total {
			t.Fatalf("%d invoices: got %d, errors %v", total, len(got), errs)
		}
		want := []string{"limit=100", "limit=100&offset=" + strconv.Itoa(total)}
		if total == 0 {
			want = want[:1] // an empty page ends it at once
		}
		checkPagesAsked(t, srv, want...)
	}
}

func TestInvoiceStatusConstants(t *testing.T) {
	var list []Invoice
	err := json.Unmarshal([]byte(`[{"status":"unpaid"},{"status":"paid"},{"status":"cancelled"},{"status":"refunded"}]`), &list)
	if err != nil {
		t.Fatal(err)
	}
	got := []InvoiceStatus{list[0].Status, list[1].Status, list[2].Status, list[3].Status}
	want := []InvoiceStatus{InvoiceUnpaid, InvoicePaid, InvoiceCancelled, "refunded"}
	if !slices.Equal(got, want) {
		t.Fatalf("statuses = %q, want %q", got, want)
	}
}

// Bad parameters of Invoices are refused before anything is sent, by a
// *ValidationError naming the field as the API spells it.
func TestInvoicesRefuseBadParams(t *testing.T) {
	checkRefused(t, []badParams{
		{"invoice nil id", "id", func(ctx context.Context, c *Client) error { _, err := c.Invoices.Get(ctx, uuid.Nil); return err }},
		{"pay without invoices", "invoice_ids", func(ctx context.Context, c *Client) error {
			_, err := c.Invoices.Pay(ctx, &InvoicePayParams{PaymentMethodID: wcCard})
			return err
		}},
		{"pay without card", "payment_token", func(ctx context.Context, c *Client) error {
			_, err := c.Invoices.Pay(ctx, &InvoicePayParams{InvoiceIDs: uuids(wcInvoice)})
			return err
		}},
	})
}

func TestInvoicesListByDatesAndStatus(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     InvoiceListParams
		query string
	}{
		{"dates and status", InvoiceListParams{StartDate: Date{2024, time.January, 1}, EndDate: Date{2024, time.March, 31}, Status: InvoicePaid},
			"start_date=2024-01-01&end_date=2024-03-31&status=paid"},
		{"one day", InvoiceListParams{StartDate: Date{2024, time.February, 29}, EndDate: Date{2024, time.February, 29}},
			"start_date=2024-02-29&end_date=2024-02-29"},
		{"a start alone, with companies", InvoiceListParams{Companies: []string{"Acme"}, StartDate: Date{2024, time.May, 1}},
			"companies[]=Acme&start_date=2024-05-01"},
		{"an end alone", InvoiceListParams{EndDate: Date{2024, time.May, 1}, Status: InvoiceUnpaid}, "end_date=2024-05-01&status=unpaid"},
		// A state the SDK does not know goes as given: the API decides.
		{"an unknown status", InvoiceListParams{Status: "refunded"}, "status=refunded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(`[]`))
			c := newTestClient(t, srv)
			got, err := c.Invoices.List(context.Background(), &tc.p)
			if err != nil || got == nil || len(got) != 0 {
				t.Fatalf("List = %v, %v; want an empty list", got, err)
			}
			requireSent(t, srv, http.MethodGet, "/invoices", tc.query)
		})
	}
}

func TestInvoicesListDatesValidation(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     InvoiceListParams
		field string
	}{
		{"end before start", InvoiceListParams{StartDate: Date{2024, time.March, 2}, EndDate: Date{2024, time.March, 1}}, "end_date"},
		{"no such start", InvoiceListParams{StartDate: Date{2023, time.February, 29}}, "start_date"},
		{"no such end", InvoiceListParams{StartDate: Date{2024, time.April, 1}, EndDate: Date{2024, time.April, 31}}, "end_date"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(`[]`))
			c := newTestClient(t, srv)
			got, err := c.Invoices.List(context.Background(), &tc.p)
			if got != nil {
				t.Fatalf("got %v with an error", got)
			}
			requireRefused(t, srv, err, tc.field)
			items, errs := collectSeq(c.Invoices.All(context.Background(), &tc.p))
			if len(items) != 0 || len(errs) != 1 {
				t.Fatalf("All gave %d invoices and %v, want one error", len(items), errs)
			}
			requireRefused(t, srv, errs[0], tc.field)
		})
	}
}

func TestInvoiceTotal(t *testing.T) {
	var inv Invoice
	err := json.Unmarshal([]byte(`{"items":[
		{"price":"19.99","quantity":3,"description":"annual report"},
		{"price":0.1,"quantity":1},
		{"price":"149.00","quantity":1},
		{"price":1e1,"quantity":0},
		{"price":"-5.5","quantity":2}]}`), &inv)
	if err != nil {
		t.Fatal(err)
	}
	wantItems := []string{"59.97", "0.1", "149.00", "0", "-11.0"}
	for i, it := range inv.Items {
		if got := it.Total().String(); got != wantItems[i] {
			t.Errorf("item %d total = %s, want %s", i, got, wantItems[i])
		}
	}
	total := inv.Total()
	if total.String() != "198.07" || !total.Equal(MoneyFromCents(19807)) {
		t.Fatalf("Total = %s, want 198.07", total)
	}
	if cents, err := total.Cents(); err != nil || cents != 19807 {
		t.Fatalf("Total cents = %d, %v", cents, err)
	}
	var empty Invoice
	if got := empty.Total(); !got.IsZero() {
		t.Fatalf("empty invoice totals %s", got)
	}
}

func TestInvoiceRawIsTheRecordAsSent(t *testing.T) {
	var got []Invoice
	if err := json.Unmarshal([]byte(`[null, {"id": "`+invoiceAcmeID.String()+`", "status": "paid"}]`), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Raw != nil {
		t.Fatalf("a null invoice has Raw %q, want nil (%d invoices)", got[0].Raw, len(got))
	}
	if want := `{"id": "` + invoiceAcmeID.String() + `", "status": "paid"}`; string(got[1].Raw) != want {
		t.Fatalf("Raw %s, want %s", got[1].Raw, want)
	}
}
