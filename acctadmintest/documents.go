package acctadmintest

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Document statuses.
const (
	DocumentUnread = "unread"
	DocumentRead   = "read"
)

// Document is an item received for a company.
type Document struct {
	ID            uuid.UUID
	CreatedAt     time.Time
	UpdatedAt     time.Time
	Title         string
	Status        string
	Type          string
	Source        string
	Pages         int
	PaymentLocked bool
	// Jurisdiction is the state where the document was received; the wire
	// calls it state in listings and jurisdiction elsewhere.
	Jurisdiction string
	CompanyID    uuid.UUID
	CompanyName  string // the company's current name
	// UnlockPrice is what unlocking a payment-locked document charges,
	// as decimal text ("25.00").
	UnlockPrice string
	// PDFSize is the size the document's PDF is padded to (0: its natural
	// size of about 1 KiB).
	PDFSize int64
}

// DocumentInput describes a document for AddDocument. Zero fields get
// defaults: a new ID, the title "Document", 1 page, status unread, type
// "Regular Mail", source "mail", the company's home state, the current
// time.
type DocumentInput struct {
	ID            uuid.UUID
	CompanyID     uuid.UUID // required: an existing company
	Title         string
	Pages         int
	Status        string
	Type          string
	Source        string
	Jurisdiction  string
	PaymentLocked bool
	// UnlockPrice is what POST /documents/unlock/:id charges for the
	// document when it is payment-locked: decimal text, DefaultUnlockPrice
	// when empty.
	UnlockPrice string
	CreatedAt   time.Time
	// PDFSize makes the document's PDF that many bytes, padded inside a
	// stream object that is generated while the download is written, so
	// even a file of gigabytes costs no memory.
	PDFSize int64
}

// DefaultUnlockPrice is what unlocking a payment-locked document charges
// unless DocumentInput.UnlockPrice says otherwise.
const DefaultUnlockPrice = "25.00"

// AddDocument adds a document and sends the event new-document to every
// registered callback. It panics on an unknown company or jurisdiction,
// or an UnlockPrice that is not decimal text.
//
// A payment-locked document (PaymentLocked) is held as the real API holds
// it until it is paid for: its download, its pages and their URLs, and a
// bulk download that names it answer 402 "payment required", and POST
// /documents/unlock/:id charges its UnlockPrice to a stored card and
// releases it.
func (f *Fake) AddDocument(in DocumentInput) Document {
	if in.Jurisdiction != "" {
		in.Jurisdiction = mustJurisdiction("AddDocument", in.Jurisdiction).Name
	}
	if in.UnlockPrice != "" {
		in.UnlockPrice = mustPrice("AddDocument", in.UnlockPrice)
	}
	out, _ := locked(f, func() (Document, error) {
		return f.insertDocument(in), nil
	})
	f.emit(map[string]any{
		"event":        "new-document",
		"document_id":  out.ID.String(),
		"company_id":   out.CompanyID.String(),
		"company_name": out.CompanyName,
	})
	return out
}

// insertDocument stores a new document; f.mu must be held.
func (f *Fake) insertDocument(in DocumentInput) Document {
	co := f.mustCompany("AddDocument", in.CompanyID)
	at := f.timeOr(in.CreatedAt)
	d := &Document{
		ID:            f.idOr(in.ID),
		CreatedAt:     at,
		UpdatedAt:     at,
		Title:         orDefault(in.Title, "Document"),
		Status:        orDefault(in.Status, DocumentUnread),
		Type:          orDefault(in.Type, "Regular Mail"),
		Source:        orDefault(in.Source, "mail"),
		Pages:         max(in.Pages, 1),
		PaymentLocked: in.PaymentLocked,
		Jurisdiction:  orDefault(in.Jurisdiction, co.HomeState),
		CompanyID:     co.ID,
		UnlockPrice:   orDefault(in.UnlockPrice, DefaultUnlockPrice),
		PDFSize:       in.PDFSize,
	}
	f.st.documents.insert(d)
	return f.st.documents.copyOf(d)
}

// Documents returns every document, read or not, in the order of the
// listing: oldest first, then by ID.
func (f *Fake) Documents() []Document {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.documents.copies()
}

