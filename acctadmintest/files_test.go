package acctadmintest_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

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
