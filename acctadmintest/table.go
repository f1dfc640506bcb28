package acctadmintest

import (
	"bytes"
	"slices"
	"sort"
	"time"

	"github.com/google/uuid"
)

// table holds the records of one kind, kept in the order their listing
// answers them, so that a listing costs a copy rather than a sort. The
// order must not depend on fields that change after insertion. f.mu
// guards every table.
type table[T any] struct {
	rows []*T
	id   func(*T) uuid.UUID
	// less is the listing order; nil keeps the order of insertion.
	less func(a, b *T) bool
	// clone copies a record out for callers of the Fake's methods: slices
	// are copied and derived fields (a company's current name) filled in.
	// nil copies the struct as it is.
	clone func(*T) T
}

// insert adds r at its place in listing order, after any equal rows.
func (t *table[T]) insert(r *T) {
	if t.less == nil {
		t.rows = append(t.rows, r)
		return
	}
	i := sort.Search(len(t.rows), func(i int) bool { return t.less(r, t.rows[i]) })
	t.rows = slices.Insert(t.rows, i, r)
}

// get finds a record by id, nil when there is none.
func (t *table[T]) get(id uuid.UUID) *T {
	return t.find(func(r *T) bool { return t.id(r) == id })
}

// find returns the first record in listing order that match accepts.
func (t *table[T]) find(match func(*T) bool) *T {
	for _, r := range t.rows {
		if match(r) {
			return r
		}
	}
	return nil
}

// remove deletes the record with the id and reports whether it was there.
func (t *table[T]) remove(id uuid.UUID) bool {
	n := len(t.rows)
	t.rows = slices.DeleteFunc(t.rows, func(r *T) bool { return t.id(r) == id })
	return len(t.rows) != n
}

// len is the number of records.
func (t *table[T]) len() int { return len(t.rows) }

