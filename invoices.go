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

var (
	routeInvoicesList = declare(http.MethodGet, "/invoices", "Invoices.List")
	routeInvoicesGet  = declare(http.MethodGet, "/invoices/{id}", "Invoices.Get")
	routeInvoicesPay  = declareOnce(http.MethodPost, "/invoices/pay", "Invoices.Pay",
		"Invoices.Get shows whether each invoice is paid").paying(charges)
)

// InvoiceStatus is the state of an invoice.
type InvoiceStatus string

// The invoice states the API is known to send.
const (
	InvoiceUnpaid    InvoiceStatus = "unpaid"
	InvoicePaid      InvoiceStatus = "paid"
	InvoiceCancelled InvoiceStatus = "cancelled"
)

// Invoice is a bill of the account.
type Invoice struct {
	ID        uuid.UUID       `json:"id"`
	Status    InvoiceStatus   `json:"status"`
	Company   string          `json:"company"`
	CompanyID uuid.UUID       `json:"company_id"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
	DueDate   Date            `json:"due_date"`
	Items     []InvoiceItem   `json:"items"`
	Raw       json.RawMessage `json:"-"` // the record exactly as the API sent it
}

// UnmarshalJSON reads an invoice as the API writes it, into Raw too.
func (inv *Invoice) UnmarshalJSON(data []byte) error {
	type fields Invoice
	w := struct {
		*fields
		CreatedAt Time               `json:"created_at"`
		UpdatedAt Time               `json:"updated_at"`
		Items     []*jsonInvoiceItem `json:"items"`
	}{fields: (*fields)(inv)}
	*inv = Invoice{}
	err := readRecord(data, &w)
	inv.CreatedAt, inv.UpdatedAt = w.CreatedAt.Time, w.UpdatedAt.Time
	if string(data) != "null" {
		inv.Raw = append(json.RawMessage(nil), data...)
	}
	if w.Items != nil {
		inv.Items = make([]InvoiceItem, len(w.Items))
	}
	for i, line := range w.Items {
		if line != nil {
			inv.Items[i] = InvoiceItem{Price: line.Price, Description: line.Description, Quantity: 1} // 1 when the API does not say
			if line.Quantity != nil {
				inv.Items[i].Quantity = int(*line.Quantity)
			}
		}
	}
	return err
}

// InvoiceItem is one line of an invoice.
type InvoiceItem struct {
	Price       Money  `json:"price"`
	Description string `json:"description"`
	Quantity    int    `json:"quantity"` // 1 when the API does not say
}

// jsonInvoiceItem is an InvoiceItem as the API writes it, without
// UnmarshalJSON, so that an invoice reads its lines in one pass.
type jsonInvoiceItem struct {
	Price       Money    `json:"price"`
	Description string   `json:"description"`
	Quantity    *flexInt `json:"quantity"`
}

// UnmarshalJSON reads an invoice line as the API writes it.
func (it *InvoiceItem) UnmarshalJSON(data []byte) error {
	var w jsonInvoiceItem
	err := readRecord(data, &w)
	*it = InvoiceItem{Price: w.Price, Description: w.Description}
	if w.Quantity != nil {
		it.Quantity = int(*w.Quantity)
	} else if string(data) != "null" {
		it.Quantity = 1 // when the API does not say
	}
	return err
}

// InvoiceListParams filters GET /invoices (paging is undocumented here:
// Limit and Offset are sent all the same).
type InvoiceListParams struct {
	Limit, Offset      int         // page size (zero leaves it to the API), invoices to skip
	CompanyIDs         []uuid.UUID // give it or Companies (names), not both
	Companies          []string
	StartDate, EndDate Date          // bound the invoices' dates; EndDate not before StartDate
	Status             InvoiceStatus // paid or unpaid; any value is sent as given
}

func (p *InvoiceListParams) validate() error {
	return firstErr(checkPage(p.Limit, math.MaxInt, p.Offset),
		checkNotBoth("company_ids", len(p.CompanyIDs) > 0, "companies", len(p.Companies) > 0),
		checkIDs("company_ids", p.CompanyIDs), checkDates(p.StartDate, p.EndDate))
}

func (p *InvoiceListParams) paging() (limit, offset *int) { return &p.Limit, &p.Offset }

// List returns the account's invoices (one page of them when p.Limit is
// given). GET /invoices.
func (s *InvoicesClient) List(ctx context.Context, p *InvoiceListParams) ([]Invoice, error) {
	p = orZero(p)
	if err := p.validate(); err != nil {
		return nil, err
	}
	q := new(query).int("limit", p.Limit).int("offset", p.Offset).ids("company_ids", p.CompanyIDs).strs("companies", p.Companies).
		date("start_date", p.StartDate).date("end_date", p.EndDate).str("status", string(p.Status))
	var page []Invoice
	if err := s.c.json(ctx, routeInvoicesList.at(), q, nil, &page); err != nil {
		return nil, err
	}
	return page, nil
}

// All returns every invoice (100 a page by default); paging is undocumented
// here, so a full page repeated at later offsets is all. GET /invoices.
func (s *InvoicesClient) All(ctx context.Context, p *InvoiceListParams) iter.Seq2[Invoice, error] {
	l := listingOf(p, 100, s.List, func(v Invoice) uuid.UUID { return v.ID })
	l.unpaged = true
	return paginate(ctx, l)
}

// Get returns the invoice id. GET /invoices/:id.
func (s *InvoicesClient) Get(ctx context.Context, id uuid.UUID) (*Invoice, error) {
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	var inv Invoice
	if err := s.c.json(ctx, routeInvoicesGet.at(id.String()), nil, nil, &inv); err != nil {
		return nil, err
	}
	return &inv, nil
}

// InvoicePayParams pays invoices with a stored card: both are required.
type InvoicePayParams struct {
	InvoiceIDs      []uuid.UUID `json:"invoice_ids"`   // the invoices to pay
	PaymentMethodID uuid.UUID   `json:"payment_token"` // the card to charge
}

// Pay pays the invoices with the card and returns those the API answers
// with; a declined card is ErrPaymentDeclined. Sent at most once (see the
// package doc). POST /invoices/pay.
func (s *InvoicesClient) Pay(ctx context.Context, p *InvoicePayParams) ([]Invoice, error) {
	if p == nil || p.PaymentMethodID == uuid.Nil {
		return nil, invalid("payment_token", "must not be the nil UUID")
	}
	if err := checkIDList("invoice_ids", p.InvoiceIDs, true); err != nil {
		return nil, err
	}
	var paid answerList[Invoice]
	if err := s.c.json(ctx, routeInvoicesPay.at(), nil, p, &paid); err != nil {
		return nil, err
	}
	return paid, nil
}

// Total returns the exact sum of the totals of the invoice's items.
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
