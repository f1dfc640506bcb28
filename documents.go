package acctadmin

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// DocumentsClient reads the documents received for the account's
// companies (mail, generated or hand-delivered), as PNG pages or PDF files.
type DocumentsClient service

// The routes of documents.
var (
	routeDocumentsList     = declare(http.MethodGet, "/documents", "Documents.List")
	routeDocumentsGet      = declare(http.MethodGet, "/documents/{id}", "Documents.Get")
	routeDocumentsPage     = declare(http.MethodGet, "/documents/{id}/page/{n}", "Documents.Page")
	routeDocumentsDownload = declare(http.MethodGet, "/documents/{id}/download", "Documents.Download")
	routeDocumentsPageURL  = declare(http.MethodGet, "/documents/{id}/page/{n}/url", "Documents.PageURL")
	routeDocumentsBulk     = declare(http.MethodGet, "/documents/bulk-download", "Documents.BulkDownload")
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
	// ID is the document's id; it is uuid.Nil when the API sends none, or
	// one that is not a UUID (such a document cannot be downloaded).
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

// UnmarshalJSON reads a document in any shape the API writes it.
func (d *Document) UnmarshalJSON(data []byte) error { return decodeWire[documentWire](data, d) }

// documentWire is a document as the API writes it, with the older name of
// its jurisdiction field. It embeds the document without its
// UnmarshalJSON.
type documentWire struct {
	plainDocument
	ID        listedID `json:"id"`
	State     string   `json:"state"`
	CreatedAt Time     `json:"created_at"`
	UpdatedAt Time     `json:"updated_at"`
}

type plainDocument Document

// listedID is the id of a listed record. An id that is not a UUID (a
// legacy "legacy-42", a number, an empty string) is read as no id rather
// than failing the whole page: the record is then one without an id, which
// costs only itself (All yields it, Pull passes over it and counts it in
// PullProgress.Skipped), as a null or missing id does.
type listedID uuid.UUID

func (id *listedID) UnmarshalJSON(data []byte) error {
	*id = listedID(uuid.Nil)
	if s, ok := unquote(data); ok {
		if u, err := uuid.Parse(s); err == nil {
			*id = listedID(u)
		}
	}
	return nil
}

// MarshalText writes the id as a UUID, so that a wire record round-trips.
func (id listedID) MarshalText() ([]byte, error) { return uuid.UUID(id).MarshalText() }

func (w documentWire) record() Document {
	d := Document(w.plainDocument)
	d.ID = uuid.UUID(w.ID)
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
	return listRecords[documentWire](ctx, s.c, routeDocumentsList, p)
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
// is done with the previous one, starts it past the documents already
// yielded that the previous answer showed still unread, and skips ids it
// has already yielded. Servers also cap pages below the limit, list a
// document twice, or serve the listing from a replica that trails the
// read marks; so a short page does not end the listing (an empty one
// does), and a walk over it that may have missed documents (the listing
// moved under it) is followed by another, until two walks running see
// the same documents, at most 10 (then All ends with ErrListingUnsettled). Every document that stays unread until All is
// done, and that nobody else reads, is yielded exactly once, whether the
// loop downloads all, some or none of them, in the body or on other
// goroutines. The cost: nothing extra when the loop downloads every
// document (the listing ends empty); when it downloads none, one extra
// request per page and a second walk of one request per page.
//
// To download several documents at once, use Pull: it knows which
// downloads are in flight, so its listing rarely needs a second walk.
//
// The read listing cannot shrink this way; it is read ahead of the loop
// (see the package docs on paging). A record without an id, or with one
// that is not a UUID (its ID is then uuid.Nil), is yielded like any
// other, once, and the loop goes on. An API that answers later offsets with the same full
// page (it ignores offset) ends the loop with ErrPagingIgnored.
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
	return fromWire(call[documentWire](ctx, s.c, routeDocumentsGet.at(id.String()), nil, nil))
}

// Page returns page n (counted from 0) of the document id as a PNG image,
// streamed; the caller closes it. GET /documents/:id/page/:page_number.
func (s *DocumentsClient) Page(ctx context.Context, id uuid.UUID, n int, p *PageParams) (*File, error) {
	return pageImage(ctx, s.c, routeDocumentsPage, id, n, p)
}

// Download returns the document id as a PDF file, streamed; the caller
// closes it. The API marks an unread document read when it is downloaded.
// GET /documents/:id/download.
func (s *DocumentsClient) Download(ctx context.Context, id uuid.UUID) (*File, error) {
	return pdfFile(ctx, s.c, routeDocumentsDownload, id)
}

// PullParams chooses the documents to pull (the unread listing by default) and how.
type PullParams struct {
	DocumentListParams
	Workers int // documents downloaded at once; 0 means 4; at most 32
	// Skip, when set, is called with each listed document before it is
	// downloaded, from the goroutine that called Pull; a document it
	// returns true for is kept out: never downloaded (so it stays unread),
	// not handed to fn, not unfinished, and counted in PullProgress.KeptOut.
	// Keep it quick and decide on the listed record alone (its Type,
	// CompanyID, CompanyName...).
	Skip func(Document) bool
	// Before, when set, is called with each listed document that Skip did
	// not keep out, on the worker goroutine that is about to download it,
	// with the context the download gets, right before the download: the
	// place to take a claim on the document or to record that its
	// download starts (a download marks it read). Calls run on up to
	// Workers goroutines at once. Returning nil lets the download go on.
	// Returning ErrSkipDocument (or an error wrapping it) leaves the
	// document alone, as Skip does: it is not downloaded (so it stays
	// unread), not handed to fn, not unfinished, and counted in
	// PullProgress.KeptOut. Any other error stops Pull as fn's error does,
	// except that the document, never downloaded, is not in
	// PullError.Unfinished (PullError.Document names it). A panic or a
	// runtime.Goexit in Before is handled as one in fn. Before is called
	// at most once per document in a Pull.
	Before func(ctx context.Context, d Document) error
	// OnProgress, when set, is called after each document with the running totals.
	// Calls are made one at a time, from the goroutine that called Pull, in
	// the order the documents finish; a slow OnProgress holds up the
	// handing out of downloads, so keep it quick.
	OnProgress func(PullProgress)
}

// PullProgress is what Pull has done so far, given to OnProgress after
// each document.
type PullProgress struct {
	// Document is the document this call reports on.
	Document Document
	// Err is why it failed (its download's error or fn's), or nil when fn
	// returned nil for it.
	Err error
	// Done counts the documents fn returned nil for.
	Done int
	// Failed counts the documents whose Before (with another error than
	// ErrSkipDocument), download or fn failed.
	Failed int
	// Bytes counts the bytes fn read from the files, over all documents.
	Bytes int64
	// Skipped counts the listed documents without an id (or with one that
	// is not a UUID), which cannot be downloaded and are passed over, as far as the listing was read.
	Skipped int
	// KeptOut counts the documents Skip kept out, and those Before left
	// alone with ErrSkipDocument. OnProgress is called once for each of
	// them too, with Document set, Err nil and KeptOut one higher than in
	// the call before.
	KeptOut int
}

// Pull downloads every document of the listing, Workers at a time, and hands each
// open file to fn, which may run on Workers goroutines at once.
//
// The file is closed once fn returns; fn reads it (or not) before then.
// When Pull returns nil, every document that was unread when it started
// and that nobody else read was handed to fn exactly once, although each
// download takes a document out of the unread listing while Pull is
// reading it and downloads finish in any order: Pull knows which downloads
// are in flight when it asks for the next page, and starts each page only
// past documents that can no longer leave the listing. That holds too
// against servers that cap pages below the limit, list a document twice,
// or trail their read marks: a short page does not end the listing, and a
// walk that may have missed documents is followed by another (see All).
// Documents without an id, or with one that is not a UUID, cannot be
// downloaded; Pull passes over them and counts them in
// PullProgress.Skipped, and goes on with the rest. Documents that Skip keeps out, or
// that Before leaves alone, are never downloaded.
//
// The first error (fn's, Before's, a download's, a listing request's, or
// the end of ctx) stops Pull from starting downloads; it waits for those in
// flight, whose fn still runs, and returns a *PullError naming every
// document whose download was asked for but whose fn did not return nil:
// the API has probably marked those read, so fetch them again with
// Download. A panic in fn, Before, Skip, OnProgress or a hook of the
// client (on a worker or a listing request) stops Pull the same way and is raised again from Pull, on the
// caller's goroutine, once no goroutine of it is left; fn calling
// runtime.Goexit (as t.Fatal does) stops it with an error naming that
// document. A listing that the API answers with the same full page at
// every offset ends Pull with ErrPagingIgnored (a page longer than the
// limit is the whole listing: Pull hands it out and ends without error); one that keeps changing
// after 10 walks over it ends Pull with ErrListingUnsettled. Pull returns
// nil when fn returned nil for every document.
//
// Pull holds at most Workers downloads, and a page of listed documents
// plus Workers more waiting for a worker, at a time, and the id of each
// document listed so far (to hand none out twice; about 40 bytes a
// document, see BENCHMARKS.md), whatever the size of the listing.
//
// With WithResponseInto, Pull fills the *Response once, as it returns,
// with the answer to its last listing request; the contexts fn and the
// downloads get do not carry it.
//
// Bad parameters (Workers outside 0 to 32, a nil fn, or a bad listing
// parameter) give a *ValidationError, and nothing is sent. Each call is
// independent: Pull may be called from several goroutines at once.
func (s *DocumentsClient) Pull(ctx context.Context, p *PullParams,
	fn func(ctx context.Context, d Document, f *File) error) error {
	if p == nil {
		p = &PullParams{}
	}
	lp := p.DocumentListParams
	r := &pullRun[Document]{
		l:       listingOf(&lp, maxDocumentsLimit, s.List, func(d Document) uuid.UUID { return d.ID }),
		workers: p.Workers,
		fn:      fn,
		open:    func(ctx context.Context, d Document) (*File, error) { return s.Download(ctx, d.ID) },
		skip:    p.Skip,
		before:  p.Before,
	}
	r.l.shrinks = lp.Status == "" || lp.Status == DocumentUnread
	if on := p.OnProgress; on != nil {
		r.report = func(d Document, err error, t pullTally) {
			on(PullProgress{Document: d, Err: err, Done: t.done, Failed: t.failed, Bytes: t.bytes,
				Skipped: t.skipped, KeptOut: t.keptOut})
		}
	}
	return r.run(ctx)
}

// FileLink is a URL the API serves a file at until it expires, instead of
// the file itself. The provider shows neither the answer of the routes
// that give one nor its content type; the fields typed here are those of
// the SDK's fake, a result that is a bare string is read as the URL, and
// the whole record is kept in Raw. The URL may let anyone who has it read
// the file: treat it as a secret of its own.
type FileLink struct {
	URL       string    `json:"url"`
	ExpiresAt time.Time `json:"expires_at"`
	// IDs are the documents the file holds, when the API says.
	IDs []uuid.UUID `json:"ids"`
	// Raw is the record exactly as the API sent it.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the known fields and keeps the whole record in
// Raw; a string is the URL alone.
func (l *FileLink) UnmarshalJSON(data []byte) error {
	if u, ok := unquote(data); ok {
		*l = FileLink{URL: u, Raw: append(json.RawMessage(nil), data...)}
		return nil
	}
	return decodeRecord[fileLinkWire](data, l, &l.Raw)
}

type plainFileLink FileLink

type fileLinkWire struct {
	plainFileLink
	ExpiresAt Time `json:"expires_at"`
}

func (w fileLinkWire) record() FileLink {
	l := FileLink(w.plainFileLink)
	l.ExpiresAt = w.ExpiresAt.Time
	return l
}

// PageURL returns a link to page n (counted from 0) of the document id as
// an image, rather than the image (see Page).
// GET /documents/:id/page/:page_number/url.
func (s *DocumentsClient) PageURL(ctx context.Context, id uuid.UUID, n int) (*FileLink, error) {
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, invalid("page_number", "must not be negative, got %d", n)
	}
	return one(call[FileLink](ctx, s.c, routeDocumentsPageURL.at(id.String(), strconv.Itoa(n)), nil, nil))
}

// BulkDownload returns a link to one file that holds the documents ids
// (at least one). Whether fetching it marks them read, as Download does,
// is not documented. GET /documents/bulk-download.
func (s *DocumentsClient) BulkDownload(ctx context.Context, ids ...uuid.UUID) (*FileLink, error) {
	if err := firstErr(checkNotEmpty("ids", len(ids)), checkIDs("ids", ids)); err != nil {
		return nil, err
	}
	q := &query{}
	q.ids("ids", ids)
	return one(call[FileLink](ctx, s.c, routeDocumentsBulk.at(), q, nil))
}
