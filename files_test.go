package acctadmin

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// Not a setting of the retry library, which passes any answer on: the SDK
// tells a file from a JSON failure or an HTML page by its content type.
func TestDownload(t *testing.T) {
	ctx := context.Background()
	t.Run("json failure", func(t *testing.T) {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, `{"success":false,"message":"document is being scanned"}`)
		})
		c := newTestClient(t, srv)
		f, err := download(ctx, c, routeDocumentsDownload.at("x"), nil, nil, "application/pdf")
		apiErr := tpAPIError(t, tpErr(t, err))
		if f != nil || apiErr.Message != "document is being scanned" || apiErr.Path != "/documents/x/download" {
			t.Errorf("APIError = %+v", apiErr)
		}
	})
	t.Run("json 404", func(t *testing.T) {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusNotFound, `{"success":false,"message":"no such document"}`)
		})
		c := newTestClient(t, srv)
		_, err := download(ctx, c, routeDocumentsDownload.at("x"), nil, nil, "application/pdf")
		if !errors.Is(tpErr(t, err), ErrNotFound) || tpAPIError(t, err).Message != "no such document" {
			t.Errorf("err = %v, want ErrNotFound with the message", err)
		}
	})
	t.Run("html", func(t *testing.T) {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = io.WriteString(w, "<html>login</html>")
		})
		c := newTestClient(t, srv)
		f, err := download(ctx, c, routeDocumentsDownload.at("x"), nil, nil, "application/pdf")
		var de *DecodeError
		if f != nil || !errors.As(tpErr(t, err), &de) {
			t.Fatalf("err = %v (%T), want a *DecodeError", err, err)
		}
		if de.Endpoint != "GET /documents/x/download" || !strings.Contains(de.Error(), "text/html") {
			t.Errorf("DecodeError = %v", de)
		}
	})
	t.Run("pdf", func(t *testing.T) {
		content := []byte("%PDF-1.7\n%binary\x00\xff\n%%EOF\n")
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/pdf")
			w.Header().Set("Content-Length", strconv.Itoa(len(content)))
			w.Header().Set("Content-Disposition", `attachment; filename="../../etc/x.pdf"`)
			_, _ = w.Write(content)
		})
		c := newTestClient(t, srv)
		f, err := download(ctx, c, routeDocumentsDownload.at("x"), nil, nil, "application/pdf")
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(f)
		if err != nil || !bytes.Equal(got, content) {
			t.Errorf("body = %q, %v", got, err)
		}
		if err := f.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if f.ContentType != "application/pdf" || f.ContentLength != int64(len(content)) || f.Filename != "x.pdf" {
			t.Errorf("File = type %q, length %d, name %q", f.ContentType, f.ContentLength, f.Filename)
		}
		if r := srv.last(t); !r.AuthOK || r.Method != http.MethodGet {
			t.Errorf("request = %+v", r)
		}
	})
}
