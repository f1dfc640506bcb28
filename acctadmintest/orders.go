package acctadmintest

import (
	"encoding/json"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"
)

// Order item statuses.
const (
	// OrderItemRequiringAttention is an item waiting for form data from
	// the client.
	OrderItemRequiringAttention = "requiring-client-attention"
	// OrderItemNew is an item with everything it needs, not yet started.
	OrderItemNew = "new"
)

// OrderItem is one ordered product, created by checkout.
type OrderItem struct {
	ID        uuid.UUID
	OrderID   uuid.UUID
	CompanyID uuid.UUID
	Name      string
	Type      string // filing or product
	Status    string
	Quantity  int
	ProductID uuid.UUID
	MethodID  uuid.UUID // uuid.Nil for a simple product
	FormData  json.RawMessage
	CreatedAt time.Time
	UpdatedAt time.Time
}

// orderItemFor turns a cart item into an order item; f.mu must be held.
func (f *Fake) orderItemFor(it *CartItem, orderID uuid.UUID, now time.Time) *OrderItem {
	oi := &OrderItem{
		ID: f.newID(), OrderID: orderID, CompanyID: it.CompanyID, Name: it.Title, Type: "product",
		Status: OrderItemNew, Quantity: it.Quantity, ProductID: it.ProductID, MethodID: it.ProductOptionID,
		FormData: it.FormData, CreatedAt: now, UpdatedAt: now,
	}
	if it.ProductType == ProductTypeFiling {
		oi.Type = "filing"
		o := f.st.offerings[it.ProductOptionID]
		if o.orderName != "" {
			oi.Name = o.orderName
		}
		if o.schema != nil && it.FormData == nil {
			oi.Status = OrderItemRequiringAttention
		}
	}
	return oi
}

type orderProductWire struct {
	ID           uuid.UUID         `json:"id"`
	Name         string            `json:"name"`
	Price        json.Number       `json:"price"`
	FilingMethod *filingMethodWire `json:"filing_method"`
}

type orderItemWire struct {
	ID        uuid.UUID        `json:"id"`
	CreatedAt any              `json:"created_at"` // epoch seconds with quirks, else time text
	UpdatedAt any              `json:"updated_at"`
	CompanyID uuid.UUID        `json:"company_id"`
	Name      string           `json:"name"`
	OrderID   uuid.UUID        `json:"order_id"`
	Quantity  int              `json:"quantity"`
	Status    string           `json:"status"`
	Type      string           `json:"type"`
	Product   orderProductWire `json:"product"`
}

// epochOrTime writes an order item's time: with quirks as epoch seconds,
// as a TypeScript client of the real API types it, else as time text.
func (wf wireFormat) epochOrTime(t time.Time) any {
	if wf.quirks {
		return t.Unix()
	}
	return wf.time(t)
}

// orderItemWire writes an order item; f.mu must be held.
func (f *Fake) orderItemWire(wf wireFormat, oi *OrderItem) orderItemWire {
	prod := orderProductWire{ID: oi.ProductID, Price: "0.00"}
	if sp := f.st.simple.get(oi.ProductID); sp != nil {
		prod.Name, prod.Price = sp.Name, json.Number(sp.Price)
	} else if p := f.findProduct(oi.ProductID); p != nil {
		prod.Name, prod.Price = p.Name, json.Number(p.Price)
	}
	if _, m := f.findMethod(oi.MethodID); m != nil {
		w := wf.filingMethod(*m)
		prod.FilingMethod = &w
	}
	return orderItemWire{
		ID: oi.ID, CreatedAt: wf.epochOrTime(oi.CreatedAt), UpdatedAt: wf.epochOrTime(oi.UpdatedAt), CompanyID: oi.CompanyID,
		Name: oi.Name, OrderID: oi.OrderID, Quantity: oi.Quantity, Status: oi.Status, Type: oi.Type, Product: prod,
	}
}

