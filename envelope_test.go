package acctadmin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// Every exported record type reads the API's own JSON with plain
// json.Unmarshal, in every shape the SDK reads: times as the API writes
// them, amounts and counts as strings, a turnaround in an array, the
// older "state" name of a document's jurisdiction, jurisdictions as
// objects. The test finds the record types in the package's source, so a
// new one cannot be left out.

// recordSample is the API's JSON of a record type, and what the SDK reads
// from it.
type recordSample struct {
	json string
	// sdk reads the JSON as the SDK's own calls do.
	sdk func(data []byte) (any, error)
	// into is a new value of the record type, for json.Unmarshal.
	into func() any
}

// sdkRead reads data as an SDK call reads a list of records R.
func sdkRead[R any](data []byte) (any, error) {
	var l []R
	_, err := decodeEnvelope("GET /records", []byte(`{"success":true,"result":[`+string(data)+`]}`), &l)
	if err != nil || len(l) != 1 {
		return nil, fmt.Errorf("%d records, %w", len(l), err)
	}
	return l[0], nil
}

// pageRead reads data as a listing reads a page of records: into their
// JSON forms J, turned into records by record.
func pageRead[J, R any](record func(*J) R) func(data []byte) (any, error) {
	return func(data []byte) (any, error) {
		var page []J
		_, err := decodeEnvelope("GET /records", []byte(`{"success":true,"result":[`+string(data)+`]}`), &page)
		if err != nil || len(page) != 1 {
			return nil, fmt.Errorf("%d records, %w", len(page), err)
		}
		return records(page, record)[0], nil
	}
}

// plainRead reads data as json.Unmarshal does.
func plainRead[R any](data []byte) (any, error) {
	var r R
	err := json.Unmarshal(data, &r)
	return r, err
}

func newOf[R any]() func() any { return func() any { return new(R) } }

const (
	sampleID   = `"6a1e8a0e-3a3f-4c1b-9a55-0e1f2d3c4b5a"`
	sampleTime = `"2024-03-04 05:06:07 -0700"`
)

