package acctadmin

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode"

	"github.com/google/uuid"
)

// Binary answers: the streamed *File, the page-image and PDF endpoints that
// documents and resources share, and the PageParams of a page image.

// File is a binary answer of the API (a PDF document, a PNG page), read as
// it arrives: nothing holds the whole file in memory. Read it, then Close
// it; closing early abandons the rest of the transfer.
type File struct {
	// Body is the file's content as it arrives.
	Body io.ReadCloser
	// ContentType is the media type of the file, as "application/pdf".
	ContentType string
	// ContentLength is the size in bytes, or -1 when the API did not say.
	ContentLength int64
	// Filename is the last element of the name the API gave the file
	// (Content-Disposition): never a path, so it cannot lead outside the
	// folder it is saved into. It is "" when the API gave none, or one
	// that is no file name: only dots and spaces (., ..), or with a
	// control character such as NUL.
	Filename string
}

// Read reads from the file's body, so a *File is an io.Reader.
func (f *File) Read(p []byte) (int, error) { return f.Body.Read(p) }

// Close closes the file's body, releasing its connection.
func (f *File) Close() error { return f.Body.Close() }

// download sends one call whose answer is a file of the media type want
// ("application/pdf" or "image/png"; "" takes any type but JSON), with
// the JSON body in when not nil. A JSON answer is read as the API's
// error; any other type is a *DecodeError rather than a corrupt file.
//
// A file's call ends when the file is closed: the hooks' AttemptEnd and
// CallEnd run then (with the error that cut the file short, if one did),
// while WithResponseInto's *Response is filled as the headers arrive.
func download(ctx context.Context, c *Client, ep endpoint, q *query, in any, want string) (*File, error) {
	var f *File
	err := c.do(ctx, ep, q, in, true, func(st *callState, resp *http.Response, _ []byte) error {
		mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if mt != want && (want != "" || mt == "application/json") {
			defer drainAndClose(resp.Body)
			if mt == "application/json" {
				if buf, err := readJSON(resp); err == nil {
					defer releaseBuf(buf)
					var raw json.RawMessage
					if ok, derr := decodeEnvelope(st.endpoint(), buf.Bytes(), &raw); derr == nil && !ok {
						return st.failure(resp, buf.Bytes())
					}
				}
			}
			if want == "" {
				want = "a file"
			}
			return &DecodeError{Endpoint: st.endpoint(), Err: fmt.Errorf("unexpected content type %q (want %s)", st.secrets().clean(mt, maxDetail), want)}
		}
		f = &File{Body: &fileBody{ReadCloser: resp.Body, st: st}, ContentType: mt, ContentLength: resp.ContentLength}
		if _, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); err == nil {
			f.Filename = safeFilename(params["filename"])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// fileBody is a file's body as the caller reads it. An error that cuts
// the file short (a connection dropped mid-body, the context ended) is a
// *TransportError naming the request, whose path names the file; closing
// the body ends the call for the hooks.
type fileBody struct {
	io.ReadCloser
	st     *callState
	err    error // the first error reading it
	closed bool
}

func (b *fileBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = b.st.outcome(b.st.redact(err))
		if b.err == nil {
			b.err = err
		}
	}
	return n, err
}

// Close closes the body, and the first time ends the call.
func (b *fileBody) Close() error {
	err := b.ReadCloser.Close()
	if !b.closed {
		b.closed = true
		b.st.finish(b.err)
	}
	return err
}

// safeFilename keeps only the last element of a name the server gave, so
// that it cannot point outside the folder a caller saves into. A name
// with nothing but dots and spaces (., .., and what Windows reads as
// them) or with a control character (NUL cuts a name short in C) is no
// name at all: "".
func safeFilename(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if strings.Trim(name, ". ") == "" || strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return ""
	}
	return name
}

// PageParams chooses how a page image is rendered.
type PageParams struct {
	// DPI is the resolution: 72, 150 or 300. Zero leaves the choice to the
	// API.
	DPI int
}

func (p *PageParams) validate() error {
	switch p.DPI {
	case 0, 72, 150, 300:
		return nil
	}
	return invalid("dpi", "must be 72, 150 or 300, got %d", p.DPI)
}

// pageImage reads page n (from 0) of the file id as a PNG image, by rt
// (GET /documents/{id}/page/{n} or its /resources twin).
func pageImage(ctx context.Context, c *Client, rt *route, id uuid.UUID, n int, p *PageParams) (*File, error) {
	if p == nil {
		p = &PageParams{}
	}
	if err := firstErr(checkID("id", id), p.validate()); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, invalid("page_number", "must not be negative, got %d", n)
	}
	q := &query{}
	q.int("dpi", p.DPI)
	return download(ctx, c, rt.at(id.String(), strconv.Itoa(n)), q, nil, "image/png")
}

// pdfFile reads the file id as a PDF, by rt (GET /documents/{id}/download
// or its /resources twin).
func pdfFile(ctx context.Context, c *Client, rt *route, id uuid.UUID) (*File, error) {
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	return download(ctx, c, rt.at(id.String()), nil, nil, "application/pdf")
}
