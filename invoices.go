package acctadmin

import (
	"context"
	"encoding/json"
	"iter"
	"math"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// InvoicesClient reads and pays the account's invoices.
type InvoicesClient service

// The routes of invoices.
var (
	routeInvoicesList = declare(http.MethodGet, "/invoices", "Invoices.List")
	routeInvoicesGet  = declare(http.MethodGet, "/invoices/{id}", "Invoices.Get")
	routeInvoicesPay  = declareOnce(http.MethodPost, "/invoices/pay", "Invoices.Pay",
		"Invoices.Get shows whether each invoice is paid")
)

// InvoiceStatus is the state of an invoice, kept as the API writes it.
// Values the API sends beyond the constants below are kept as they come.
type InvoiceStatus string

// The invoice states the API is known to send. The API description names
// them where it says that a service's unpaid invoices must be paid or
// cancelled before the service can be cancelled; the provider's example
// clients read the status as a plain string and name no other value.
const (
	InvoiceUnpaid    InvoiceStatus = "unpaid"
	InvoicePaid      InvoiceStatus = "paid"
	InvoiceCancelled InvoiceStatus = "cancelled"
)

// Invoice is a bill of the account. The API does not document its shape;
// the fields known from the provider's own clients are typed and the whole
// record is kept in Raw.
type Invoice struct {
	ID        uuid.UUID     `json:"id"`
	Status    InvoiceStatus `json:"status"`
	Company   string        `json:"company"`
	CompanyID uuid.UUID     `json:"company_id"`
	CreatedAt time.Time     `json:"created_at"`
	UpdatedAt time.Time     `json:"updated_at"`
	DueDate   Date          `json:"due_date"`
	Items     []InvoiceItem `json:"items"`
	// Raw is the record exactly as the API sent it.
	Raw json.RawMessage `json:"-"`
}

// InvoiceItem is one line of an invoice.
type InvoiceItem struct {
	Price       Money  `json:"price"`
	Description string `json:"description"`
	// Quantity is how many of the item the line bills. The API writes it
	// as a number or a numeric string; a line without it (or with null)
	// bills one, as every line in the provider's examples does.
	Quantity int `json:"quantity"`
}

// UnmarshalJSON reads an invoice line: its quantity may be a numeric
// string, and a missing or null quantity is 1.
func (it *InvoiceItem) UnmarshalJSON(data []byte) error {
	return decodeWire[invoiceItemWire](data, it)
}

// invoiceItemWire is an invoice line as the API writes it.
type invoiceItemWire struct {
	plainInvoiceItem
	Quantity *flexInt `json:"quantity"`
}

type plainInvoiceItem InvoiceItem

func (w invoiceItemWire) record() InvoiceItem {
	it := InvoiceItem(w.plainInvoiceItem)
	it.Quantity = 1
	if w.Quantity != nil {
		it.Quantity = int(*w.Quantity)
	}
	return it
}

// Total returns the sum of the invoice's items (each its price times its
// quantity), exactly; an invoice without items totals zero.
func (inv *Invoice) Total() Money {
	var sum Money
	for _, it := range inv.Items {
		sum = sum.Add(it.Total())
	}
	return sum
}

// Total returns the item's price times its quantity, exactly, with the
// price's decimals ("19.99" × 3 is "59.97").
func (it InvoiceItem) Total() Money { return it.Price.times(int64(it.Quantity)) }

// UnmarshalJSON decodes the known fields and keeps the whole record in Raw.
func (inv *Invoice) UnmarshalJSON(data []byte) error {
	return decodeRecord[invoiceWire](data, inv, &inv.Raw)
}

// invoiceWire is an invoice as the API writes it. It embeds the invoice
// without its UnmarshalJSON, which would otherwise be its own.
type invoiceWire struct {
	plainInvoice
	CreatedAt Time `json:"created_at"`
	UpdatedAt Time `json:"updated_at"`
}

type plainInvoice Invoice

// invoiceEntry is an invoice in a list: it decodes as an Invoice does,
// keeping its Raw.
type invoiceEntry struct{ Invoice }

func (e invoiceEntry) record() Invoice { return e.Invoice }

func (w invoiceWire) record() Invoice {
	inv := Invoice(w.plainInvoice)
	inv.CreatedAt, inv.UpdatedAt = w.CreatedAt.Time, w.UpdatedAt.Time
	return inv
}

// invoicesPageSize is the page size of InvoicesClient.All. The API does not
// document paging for invoices; 100 is the largest page that its other
// listings of account records (services, compliance events) allow.
const invoicesPageSize = 100

// InvoiceListParams filters GET /invoices. Zero values are not sent.
//
// The API does not document paging for invoices: Limit and Offset are sent
// as limit and offset when given, as on the other listings.
type InvoiceListParams struct {
	// Limit is the page size; zero leaves it to the API.
	Limit int
	// Offset is the number of invoices to skip.
	Offset int
	// CompanyIDs keeps the invoices of these companies; give it or
	// Companies, not both.
	CompanyIDs []uuid.UUID
	// Companies keeps the invoices of the companies of these names.
	Companies []string
}

func (p *InvoiceListParams) validate() error {
	return firstErr(
		checkPage(p.Limit, math.MaxInt, p.Offset),
		checkNotBoth("company_ids", len(p.CompanyIDs) > 0, "companies", len(p.Companies) > 0),
		checkIDs("company_ids", p.CompanyIDs),
	)
}

func (p *InvoiceListParams) paging() (limit, offset *int) { return &p.Limit, &p.Offset }

func (p *InvoiceListParams) query() *query {
	q := &query{}
	q.int("limit", p.Limit)
	q.int("offset", p.Offset)
	q.ids("company_ids", p.CompanyIDs)
	q.strs("companies", p.Companies)
	return q
}

// List returns the account's invoices (one page of them when p.Limit is
// given). GET /invoices.
func (s *InvoicesClient) List(ctx context.Context, p *InvoiceListParams) ([]Invoice, error) {
	return listRecords[invoiceEntry](ctx, s.c, routeInvoicesList, p)
}

// All returns every invoice, page after page (100 a page unless p.Limit
// says otherwise), reading the next page while the loop works on the
// current one. Since the API does not document paging for invoices, a page
// longer than the limit, or one that comes back at later offsets (three
// times running, as for any listing), is taken to mean that the API
// answered the whole listing at once, and All stops there, without an
// error. A page shorter than the limit is not the end: a server that caps
// its pages below the limit sends one, so All asks for the next page,
// and an empty one ends the listing (one more request on a listing
// shorter than a page). GET /invoices.
func (s *InvoicesClient) All(ctx context.Context, p *InvoiceListParams) iter.Seq2[Invoice, error] {
	l := listingOf(p, invoicesPageSize, s.List, func(v Invoice) uuid.UUID { return v.ID })
	l.unpaged = true
	return paginate(ctx, l)
}

// Get returns the invoice id. GET /invoices/:id.
func (s *InvoicesClient) Get(ctx context.Context, id uuid.UUID) (*Invoice, error) {
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	return one(call[Invoice](ctx, s.c, routeInvoicesGet.at(id.String()), nil, nil))
}

// InvoicePayParams pays invoices with a stored card: both fields are
// required.
type InvoicePayParams struct {
	// InvoiceIDs are the invoices to pay.
	InvoiceIDs []uuid.UUID
	// PaymentMethodID is the card to charge, the ID of a PaymentMethod
	// (the API's payment_token).
	PaymentMethodID uuid.UUID
}

// Pay pays the invoices p.InvoiceIDs with the card p.PaymentMethodID and
// returns the invoices the API answers with (none when it sends none). It
// is how the unpaid invoices that block a cancellation are settled. It is
// sent at most once: a failure after the request may have arrived is
// ErrOutcomeUnknown, and Get shows whether each invoice is paid; do not
// simply try again, or the card may be charged twice. POST /invoices/pay.
func (s *InvoicesClient) Pay(ctx context.Context, p *InvoicePayParams) ([]Invoice, error) {
	if p == nil {
		p = &InvoicePayParams{}
	}
	if err := firstErr(
		checkID("payment_token", p.PaymentMethodID),
		checkNotEmpty("invoice_ids", len(p.InvoiceIDs)),
		checkIDs("invoice_ids", p.InvoiceIDs),
	); err != nil {
		return nil, err
	}
	body := struct {
		PaymentToken uuid.UUID   `json:"payment_token"`
		InvoiceIDs   []uuid.UUID `json:"invoice_ids"`
	}{p.PaymentMethodID, p.InvoiceIDs}
	paid, err := call[recordsOrOne[Invoice]](ctx, s.c, routeInvoicesPay.at(), nil, body)
	return []Invoice(paid), err
}
