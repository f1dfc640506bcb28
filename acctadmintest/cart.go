package acctadmintest

import (
	"bytes"
	"encoding/json"
	"slices"
	"time"

	"github.com/google/uuid"
)

// Product types of cart items.
const (
	ProductTypeFiling = "filing_product"
	ProductTypeSimple = "simple_product"
)

// CartItem is a product in a company's shopping cart.
type CartItem struct {
	ID              uuid.UUID
	CompanyID       uuid.UUID
	ProductID       uuid.UUID
	ProductType     string
	ProductOptionID uuid.UUID // the filing method; uuid.Nil for a simple product
	Title           string
	UnitPrice       string // decimal text: the product's price plus the method's cost
	Quantity        int
	FormData        json.RawMessage // given when the item was added; nil when not
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

type cartItemWire struct {
	ID              uuid.UUID   `json:"id"`
	CreatedAt       string      `json:"created_at"`
	UpdatedAt       string      `json:"updated_at"`
	CompanyID       uuid.UUID   `json:"company_id"`
	AccountID       uuid.UUID   `json:"account_id"`
	ProductID       uuid.UUID   `json:"product_id"`
	ProductType     string      `json:"product_type"`
	ProductOptionID *uuid.UUID  `json:"product_option_id"`
	Title           string      `json:"title"`
	Total           json.Number `json:"total"`
	Quantity        int         `json:"quantity"`
	Status          string      `json:"status"`
}

// cartItemWire writes a cart item; f.mu must be held.
func (f *Fake) cartItemWire(wf wireFormat, it *CartItem) cartItemWire {
	var opt *uuid.UUID
	if it.ProductOptionID != uuid.Nil {
		o := it.ProductOptionID
		opt = &o
	}
	return cartItemWire{
		ID: it.ID, CreatedAt: wf.time(it.CreatedAt), UpdatedAt: wf.time(it.UpdatedAt),
		CompanyID: it.CompanyID, AccountID: f.st.account.ID, ProductID: it.ProductID, ProductType: it.ProductType,
		ProductOptionID: opt, Title: it.Title, Total: json.Number(decimal(cents(it.UnitPrice) * int64(it.Quantity))),
		Quantity: it.Quantity, Status: "active",
	}
}

// idList reads an array of UUIDs from a body or the query: not a UUID is
// a 400 naming the field.
func idList(field string, values []string) ([]uuid.UUID, error) {
	out := make([]uuid.UUID, 0, len(values))
	for _, s := range values {
		if s == "" {
			continue
		}
		id, err := parseUUID(field, s)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// knownCompanies checks that every id names a company; f.mu must be held.
func (f *Fake) knownCompanies(ids []uuid.UUID) error {
	for _, id := range ids {
		if f.st.companies.get(id) == nil {
			return notFound("company " + id.String())
		}
	}
	return nil
}

// GET /shopping-cart?company_ids[]=: the cart items of the companies (of
// every company when none is named), oldest first.
func listCartItems(c *call) error {
	ids, err := idList("company_ids", c.strs("company_ids"))
	if err != nil {
		return err
	}
	f := c.f
	wf := f.wire(false)
	out, err := locked(f, func() ([]cartItemWire, error) {
		if err := f.knownCompanies(ids); err != nil {
			return nil, err
		}
		list := f.st.cart.filter(func(it *CartItem) bool { return len(ids) == 0 || slices.Contains(ids, it.CompanyID) })
		return mapRows(list, func(it *CartItem) cartItemWire { return f.cartItemWire(wf, it) }), nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{})
}

type cartAddBody struct {
	CompanyID       string          `json:"company_id"`
	ProductID       string          `json:"product_id"`
	ProductOptionID *string         `json:"product_option_id"`
	Quantity        *int            `json:"quantity"`
	FormData        json.RawMessage `json:"form_data"`
}

// POST /shopping-cart: adds a filing product with its method
// (product_option_id), or a simple product, to a company's cart, and
// answers the new item in a list. form_data, when given, must pass the
// method's schema; the order item is then complete at checkout.
func addCartItem(c *call) error {
	var body cartAddBody
	if err := c.decodeBody(&body); err != nil {
		return err
	}
	cid, err := parseUUID("company_id", body.CompanyID)
	if err != nil {
		return err
	}
	pid, err := parseUUID("product_id", body.ProductID)
	if err != nil {
		return err
	}
	qty := 1
	if body.Quantity != nil {
		qty = *body.Quantity
	}
	f := c.f
	wf := f.wire(false)
	out, err := locked(f, func() ([]cartItemWire, error) {
		if f.st.companies.get(cid) == nil {
			return nil, notFound("company")
		}
		now := f.now()
		it := &CartItem{ID: f.newID(), CompanyID: cid, ProductID: pid, Quantity: qty, CreatedAt: now, UpdatedAt: now}
		if sp := f.st.simple.get(pid); sp != nil {
			it.ProductType, it.Title, it.UnitPrice = ProductTypeSimple, sp.Name, sp.Price
		} else {
			p := f.findProduct(pid)
			if p == nil {
				return nil, notFound("product")
			}
			if deref(body.ProductOptionID) == "" {
				return nil, invalid("product_option_id", "is required for a filing product: the id of one of its filing methods")
			}
			mid, err := parseUUID("product_option_id", deref(body.ProductOptionID))
			if err != nil {
				return nil, err
			}
			mp, m := f.findMethod(mid)
			if m == nil || mp.ID != p.ID {
				return nil, invalid("product_option_id", "is not a filing method of the product")
			}
			if isData(body.FormData) {
				if schema := f.st.offerings[mid].schema; schema != nil {
					if errs := validateForm(schema, body.FormData, "form_data"); errs != nil {
						return nil, formError(errs)
					}
				}
				it.FormData = slices.Clone(body.FormData)
			}
			it.ProductType, it.ProductOptionID = ProductTypeFiling, mid
			it.Title = p.Name + " - " + m.Name
			it.UnitPrice = decimal(cents(p.Price) + cents(m.Cost))
		}
		f.st.cart.insert(it)
		f.recordWrite(c, []uuid.UUID{it.ID})
		return []cartItemWire{f.cartItemWire(wf, it)}, nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{})
}

// isData reports whether a JSON value was given and is not null.
func isData(raw json.RawMessage) bool {
	b := bytes.TrimSpace(raw)
	return len(b) > 0 && !bytes.Equal(b, []byte("null"))
}

type cartSelection struct {
	CompanyIDs []string `json:"company_ids"`
	ItemIDs    []string `json:"item_ids"`
}

// selectCart resolves the items that item_ids and company_ids name: the
// items given, and every item of the companies given; f.mu must be held.
func (f *Fake) selectCart(sel cartSelection) ([]*CartItem, error) {
	items, err := idList("item_ids", sel.ItemIDs)
	if err != nil {
		return nil, err
	}
	companies, err := idList("company_ids", sel.CompanyIDs)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 && len(companies) == 0 {
		return nil, invalidf([]fieldError{
			{Field: "item_ids", Message: "one of item_ids or company_ids is required"},
			{Field: "company_ids", Message: "one of item_ids or company_ids is required"},
		}, "one of item_ids or company_ids is required")
	}
	if err := f.knownCompanies(companies); err != nil {
		return nil, err
	}
	for _, id := range items {
		if f.st.cart.get(id) == nil {
			return nil, notFound("cart item " + id.String())
		}
	}
	return f.st.cart.filter(func(it *CartItem) bool {
		return slices.Contains(items, it.ID) || slices.Contains(companies, it.CompanyID)
	}), nil
}

// DELETE /shopping-cart: removes the items named by item_ids and every
// item of the companies named by company_ids. The arrays come in a JSON
// body or in the query (as the PHP and C# clients send them). Answers
// the removed items.
func removeCartItems(c *call) error {
	var sel cartSelection
	if isData(c.body) && !bytes.Equal(bytes.TrimSpace(c.body), []byte("{}")) {
		if err := c.decodeBody(&sel); err != nil {
			return err
		}
	}
	sel.CompanyIDs = append(sel.CompanyIDs, c.strs("company_ids")...)
	sel.ItemIDs = append(sel.ItemIDs, c.strs("item_ids")...)
	f := c.f
	wf := f.wire(false)
	out, err := locked(f, func() ([]cartItemWire, error) {
		list, err := f.selectCart(sel)
		if err != nil {
			return nil, err
		}
		out := mapRows(list, func(it *CartItem) cartItemWire { return f.cartItemWire(wf, it) })
		for _, it := range list {
			f.st.cart.remove(it.ID)
		}
		f.recordWrite(c, nil)
		return out, nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{})
}

type checkoutBody struct {
	cartSelection
	PaymentToken string `json:"payment_token"`
}

// POST /shopping-cart/checkout: charges the payment method for the
// selected items, creates one paid invoice per company and an order item
// per cart item, empties those items from the cart, and posts new-invoice
// to the callbacks. An item whose method needs form data that was not
// given becomes an order item requiring client attention. A declined card
// is a 402 that changes nothing.
func checkout(c *call) error {
	var body checkoutBody
	if err := c.decodeBody(&body); err != nil {
		return err
	}
	f := c.f
	wf := f.wire(false)
	var events []map[string]any
	out, err := locked(f, func() ([]invoiceWire, error) {
		list, err := f.selectCart(body.cartSelection)
		if err != nil {
			return nil, err
		}
		if len(list) == 0 {
			return nil, invalid("item_ids", "selects no item: the carts are empty")
		}
		if _, err := f.paymentToken(body.PaymentToken); err != nil {
			return nil, err
		}
		now := f.now()
		var out []invoiceWire
		var created []uuid.UUID
		byCompany := map[uuid.UUID][]*CartItem{}
		var order []uuid.UUID
		for _, it := range list {
			if _, ok := byCompany[it.CompanyID]; !ok {
				order = append(order, it.CompanyID)
			}
			byCompany[it.CompanyID] = append(byCompany[it.CompanyID], it)
		}
		for _, cid := range order {
			items := byCompany[cid]
			lines := make([]InvoiceItem, len(items))
			for i, it := range items {
				lines[i] = InvoiceItem{Price: it.UnitPrice, Description: it.Title, Quantity: it.Quantity}
			}
			inv := f.insertInvoice(InvoiceInput{CompanyID: cid, Status: InvoicePaid, CreatedAt: now, DueDate: now}, lines)
			orderID := f.newID()
			for _, it := range items {
				oi := f.orderItemFor(it, orderID, now)
				f.st.orders.insert(oi)
				created = append(created, oi.ID)
				f.st.cart.remove(it.ID)
			}
			created = append(created, inv.ID)
			stored := f.st.invoices.get(inv.ID)
			out = append(out, f.invoiceWire(wf, stored))
			events = append(events, invoiceEvent(inv))
		}
		f.recordWrite(c, created)
		return out, nil
	})
	if err != nil {
		return err
	}
	for _, ev := range events {
		f.emit(ev)
	}
	ids := make([]uuid.UUID, len(out))
	for i, inv := range out {
		ids[i] = inv.ID
	}
	return c.ok(out, answer{invoiceIDs: ids})
}

// invoiceEvent is the new-invoice event of an invoice.
func invoiceEvent(inv Invoice) map[string]any {
	return map[string]any{
		"event":        "new-invoice",
		"invoice_id":   inv.ID.String(),
		"company_id":   inv.CompanyID.String(),
		"company_name": inv.Company,
	}
}

type payBody struct {
	PaymentToken string   `json:"payment_token"`
	InvoiceIDs   []string `json:"invoice_ids"`
}

// POST /invoices/pay: charges the payment method for the unpaid invoices
// given and marks them paid; answers them. An invoice that is not unpaid,
// or a declined card, refuses the whole payment.
func payInvoices(c *call) error {
	var body payBody
	if err := c.decodeBody(&body); err != nil {
		return err
	}
	ids, err := idList("invoice_ids", body.InvoiceIDs)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return invalid("invoice_ids", "is required and must not be empty")
	}
	f := c.f
	wf := f.wire(false)
	out, err := locked(f, func() ([]invoiceWire, error) {
		var list []*Invoice
		for _, id := range ids {
			inv := f.st.invoices.get(id)
			if inv == nil {
				return nil, notFound("invoice " + id.String())
			}
			if inv.Status != InvoiceUnpaid {
				return nil, invalid("invoice_ids", "invoice "+id.String()+" is "+inv.Status+", not unpaid")
			}
			list = append(list, inv)
		}
		if _, err := f.paymentToken(body.PaymentToken); err != nil {
			return nil, err
		}
		now := f.now()
		for _, inv := range list {
			inv.Status, inv.UpdatedAt = InvoicePaid, now
		}
		f.recordWrite(c, nil)
		return mapRows(list, func(inv *Invoice) invoiceWire { return f.invoiceWire(wf, inv) }), nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{})
}

// GET /invoices/:id.
func getInvoice(c *call) error {
	return answerByID(c, "invoice", func(s *state) *table[Invoice] { return &s.invoices }, c.f.invoiceWire, answer{})
}
