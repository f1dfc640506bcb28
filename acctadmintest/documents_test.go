package acctadmintest_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// seedDocuments adds n documents, one a minute from fixedNow - n minutes;
// every third one is read.
func seedDocuments(t *testing.T, srv *acctadmintest.Server, n int) []acctadmintest.Document {
	t.Helper()
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC", HomeState: "Utah"})
	var docs []acctadmintest.Document
	for i := 0; i < n; i++ {
		status := acctadmintest.DocumentUnread
		if i%3 == 2 {
			status = acctadmintest.DocumentRead
		}
		docs = append(docs, srv.AddDocument(acctadmintest.DocumentInput{
			CompanyID: co.ID,
			Title:     "Letter " + itoa(i),
			Pages:     1 + i%5,
			Status:    status,
			CreatedAt: fixedNow.Add(time.Duration(i-n) * time.Minute),
		}))
	}
	return docs
}

func TestDocumentsListShape(t *testing.T) {
	srv := newServer(t)
	docs := seedDocuments(t, srv, 3)
	r := do(t, srv, http.MethodGet, "/documents", nil)
	requireOK(t, r, `"true"`)
	items := r.Items(t)
	require.Len(t, items, 2, "unread by default")
	d := items[0]
	require.Equal(t, docs[0].ID.String(), d["id"])
	require.Equal(t, "Letter 0", d["title"])
	require.Equal(t, "unread", d["status"])
	require.Equal(t, "Regular Mail", d["type"])
	require.Equal(t, "mail", d["source"])
	require.EqualValues(t, 1, d["pages"])
	require.Equal(t, false, d["payment_locked"])
	require.Equal(t, "Utah", d["state"], "listings carry state")
	require.NotContains(t, d, "jurisdiction")
	require.Equal(t, "Acme LLC", d["company_name"])
	require.Equal(t, docs[0].CompanyID.String(), d["company_id"])
	require.Equal(t, "2025-03-14 08:06:26 -0700", d["created_at"])
	require.Contains(t, d, "_links", "undocumented fields ride along")
	require.Contains(t, string(r.Body), `"state":"Utah"`)

	r = do(t, srv, http.MethodGet, "/documents?status=read", nil)
	requireOK(t, r, `"true"`)
	items = r.Items(t)
	require.Len(t, items, 1)
	require.Equal(t, docs[2].ID.String(), items[0]["id"])
}

func TestDocumentGetCarriesJurisdiction(t *testing.T) {
	srv := newServer(t)
	docs := seedDocuments(t, srv, 1)
	r := do(t, srv, http.MethodGet, "/documents/"+docs[0].ID.String(), nil)
	requireOK(t, r, "true")
	var d map[string]any
	r.Result(t, &d)
	require.Equal(t, "Utah", d["jurisdiction"])
	require.NotContains(t, d, "state")
	require.Equal(t, docs[0].ID.String(), d["id"])
	require.Equal(t, "unread", d["status"], "reading the record does not mark it read")

	requireError(t, do(t, srv, http.MethodGet, "/documents/"+uuid.NewString(), nil), http.StatusNotFound, "document not found")
	requireError(t, do(t, srv, http.MethodGet, "/documents/xyz", nil), http.StatusNotFound, "document not found")
}

func TestDocumentsPaging(t *testing.T) {
	srv := newServer(t)
	seedDocuments(t, srv, 330) // 220 unread
	r := do(t, srv, http.MethodGet, "/documents", nil)
	require.Len(t, r.Items(t), 50)
	r = do(t, srv, http.MethodGet, "/documents?limit=200", nil)
	require.Len(t, r.Items(t), 200)
	r = do(t, srv, http.MethodGet, "/documents?limit=200&offset=200", nil)
	require.Len(t, r.Items(t), 20, "short last page")
	requireFieldError(t, do(t, srv, http.MethodGet, "/documents?limit=201", nil), "limit")
	requireFieldError(t, do(t, srv, http.MethodGet, "/documents?offset=-5", nil), "offset")

	// Stable order: created_at, then id.
	var prev string
	for off := 0; off < 220; off += 70 {
		for _, it := range do(t, srv, http.MethodGet, "/documents?limit=70&offset="+itoa(off), nil).Items(t) {
			require.GreaterOrEqual(t, it["created_at"].(string), prev)
			prev = it["created_at"].(string)
		}
	}
}

