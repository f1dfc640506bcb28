package acctadmintest_test

import (
	"bytes"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// requirePNG decodes a page image and checks its size.
func requirePNG(t *testing.T, r response, w, h int) {
	t.Helper()
	require.Equal(t, http.StatusOK, r.Status, "body: %.300s", r.Body)
	require.Equal(t, "image/png", r.Header.Get("Content-Type"))
	require.Equal(t, strconv.Itoa(len(r.Body)), r.Header.Get("Content-Length"))
	cfg, err := png.DecodeConfig(bytes.NewReader(r.Body))
	require.NoError(t, err)
	require.Equal(t, w, cfg.Width)
	require.Equal(t, h, cfg.Height)
	if w*h > 2_500_000 {
		// Decoding every pixel at 300 dpi is slow under the race detector
		// and checks the same encoder as the smaller sizes.
		return
	}
	img, err := png.Decode(bytes.NewReader(r.Body))
	require.NoError(t, err)
	require.Equal(t, w, img.Bounds().Dx())
	require.Equal(t, h, img.Bounds().Dy())
	// Black border on white paper.
	margin := w / 17
	require.Equal(t, color.GrayModel.Convert(color.White), color.GrayModel.Convert(img.At(margin/2, h/2)))
	require.Equal(t, color.GrayModel.Convert(color.Black), color.GrayModel.Convert(img.At(margin, h/2)))
}

var (
	pageObjRE  = regexp.MustCompile(`/Type\s*/Page\b`)
	countRE    = regexp.MustCompile(`/Type\s*/Pages\b[^>]*/Count\s+(\d+)`)
	objRE      = regexp.MustCompile(`(?m)^(\d+) 0 obj\b`)
	startxRE   = regexp.MustCompile(`startxref\n(\d+)\n%%EOF\n$`)
	xrefHeadRE = regexp.MustCompile(`^xref\n0 (\d+)\n`)
)

// requirePDF checks that a PDF has pages pages and a cross-reference table
// whose offsets point at its objects.
func requirePDF(t *testing.T, pdf []byte, pages int) {
	t.Helper()
	require.True(t, bytes.HasPrefix(pdf, []byte("%PDF-1.")), "header: %q", pdf[:min(len(pdf), 16)])
	// The objects are all outside the padding of a large file: look at
	// its ends only, which keeps the regular expressions fast.
	text := pdf
	if len(pdf) > 1<<18 {
		text = append(append([]byte(nil), pdf[:1<<16]...), pdf[len(pdf)-1<<16:]...)
	}
	require.Len(t, pageObjRE.FindAll(text, -1), pages, "/Type /Page objects")
	m := countRE.FindSubmatch(text)
	require.NotNil(t, m, "no /Count")
	require.Equal(t, strconv.Itoa(pages), string(m[1]))
	checkXref(t, pdf)
}

// checkXref follows startxref to the table and checks every entry.
func checkXref(t *testing.T, pdf []byte) {
	t.Helper()
	m := startxRE.FindSubmatch(pdf)
	require.NotNil(t, m, "no startxref at the end")
	at, err := strconv.Atoi(string(m[1]))
	require.NoError(t, err)
	table := pdf[at:]
	h := xrefHeadRE.FindSubmatch(table)
	require.NotNil(t, h, "startxref does not point at the xref table: %q", table[:min(len(table), 20)])
	n, _ := strconv.Atoi(string(h[1]))
	entries := table[len(h[0]):]
	require.Equal(t, "0000000000 65535 f \n", string(entries[:20]))
	head := pdf[:min(len(pdf), 1<<16)]
	require.Len(t, objRE.FindAll(head, -1), n-1, "objects in the file")
	for i := 1; i < n; i++ {
		e := entries[i*20 : (i+1)*20]
		off, err := strconv.Atoi(string(e[:10]))
		require.NoError(t, err)
		require.True(t, bytes.HasPrefix(pdf[off:], []byte(strconv.Itoa(i)+" 0 obj\n")), "object %d not at %d", i, off)
	}
}

func TestLargePDFIsStreamedWithExactLength(t *testing.T) {
	srv := newServer(t)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC", HomeState: "Utah"})
	for _, size := range []int64{3<<20 + 7, 1 << 20, 5000, 99_999, 100_000, 100_001} {
		doc := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, Title: "Big", Pages: 2, PDFSize: size})
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/documents/"+doc.ID.String()+"/download", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+signJWT(t, srv.AccessKey, srv.SecretKey, req.URL.Path, nil))
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		require.Equal(t, size, resp.ContentLength)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		require.Len(t, body, int(size))
		requirePDF(t, body, 2)
	}
}

func TestSmallPDFSizeIsNatural(t *testing.T) {
	srv := newServer(t)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC", HomeState: "Utah"})
	doc := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, Pages: 4, PDFSize: 10})
	r := do(t, srv, http.MethodGet, "/documents/"+doc.ID.String()+"/download", nil)
	require.Greater(t, len(r.Body), 500)
	requirePDF(t, r.Body, 4)
}

func TestPagePixels(t *testing.T) {
	for dpi, want := range map[int][2]int{72: {612, 792}, 150: {1275, 1650}, 300: {2550, 3300}} {
		w, h := acctadmintest.PagePixels(dpi)
		require.Equal(t, want, [2]int{w, h})
	}
}

// BenchmarkDownloadLargePDF measures how fast the fake streams a padded
// PDF over loopback, the ceiling of any client's download benchmark.
func BenchmarkDownloadLargePDF(b *testing.B) {
	const size = 64 << 20
	srv := newServer(b)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC", HomeState: "Utah"})
	doc := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, PDFSize: size})
	path := "/documents/" + doc.ID.String() + "/download"
	b.SetBytes(size)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		require.NoError(b, err)
		req.Header.Set("Authorization", "Bearer "+signJWT(b, srv.AccessKey, srv.SecretKey, path, nil))
		resp, err := srv.Client().Do(req)
		require.NoError(b, err)
		n, err := io.Copy(io.Discard, resp.Body)
		require.NoError(b, err)
		require.NoError(b, resp.Body.Close())
		require.EqualValues(b, size, n)
	}
}
