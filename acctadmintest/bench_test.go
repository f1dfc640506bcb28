package acctadmintest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// BenchmarkServe measures what the fake itself costs per request, in
// process (no sockets): the layers (log, faults, authentication, routing)
// and the handler, for a small answer, the largest listing page, a path
// no route has, and a route with required parameters.
func BenchmarkServe(b *testing.B) {
	f := acctadmintest.NewFake(acctadmintest.WithClock(fixedClock), acctadmintest.WithSeed(1), acctadmintest.WithDemoData())
	b.Cleanup(f.Close)
	for _, bc := range []struct{ name, target string }{
		{"callbacks", "/callbacks"},
		{"documents-page-200", "/documents?status=read&limit=200"},
		{"no-such-endpoint", "/documents/x/page/1/url/y"},
		{"offerings", "/filing-products/offerings?company_id=" + acctadmintest.DemoID("company", 1).String() + "&jurisdiction=UT"},
	} {
		path, _, _ := strings.Cut(bc.target, "?")
		tok := "Bearer " + signJWT(b, f.AccessKey, f.SecretKey, path, nil)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				req := httptest.NewRequest(http.MethodGet, bc.target, nil)
				req.Header.Set("Authorization", tok)
				rec := httptest.NewRecorder()
				f.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK && rec.Code != http.StatusNotFound {
					require.Failf(b, "status", "%d: %s", rec.Code, rec.Body)
				}
			}
			b.StopTimer()
			f.ResetRequests() // the log grows with every request
		})
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