var recordSamples = map[string]recordSample{
	"Callback": {`{"id":` + sampleID + `,"created_at":` + sampleTime + `,"url":"https://hooks.example.com/x"}`,
		pageRead((*jsonCallback).callback), newOf[Callback]()},
	"Company": {`{"id":` + sampleID + `,"name":"Acme","home_state":"Utah","entity_type":"LLC","created_at":` + sampleTime + `,"updated_at":"2024-03-04T12:06:07Z"}`,
		sdkRead[Company], newOf[Company]()},
	"ComplianceEvent": {`{"id":` + sampleID + `,"created_at":` + sampleTime + `,"updated_at":"","status":"pending","due_date":"2024-05-01","jurisdictions":[{"jurisdiction":"Utah"},"Idaho"],"company":"Acme","company_id":` + sampleID + `,"filing":"Annual Report"}`,
		sdkRead[ComplianceEvent], newOf[ComplianceEvent]()},
	"Document": {`{"id":` + sampleID + `,"created_at":` + sampleTime + `,"updated_at":null,"title":"Notice","status":"unread","type":"Regular Mail","source":"scanned","pages":3,"payment_locked":false,"state":"Utah","company_name":"Acme","company_id":` + sampleID + `}`,
		pageRead((*jsonDocument).document), newOf[Document]()},
	"FilingProduct": {`{"id":` + sampleID + `,"name":"Annual Report","filing_name":"annual report","price":"149.00","filing_methods":[{"id":` + sampleID + `,"name":"Online","type":"online","cost":"10.5","filed_in":[{"days":"2","hours":4}],"docs_in":{"days":1,"hours":0},"agency_name":"SOS","filing_description":"d","jurisdiction":"Utah"}]}`,
		plainRead[FilingProduct], newOf[FilingProduct]()},
	"FilingMethod": {`{"id":` + sampleID + `,"name":"Mail","type":"mail","cost":25,"filed_in":null,"docs_in":[],"agency_name":"SOS","jurisdiction":"Idaho"}`,
		plainRead[FilingMethod], newOf[FilingMethod]()},
	"Invoice": {`{"id":` + sampleID + `,"status":"unpaid","company":"Acme","company_id":` + sampleID + `,"created_at":` + sampleTime + `,"updated_at":` + sampleTime + `,"due_date":"2024-06-01","items":[{"price":"19.99","description":"RA","quantity":"2"},{"price":5,"description":"fee"}]}`,
		sdkRead[Invoice], newOf[Invoice]()},
	"InvoiceItem": {`{"price":"19.99","description":"RA","quantity":"3"}`,
		sdkRead[InvoiceItem], newOf[InvoiceItem]()},
	"RegisteredAgentProduct": {`{"id":` + sampleID + `,"name":"RA Utah","jurisdiction":"Utah","price":"119.00","url":"https://example.com/ra"}`,
		sdkRead[RegisteredAgentProduct], newOf[RegisteredAgentProduct]()},
	"Resource": {`{"id":` + sampleID + `,"name":"Form","url":"https://example.com/f","kind":"document","jurisdiction":"Utah","agency":"SOS","entity_types":["LLC"]}`,
		sdkRead[Resource], newOf[Resource]()},
	"Service": {`{"id":` + sampleID + `,"created_at":` + sampleTime + `,"updated_at":"2024-03-04T05:06:07.123+07:00","status":"active","type":"registered-agent","jurisdiction":"Utah","jurisdiction_id":` + sampleID + `,"company":"Acme","company_id":` + sampleID + `}`,
		sdkRead[Service], newOf[Service]()},
	"Website": {`{"id":` + sampleID + `,"name":"Acme","url":"https://acme.example","billing_name":"Acme","login_url":"https://acme.example/login","created_at":` + sampleTime + `,"updated_at":` + sampleTime + `,"emails":["a@acme.example"],"phone_numbers":["555"],"addresses":[{"line_1":"1 Main","city":"Provo","state":"UT","zip_code":"84601","country":"US"}]}`,
		sdkRead[Website], newOf[Website]()},
	"Address": {`{"line_1":"1 Main","line_2":"","city":"Provo","state":"UT","zip_code":"84601","country":"US"}`,
		plainRead[Address], newOf[Address]()},
	"RegisteredAgent": {`{"name":"Registered Agents Inc","address":{"line1":"7901 4th St N","line2":"STE 300","city":"St. Petersburg","state_province_region":"FL","zip_postal_code":"33702"}}`,
		plainRead[RegisteredAgent], newOf[RegisteredAgent]()},
	"Turnaround": {`[{"days":"1","hours":"2"}]`, plainRead[Turnaround], newOf[Turnaround]()},
	"Account": {`{"id":` + sampleID + `,"name":"Jane","email":"jane@acme.example","created_at":` + sampleTime + `}`,
		sdkRead[Account], newOf[Account]()},
	"DashPanel": {`{"companies":3,"active_services":2,"unread_documents":1,"unpaid_invoices":1,"unpaid_total":"19.99","items_requiring_attention":0,"upcoming_due_dates":[{"company_id":` + sampleID + `,"company":"Acme","filing":"Annual Report","due_date":"2024-05-01"}]}`,
		sdkRead[DashPanel], newOf[DashPanel]()},
	"DueOn": {`{"company_id":` + sampleID + `,"company":"Acme","filing":"Annual Report","due_date":"2024-05-01"}`,
		plainRead[DueOn], newOf[DueOn]()},
	"BillingAddress": {`{"address1":"1 Main","address2":null,"city":"Provo","state":"UT","zip":"84601","country":"US"}`,
		plainRead[BillingAddress], newOf[BillingAddress]()},
	"PaymentMethod": {`{"id":` + sampleID + `,"first_name":"Jane","last_name":"Doe","brand":"visa","last4":"4242","exp_month":"12","exp_year":2030,"is_prepaid":false,"created_at":` + sampleTime + `,"billing_address":{"address1":"1 Main","address2":null,"city":"Provo","state":"UT","zip":"84601","country":"US"}}`,
		sdkRead[PaymentMethod], newOf[PaymentMethod]()},
	"CartItem": {`{"id":` + sampleID + `,"created_at":` + sampleTime + `,"updated_at":` + sampleTime + `,"company_id":` + sampleID + `,"account_id":` + sampleID + `,"product_id":` + sampleID + `,"product_type":"filing","product_option_id":null,"title":"Annual Report","total":"149.00","quantity":"1","status":"active"}`,
		sdkRead[CartItem], newOf[CartItem]()},
	"OrderItem": {`{"id":` + sampleID + `,"created_at":` + sampleTime + `,"updated_at":` + sampleTime + `,"company_id":` + sampleID + `,"name":"EIN","order_id":` + sampleID + `,"quantity":"1","status":"requiring-client-attention","type":"filing","product":{"id":` + sampleID + `,"price":"70.00","name":"EIN","filing_method":{"id":` + sampleID + `,"name":"Online","type":"online","cost":"0","filed_in":[{"days":1,"hours":0}]}}}`,
		sdkRead[OrderItem], newOf[OrderItem]()},
	"OrderedProduct": {`{"id":` + sampleID + `,"price":70,"name":"EIN","filing_method":null}`,
		plainRead[OrderedProduct], newOf[OrderedProduct]()},
	"FileLink": {`{"url":"https://files.example/x.pdf","expires_at":` + sampleTime + `,"ids":[` + sampleID + `]}`,
		sdkRead[FileLink], newOf[FileLink]()},
	"FormSchema": {`{"filing_method_id":` + sampleID + `,"name":"Annual Report","schema":{"type":"object"}}`,
		sdkRead[FormSchema], newOf[FormSchema]()},
	"SignedForm": {`{"id":` + sampleID + `,"name":"Form","filing_method_id":` + sampleID + `,"pages":"2"}`,
		sdkRead[SignedForm], newOf[SignedForm]()},
	"SimpleProduct": {`{"id":` + sampleID + `,"name":"Certificate","price":"25.00"}`,
		sdkRead[SimpleProduct], newOf[SimpleProduct]()},
	"Session": {`{"access_token":"tok-123","expires_at":` + sampleTime + `,"user":{"id":` + sampleID + `,"email":"jane@acme.example"}}`,
		plainRead[Session], newOf[Session]()},
	"ServiceInfo": {`{"status":"active","info":{"contact_person":{"first_name":"Jane","address":{"line_1":"1 Main","city":"Provo"}},"official.director":[{"role":"director","first_name":"Joe","address":{"city":"Provo"}}]}}`,
		plainRead[ServiceInfo], newOf[ServiceInfo]()},
	"ServiceContact": {`{"title":"CEO","first_name":"Jane","last_name":"Doe","phone":"555","email":"j@acme.example","address":{"line_1":"1 Main","zip_postal_code":"84601","state_province_region":"UT"}}`,
		plainRead[ServiceContact], newOf[ServiceContact]()},
	"ServiceOfficer": {`{"role":"president","first_name":"Jane","last_name":"Doe","address":{"city":"Provo","country":"US"}}`,
		plainRead[ServiceOfficer], newOf[ServiceOfficer]()},
	"ServiceAddress": {`{"line_1":"1 Main","line_2":"Suite 2","city":"Provo","country":"US","zip_postal_code":"84601","state_province_region":"UT"}`,
		plainRead[ServiceAddress], newOf[ServiceAddress]()},
}

