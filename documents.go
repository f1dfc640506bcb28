package acctadmin

import (
	"context"
	"iter"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// DocumentsClient reads the documents received for the account's
// companies (mail, generated or hand-delivered), as PNG pages or PDF files.
type DocumentsClient service

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
	ID        uuid.UUID      `json:"id"`
	CreatedAt time.Time      `json:"created_at"`
	UpdatedAt time.Time      `json:"updated_at"`
	Title     string         `json:"title"`
	Status    DocumentStatus `json:"status"`
	// Type is the kind of document, as "Regular Mail" or "Annual Report".
	Type   string         `json:"type"`
	Source DocumentSource `json:"source"`
	// Pages is the number of pages.
	Pages int `json:"pages"`
	// PaymentLocked is true when the document was received for a company
	// without an active registered-agent service.
	PaymentLocked bool `json:"payment_locked"`
	// Jurisdiction is where the document was received. The API names this
	// field "state" in some answers and "jurisdiction" in others; both
	// fill it.
	Jurisdiction string    `json:"jurisdiction"`
	CompanyName  string    `json:"company_name"`
	CompanyID    uuid.UUID `json:"company_id"`
}

// documentWire is a document as the API writes it, with the older name of
// its jurisdiction field.
type documentWire struct {
	Document
	State     string `json:"state"`
	CreatedAt Time   `json:"created_at"`
	UpdatedAt Time   `json:"updated_at"`
}

func (w documentWire) record() Document {
	d := w.Document
	if d.Jurisdiction == "" {
		d.Jurisdiction = w.State
	}
	d.CreatedAt, d.UpdatedAt = w.CreatedAt.Time, w.UpdatedAt.Time
	return d
}

// maxDocumentsLimit is the largest page of GET /documents.
const maxDocumentsLimit = 200

// DocumentListParams filters GET /documents. Zero values are not sent.
type DocumentListParams struct {
	// Limit is the page size (API default 50, at most 200).
	Limit int
	// Offset is the number of documents to skip.
	Offset int
	// Status is read or unread; the API's default is unread.
	Status DocumentStatus
	// Start and Stop bound the documents' creation time.
	Start time.Time
	Stop  time.Time
}

func (p *DocumentListParams) validate() error {
	if err := checkPage(p.Limit, maxDocumentsLimit, p.Offset); err != nil {
		return err
	}
	if !p.Start.IsZero() && !p.Stop.IsZero() && p.Stop.Before(p.Start) {
		return invalid("stop", "must not be before start")
	}
	return nil
}

func (p *DocumentListParams) paging() (limit, offset *int) { return &p.Limit, &p.Offset }

func (p *DocumentListParams) query() *query {
	q := &query{}
	q.int("limit", p.Limit)
	q.int("offset", p.Offset)
	q.str("status", string(p.Status))
	q.time("start", p.Start)
	q.time("stop", p.Stop)
	return q
}

// List returns one page of documents (unread ones unless p.Status says
// otherwise). GET /documents.
func (s *DocumentsClient) List(ctx context.Context, p *DocumentListParams) ([]Document, error) {
	if p == nil {
		p = &DocumentListParams{}
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	return requestRecords[documentWire](ctx, s.c, http.MethodGet, "/documents", p.query(), nil)
}

// All returns every document of the listing, page after page (200 a page
// unless p.Limit says otherwise).
//
// The unread listing, which is the default (so All(ctx, nil) is this
// case), shrinks while it is read whenever the loop downloads what it is
// given, since a download marks a document read. Plain offset paging would
// then skip documents (half of them when every one is downloaded), and so
// would reading a page ahead, whose offset is chosen before the loop has
// run. So for the unread listing All asks for each page only once the loop
// is done with the previous one, starts it at the number of documents
// already yielded that the previous answer showed still unread, and skips
// ids it has already yielded. Every document that stays unread until it is
// reached is yielded exactly once, whether the loop downloads all, some or
// none of them; the cost is one extra request per page when the loop
// downloads none, and nothing extra when it downloads all.
//
// The read listing cannot shrink this way; it is read one page ahead of
// the loop.
func (s *DocumentsClient) All(ctx context.Context, p *DocumentListParams) iter.Seq2[Document, error] {
	l := listingOf(p, maxDocumentsLimit, s.List, func(d Document) uuid.UUID { return d.ID })
	l.shrinks = p == nil || p.Status == "" || p.Status == DocumentUnread
	return paginate(ctx, l)
}

// Get returns the document id. GET /documents/:id.
func (s *DocumentsClient) Get(ctx context.Context, id uuid.UUID) (*Document, error) {
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	return requestRecord[documentWire](ctx, s.c, http.MethodGet, "/documents/"+id.String(), nil, nil)
}

// Page returns page n (counted from 0) of the document id as a PNG image,
// streamed; the caller closes it. GET /documents/:id/page/:page_number.
func (s *DocumentsClient) Page(ctx context.Context, id uuid.UUID, n int, p *PageParams) (*File, error) {
	return pageImage(ctx, s.c, "/documents", id, n, p)
}

// Download returns the document id as a PDF file, streamed; the caller
// closes it. The API marks an unread document read when it is downloaded.
// GET /documents/:id/download.
func (s *DocumentsClient) Download(ctx context.Context, id uuid.UUID) (*File, error) {
	return pdfFile(ctx, s.c, "/documents", id)
}
