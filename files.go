package acctadmin

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode"
)

// File is a binary answer of the API (a PDF document, a PNG page), read as
// it arrives. Read it, then Close it; closing early abandons the rest.
type File struct {
	Body          io.ReadCloser
	ContentType   string // as "application/pdf"
	ContentLength int64  // -1 when the API did not say
	Filename      string // the last element of the name the API gave; "" when none or unsafe
}

// Read reads from the file's body.
func (f *File) Read(p []byte) (int, error) { return f.Body.Read(p) }

// Close closes the file's body, releasing its connection.
func (f *File) Close() error { return f.Body.Close() }

// file makes one call answered with a file of the media type want ("": any
// but JSON); a JSON answer is the API's error, another type a *DecodeError.
func (c *Client) file(ctx context.Context, ep endpoint, q *query, in any, want string) (*File, error) {
	st, resp, _, err := c.send(ctx, ep, q, in, true)
	if err != nil {
		return nil, st.end(err)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != want && (want != "" || mt == "application/json") {
		return nil, st.end(st.notFile(resp, mt, want))
	}
	_, disposition, _ := mime.ParseMediaType(resp.Header.Get("Content-Disposition"))
	f := &File{Body: &fileBody{ReadCloser: resp.Body, st: st}, ContentType: mt, ContentLength: resp.ContentLength,
		Filename: safeFilename(disposition["filename"])}
	st.answered() // the hooks end as the file is closed
	return f, nil
}

// notFile is the error of a file's call answered with the media type mt.
func (st *callState) notFile(resp *http.Response, mt, want string) error {
	defer drainAndClose(resp.Body)
	if mt == "application/json" {
		if body, err := readJSON(resp); err == nil {
			if ok, _, derr := decodeEnvelopeInto(st.endpoint(), body, nil); derr == nil && !ok {
				return st.failure(resp, body)
			}
		}
	}
	return &DecodeError{Endpoint: st.endpoint(), Err: fmt.Errorf("unexpected content type %q (want %s)", st.secrets().clean(mt, maxDetail), cmp.Or(want, "a file"))}
}

// fileBody is a file's body as the caller reads it: an error that cuts it
// short is a *TransportError, and closing it ends the call.
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
		b.err = cmp.Or(b.err, err)
	}
	return n, err
}

func (b *fileBody) Close() error {
	err := b.ReadCloser.Close()
	if !b.closed {
		b.closed = true
		b.st.finish(b.err)
	}
	return err
}

// safeFilename keeps only the last element of a name the server gave; a
// name of only dots and spaces, or with a control character, is "".
func safeFilename(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	name = name[strings.LastIndexByte(name, '/')+1:]
	if strings.Trim(name, ". ") == "" || strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return ""
	}
	return name
}

// PageParams chooses how a page image is rendered.
type PageParams struct {
	DPI int // 72, 150 or 300; zero leaves the choice to the API
}

func (p *PageParams) validate() error {
	ok := p.DPI == 0 || p.DPI == 72 || p.DPI == 150 || p.DPI == 300
	return checkThat(ok, "dpi", fmt.Sprintf("must be 72, 150 or 300, got %d", p.DPI))
}