// recordTypes returns the exported struct types of the package (test
// files aside) that have a field with a json tag, less the parameter
// types (named ...Params), which are sent, not read.
func recordTypes(t *testing.T) []string {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || !ts.Name.IsExported() || strings.HasSuffix(ts.Name.Name, "Params") {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, field := range st.Fields.List {
				if field.Tag != nil && strings.Contains(field.Tag.Value, `json:"`) && !strings.Contains(field.Tag.Value, `json:"-"`) {
					out = append(out, ts.Name.Name)
					break
				}
			}
			return true
		})
	}
	sort.Strings(out)
	return out
}

func TestEveryRecordTypeReadsTheAPIsJSONWithJSONUnmarshal(t *testing.T) {
	types := recordTypes(t)
	if len(types) < 12 {
		t.Fatalf("found only %d record types: %v", len(types), types)
	}
	for _, name := range types {
		t.Run(name, func(t *testing.T) {
			s, ok := recordSamples[name]
			if !ok {
				t.Fatalf("no sample of the API's JSON for %s: add one to recordSamples", name)
			}
			want, err := s.sdk([]byte(s.json))
			if err != nil {
				t.Fatalf("the SDK does not read the sample: %v", err)
			}
			got := s.into()
			if err := json.Unmarshal([]byte(s.json), got); err != nil {
				t.Fatalf("json.Unmarshal into %s: %v", name, err)
			}
			// Raw, where a record keeps it, is the JSON as given; the
			// rest must be what the SDK reads.
			if raw := reflect.ValueOf(got).Elem().FieldByName("Raw"); raw.IsValid() {
				if string(raw.Bytes()) != s.json {
					t.Fatalf("Raw = %s, want the JSON as given", raw.Bytes())
				}
				raw.SetBytes(nil)
				w := reflect.New(reflect.TypeOf(want)).Elem()
				w.Set(reflect.ValueOf(want))
				w.FieldByName("Raw").SetBytes(nil)
				want = w.Interface()
			}
			if !reflect.DeepEqual(reflect.ValueOf(got).Elem().Interface(), want) {
				t.Fatalf("json.Unmarshal read %+v, the SDK %+v", reflect.ValueOf(got).Elem().Interface(), want)
			}
			if reflect.ValueOf(want).IsZero() {
				t.Fatalf("the sample reads as the zero %s", name)
			}
			// In a list, and as null.
			list := reflect.New(reflect.SliceOf(reflect.TypeOf(want)))
			err = json.Unmarshal([]byte("["+s.json+",null]"), list.Interface())
			if err == nil && list.Elem().Len() == 2 {
				if raw := list.Elem().Index(0).FieldByName("Raw"); raw.IsValid() {
					raw.SetBytes(nil)
				}
			}
			if err != nil || list.Elem().Len() != 2 || !reflect.DeepEqual(list.Elem().Index(0).Interface(), want) || !list.Elem().Index(1).IsZero() {
				t.Fatalf("as a list: %v, %+v", err, list.Elem().Interface())
			}
		})
	}
	// Spot checks that the tolerant shapes were read, not skipped.
	var doc Document
	if err := json.Unmarshal([]byte(recordSamples["Document"].json), &doc); err != nil || doc.Jurisdiction != "Utah" || doc.CreatedAt.IsZero() {
		t.Fatalf("Document = %+v, %v", doc, err)
	}
	var ev ComplianceEvent
	if err := json.Unmarshal([]byte(recordSamples["ComplianceEvent"].json), &ev); err != nil || !reflect.DeepEqual(ev.Jurisdictions, []string{"Utah", "Idaho"}) {
		t.Fatalf("ComplianceEvent = %+v, %v", ev, err)
	}
	var svc Service
	if err := json.Unmarshal([]byte(recordSamples["Service"].json), &svc); err != nil ||
		!svc.CreatedAt.Equal(time.Date(2024, 3, 4, 12, 6, 7, 0, time.UTC)) || svc.ID != uuid.MustParse(strings.Trim(sampleID, `"`)) {
		t.Fatalf("Service = %+v, %v", svc, err)
	}
	// A value the SDK refuses, json.Unmarshal refuses too.
	if err := json.Unmarshal([]byte(`{"created_at":"yesterday"}`), &svc); err == nil {
		t.Fatal("a service with a bad time was read")
	}
}

