package acctadmin

import (
	"cmp"
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"strconv"
	"time"

	"github.com/acctadmin/acctadmin-go/internal/paging"
	"github.com/google/uuid"
)

// DocumentsClient reads the documents received for the account's
// companies (mail, generated or hand-delivered), as PNG pages or PDF files.
type DocumentsClient service

// The routes of documents.
var (
	routeDocumentsList     = declare(http.MethodGet, "/documents", "Documents.List")
	routeDocumentsGet      = declare(http.MethodGet, "/documents/{id}", "Documents.Get")
	routeDocumentsPage     = declare(http.MethodGet, "/documents/{id}/page/{n}", "Documents.Page").paying(readsLocked)
	routeDocumentsDownload = declare(http.MethodGet, "/documents/{id}/download", "Documents.Download").paying(readsLocked)
	routeDocumentsPageURL  = declare(http.MethodGet, "/documents/{id}/page/{n}/url", "Documents.PageURL").paying(readsLocked)
	routeDocumentsBulk     = declare(http.MethodGet, "/documents/bulk-download", "Documents.BulkDownload").paying(readsLocked)
	routeDocumentsUnlock   = declareOnce(http.MethodPost, "/documents/unlock/{id}", "Documents.Unlock",
		"Documents.Get shows whether the document is still payment-locked, and Invoices.List whether an invoice was made for it").paying(charges)
)

// DocumentStatus says whether a document was read.
type DocumentStatus string

// The document states. Unread is the listing's default; downloading a
// document marks it read.
const (
	DocumentUnread DocumentStatus = "unread"
	DocumentRead   DocumentStatus = "read"
)

// DocumentSource says how a document arrived.
type DocumentSource string

// The document sources the API documents.
const (
	SourceMail          DocumentSource = "mail"
	SourceGenerated     DocumentSource = "generated"
	SourceHandDelivered DocumentSource = "hand-delivered"
)

// Document is an item received for a company.
type Document struct {
	ID        uuid.UUID      `json:"id"` // uuid.Nil when missing or not a UUID
	CreatedAt time.Time      `json:"created_at"`
	UpdatedAt time.Time      `json:"updated_at"`
	Title     string         `json:"title"`
	Status    DocumentStatus `json:"status"`
	Type      string         `json:"type"` // as "Regular Mail" or "Annual Report"
	Source    DocumentSource `json:"source"`
	Pages     int            `json:"pages"`
	// PaymentLocked: received for a company without an active
	// registered-agent service. Jurisdiction: where it was received (the
	// API names it "jurisdiction" or "state").
	PaymentLocked bool      `json:"payment_locked"`
	Jurisdiction  string    `json:"jurisdiction"`
	CompanyName   string    `json:"company_name"`
	CompanyID     uuid.UUID `json:"company_id"`
	// UnlockPrice is what Documents.Unlock charges for a payment-locked
	// document, when the API says ("unlock_price"); zero when it does not.
	// The SDK's fake sends it; no client of the real API shows it.
	UnlockPrice Money `json:"unlock_price"`
}

// jsonDocument is a Document as the API writes it: an id that may be
// unusable, times in the API's shapes, the jurisdiction also as "state".
// It has no UnmarshalJSON, so that a page of them is read in one pass.
type jsonDocument struct {
	ID            listedID       `json:"id"`
	CreatedAt     Time           `json:"created_at"`
	UpdatedAt     Time           `json:"updated_at"`
	Title         string         `json:"title"`
	Status        DocumentStatus `json:"status"`
	Type          string         `json:"type"`
	Source        DocumentSource `json:"source"`
	Pages         int            `json:"pages"`
	PaymentLocked bool           `json:"payment_locked"`
	Jurisdiction  string         `json:"jurisdiction"`
	State         string         `json:"state"`
	CompanyName   string         `json:"company_name"`
	CompanyID     uuid.UUID      `json:"company_id"`
	UnlockPrice   Money          `json:"unlock_price"`
}

