package acctadmintest

import (
	"archive/zip"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// FilesPrefix is the path prefix of the URLs that the page-URL and
// bulk-download routes hand out. Like a storage service's signed URL, such
// a URL needs no token and works for anyone until it expires
// (LinkLifetime after it was made, on the fake's clock), then answers 410.
const FilesPrefix = ControlPrefix + "files/"

// LinkLifetime is how long a URL of FilesPrefix works.
const LinkLifetime = 15 * time.Minute

// maxBulk bounds the documents of one bulk download.
const maxBulk = 50

// fileLink is what a URL of FilesPrefix serves.
type fileLink struct {
	docs    []uuid.UUID // a ZIP of their PDFs; or, with page >= 0, one page of docs[0]
	page    int
	dpi     int
	expires time.Time
}

type fileURLWire struct {
	URL       string      `json:"url"`
	ExpiresAt string      `json:"expires_at"`
	IDs       []uuid.UUID `json:"ids,omitempty"`
}

// link stores a link and writes its URL for the host the request named;
// f.mu must be held.
func (f *Fake) link(c *call, l *fileLink) fileURLWire {
	token := randomHex(20)
	l.expires = f.now().Add(LinkLifetime)
	f.st.links[token] = l
	return fileURLWire{URL: "http://" + c.r.Host + FilesPrefix + token, ExpiresAt: f.wire(false).time(l.expires)}
}

// GET /documents/:id/page/:page_number/url?dpi=: a URL of the page image.
func getDocumentPageURL(c *call) error {
	d, err := c.lookupDocument()
	if err != nil {
		return err
	}
	if d.PaymentLocked {
		return paymentRequired(d.ID)
	}
	n, dpi, err := c.pageParams(d.Pages)
	if err != nil {
		return err
	}
	f := c.f
	out, _ := locked(f, func() (fileURLWire, error) {
		return f.link(c, &fileLink{docs: []uuid.UUID{d.ID}, page: n, dpi: dpi}), nil
	})
	return c.ok(out, answer{})
}

// GET /documents/bulk-download?ids[]=: a URL of a ZIP archive holding the
// PDF of each document (at most 50); fetching it marks them read, as a
// single download does.
func bulkDownloadDocuments(c *call) error {
	ids, err := idList("ids", c.strs("ids"))
	if err != nil {
		return err
	}
	switch {
	case len(ids) == 0:
		return invalid("ids", "is required: the ids of the documents, as ids[]")
	case len(ids) > maxBulk:
		return invalid("ids", fmt.Sprintf("must name at most %d documents", maxBulk))
	}
	f := c.f
	out, err := locked(f, func() (fileURLWire, error) {
		for _, id := range ids {
			d := f.st.documents.get(id)
			if d == nil {
				return fileURLWire{}, notFound("document " + id.String())
			}
			if d.PaymentLocked {
				return fileURLWire{}, paymentRequired(id)
			}
		}
		w := f.link(c, &fileLink{docs: ids, page: -1})
		w.IDs = ids
		return w, nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{})
}

// serveLink serves a URL of FilesPrefix.
func (f *Fake) serveLink(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, msg string) {
		writeJSON(w, status, errorAnswer(f.envelopeTime(false), msg))
	}
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		fail(http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed on a file URL")
		return
	}
	token := strings.TrimPrefix(r.URL.Path, FilesPrefix)
	f.mu.Lock()
	l := f.st.links[token]
	var docs []Document
	expired := l != nil && !f.now().Before(l.expires)
	if l != nil && !expired {
		for _, id := range l.docs {
			d := f.st.documents.get(id)
			if d == nil {
				continue
			}
			if l.page < 0 && d.Status != DocumentRead {
				d.Status, d.UpdatedAt = DocumentRead, f.now()
			}
			docs = append(docs, *d)
		}
	}
	f.mu.Unlock()
	switch {
	case l == nil:
		fail(http.StatusNotFound, "no such file URL")
	case expired:
		fail(http.StatusGone, "the file URL has expired")
	case len(docs) == 0:
		fail(http.StatusNotFound, "the documents are gone")
	case l.page >= 0:
		data := f.pngs.get(l.dpi, l.page)
		w.Header().Set("Content-Type", "image/png")
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		_, _ = w.Write(data)
	default:
		w.Header().Set("Content-Type", "application/zip")
		w.Header().Set("Content-Disposition", attachment("documents.zip"))
		zw := zip.NewWriter(w)
		alive := func() bool { return r.Context().Err() == nil && f.ctx.Err() == nil }
		for _, d := range docs {
			fw, err := zw.Create(d.ID.String() + ".pdf")
			if err != nil {
				return
			}
			if newPDF(d.Title, d.Pages, d.PDFSize).writeTo(fw, alive) != nil {
				return
			}
		}
		_ = zw.Close()
	}
}