// An invoice line without a quantity bills one; a quantity may come as a
// numeric string; anything else is an error that names no internal type.
func TestInvoiceItemQuantity(t *testing.T) {
	for _, tc := range []struct {
		json  string
		qty   int
		total string
	}{
		{`{"price":"19.99"}`, 1, "19.99"},
		{`{"price":"19.99","quantity":null}`, 1, "19.99"},
		{`{"price":"19.99","quantity":"2"}`, 2, "39.98"},
		{`{"price":"19.99","quantity":" 3 "}`, 3, "59.97"},
		{`{"price":"19.99","quantity":0}`, 0, "0.00"},
		{`{"price":"19.99","quantity":4}`, 4, "79.96"},
	} {
		var it InvoiceItem
		if err := json.Unmarshal([]byte(tc.json), &it); err != nil || it.Quantity != tc.qty || it.Total().String() != tc.total {
			t.Errorf("%s: quantity %d, total %s, %v; want %d, %s", tc.json, it.Quantity, it.Total(), err, tc.qty, tc.total)
		}
	}
	var it InvoiceItem
	err := json.Unmarshal([]byte(`{"price":"1","quantity":"two"}`), &it)
	if err == nil || strings.Contains(err.Error(), "flexInt") || strings.Contains(err.Error(), "acctadmin.") {
		t.Fatalf("quantity \"two\": %v", err)
	}
	// Through the SDK, a whole answer with a string quantity reads.
	srv := newAPIServer(t, ok(`[{"id":`+sampleID+`,"status":"unpaid","items":[{"price":"10.00","quantity":"2"},{"price":"1.50"}]}]`))
	invs, err := newTestClient(t, srv).Invoices.List(context.Background(), nil)
	if err != nil || len(invs) != 1 || invs[0].Total().String() != "21.50" {
		t.Fatalf("Invoices.List = %+v, %v; want one invoice of 21.50", invs, err)
	}
}

