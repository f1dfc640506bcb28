package acctadmin

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/acctadmin/acctadmin-go/internal/handwritten"
)

// documentsPage returns a GET /documents answer of n documents with every
// quirk the API has: success as a string, the jurisdiction under the name
// state (and now and then under jurisdiction), both time shapes, fields the
// API description does not list, and nulls.
func documentsPage(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"success":"true","timestamp":"2024-05-01 10:00:00 -0700","result":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		created := fmt.Sprintf(`"2024-04-%02d 09:%02d:%02d -0700"`, 1+i%28, i%60, (i*7)%60)
		if i%3 == 0 {
			created = fmt.Sprintf(`"2024-04-%02dT09:%02d:%02d.000-07:00"`, 1+i%28, i%60, (i*7)%60)
		}
		updated := created
		if i%5 == 0 {
			updated = "null"
		}
		place := `"state":"Utah"`
		if i%4 == 0 {
			place = `"jurisdiction":"Idaho"`
		}
		company := `"Acme Holdings LLC"`
		if i%7 == 0 {
			company = "null"
		}
		id := fmt.Sprintf("6f1c%04x-8d2e-4b7a-9c3d-%012x", i, i*7919)
		fmt.Fprintf(&b, `{"id":"%s","created_at":%s,"updated_at":%s,"title":"Notice of annual report %d",`+
			`"status":"unread","type":"Regular Mail","source":"mail","pages":%d,"payment_locked":false,%s,`+
			`"company_name":%s,"company_id":"0b6c1d2e-3f40-4a5b-8c6d-7e8f9a0b1c2d",`+
			`"_links":{"self":"/documents/%s","download":"/documents/%s/download"},"legacy_id":%d}`,
			id, created, updated, i, 1+i%9, place, company, id, id, 100000+i)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkDecodeDocumentsPage decodes one page of 200 documents with every
// quirk: the SDK's tolerant decoder, as Documents.List reads a page (into
// typed times and ids, the jurisdiction taken from either field), against
// plain encoding/json into the hand-written client's structs (strings, no
// quirks handled).
func BenchmarkDecodeDocumentsPage(b *testing.B) {
	body := documentsPage(200)
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for i := 0; i < b.N; i++ {
			var page []jsonDocument
			ok, err := decodeEnvelope("GET /documents", body, &page)
			if err != nil || !ok {
				b.Fatal(ok, err)
			}
			docs := records(page, (*jsonDocument).document)
			if len(docs) != 200 || docs[1].Jurisdiction != "Utah" || docs[0].CreatedAt.IsZero() {
				b.Fatalf("decoded %d documents: %+v", len(docs), docs[0])
			}
		}
	})
	b.Run("handwritten", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for i := 0; i < b.N; i++ {
			var env handwritten.Envelope[[]handwritten.Document]
			if err := json.Unmarshal(body, &env); err != nil {
				b.Fatal(err)
			}
			if len(env.Result) != 200 {
				b.Fatalf("decoded %d documents", len(env.Result))
			}
		}
	})
}