// Document returns the document with the given ID.
func (f *Fake) Document(id uuid.UUID) (Document, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.documents.lookup(id)
}

// SetDocumentStatus sets a document read or unread and reports whether the
// document exists.
func (f *Fake) SetDocumentStatus(id uuid.UUID, status string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.st.documents.get(id)
	if d == nil {
		return false
	}
	d.Status = status
	d.UpdatedAt = f.now()
	return true
}

type documentLinks struct {
	Self     string `json:"self"`
	Download string `json:"download"`
}

type documentWire struct {
	ID            uuid.UUID      `json:"id"`
	CreatedAt     string         `json:"created_at"`
	UpdatedAt     string         `json:"updated_at"`
	Title         string         `json:"title"`
	Status        string         `json:"status"`
	Type          string         `json:"type"`
	Source        string         `json:"source"`
	Pages         int            `json:"pages"`
	PaymentLocked bool           `json:"payment_locked"`
	UnlockPrice   json.Number    `json:"unlock_price,omitempty"` // only when locked; no real client shows it
	State         *string        `json:"state,omitempty"`
	Jurisdiction  *string        `json:"jurisdiction,omitempty"`
	CompanyName   string         `json:"company_name"`
	CompanyID     uuid.UUID      `json:"company_id"`
	Links         *documentLinks `json:"_links,omitempty"` // an undocumented field (quirk)
}

// documentWire writes a document; listing says whether it is an item of
// the listing, which (with quirks) names the jurisdiction state. f.mu must
// be held.
func (f *Fake) documentWire(wf wireFormat, d *Document, listing bool) documentWire {
	j := d.Jurisdiction
	w := documentWire{
		ID:            d.ID,
		CreatedAt:     wf.time(d.CreatedAt),
		UpdatedAt:     wf.time(d.UpdatedAt),
		Title:         d.Title,
		Status:        d.Status,
		Type:          d.Type,
		Source:        d.Source,
		Pages:         d.Pages,
		PaymentLocked: d.PaymentLocked,
		CompanyName:   f.companyName(d.CompanyID),
		CompanyID:     d.CompanyID,
	}
	if d.PaymentLocked {
		w.UnlockPrice = json.Number(d.UnlockPrice)
	}
	if wf.quirks && listing {
		w.State = &j
	} else {
		w.Jurisdiction = &j
	}
	if wf.quirks {
		self := "/documents/" + d.ID.String()
		w.Links = &documentLinks{Self: self, Download: self + "/download"}
	}
	return w
}