func TestDocumentsSameTimeOrderedByID(t *testing.T) {
	srv := newServer(t)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC", HomeState: "Utah"})
	for i := 0; i < 20; i++ {
		srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID})
	}
	items := do(t, srv, http.MethodGet, "/documents", nil).Items(t)
	require.Len(t, items, 20)
	for i := 1; i < len(items); i++ {
		a, b := uuid.MustParse(items[i-1]["id"].(string)), uuid.MustParse(items[i]["id"].(string))
		require.Negative(t, strings.Compare(string(a[:]), string(b[:])))
	}
}

func TestDocumentsStartStop(t *testing.T) {
	srv := newServer(t)
	docs := seedDocuments(t, srv, 10) // created fixedNow-10m .. fixedNow-1m
	q := url.Values{}
	q.Set("status", "unread")
	q.Set("start", docs[3].CreatedAt.In(time.FixedZone("", 2*3600)).Format("2006-01-02 15:04:05 -0700"))
	q.Set("stop", docs[7].CreatedAt.Format(time.RFC3339))
	items := do(t, srv, http.MethodGet, "/documents?"+q.Encode(), nil).Items(t)
	var ids []string
	for _, it := range items {
		ids = append(ids, it["id"].(string))
	}
	// 3..7 inclusive, without the read ones (5).
	require.Equal(t, []string{docs[3].ID.String(), docs[4].ID.String(), docs[6].ID.String(), docs[7].ID.String()}, ids)

	for _, tc := range []struct{ q, field string }{
		{"start=yesterday", "start"},
		{"stop=2025-03-14", "stop"},
		// An unescaped + in the offset arrives as a space.
		{"start=2025-03-14 08:00:00 +0000", "start"},
		{"start=2025-03-14T10:00:00Z&stop=2025-03-14T09:00:00Z", "stop"},
		{"status=all", "status"},
	} {
		requireFieldError(t, do(t, srv, http.MethodGet, "/documents?"+strings.ReplaceAll(tc.q, " ", "%20"), nil), tc.field)
	}
}

func TestDocumentDownloadMarksRead(t *testing.T) {
	srv := newServer(t)
	docs := seedDocuments(t, srv, 2)
	target := docs[1]
	require.Len(t, do(t, srv, http.MethodGet, "/documents", nil).Items(t), 2)

	r := do(t, srv, http.MethodGet, "/documents/"+target.ID.String()+"/download", nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, "application/pdf", r.Header.Get("Content-Type"))
	require.Equal(t, `attachment; filename="Letter 1.pdf"`, r.Header.Get("Content-Disposition"))
	require.Equal(t, itoa(len(r.Body)), r.Header.Get("Content-Length"))
	requirePDF(t, r.Body, target.Pages)

	got, _ := srv.Document(target.ID)
	require.Equal(t, acctadmintest.DocumentRead, got.Status)
	items := do(t, srv, http.MethodGet, "/documents", nil).Items(t)
	require.Len(t, items, 1, "the downloaded document left the unread listing")
	require.Equal(t, docs[0].ID.String(), items[0]["id"])
	items = do(t, srv, http.MethodGet, "/documents?status=read", nil).Items(t)
	require.Len(t, items, 1)
	require.Equal(t, target.ID.String(), items[0]["id"])
	require.Equal(t, "read", items[0]["status"])

	requireError(t, do(t, srv, http.MethodGet, "/documents/"+uuid.NewString()+"/download", nil), http.StatusNotFound, "document not found")
}

func TestDocumentPages(t *testing.T) {
	srv := newServer(t)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC", HomeState: "Utah"})
	doc := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, Pages: 3})
	base := "/documents/" + doc.ID.String() + "/page/"

	for _, tc := range []struct {
		query string
		w, h  int
	}{{"", 1275, 1650}, {"?dpi=72", 612, 792}, {"?dpi=150", 1275, 1650}, {"?dpi=300", 2550, 3300}} {
		r := do(t, srv, http.MethodGet, base+"2"+tc.query, nil)
		requirePNG(t, r, tc.w, tc.h)
	}
	requireFieldError(t, do(t, srv, http.MethodGet, base+"0?dpi=100", nil), "dpi")
	requireFieldError(t, do(t, srv, http.MethodGet, base+"0?dpi=high", nil), "dpi")
	requireFieldError(t, do(t, srv, http.MethodGet, base+"one", nil), "page_number")
	requireError(t, do(t, srv, http.MethodGet, base+"3", nil), http.StatusNotFound, "page 3")
	requireError(t, do(t, srv, http.MethodGet, base+"-1", nil), http.StatusNotFound, "page -1")
	requireError(t, do(t, srv, http.MethodGet, "/documents/"+uuid.NewString()+"/page/0", nil), http.StatusNotFound, "document not found")
	got, _ := srv.Document(doc.ID)
	require.Equal(t, acctadmintest.DocumentUnread, got.Status, "page images do not mark read")
}