// filter returns the records that keep accepts, in listing order.
func (t *table[T]) filter(keep func(*T) bool) []*T {
	var out []*T
	for _, r := range t.rows {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// copyOf copies one record out.
func (t *table[T]) copyOf(r *T) T {
	if t.clone != nil {
		return t.clone(r)
	}
	return *r
}

// lookup copies out the record with the id.
func (t *table[T]) lookup(id uuid.UUID) (T, bool) {
	if r := t.get(id); r != nil {
		return t.copyOf(r), true
	}
	var zero T
	return zero, false
}

// copies copies out every record in listing order.
func (t *table[T]) copies() []T { return mapRows(t.rows, t.copyOf) }

// mapRows writes each record of rows through fn, keeping the order; the
// result is never nil.
func mapRows[T, U any](rows []*T, fn func(*T) U) []U {
	out := make([]U, len(rows))
	for i, r := range rows {
		out[i] = fn(r)
	}
	return out
}

// byCreated orders records by creation time, then id, so listings are
// stable.
func byCreated(at1, at2 time.Time, id1, id2 uuid.UUID) bool {
	if !at1.Equal(at2) {
		return at1.Before(at2)
	}
	return bytes.Compare(id1[:], id2[:]) < 0
}

// createdFirst is the listing order of most records: by creation time,
// then id, read with key.
func createdFirst[T any](key func(*T) (time.Time, uuid.UUID)) func(a, b *T) bool {
	return func(a, b *T) bool {
		ta, ia := key(a)
		tb, ib := key(b)
		return byCreated(ta, tb, ia, ib)
	}
}

// state is the account's data, one table per kind of record.
type state struct {
	companies  table[Company]
	services   table[Service]
	documents  table[Document]
	resources  table[Resource]
	websites   table[Website]
	products   table[FilingProduct]
	raProducts table[RegisteredAgentProduct]
	events     table[ComplianceEvent]
	callbacks  table[Callback]
	invoices   table[Invoice]
	// catalog holds the federal filing products, offered to every company
	// in every jurisdiction, beside the websites' products.
	catalog   table[FilingProduct]
	offerings map[uuid.UUID]offering // by filing method id
	simple    table[SimpleProduct]
	forms     table[SignedForm]
	cart      table[CartItem]
	payments  table[PaymentMethod]
	orders    table[OrderItem]
	info      map[uuid.UUID]*serviceInfo // by service id
	links     map[string]*fileLink       // by the token of the URL
	account   account
}

// newState returns an empty account whose copies name companies as f
// knows them.
func newState(f *Fake) state {
	return state{
		catalog: table[FilingProduct]{
			id: func(p *FilingProduct) uuid.UUID { return p.ID },
			clone: func(p *FilingProduct) FilingProduct {
				out := *p
				out.Methods = slices.Clone(p.Methods)
				out.EntityTypes = slices.Clone(p.EntityTypes)
				return out
			},
		},
		offerings: map[uuid.UUID]offering{},
		simple:    table[SimpleProduct]{id: func(p *SimpleProduct) uuid.UUID { return p.ID }},
		forms:     table[SignedForm]{id: func(p *SignedForm) uuid.UUID { return p.ID }},
		cart: table[CartItem]{
			id:   func(i *CartItem) uuid.UUID { return i.ID },
			less: createdFirst(func(i *CartItem) (time.Time, uuid.UUID) { return i.CreatedAt, i.ID }),
		},
		payments: table[PaymentMethod]{
			id:   func(p *PaymentMethod) uuid.UUID { return p.ID },
			less: createdFirst(func(p *PaymentMethod) (time.Time, uuid.UUID) { return p.CreatedAt, p.ID }),
		},
		orders: table[OrderItem]{
			id:   func(o *OrderItem) uuid.UUID { return o.ID },
			less: createdFirst(func(o *OrderItem) (time.Time, uuid.UUID) { return o.CreatedAt, o.ID }),
		},
		info:  map[uuid.UUID]*serviceInfo{},
		links: map[string]*fileLink{},
		account: account{
			ID: DemoID("account", 1), Name: "Test Account", Email: DemoUserEmail, password: DemoUserPassword, CreatedAt: f.now(),
		},
		companies: table[Company]{
			id:   func(c *Company) uuid.UUID { return c.ID },
			less: createdFirst(func(c *Company) (time.Time, uuid.UUID) { return c.CreatedAt, c.ID }),
			clone: func(c *Company) Company {
				out := *c
				out.Jurisdictions = slices.Clone(c.Jurisdictions)
				return out
			},
		},
		services: table[Service]{
			id:   func(s *Service) uuid.UUID { return s.ID },
			less: createdFirst(func(s *Service) (time.Time, uuid.UUID) { return s.CreatedAt, s.ID }),
			clone: func(s *Service) Service {
				out := *s
				out.Company = f.companyName(s.CompanyID)
				return out
			},
		},
		documents: table[Document]{
			id:   func(d *Document) uuid.UUID { return d.ID },
			less: createdFirst(func(d *Document) (time.Time, uuid.UUID) { return d.CreatedAt, d.ID }),
			clone: func(d *Document) Document {
				out := *d
				out.CompanyName = f.companyName(d.CompanyID)
				return out
			},
		},
		resources: table[Resource]{
			id: func(r *Resource) uuid.UUID { return r.ID },
			clone: func(r *Resource) Resource {
				out := *r
				out.EntityTypes = slices.Clone(r.EntityTypes)
				return out
			},
		},
		websites: table[Website]{
			id: func(w *Website) uuid.UUID { return w.ID },
			clone: func(w *Website) Website {
				out := *w
				out.Emails = slices.Clone(w.Emails)
				out.PhoneNumbers = slices.Clone(w.PhoneNumbers)
				out.Addresses = slices.Clone(w.Addresses)
				return out
			},
		},
		products: table[FilingProduct]{
			id: func(p *FilingProduct) uuid.UUID { return p.ID },
			clone: func(p *FilingProduct) FilingProduct {
				out := *p
				out.Methods = slices.Clone(p.Methods)
				out.EntityTypes = slices.Clone(p.EntityTypes)
				return out
			},
		},
		raProducts: table[RegisteredAgentProduct]{
			id: func(p *RegisteredAgentProduct) uuid.UUID { return p.ID },
		},
		events: table[ComplianceEvent]{
			id: func(e *ComplianceEvent) uuid.UUID { return e.ID },
			less: func(a, b *ComplianceEvent) bool {
				if da, db := date(a.DueDate), date(b.DueDate); da != db {
					return da < db
				}
				return byCreated(a.CreatedAt, b.CreatedAt, a.ID, b.ID)
			},
			clone: func(e *ComplianceEvent) ComplianceEvent {
				out := *e
				out.Company = f.companyName(e.CompanyID)
				out.Jurisdictions = slices.Clone(e.Jurisdictions)
				return out
			},
		},
		callbacks: table[Callback]{
			id:   func(c *Callback) uuid.UUID { return c.ID },
			less: createdFirst(func(c *Callback) (time.Time, uuid.UUID) { return c.CreatedAt, c.ID }),
		},
		invoices: table[Invoice]{
			id:   func(i *Invoice) uuid.UUID { return i.ID },
			less: createdFirst(func(i *Invoice) (time.Time, uuid.UUID) { return i.CreatedAt, i.ID }),
			clone: func(i *Invoice) Invoice {
				out := *i
				out.Company = f.companyName(i.CompanyID)
				out.Items = slices.Clone(i.Items)
				return out
			},
		},
	}
}