// parseDateTime reads the start and stop bounds of GET /documents: the
// API's own form or RFC 3339.
func parseDateTime(field, s string) (time.Time, error) {
	for _, layout := range []string{TimeLayout, time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, invalid(field, "must be a date-time like 2006-01-02 15:04:05 -0700 or RFC 3339")
}

// GET /documents: documents of one status (default unread) created within
// [start, stop] (both inclusive, both optional), oldest first; with
// jurisdiction (a name or abbreviation; 400 when unknown) those received
// there, with company_id those of that company (404 when unknown).
func listDocuments(c *call) error {
	limit, offset := c.paging()
	status := strings.ToLower(c.str("status"))
	switch status {
	case "":
		status = DocumentUnread
	case DocumentRead, DocumentUnread:
	default:
		return invalid("status", "must be read or unread")
	}
	var start, stop time.Time
	var err error
	if s := c.str("start"); s != "" {
		if start, err = parseDateTime("start", s); err != nil {
			return err
		}
	}
	if s := c.str("stop"); s != "" {
		if stop, err = parseDateTime("stop", s); err != nil {
			return err
		}
	}
	if !start.IsZero() && !stop.IsZero() && stop.Before(start) {
		return invalid("stop", "must not be before start")
	}
	var place string
	if s := c.str("jurisdiction"); s != "" {
		j, ok := LookupJurisdiction(s)
		if !ok {
			return invalid("jurisdiction", "must be a valid jurisdiction name or abbreviation")
		}
		place = j.Name
	}
	f := c.f
	wf := f.wire(false)
	out, err := locked(f, func() ([]documentWire, error) {
		co, byCompany, err := f.companyParam("", c.str("company_id"))
		if err != nil {
			return nil, err
		}
		list := f.st.documents.filter(func(d *Document) bool {
			return d.Status == status &&
				(start.IsZero() || !d.CreatedAt.Before(start)) &&
				(stop.IsZero() || !d.CreatedAt.After(stop)) &&
				(place == "" || d.Jurisdiction == place) &&
				(!byCompany || d.CompanyID == co.ID)
		})
		return mapRows(page(list, limit, offset), func(d *Document) documentWire { return f.documentWire(wf, d, true) }), nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{stringSuccess: true})
}

// lookupDocument finds the document of the :id path parameter.
func (c *call) lookupDocument() (Document, error) {
	id, err := c.pathID("document")
	if err != nil {
		return Document{}, err
	}
	d, ok := c.f.Document(id)
	if !ok {
		return Document{}, notFound("document")
	}
	return d, nil
}

// GET /documents/:id
func getDocument(c *call) error {
	write := func(wf wireFormat, d *Document) documentWire { return c.f.documentWire(wf, d, false) }
	return answerByID(c, "document", func(s *state) *table[Document] { return &s.documents }, write, answer{})
}

// GET /documents/:id/page/:page_number
func getDocumentPage(c *call) error {
	d, err := c.lookupDocument()
	if err != nil {
		return err
	}
	if d.PaymentLocked {
		return paymentRequired(d.ID)
	}
	return c.servePage(d.Pages)
}

// paymentRequired is the refusal to serve a payment-locked document.
func paymentRequired(id uuid.UUID) *apiError {
	return &apiError{status: http.StatusPaymentRequired,
		msg: "payment required: the document " + id.String() + " is locked until it is paid for (POST /documents/unlock/" + id.String() + ")"}
}

// GET /documents/:id/download: the PDF; an unread document becomes read
// before the file is sent.
func downloadDocument(c *call) error {
	id, err := c.pathID("document")
	if err != nil {
		return err
	}
	f := c.f
	d, err := locked(f, func() (Document, error) {
		d := f.st.documents.get(id)
		if d == nil {
			return Document{}, notFound("document")
		}
		if d.PaymentLocked {
			return Document{}, paymentRequired(d.ID)
		}
		if d.Status != DocumentRead {
			d.Status = DocumentRead
			d.UpdatedAt = f.now()
		}
		return *d, nil
	})
	if err != nil {
		return err
	}
	return c.serveFile(d.Title, d.Pages, d.PDFSize)
}

type unlockBody struct {
	PaymentToken string `json:"payment_token"`
}

// POST /documents/unlock/:id: charges the payment method the document's
// unlock price, makes a paid invoice for it (and posts new-invoice to the
// callbacks), and releases the document. A declined card is a 402 that
// changes nothing; a document that is not locked is a 400. It answers as
// the API's other clients read it: action "capture", amount, the
// invoice's id beside result, and a sentence as result.
func unlockDocument(c *call) error {
	id, err := c.pathID("document")
	if err != nil {
		return err
	}
	var body unlockBody
	if err := c.decodeBody(&body); err != nil {
		return err
	}
	f := c.f
	var ev map[string]any
	out, err := locked(f, func() (answer, error) {
		d := f.st.documents.get(id)
		if d == nil {
			return answer{}, notFound("document")
		}
		if !d.PaymentLocked {
			return answer{}, invalid("id", "names a document that is not payment-locked")
		}
		if _, err := f.paymentToken(body.PaymentToken); err != nil {
			return answer{}, err
		}
		now := f.now()
		inv := f.insertInvoice(InvoiceInput{CompanyID: d.CompanyID, Status: InvoicePaid, CreatedAt: now, DueDate: now},
			[]InvoiceItem{{Price: d.UnlockPrice, Description: "Unlock of document " + d.Title, Quantity: 1}})
		d.PaymentLocked, d.UpdatedAt = false, now
		f.recordWrite(c, []uuid.UUID{inv.ID})
		ev = invoiceEvent(inv)
		return answer{action: "capture", amount: json.Number(d.UnlockPrice), invoiceIDs: []uuid.UUID{inv.ID}}, nil
	})
	if err != nil {
		return err
	}
	f.emit(ev)
	return c.ok("the document is unlocked", out)
}