func TestDocumentAttachmentNames(t *testing.T) {
	srv := newServer(t)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme LLC", HomeState: "Utah"})
	for title, want := range map[string]string{
		`Say "hi"`: `attachment; filename="Say \"hi\".pdf"`,
		"Résumé":   `attachment; filename="R_sum_.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9.pdf`,
	} {
		doc := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, Title: title})
		r := do(t, srv, http.MethodGet, "/documents/"+doc.ID.String()+"/download", nil)
		require.Equal(t, want, r.Header.Get("Content-Disposition"))
		requirePDF(t, r.Body, 1)
	}
}

func TestDocumentsByJurisdictionAndCompany(t *testing.T) {
	srv := newServer(t)
	a := srv.AddCompany(acctadmintest.CompanyInput{Name: "Alpha LLC", HomeState: "Utah"})
	b := srv.AddCompany(acctadmintest.CompanyInput{Name: "Beta Inc", HomeState: "Idaho"})
	aUtah := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: a.ID, CreatedAt: fixedNow.Add(-3 * time.Minute)})
	aIdaho := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: a.ID, Jurisdiction: "ID", CreatedAt: fixedNow.Add(-2 * time.Minute)})
	bIdaho := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: b.ID, CreatedAt: fixedNow.Add(-time.Minute)})
	ids := func(q string) []string {
		out := []string{}
		for _, it := range do(t, srv, http.MethodGet, "/documents?"+q, nil).Items(t) {
			out = append(out, it["id"].(string))
		}
		return out
	}
	require.Equal(t, []string{aIdaho.ID.String(), bIdaho.ID.String()}, ids("jurisdiction=Idaho"))
	require.Equal(t, []string{aIdaho.ID.String(), bIdaho.ID.String()}, ids("jurisdiction=id"))
	require.Equal(t, []string{aUtah.ID.String(), aIdaho.ID.String()}, ids("company_id="+a.ID.String()))
	require.Equal(t, []string{aIdaho.ID.String()}, ids("company_id="+a.ID.String()+"&jurisdiction=Idaho"))
	require.Equal(t, []string{}, ids("company_id="+b.ID.String()+"&jurisdiction=UT"))
	require.Equal(t, []string{}, ids("jurisdiction=Idaho&status=read"))
	requireFieldError(t, do(t, srv, http.MethodGet, "/documents?jurisdiction=Westeros", nil), "jurisdiction")
	requireFieldError(t, do(t, srv, http.MethodGet, "/documents?company_id=acme", nil), "company_id")
	requireError(t, do(t, srv, http.MethodGet, "/documents?company_id="+uuid.NewString(), nil), http.StatusNotFound, "company not found")
}

// Any document type is stored and served as given (customers' clients see
// some forty of them).
func TestDocumentsKeepAnyType(t *testing.T) {
	srv := newServer(t)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Alpha LLC", HomeState: "Utah"})
	for _, ty := range []string{"Certified Mail service of Process", "EIN - SS4 Form", "BOI Amendment", "a type of tomorrow"} {
		d := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, Type: ty})
		require.Equal(t, ty, do(t, srv, http.MethodGet, "/documents/"+d.ID.String(), nil).JSON(t)["result"].(map[string]any)["type"])
	}
}

