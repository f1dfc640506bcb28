package acctadmin

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode"
)

// Binary answers: the streamed *File, the call that reads one, and the
// PageParams of a page image.

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

// file makes one call whose answer is a file of the media type want
// ("application/pdf" or "image/png"; "" takes any type but JSON), with
// the JSON body in when not nil. A JSON answer is read as the API's
// error; any other type is a *DecodeError rather than a corrupt file.
// With json (transport.go) and the listing (pagination.go), it is one of
// the three calls every typed method makes.
//
// A file's call ends when the file is closed: the hooks' AttemptEnd and
// CallEnd run then (with the error that cut the file short, if one did),
// while WithResponseInto's *Response is filled as the headers arrive.
func (c *Client) file(ctx context.Context, ep endpoint, q *query, in any, want string) (*File, error) {
	st, resp, _, err := c.send(ctx, ep, q, in, true)
	if err != nil {
		return nil, st.end(err)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != want && (want != "" || mt == "application/json") {
		return nil, st.end(st.notFile(resp, mt, want))
	}
	f := &File{Body: &fileBody{ReadCloser: resp.Body, st: st}, ContentType: mt, ContentLength: resp.ContentLength}
	if _, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); err == nil {
		f.Filename = safeFilename(params["filename"])
	}
	if st.obs != nil {
		st.answered() // the hooks end as the file is closed
		return f, nil
	}
	return f, st.end(nil)
}

// notFile is the error of a file's call answered with the media type mt,
// not want: the API's error when the answer is one, else a *DecodeError.
// It drains and closes the answer.
func (st *callState) notFile(resp *http.Response, mt, want string) error {
	defer drainAndClose(resp.Body)
	if mt == "application/json" {
		if body, err := readJSON(resp); err == nil {
			var raw json.RawMessage
			if ok, _, derr := decodeEnvelopeInto(st.endpoint(), body, &raw); derr == nil && !ok {
				return st.failure(resp, body)
			}
		}
	}
	if want == "" {
		want = "a file"
	}
	return &DecodeError{Endpoint: st.endpoint(), Err: fmt.Errorf("unexpected content type %q (want %s)", st.secrets().clean(mt, maxDetail), want)}
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
