package acctadmin

import (
	"bytes"
	"encoding/json"

	"github.com/google/uuid"
)

// InvoicesClient reads the account's invoices.
type InvoicesClient service

// InvoiceStatus is the state of an invoice, kept as the API writes it
// (for example "unpaid", "paid" or "cancelled").
type InvoiceStatus string

// Invoice is a bill of the account. The API does not document its shape;
// the fields known from the provider's own clients are typed and the whole
// record is kept in Raw.
type Invoice struct {
	ID        uuid.UUID     `json:"id"`
	Status    InvoiceStatus `json:"status"`
	Company   string        `json:"company"`
	CompanyID uuid.UUID     `json:"company_id"`
	CreatedAt Time          `json:"created_at"`
	UpdatedAt Time          `json:"updated_at"`
	DueDate   Date          `json:"due_date"`
	Items     []InvoiceItem `json:"items"`
	// Raw is the record exactly as the API sent it.
	Raw json.RawMessage `json:"-"`
}

// InvoiceItem is one line of an invoice.
type InvoiceItem struct {
	Price       Money  `json:"price"`
	Description string `json:"description"`
	Quantity    int    `json:"quantity"`
}

// UnmarshalJSON decodes the known fields and keeps the whole record in Raw.
func (inv *Invoice) UnmarshalJSON(data []byte) error {
	type plain Invoice
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*inv = Invoice(p)
	inv.Raw = append(json.RawMessage(nil), data...)
	return nil
}

// unpaidInvoices reads the invoices listed in a refused cancellation. The
// shape of that answer is not documented, so the list is looked for under
// "result", "invoices", "unpaid_invoices" and "data", or as the whole body.
func unpaidInvoices(body []byte) ([]Invoice, bool) {
	body = bytes.TrimSpace(body)
	var list []Invoice
	if len(body) > 0 && body[0] == '[' {
		if json.Unmarshal(body, &list) == nil {
			return list, true
		}
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return nil, false
	}
	for _, k := range []string{"result", "invoices", "unpaid_invoices", "data"} {
		raw := bytes.TrimSpace(m[k])
		if len(raw) > 0 && raw[0] == '[' && json.Unmarshal(raw, &list) == nil {
			return list, true
		}
	}
	return nil, false
}