// A payment-locked document is held until it is paid for: its download,
// pages, page URLs and a bulk download naming it answer 402 saying
// payment is required, and leave it unread; a declined card changes
// nothing; unlocking charges its price, makes a paid invoice and
// releases it.
func TestPaymentLockedDocumentIsHeldUntilUnlocked(t *testing.T) {
	srv := newServer(t)
	co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Lapsed LLC", HomeState: "Utah"})
	doc := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, Title: "Notice", Pages: 2, PaymentLocked: true, UnlockPrice: "30.00"})
	other := srv.AddDocument(acctadmintest.DocumentInput{CompanyID: co.ID, Title: "Other", PaymentLocked: true})
	id := doc.ID.String()

	refused := []string{
		"/documents/" + id + "/download",
		"/documents/" + id + "/page/0",
		"/documents/" + id + "/page/1/url",
		"/documents/bulk-download?ids[]=" + id,
	}
	for _, path := range refused {
		requireError(t, do(t, srv, http.MethodGet, path, nil), http.StatusPaymentRequired, "payment required")
	}
	got, _ := srv.Document(doc.ID)
	require.Equal(t, acctadmintest.DocumentUnread, got.Status, "a refused download leaves it unread")
	require.True(t, got.PaymentLocked)
	items := do(t, srv, http.MethodGet, "/documents", nil).Items(t)
	require.Len(t, items, 2)
	require.Equal(t, true, pick(t, items, map[string]any{"id": id})["payment_locked"])
	require.Contains(t, string(do(t, srv, http.MethodGet, "/documents/"+id, nil).Body), `"unlock_price":30.00`)
	require.Contains(t, string(do(t, srv, http.MethodGet, "/documents/"+other.ID.String(), nil).Body), `"unlock_price":25.00`)

	// A declined card: 402 saying so, nothing changes.
	declined := storeCard(t, srv, card(acctadmintest.DeclinedCardNumber, "12", "2031"))["id"]
	invoicesBefore := len(srv.Invoices())
	requireError(t, do(t, srv, http.MethodPost, "/documents/unlock/"+id, map[string]any{"payment_token": declined}), http.StatusPaymentRequired, "declined")
	got, _ = srv.Document(doc.ID)
	require.True(t, got.PaymentLocked)
	require.Len(t, srv.Invoices(), invoicesBefore)
	requireError(t, do(t, srv, http.MethodGet, "/documents/"+id+"/download", nil), http.StatusPaymentRequired, "payment required")

	// A good card: charged the price, a paid invoice, the document released.
	good := storeCard(t, srv, card("4242424242424242", "12", "2031"))["id"]
	r := do(t, srv, http.MethodPost, "/documents/unlock/"+id, map[string]any{"payment_token": good})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	m := r.JSON(t)
	require.Equal(t, "capture", m["action"])
	require.Contains(t, string(r.Body), `"amount":30.00`)
	require.Len(t, srv.Invoices(), invoicesBefore+1)
	inv := srv.Invoices()[len(srv.Invoices())-1]
	require.Equal(t, []any{inv.ID.String()}, m["invoice_ids"])
	require.Equal(t, acctadmintest.InvoicePaid, inv.Status)
	require.Equal(t, co.ID, inv.CompanyID)
	require.Len(t, inv.Items, 1)
	require.Equal(t, "30.00", inv.Items[0].Price)
	got, _ = srv.Document(doc.ID)
	require.False(t, got.PaymentLocked)
	require.NotContains(t, string(do(t, srv, http.MethodGet, "/documents/"+id, nil).Body), `unlock_price`)

	r = do(t, srv, http.MethodGet, "/documents/"+id+"/download", nil)
	require.Equal(t, http.StatusOK, r.Status)
	requirePDF(t, r.Body, 2)
	got, _ = srv.Document(doc.ID)
	require.Equal(t, acctadmintest.DocumentRead, got.Status)

	// Unlocking it again is refused, and charges nothing; so is an
	// unknown document.
	requireError(t, do(t, srv, http.MethodPost, "/documents/unlock/"+id, map[string]any{"payment_token": good}), http.StatusBadRequest, "not payment-locked")
	requireError(t, do(t, srv, http.MethodPost, "/documents/unlock/"+uuid.NewString(), map[string]any{"payment_token": good}), http.StatusNotFound, "document not found")
	require.Len(t, srv.Invoices(), invoicesBefore+1)
	// The other stays locked.
	requireError(t, do(t, srv, http.MethodGet, "/documents/"+other.ID.String()+"/download", nil), http.StatusPaymentRequired, "payment required")
}

// The control surface seeds payment-locked documents, with their price.
func TestControlSeedsPaymentLockedDocuments(t *testing.T) {
	srv := newServer(t, acctadmintest.WithControl())
	m := ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/companies", `{"name":"Curl Co LLC","home_state":"ut"}`), http.StatusCreated)
	m = ctlJSON(t, ctl(t, srv, http.MethodPost, "/_fake/documents",
		`{"company_id":"`+m["id"].(string)+`","title":"Held","payment_locked":true,"unlock_price":"12.50"}`), http.StatusCreated)
	require.Equal(t, true, m["payment_locked"])
	require.Equal(t, 12.5, m["unlock_price"])
	requireError(t, do(t, srv, http.MethodGet, "/documents/"+m["id"].(string)+"/download", nil), http.StatusPaymentRequired, "payment required")
	requireControlError(t, ctl(t, srv, http.MethodPost, "/_fake/documents", `{"company":"Curl Co LLC","unlock_price":"cheap"}`), http.StatusBadRequest, "unlock_price")
}