// GET /order-items/requiring-attention?company_ids[]=: the order items
// waiting for form data, of the companies given in company_ids or
// company_id (of all when none is).
func listOrderItemsRequiringAttention(c *call) error {
	ids, err := idList("company_ids", c.strs("company_ids"))
	if one := c.str("company_id"); err == nil && one != "" {
		ids, err = idList("company_id", append(c.strs("company_ids"), one))
	}
	if err != nil {
		return err
	}
	f := c.f
	wf := f.wire(false)
	out, err := locked(f, func() ([]orderItemWire, error) {
		if err := f.knownCompanies(ids); err != nil {
			return nil, err
		}
		list := f.st.orders.filter(func(oi *OrderItem) bool {
			return oi.Status == OrderItemRequiringAttention && (len(ids) == 0 || slices.Contains(ids, oi.CompanyID))
		})
		return mapRows(list, func(oi *OrderItem) orderItemWire { return f.orderItemWire(wf, oi) }), nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{})
}

type completeOrderBody struct {
	CompanyID   string          `json:"company_id"`
	OrderItemID string          `json:"order_item_id"`
	FormData    json.RawMessage `json:"form_data"`
}

// POST /order-items/requiring-attention: supplies an order item's form
// data. It must pass the filing method's schema (400 with one entry per
// field at fault otherwise); the item becomes new. Form data of an item
// that is new already may be corrected the same way.
func completeOrderItem(c *call) error {
	var body completeOrderBody
	if err := c.decodeBody(&body); err != nil {
		return err
	}
	cid, err := parseUUID("company_id", body.CompanyID)
	if err != nil {
		return err
	}
	oid, err := parseUUID("order_item_id", body.OrderItemID)
	if err != nil {
		return err
	}
	if !isData(body.FormData) {
		return invalid("form_data", "is required: a JSON object")
	}
	f := c.f
	wf := f.wire(false)
	out, err := locked(f, func() (orderItemWire, error) {
		oi := f.st.orders.get(oid)
		if oi == nil || oi.CompanyID != cid {
			return orderItemWire{}, notFound("order item of that company")
		}
		if oi.Status != OrderItemRequiringAttention && oi.Status != OrderItemNew {
			return orderItemWire{}, &apiError{status: http.StatusConflict, msg: "order item is " + oi.Status + ": its form data can no longer change"}
		}
		if schema := f.st.offerings[oi.MethodID].schema; schema != nil {
			if errs := validateForm(schema, body.FormData, "form_data"); errs != nil {
				return orderItemWire{}, formError(errs)
			}
		}
		oi.FormData = slices.Clone(body.FormData)
		oi.Status, oi.UpdatedAt = OrderItemNew, f.now()
		f.recordWrite(c, nil)
		return f.orderItemWire(wf, oi), nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{})
}

// OrderItemInput describes an order item for AddOrderItem. Zero fields
// get defaults: a new ID and order ID, quantity 1, the current time, the
// name the filing method's orders take, and status
// requiring-client-attention when the method needs form data, new
// otherwise.
type OrderItemInput struct {
	ID             uuid.UUID
	OrderID        uuid.UUID
	CompanyID      uuid.UUID // required: an existing company
	FilingMethodID uuid.UUID // required: a filing method of a product
	Name           string
	Status         string
	Quantity       int
	CreatedAt      time.Time
}

// AddOrderItem adds an order item, as checkout makes them. It panics on
// an unknown company or filing method.
func (f *Fake) AddOrderItem(in OrderItemInput) OrderItem {
	f.mu.Lock()
	defer f.mu.Unlock()
	co := f.mustCompany("AddOrderItem", in.CompanyID)
	p, m := f.findMethod(in.FilingMethodID)
	if m == nil {
		panic("acctadmintest: AddOrderItem: unknown filing method " + in.FilingMethodID.String())
	}
	o := f.st.offerings[m.ID]
	status := OrderItemNew
	if o.schema != nil {
		status = OrderItemRequiringAttention
	}
	at := f.timeOr(in.CreatedAt)
	oi := &OrderItem{
		ID: f.idOr(in.ID), OrderID: f.idOr(in.OrderID), CompanyID: co.ID, Type: "filing",
		Name: orDefault(in.Name, orDefault(o.orderName, p.Name+" - "+m.Name)), Status: orDefault(in.Status, status),
		Quantity: max(in.Quantity, 1), ProductID: p.ID, MethodID: m.ID, CreatedAt: at, UpdatedAt: at,
	}
	f.st.orders.insert(oi)
	return *oi
}

// OrderItems returns every order item, oldest first.
func (f *Fake) OrderItems() []OrderItem {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.orders.copies()
}