func TestEnvelopeSuccessForms(t *testing.T) {
	cases := map[string]bool{
		`{"success":true,"result":[]}`:    true,
		`{"success":"true","result":[]}`:  true,
		`{"success":false,"result":[]}`:   false,
		`{"success":"false","result":[]}`: false,
	}
	for in, want := range cases {
		var out []jsonCallback
		got, err := decodeEnvelope("GET /callbacks", []byte(in), &out)
		if err != nil || got != want {
			t.Errorf("decodeEnvelope(%s) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{`{"success":"yes","result":[]}`, `{"success":1,"result":[]}`, `{"success":null,"result":[]}`} {
		var out []jsonCallback
		_, err := decodeEnvelope("GET /callbacks", []byte(in), &out)
		var de *DecodeError
		if !errors.As(err, &de) {
			t.Errorf("decodeEnvelope(%s): got %v, want a *DecodeError", in, err)
		}
	}
}

func TestDecodeErrorsNameEndpointAndPath(t *testing.T) {
	const ep = "GET /callbacks"
	good := `{"id":"6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c11","created_at":"2024-05-01 10:00:00 -0600","url":"https://x.test/cb"}`
	cases := []struct {
		name, body, path, msg string
	}{
		{"not json", `<html>oops</html>`, "", "not valid JSON"},
		{"truncated", `{"success":true,"result":[` + good, "", "not valid JSON"},
		{"array at top", `[1,2]`, "", "not the API's envelope"},
		{"no success", `{"result":[]}`, "", "not the API's envelope"},
		{"string at top", `"hello"`, "", "not the API's envelope"},
		{"result of wrong kind", `{"success":true,"result":{"a":1}}`, "result", "want a JSON array"},
		{"bad time in second item", `{"success":true,"result":[` + good + `,{"id":"6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c12","created_at":"soon"}]}`, "result[1].created_at", "unrecognised time"},
		{"bad uuid", `{"success":true,"result":[{"id":"not-a-uuid"}]}`, "result[0].id", "invalid UUID"},
		{"number for string", `{"success":true,"result":[{"url":42}]}`, "result[0].url", "cannot read JSON number as string"},
		{"bad success flag", `{"success":"yes","timestamp":7,"result":[]}`, "success", "want a boolean"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out []jsonCallback
			_, err := decodeEnvelope(ep, []byte(tc.body), &out)
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("got %v, want a *DecodeError", err)
			}
			if de.Endpoint != ep || de.Path != tc.path {
				t.Fatalf("endpoint %q path %q, want %q %q", de.Endpoint, de.Path, ep, tc.path)
			}
			if !strings.Contains(de.Error(), tc.msg) || !strings.Contains(de.Error(), ep) {
				t.Fatalf("message %q does not say %q", de.Error(), tc.msg)
			}
		})
	}
}

func TestDecodePathInsideRecordsWithOwnDecoder(t *testing.T) {
	// Invoice keeps its raw record through its own UnmarshalJSON; the path
	// must still reach the bad field inside it.
	body := `{"success":true,"result":[{"id":"6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c11","items":[{"price":"1.00"},{"price":"free"}]}]}`
	var out []Invoice
	_, err := decodeEnvelope("GET /invoices", []byte(body), &out)
	var de *DecodeError
	if !errors.As(err, &de) || de.Path != "result[0].items[1].price" {
		t.Fatalf("got %v, want the path result[0].items[1].price", err)
	}
}

// A record's time.Time fields are read in every shape Time accepts, and a
// bad one is named by its path, in pages read as JSON forms and in records
// that read themselves alike.
func TestDecodeTimesInsideRecords(t *testing.T) {
	var services []Service
	body := `{"success":true,"result":[{"id":"6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c11","created_at":"2024-05-01 10:00:00 -0600","updated_at":"2024-05-02T10:00:00Z"}]}`
	if _, err := decodeEnvelope("GET /services", []byte(body), &services); err != nil {
		t.Fatal(err)
	}
	s := services[0]
	created, updated := time.Date(2024, 5, 1, 16, 0, 0, 0, time.UTC), time.Date(2024, 5, 2, 10, 0, 0, 0, time.UTC)
	if !s.CreatedAt.Equal(created) || !s.UpdatedAt.Equal(updated) || !s.CreatedAt.Before(s.UpdatedAt) || s.UpdatedAt.Sub(s.CreatedAt) != 18*time.Hour {
		t.Fatalf("times = %v, %v", s.CreatedAt, s.UpdatedAt)
	}
	if _, off := s.CreatedAt.Zone(); off != -6*3600 {
		t.Fatalf("offset %d, want the API's -0600 kept", off)
	}

	cases := []struct {
		name, endpoint, body, path string
		out                        func() any
	}{
		{"service", "GET /services", `{"success":true,"result":[{"created_at":"2024-05-01 10:00:00 -0600"},{"updated_at":"later"}]}`, "result[1].updated_at", func() any { return new([]Service) }},
		{"document", "GET /documents/x", `{"success":true,"result":{"state":"Utah","created_at":"2024-02-30 10:00:00 -0600"}}`, "result.created_at", func() any { return new(Document) }},
		{"compliance event", "GET /compliance-events", `{"success":true,"result":[{"due_date":"2024-05-01","created_at":17}]}`, "result[0].created_at", func() any { return new([]ComplianceEvent) }},
		{"website", "GET /websites", `{"success":true,"result":{"updated_at":"2024-05-01"}}`, "result.updated_at", func() any { return new(Website) }},
		{"company with raw", "GET /companies", `{"success":true,"result":[{"name":"A","created_at":"2024-05-01 10:00:00 -0600"},{"name":"B","created_at":"2024-05-01 10:00:00 -0600","updated_at":"never"}]}`, "result[1].updated_at", func() any { return new([]Company) }},
		{"invoice with raw", "GET /invoices", `{"success":true,"result":[{"company":"A","created_at":"2024-05-01 10:00:00 -0600","updated_at":"2024-05-01 25:00:00 -0600"}]}`, "result[0].updated_at", func() any { return new([]Invoice) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			switch out := tc.out().(type) {
			case *[]Service:
				_, err = decodeEnvelope(tc.endpoint, []byte(tc.body), out)
			case *Document:
				_, err = decodeEnvelope(tc.endpoint, []byte(tc.body), out)
			case *[]ComplianceEvent:
				_, err = decodeEnvelope(tc.endpoint, []byte(tc.body), out)
			case *Website:
				_, err = decodeEnvelope(tc.endpoint, []byte(tc.body), out)
			case *[]Company:
				_, err = decodeEnvelope(tc.endpoint, []byte(tc.body), out)
			case *[]Invoice:
				_, err = decodeEnvelope(tc.endpoint, []byte(tc.body), out)
			}
			var de *DecodeError
			if !errors.As(err, &de) || de.Endpoint != tc.endpoint || de.Path != tc.path {
				t.Fatalf("got %v, want a *DecodeError for %s at %s", err, tc.endpoint, tc.path)
			}
			if !strings.Contains(de.Error(), "time") {
				t.Fatalf("message %q does not say a time is at fault", de.Error())
			}
		})
	}
}

