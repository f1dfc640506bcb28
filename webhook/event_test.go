package webhook_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/webhook"
)

// TestEventClaimSpellings checks that every documented spelling of every
// attribute fills the typed field.
func TestEventClaimSpellings(t *testing.T) {
	type want struct {
		name                  string
		invoice, doc, company uuid.UUID
		companyName           string
	}
	type spelling struct {
		name   string
		claims map[string]any
		want   want
	}
	var cases []spelling
	for _, k := range []string{"event", "event_name", "eventName", "event-name", "EventName", "name", "type", "event_type", "eventType", "EVENT"} {
		cases = append(cases, spelling{"name as " + k, map[string]any{k: "new-document"}, want{name: "new-document"}})
	}
	for _, k := range []string{"invoice_id", "invoiceId", "invoiceID", "invoice-id", "InvoiceId", "INVOICE_ID"} {
		cases = append(cases, spelling{"invoice id as " + k, map[string]any{k: testInvoiceID.String()}, want{invoice: testInvoiceID}})
	}
	for _, k := range []string{"document_id", "documentId", "documentID", "document-id", "DocumentId"} {
		cases = append(cases, spelling{"document id as " + k, map[string]any{k: testDocumentID.String()}, want{doc: testDocumentID}})
	}
	for _, k := range []string{"company_id", "companyId", "companyID", "company-id", "CompanyId"} {
		cases = append(cases, spelling{"company id as " + k, map[string]any{k: testCompanyID.String()}, want{company: testCompanyID}})
	}
	for _, k := range []string{"company_name", "companyName", "company-name", "CompanyName", "company"} {
		cases = append(cases, spelling{"company name as " + k, map[string]any{k: "Acme Widgets LLC"}, want{companyName: "Acme Widgets LLC"}})
	}
	full := want{name: "new-invoice", invoice: testInvoiceID, company: testCompanyID, companyName: "Acme Widgets LLC"}
	cases = append(cases, []spelling{
		{"nested in data", map[string]any{"data": invoiceClaims()}, full},
		{"nested in payload", map[string]any{"payload": invoiceClaims()}, full},
		{"nested in Data", map[string]any{"Data": invoiceClaims()}, full},
		{"name at the top, ids in data", map[string]any{"event": "new-invoice", "data": map[string]any{"invoiceId": testInvoiceID.String(), "companyId": testCompanyID.String(), "companyName": "Acme Widgets LLC"}}, full},
		{"top level wins over data", with(invoiceClaims(), "data", map[string]any{"invoice_id": uuid.New().String()}), full},
		{"data wins over payload", map[string]any{"payload": with(invoiceClaims(), "invoice_id", uuid.New().String()), "data": invoiceClaims()}, full},
		{"company object", map[string]any{"event": "new-invoice", "invoice": map[string]any{"id": testInvoiceID.String()}, "company": map[string]any{"id": testCompanyID.String(), "name": "Acme Widgets LLC"}}, full},
		{"document object", map[string]any{"type": "new-document", "document": map[string]any{"id": testDocumentID.String()}}, want{name: "new-document", doc: testDocumentID}},
		{"event wins over name", map[string]any{"event": "new-invoice", "name": "Acme Widgets LLC"}, want{name: "new-invoice"}},
		{"event_name wins over type", map[string]any{"type": "callback", "event_name": "new-document"}, want{name: "new-document"}},
		{"a non-string event falls back to name", map[string]any{"event": map[string]any{"x": 1}, "name": "new-invoice"}, want{name: "new-invoice"}},
		{"unknown event name passes through", map[string]any{"event": "invoice-paid", "invoice_id": testInvoiceID.String()}, want{name: "invoice-paid", invoice: testInvoiceID}},
		{"two spellings with the same value", map[string]any{"invoice_id": testInvoiceID.String(), "invoiceId": testInvoiceID.String()}, want{invoice: testInvoiceID}},
		{"two spellings with different values are ambiguous", map[string]any{"invoice_id": testInvoiceID.String(), "invoiceId": uuid.New().String()}, want{}},
		{"ambiguous name stays empty", map[string]any{"event": "new-invoice", "Event": "new-document", "name": "x"}, want{}},
		{"upper-case UUID", map[string]any{"invoice_id": strings.ToUpper(testInvoiceID.String())}, want{invoice: testInvoiceID}},
		{"URN UUID", map[string]any{"invoice_id": "urn:uuid:" + testInvoiceID.String()}, want{invoice: testInvoiceID}},
		{"UUID without dashes", map[string]any{"invoice_id": strings.ReplaceAll(testInvoiceID.String(), "-", "")}, want{invoice: testInvoiceID}},
		{"id that is not a UUID", map[string]any{"invoice_id": "INV-1001"}, want{}},
		{"id that is a number", map[string]any{"invoice_id": 1001}, want{}},
		{"empty id", map[string]any{"invoice_id": ""}, want{}},
		{"no attributes", map[string]any{"foo": "bar"}, want{}},
		{"no claims", map[string]any{}, want{}},
	}...)
	v := newVerifier(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := v.Verify(sign(t, tc.claims))
			require.NoError(t, err)
			assert.Equal(t, tc.want.name, ev.Name, "Name")
			assert.Equal(t, tc.want.invoice, ev.InvoiceID, "InvoiceID")
			assert.Equal(t, tc.want.doc, ev.DocumentID, "DocumentID")
			assert.Equal(t, tc.want.company, ev.CompanyID, "CompanyID")
			assert.Equal(t, tc.want.companyName, ev.CompanyName, "CompanyName")
			assert.Len(t, ev.Claims, len(tc.claims))
		})
	}
}

// TestEventKeepsNonUUIDClaims checks the documented choice: an id claim
// that is not a UUID leaves the typed field zero and stays in Claims.
func TestEventKeepsNonUUIDClaims(t *testing.T) {
	ev, err := newVerifier(t).Verify(sign(t, map[string]any{
		"event": webhook.EventNewDocument, "document_id": "DOC-77", "company_id": 31337,
	}))
	require.NoError(t, err)
	assert.Equal(t, uuid.Nil, ev.DocumentID)
	assert.Equal(t, uuid.Nil, ev.CompanyID)
	assert.Equal(t, "DOC-77", ev.Claims["document_id"])
	assert.Equal(t, json.Number("31337"), ev.Claims["company_id"])
	assert.Equal(t, webhook.EventNewDocument, ev.Name)
}

func TestFromContextWithoutEvent(t *testing.T) {
	ev, ok := webhook.FromContext(context.Background())
	assert.False(t, ok)
	assert.Nil(t, ev)
}
