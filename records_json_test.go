package acctadmin

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
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

// sdkRead reads data as an SDK call reads a page of records R.
func sdkRead[R any](data []byte) (any, error) {
	var l wireList[wireOf[R], R]
	_, err := decodeEnvelope("GET /records", []byte(`{"success":true,"result":[`+string(data)+`]}`), &l)
	if err != nil || len(l.records) != 1 {
		return nil, fmt.Errorf("%d records, %w", len(l.records), err)
	}
	return l.records[0], nil
}

// plainRead reads data as a record that has no wire type of its own.
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
		sdkRead[Callback], newOf[Callback]()},
	"Company": {`{"id":` + sampleID + `,"name":"Acme","home_state":"Utah","entity_type":"LLC","created_at":` + sampleTime + `,"updated_at":"2024-03-04T12:06:07Z"}`,
		sdkRead[Company], newOf[Company]()},
	"ComplianceEvent": {`{"id":` + sampleID + `,"created_at":` + sampleTime + `,"updated_at":"","status":"pending","due_date":"2024-05-01","jurisdictions":[{"jurisdiction":"Utah"},"Idaho"],"company":"Acme","company_id":` + sampleID + `,"filing":"Annual Report"}`,
		sdkRead[ComplianceEvent], newOf[ComplianceEvent]()},
	"Document": {`{"id":` + sampleID + `,"created_at":` + sampleTime + `,"updated_at":null,"title":"Notice","status":"unread","type":"Regular Mail","source":"scanned","pages":3,"payment_locked":false,"state":"Utah","company_name":"Acme","company_id":` + sampleID + `}`,
		sdkRead[Document], newOf[Document]()},
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