func TestDecodeKeepsUnknownFieldsOutAndNullsEmpty(t *testing.T) {
	body := `{"success":"true","timestamp":"2024-05-01 10:00:00 -0600","extra":{"a":[1,2]},"result":[
	 {"id":"6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c11","created_at":"2024-05-01T10:00:00.123-06:00","url":"https://x.test/cb","_links":{"self":"/callbacks/1"}}]}`
	var out []jsonCallback
	okFlag, err := decodeEnvelope("GET /callbacks", []byte(body), &out)
	if err != nil || !okFlag {
		t.Fatalf("decode: %v %v", okFlag, err)
	}
	want := Callback{
		ID:        uuid.MustParse("6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c11"),
		CreatedAt: time.Date(2024, 5, 1, 16, 0, 0, 123e6, time.UTC),
		URL:       "https://x.test/cb",
	}
	if len(out) != 1 {
		t.Fatalf("got %+v", out)
	}
	if got := out[0].callback(); got.ID != want.ID || !got.CreatedAt.Equal(want.CreatedAt) || got.URL != want.URL {
		t.Fatalf("got %+v", got)
	}
	var none []Callback
	if _, err := decodeEnvelope("GET /callbacks", []byte(`{"success":true,"result":null}`), &none); err != nil || none != nil {
		t.Fatalf("null result: %v %v", none, err)
	}
}

