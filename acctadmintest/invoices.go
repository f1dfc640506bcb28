package acctadmintest

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// Invoice statuses.
const (
	InvoiceUnpaid    = "unpaid"
	InvoicePaid      = "paid"
	InvoiceCancelled = "cancelled"
)

// InvoiceItem is one line of an invoice.
type InvoiceItem struct {
	// Price is decimal text such as "149.00", written on the wire as that
	// exact JSON number.
	Price       string
	Description string
	Quantity    int
}

// Invoice is an invoice of a company.
type Invoice struct {
	ID        uuid.UUID
	Status    string
	CompanyID uuid.UUID
	Company   string // the company's current name
	CreatedAt time.Time
	UpdatedAt time.Time
	DueDate   time.Time // only the calendar date counts
	Items     []InvoiceItem

	serviceID uuid.UUID // the service POST /services made it for, if any
}

// InvoiceInput describes an invoice for AddInvoice. Zero fields get
// defaults: a new ID, status unpaid, the current time, a due date 30 days
// after creation, Quantity 1.
type InvoiceInput struct {
	ID        uuid.UUID
	CompanyID uuid.UUID // required: an existing company
	Status    string
	CreatedAt time.Time
	DueDate   time.Time
	Items     []InvoiceItem
}

// AddInvoice adds an invoice and sends the event new-invoice to every
// registered callback. It panics on an unknown company or a price that is
// not decimal text.
func (f *Fake) AddInvoice(in InvoiceInput) Invoice {
	items := make([]InvoiceItem, len(in.Items))
	for i, it := range in.Items {
		it.Price = mustPrice("AddInvoice", it.Price)
		if it.Quantity == 0 {
			it.Quantity = 1
		}
		items[i] = it
	}
	out, _ := locked(f, func() (Invoice, error) {
		return f.insertInvoice(in, items), nil
	})
	f.emit(map[string]any{
		"event":        "new-invoice",
		"invoice_id":   out.ID.String(),
		"company_id":   out.CompanyID.String(),
		"company_name": out.Company,
	})
	return out
}

// insertInvoice stores a new invoice; f.mu must be held.
func (f *Fake) insertInvoice(in InvoiceInput, items []InvoiceItem) Invoice {
	co := f.mustCompany("AddInvoice", in.CompanyID)
	at := f.timeOr(in.CreatedAt)
	due := in.DueDate
	if due.IsZero() {
		due = at.AddDate(0, 0, 30)
	}
	inv := &Invoice{
		ID:        f.idOr(in.ID),
		Status:    orDefault(in.Status, InvoiceUnpaid),
		CompanyID: co.ID,
		CreatedAt: at,
		UpdatedAt: at,
		DueDate:   due,
		Items:     items,
	}
	f.st.invoices.insert(inv)
	return f.st.invoices.copyOf(inv)
}

// Invoices returns every invoice, oldest first.
func (f *Fake) Invoices() []Invoice {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.invoices.copies()
}

// Invoice returns the invoice with the given ID.
func (f *Fake) Invoice(id uuid.UUID) (Invoice, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.invoices.lookup(id)
}

// SetInvoiceStatus changes the status of an invoice (to pay or cancel it,
// say) and reports whether the invoice exists.
func (f *Fake) SetInvoiceStatus(id uuid.UUID, status string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	inv := f.st.invoices.get(id)
	if inv == nil {
		return false
	}
	inv.Status = status
	inv.UpdatedAt = f.now()
	return true
}

type invoiceItemWire struct {
	Price       json.Number `json:"price"`
	Description string      `json:"description"`
	Quantity    int         `json:"quantity"`
}

type invoiceWire struct {
	ID        uuid.UUID         `json:"id"`
	Status    string            `json:"status"`
	Company   string            `json:"company"`
	CompanyID uuid.UUID         `json:"company_id"`
	CreatedAt string            `json:"created_at"`
	UpdatedAt string            `json:"updated_at"`
	DueDate   string            `json:"due_date"`
	Items     []invoiceItemWire `json:"items"`
}

// invoiceWire writes an invoice; f.mu must be held.
func (f *Fake) invoiceWire(wf wireFormat, inv *Invoice) invoiceWire {
	items := make([]invoiceItemWire, len(inv.Items))
	for i, it := range inv.Items {
		items[i] = invoiceItemWire{Price: json.Number(it.Price), Description: it.Description, Quantity: it.Quantity}
	}
	return invoiceWire{
		ID:        inv.ID,
		Status:    inv.Status,
		Company:   f.companyName(inv.CompanyID),
		CompanyID: inv.CompanyID,
		CreatedAt: wf.time(inv.CreatedAt),
		UpdatedAt: wf.time(inv.UpdatedAt),
		DueDate:   date(inv.DueDate),
		Items:     items,
	}
}

// GET /invoices: the invoices of the companies named by company_ids[] or
// companies[] (names), not both; every invoice when neither is given.
// start_date and end_date (YYYY-MM-DD, both optional and inclusive) bound
// the day of their creation, and status keeps those of one state. limit
// (at most 100) and offset are optional; without a limit every invoice
// from offset on is answered.
func listInvoices(c *call) error {
	limit, offset := c.paging()
	names, ids := c.strs("companies"), c.strs("company_ids")
	if one := c.str("company_id"); one != "" {
		// One company by id, as clients of the real API find a new
		// service's invoice (spec/recorded-behaviour.md, V2).
		ids = append(ids, one)
	}
	if len(names) > 0 && len(ids) > 0 {
		return invalidf([]fieldError{
			{Field: "companies", Message: "must not be given with company_ids"},
			{Field: "company_ids", Message: "must not be given with companies"},
		}, "companies and company_ids must not both be given")
	}
	start, end, err := optionalDates(c)
	if err != nil {
		return err
	}
	status := c.str("status")
	f := c.f
	wf := f.wire(false)
	out, err := locked(f, func() ([]invoiceWire, error) {
		want := map[uuid.UUID]bool{}
		for _, n := range names {
			co := f.companyByName(n)
			if co == nil {
				return nil, notFound("company " + n)
			}
			want[co.ID] = true
		}
		for _, s := range ids {
			id, err := parseUUID("company_ids", s)
			if err != nil {
				return nil, err
			}
			if f.st.companies.get(id) == nil {
				return nil, notFound("company " + s)
			}
			want[id] = true
		}
		list := f.st.invoices.filter(func(inv *Invoice) bool {
			day := date(inv.CreatedAt)
			return (len(want) == 0 || want[inv.CompanyID]) && (status == "" || inv.Status == status) &&
				(start == "" || day >= start) && (end == "" || day <= end)
		})
		return mapRows(page(list, limit, offset), func(inv *Invoice) invoiceWire { return f.invoiceWire(wf, inv) }), nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{})
}