func (w *jsonDocument) document() Document {
	d := Document{ID: uuid.UUID(w.ID), CreatedAt: w.CreatedAt.Time, UpdatedAt: w.UpdatedAt.Time, Title: w.Title,
		Status: w.Status, Type: w.Type, Source: w.Source, Pages: w.Pages, PaymentLocked: w.PaymentLocked,
		Jurisdiction: w.Jurisdiction, CompanyName: w.CompanyName, CompanyID: w.CompanyID, UnlockPrice: w.UnlockPrice}
	if d.Jurisdiction == "" {
		d.Jurisdiction = w.State
	}
	return d
}

// UnmarshalJSON reads a document in every shape the API writes it.
func (d *Document) UnmarshalJSON(data []byte) error {
	var w jsonDocument
	err := readRecord(data, &w)
	*d = w.document()
	return err
}

// maxDocumentsLimit is the largest page of GET /documents.
const maxDocumentsLimit = 200

// DocumentListParams filters GET /documents. Zero values are not sent.
type DocumentListParams struct {
	Limit        int            // page size: API default 50, at most 200
	Offset       int            // documents to skip
	Status       DocumentStatus // read or unread (the API's default)
	Start        time.Time      // Start and Stop bound the creation time
	Stop         time.Time
	Jurisdiction string    // keeps those of a place, by name or abbreviation ("UT")
	CompanyID    uuid.UUID // keeps those of a company
}

func (p *DocumentListParams) validate() error {
	err := checkPage(p.Limit, maxDocumentsLimit, p.Offset)
	if err == nil && !p.Start.IsZero() && !p.Stop.IsZero() && p.Stop.Before(p.Start) {
		err = invalid("stop", "must not be before start")
	}
	return err
}

func (p *DocumentListParams) paging() (limit, offset *int) { return &p.Limit, &p.Offset }

func (p *DocumentListParams) query() *query {
	return new(query).int("limit", p.Limit).int("offset", p.Offset).str("status", string(p.Status)).time("start", p.Start).time("stop", p.Stop).
		str("jurisdiction", p.Jurisdiction).id("company_id", p.CompanyID)
}

// List returns one page of documents (unread ones unless p.Status says
// otherwise). GET /documents.
func (s *DocumentsClient) List(ctx context.Context, p *DocumentListParams) ([]Document, error) {
	p = orZero(p)
	if err := p.validate(); err != nil {
		return nil, err
	}
	var page []jsonDocument
	if err := s.c.json(ctx, routeDocumentsList.at(), p.query(), nil, &page); err != nil {
		return nil, err
	}
	return records(page, (*jsonDocument).document), nil
}

// All returns every document of the listing, page after page (200 a page
// unless p.Limit says otherwise); an error is yielded once, as the last
// item. On the unread listing (the default) the loop may download what it
// is given: All still yields once every document that stays unread until
// it is done and that nobody else reads (a Download through the same
// Client while the loop runs counts as the loop's own). Pull downloads on
// several goroutines. Paging and its errors: see the package doc.
func (s *DocumentsClient) All(ctx context.Context, p *DocumentListParams) iter.Seq2[Document, error] {
	q := *orZero(p)
	return paginate(ctx, listing[Document]{
		invalid: q.validate(), limit: q.Limit, max: maxDocumentsLimit, offset: q.Offset,
		fetch: func(ctx context.Context, limit, offset int) ([]Document, error) {
			q := q
			q.Limit, q.Offset = limit, offset
			return s.List(ctx, &q)
		},
		id:      func(d Document) uuid.UUID { return d.ID },
		shrinks: q.Status == "" || q.Status == DocumentUnread,
		watch:   s.c.downloads,
	})
}