// A page of services read as their JSON forms: a later answer must not
// show anything of an earlier one, whichever goroutine decodes it, and
// null and [] keep their meaning.
func TestPageKeepsNothingBetweenAnswers(t *testing.T) {
	full := `{"success":true,"result":[` +
		`{"id":"6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c11","created_at":"2024-05-01 10:00:00 -0600","status":"active","company":"Acme","jurisdiction":"Utah"},` +
		`{"id":"6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c12","updated_at":"2024-05-02T10:00:00Z","status":"cancelled","company":"Bluebird","type":"registered-agent"}]}`
	bare := `{"success":true,"result":[{"id":"6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c13"},{},{"status":"active"}]}`
	decode := func(body string) ([]Service, error) {
		var page []Service
		_, err := decodeEnvelope("GET /services", []byte(body), &page)
		return page, err
	}
	const workers, rounds = 8, 200
	errc := make(chan error, workers)
	for w := range workers {
		go func() {
			for i := range rounds {
				body := full
				if (w+i)%2 == 1 {
					body = bare
				}
				got, err := decode(body)
				if err != nil {
					errc <- err
					return
				}
				if body == bare {
					if len(got) != 3 || got[0].Company != "" || !got[0].CreatedAt.IsZero() || got[1] != (Service{}) || got[2].Status != ServiceActive || got[2].Jurisdiction != "" {
						errc <- fmt.Errorf("bare answer decoded as %+v", got)
						return
					}
				} else if len(got) != 2 || got[0].Company != "Acme" || got[1].Type != "registered-agent" || !got[1].CreatedAt.IsZero() || !got[0].UpdatedAt.IsZero() {
					errc <- fmt.Errorf("full answer decoded as %+v", got)
					return
				}
			}
			errc <- nil
		}()
	}
	for range workers {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}

	for body, want := range map[string]string{
		`{"success":true,"result":null}`: "nil",
		`{"success":true,"result":[]}`:   "empty",
		`{"success":true}`:               "nil",
	} {
		got, err := decode(body)
		if err != nil || (want == "nil") != (got == nil) || len(got) != 0 {
			t.Errorf("%s: %#v, %v; want %s", body, got, err, want)
		}
	}
	// An answer far longer than a page decodes whole, and the one after it
	// shows nothing of it.
	long := `{"success":true,"result":[` + strings.Repeat(`{"company":"Zed"},`, 2048) + `{"company":"Zed"}]}`
	if got, err := decode(long); err != nil || len(got) != 2049 || got[len(got)-1].Company != "Zed" {
		t.Fatalf("long answer: %d records, %v", len(got), err)
	}
	if got, err := decode(bare); err != nil || len(got) != 3 || got[1] != (Service{}) {
		t.Fatalf("after a long answer: %+v, %v", got, err)
	}
	// A bad item is still named by its path.
	_, err := decode(`{"success":true,"result":[{"id":"6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c13"},{"created_at":"soon"}]}`)
	var de *DecodeError
	if !errors.As(err, &de) || de.Path != "result[1].created_at" {
		t.Fatalf("got %v, want a *DecodeError at result[1].created_at", err)
	}
}

// Envelopes built to confuse: each is refused or read as JSON reads it,
// never half-believed.
func TestConfusingEnvelopes(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		wantErr    bool
		wantLen    int
	}{
		{"duplicate success, last false", `{"success":true,"success":false,"result":[]}`, true, 0},
		{"duplicate result", `{"success":true,"result":[{"id":"5f0c2a9e-7d41-4b8e-9c3a-1e2d3c4b5a69"}],"result":[]}`, false, 0},
		{"byte order mark", "\ufeff" + `{"success":true,"result":[]}`, true, 0},
		{"huge number in result", `{"success":true,"result":[{"id":"5f0c2a9e-7d41-4b8e-9c3a-1e2d3c4b5a69","created_at":1e999999}]}`, true, 0},
		{"success as number", `{"success":1,"result":[]}`, true, 0},
		{"result as object", `{"success":true,"result":{"id":"x"}}`, true, 0},
		{"trailing garbage", `{"success":true,"result":[]} {"success":false}`, true, 0},
		{"case of keys", `{"SUCCESS":true,"Result":[]}`, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, tc.body) })
			c := newTestClient(t, srv)
			cbs, err := c.Callbacks.List(context.Background())
			if tc.wantErr != (err != nil) {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if err == nil && len(cbs) != tc.wantLen {
				t.Errorf("%d callbacks, want %d", len(cbs), tc.wantLen)
			}
			var de *DecodeError
			var ae *APIError
			if err != nil && !errors.As(err, &de) && !errors.As(err, &ae) {
				t.Errorf("err = %T %v, want a *DecodeError or an *APIError", err, err)
			}
		})
	}
}

// Deep nesting: the decoder refuses it at once instead of recursing.
func TestDeepNestingIsRefused(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"arrays", `{"success":true,"result":` + strings.Repeat("[", 100_000)},
		{"arrays closed", `{"success":true,"result":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}`},
		{"objects", `{"success":true,"result":` + strings.Repeat(`{"a":`, 100_000) + "1" + strings.Repeat("}", 100_000) + `}`},
		{"error body", `{"success":false,"message":` + strings.Repeat(`{"message":`, 100_000) + `"x"` + strings.Repeat("}", 100_000) + `}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, http.StatusOK, tc.body)
			})
			c := newTestClient(t, srv)
			res := hsMeasure(t, func(ctx context.Context) error {
				_, err := c.Callbacks.List(ctx)
				return err
			})
			de := hsWantDecodeError(t, res.err)
			if de.Endpoint != "GET /callbacks" {
				t.Errorf("DecodeError = %v", de)
			}
			if res.alloc > hsMemBound {
				t.Errorf("the call allocated %d MiB", res.alloc>>20)
			}
		})
	}
}

// A turnaround nested in arrays thousands deep, around a large object:
// each level was once decoded by reading all of the levels inside it
// again, so a body of a few MiB kept a CPU busy for minutes.
func TestDeeplyNestedTurnaroundDecodesInLinearTime(t *testing.T) {
	const depth = 9_000
	pad := strings.Repeat("p", 1<<20)
	body := `{"success":true,"result":[{"id":"7d4a1f3e-8b2c-4e5f-9a6b-1c2d3e4f5a6b","price":1,"filing_methods":[{"filed_in":` +
		strings.Repeat("[", depth) + `{"days":1,"pad":"` + pad + `"}` + strings.Repeat("]", depth) + `}]}]}`
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, body)
	})
	c := newTestClient(t, srv)
	res := hsMeasure(t, func(ctx context.Context) error {
		_, err := c.FilingProducts.List(ctx, &FilingProductListParams{URL: "https://example.com", Jurisdiction: "Utah"})
		return err
	})
	de := hsWantDecodeError(t, res.err)
	if de.Path != "result[0].filing_methods[0].filed_in" {
		t.Errorf("DecodeError path = %q, want the turnaround", de.Path)
	}
	if res.alloc > hsMemBound {
		t.Errorf("the call allocated %d MiB", res.alloc>>20)
	}
}

// The envelope's timestamp is not read: no shape of it fails a good
// answer.
func TestEnvelopeTimestampIsIgnored(t *testing.T) {
	for _, ts := range []string{`"soon"`, `1700000000`, `{"at":1}`, `"2024-01-01 24:00:00 +0000"`, `null`} {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, `{"success":true,"timestamp":`+ts+`,"result":[{"id":"`+strings.Trim(sampleID, `"`)+`"}]}`)
		})
		got, err := newTestClient(t, srv).Services.List(context.Background(), nil)
		if err != nil || len(got) != 1 {
			t.Errorf("timestamp %s: %v, %v", ts, got, err)
		}
	}
}

// A record listed in pages is read through its JSON form, which names
// its fields again: each field of the record, set, must come through a
// page unchanged, so that a field added to the record and not to its form
// (or to the conversion) is caught.
func TestPageFormsCarryEveryField(t *testing.T) {
	check := func(record any, read func(data []byte) (any, error)) {
		t.Helper()
		v := reflect.New(reflect.TypeOf(record)).Elem()
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			switch x := f.Addr().Interface().(type) {
			case *uuid.UUID:
				*x = uuid.New()
			case *time.Time:
				*x = time.Date(2024, 5, 1, 10, i, 0, 0, time.UTC)
			case *Money:
				*x = MoneyFromCents(int64(100 + i))
			case *Date:
				*x = Date{2024, 5, i}
			case *[]string:
				*x = []string{fmt.Sprint("place ", i)}
			case **RegisteredAgent:
				*x = &RegisteredAgent{Name: fmt.Sprint("agent ", i), Address: Address{Line1: "1 Main St", State: "FL"}}
			default:
				switch f.Kind() {
				case reflect.String:
					f.SetString(fmt.Sprint("text ", i))
				case reflect.Int:
					f.SetInt(int64(i))
				case reflect.Bool:
					f.SetBool(true)
				default:
					t.Fatalf("%s.%s: no value for a %s", v.Type().Name(), v.Type().Field(i).Name, f.Type())
				}
			}
		}
		data, err := json.Marshal(v.Interface())
		if err != nil {
			t.Fatal(err)
		}
		got, err := read(data)
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		if !reflect.DeepEqual(got, v.Interface()) {
			t.Errorf("%T through a page:\n got %+v\nwant %+v", record, got, v.Interface())
		}
	}
	check(Document{}, pageRead((*jsonDocument).document))
	check(Service{}, sdkRead[Service])
	check(Callback{}, pageRead((*jsonCallback).callback))
	check(ComplianceEvent{}, sdkRead[ComplianceEvent])
}

// decodeEnvelopeInto says when the result was JSON null, and only then.
func TestDecodeEnvelopeIntoReportsANullResult(t *testing.T) {
	for body, want := range map[string]bool{
		`{"success":true,"result":null}`:  true,
		`{"success":false,"result":null}`: true,
		`{"success":true,"result":[]}`:    false,
		`{"success":true}`:                false,
		`{"success":true,"result":[{}]}`:  false,
	} {
		var out []Resource
		_, null, err := decodeEnvelopeInto("GET /resources", []byte(body), &out)
		if err != nil || null != want {
			t.Errorf("%s: null %v, %v; want %v", body, null, err, want)
		}
	}
}

// decodeEnvelope is decodeEnvelopeInto without the null flag.
func decodeEnvelope(endpoint string, body []byte, out any) (success bool, err error) {
	success, _, err = decodeEnvelopeInto(endpoint, body, out)
	return success, err
}