// Get returns the document id. GET /documents/:id.
func (s *DocumentsClient) Get(ctx context.Context, id uuid.UUID) (*Document, error) {
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	var d Document
	if err := s.c.json(ctx, routeDocumentsGet.at(id.String()), nil, nil, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// Page returns page n (from 0) of the document id as a PNG image,
// streamed; the caller closes it. GET /documents/:id/page/:page_number.
func (s *DocumentsClient) Page(ctx context.Context, id uuid.UUID, n int, p *PageParams) (*File, error) {
	p = orZero(p)
	if err := firstErr(checkID("id", id), p.validate(), checkNotNegative("page_number", n)); err != nil {
		return nil, err
	}
	return s.c.file(ctx, routeDocumentsPage.at(id.String(), strconv.Itoa(n)), new(query).int("dpi", p.DPI), nil, "image/png")
}

// Download returns the document id as a PDF file, streamed (the caller
// closes it), which marks it read. GET /documents/:id/download.
func (s *DocumentsClient) Download(ctx context.Context, id uuid.UUID) (*File, error) {
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	s.c.downloads.note(id, paging.RowUnknown)
	f, err := s.c.file(ctx, routeDocumentsDownload.at(id.String()), nil, nil, "application/pdf")
	if err == nil {
		s.c.downloads.note(id, paging.RowGone)
	}
	return f, err
}

// PullParams chooses the documents to pull (the unread listing by default)
// and how.
type PullParams struct {
	DocumentListParams
	Workers int // documents downloaded at once; 0 means 4; at most 32
	// Skip, when set, is called on the caller's goroutine with each listed
	// document; one it returns true for is never downloaded (stays unread).
	Skip func(Document) bool
	// Before, when set, is called on the worker right before each download
	// (at most once a document), to claim it or journal that its download
	// starts. ErrSkipDocument leaves the document alone as Skip does; any
	// other error stops Pull as fn's does (PullError.Document names it).
	Before func(ctx context.Context, d Document) error
	// OnProgress, when set, is called on the caller's goroutine after each
	// document, one call at a time; keep it quick: it holds up downloads.
	OnProgress func(PullProgress)
}

// PullProgress is what Pull has done so far, given to OnProgress.
type PullProgress struct {
	Document Document // the document this call reports on
	Err      error    // why it failed (its download's error or fn's), or nil
	Done     int      // documents fn returned nil for
	Failed   int      // documents whose Before, download or fn failed
	Bytes    int64    // bytes fn read from the files, over all documents
	Skipped  int      // listed documents without a usable id, passed over
	KeptOut  int      // documents Skip or Before kept out
	// Locked counts the documents whose download was refused as
	// payment-locked (ErrPaymentRequired, in Err): left unread, not
	// handed to fn, not tried again by this Pull.
	Locked int
}

// Pull downloads every document of the listing (unread by default),
// p.Workers at a time, and hands each open file to fn (on Workers
// goroutines at once), closing it when fn returns. Documents without a
// usable id are passed over; a payment-locked one is left unread. When
// Pull returns nil, every document unread when it started, read by nobody
// else and not payment-locked was handed to fn exactly once.
//
// The first error (fn's, Before's, a download's, a listing request's, or
// ctx's) stops new downloads; Pull waits for those in flight and returns a
// *PullError. A panic in fn, Before, Skip, OnProgress or a hook is raised
// again on the caller's goroutine. Safe to call from several goroutines.
func (s *DocumentsClient) Pull(ctx context.Context, p *PullParams,
	fn func(ctx context.Context, d Document, f *File) error) error {
	pp := *orZero(p) // OnProgress is dropped from the copy when it panics
	lp := pp.DocumentListParams
	l := listingOf(&lp, maxDocumentsLimit, s.List, func(d Document) uuid.UUID { return d.ID })
	l.shrinks = lp.Status == "" || lp.Status == DocumentUnread
	return (&puller{s: s, params: &pp, fn: fn, l: l}).run(ctx)
}

// FileLink is a URL the API serves a file at until it expires (anyone who
// has it may read the file: treat it as a secret). The answer is not shown
// by the provider: the fields are those of the SDK's fake, a bare string
// is the URL, and the whole record is kept in Raw.
type FileLink struct {
	URL       string          `json:"url"`
	ExpiresAt time.Time       `json:"expires_at"`
	IDs       []uuid.UUID     `json:"ids"` // the documents it holds, when the API says
	Raw       json.RawMessage `json:"-"`   // the record exactly as the API sent it
}

// UnmarshalJSON reads a link, into Raw too; a string is the URL alone.
func (l *FileLink) UnmarshalJSON(data []byte) error {
	*l = FileLink{Raw: keepRaw(data)}
	if url, ok := unquote(data); ok {
		l.URL = url
		return nil
	}
	type fields FileLink
	w := struct {
		*fields
		ExpiresAt Time `json:"expires_at"`
	}{fields: (*fields)(l)}
	err := readRecord(data, &w)
	l.ExpiresAt = w.ExpiresAt.Time
	return err
}

// PageURL returns a link to page n (from 0) of the document id as an
// image (see Page). GET /documents/:id/page/:page_number/url.
func (s *DocumentsClient) PageURL(ctx context.Context, id uuid.UUID, n int) (*FileLink, error) {
	if err := firstErr(checkID("id", id), checkNotNegative("page_number", n)); err != nil {
		return nil, err
	}
	var l FileLink
	if err := s.c.json(ctx, routeDocumentsPageURL.at(id.String(), strconv.Itoa(n)), nil, nil, &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// BulkDownload returns a link to one file that holds the documents ids (at
// least one). Whether fetching it marks them read, as Download does, is
// not documented. GET /documents/bulk-download.
func (s *DocumentsClient) BulkDownload(ctx context.Context, ids ...uuid.UUID) (*FileLink, error) {
	if err := checkIDList("ids", ids, true); err != nil {
		return nil, err
	}
	var l FileLink
	if err := s.c.json(ctx, routeDocumentsBulk.at(), new(query).ids("ids", ids), nil, &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// DocumentUnlock is what unlocking a document charged.
type DocumentUnlock struct {
	Action     string      // "capture"
	Amount     Money       // what the card was charged
	Result     string      // the API's own words, when result is text
	InvoiceIDs []uuid.UUID // the invoices the charge made
}

// Unlock pays for the payment-locked document id with the stored card
// paymentMethodID (a PaymentMethod's ID), which releases the document; a
// declined card is ErrPaymentDeclined (nothing charged). Sent at most
// once; see the package doc. POST /documents/unlock/:id.
func (s *DocumentsClient) Unlock(ctx context.Context, id, paymentMethodID uuid.UUID) (*DocumentUnlock, error) {
	if err := firstErr(checkID("id", id), checkID("payment_token", paymentMethodID)); err != nil {
		return nil, err
	}
	body := struct {
		PaymentToken uuid.UUID `json:"payment_token"`
	}{paymentMethodID}
	var out unlockAnswer
	if err := s.c.json(ctx, routeDocumentsUnlock.at(id.String()), nil, body, &out); err != nil {
		return nil, err
	}
	return &out.u, nil
}

// unlockWire is the answer of POST /documents/unlock/:id, beside result
// or inside it.
type unlockWire struct {
	Action     string      `json:"action"`
	Amount     Money       `json:"amount"`
	InvoiceIDs []uuid.UUID `json:"invoice_ids"`
}

// unlockAnswer reads the answer of POST /documents/unlock/:id: the fields
// beside result, else those inside it (result is text, an object, or the
// invoices made).
type unlockAnswer struct{ u DocumentUnlock }

func (a *unlockAnswer) decodeEnvelope(endpoint string, body []byte) (bool, error) {
	var res json.RawMessage
	success, _, err := decodeEnvelopeInto(endpoint, body, &res)
	if err != nil || !success {
		return success, err
	}
	var top, in unlockWire
	err = decodeJSON(endpoint, body, &top)
	switch {
	case err != nil: // the fields beside result unreadable
	case len(res) > 0 && res[0] == '{':
		err = decodeJSON(endpoint, res, &in)
	case len(res) > 0 && res[0] == '[':
		// The invoices made, as POST /invoices/pay answers them on the
		// SDK's fake.
		var paid []struct {
			ID uuid.UUID `json:"id"`
		}
		err = decodeJSON(endpoint, res, &paid)
		for _, inv := range paid {
			in.InvoiceIDs = append(in.InvoiceIDs, inv.ID)
		}
	case len(res) > 0 && res[0] == '"':
		_ = json.Unmarshal(res, &a.u.Result)
	}
	if err != nil {
		return false, err
	}
	a.u.Action, a.u.Amount, a.u.InvoiceIDs = cmp.Or(top.Action, in.Action), top.Amount, top.InvoiceIDs
	if a.u.Amount.IsZero() {
		a.u.Amount = in.Amount
	}
	if len(a.u.InvoiceIDs) == 0 {
		a.u.InvoiceIDs = in.InvoiceIDs
	}
	return true, nil
}
