package acctadmin

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"testing"

	"github.com/google/uuid"
)

const filingProductsJSON = `[
	{"id":"7d2a0c4e-5b1f-4e8a-9c3d-2f1e0a9b8c01","name":"Utah Annual Report","filing_name":"Annual Report","price":149.00,"sku":"AR-UT",
	 "filing_methods":[
		{"id":"7d2a0c4e-5b1f-4e8a-9c3d-2f1e0a9b8c11","name":"File online","type":"online","cost":"0.10",
		 "filed_in":{"days":3,"hours":0},"docs_in":[{"days":1,"hours":12}],
		 "agency_name":"Division of Corporations","filing_description":"Filed through the state portal","jurisdiction":"Utah","queue":"fast"},
		{"id":"7d2a0c4e-5b1f-4e8a-9c3d-2f1e0a9b8c12","name":"Courier","type":"courier","cost":25,
		 "filed_in":[{"days":"10","hours":"6"}],"docs_in":null,
		 "agency_name":"Division of Corporations","filing_description":"Hand delivered","jurisdiction":"Utah"}
	 ]},
	{"id":"7d2a0c4e-5b1f-4e8a-9c3d-2f1e0a9b8c02","name":"Utah Amendment","filing_name":"Amendment","price":"0.10","filing_methods":null}
]`

func TestFilingProductsListRequest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     FilingProductListParams
		query string
	}{
		{"url only", FilingProductListParams{URL: "https://www.example.com/shop"}, "url=https%3A%2F%2Fwww.example.com%2Fshop"},
		{"url and jurisdiction", FilingProductListParams{URL: "https://www.example.com/shop?x=1", Jurisdiction: "New Mexico"},
			"url=https%3A%2F%2Fwww.example.com%2Fshop%3Fx%3D1&jurisdiction=New+Mexico"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(`[]`))
			c := newTestClient(t, srv)
			got, err := c.FilingProducts.List(context.Background(), &tc.p)
			if err != nil || got == nil || len(got) != 0 {
				t.Fatalf("List = %v, %v; want an empty list", got, err)
			}
			requireSent(t, srv, http.MethodGet, "/filing-products", tc.query)
		})
	}
}

func TestFilingProductsListDecodes(t *testing.T) {
	srv := newAPIServer(t, okText(filingProductsJSON))
	c := newTestClient(t, srv)
	got, err := c.FilingProducts.List(context.Background(), &FilingProductListParams{URL: "https://www.example.com", Jurisdiction: "Utah"})
	if err != nil {
		t.Fatal(err)
	}
	requireSent(t, srv, http.MethodGet, "/filing-products", "url=https%3A%2F%2Fwww.example.com&jurisdiction=Utah")
	if len(got) != 2 {
		t.Fatalf("got %d products, want 2", len(got))
	}

	p := got[0]
	if p.ID != uuid.MustParse("7d2a0c4e-5b1f-4e8a-9c3d-2f1e0a9b8c01") || p.Name != "Utah Annual Report" || p.FilingName != "Annual Report" {
		t.Fatalf("product %+v", p)
	}
	requireMoney(t, "price", p.Price, "149.00", 14900)
	if len(p.FilingMethods) != 2 {
		t.Fatalf("got %d filing methods, want 2", len(p.FilingMethods))
	}
	m := p.FilingMethods[0]
	if m.ID != uuid.MustParse("7d2a0c4e-5b1f-4e8a-9c3d-2f1e0a9b8c11") || m.Name != "File online" || m.Type != FilingMethodOnline ||
		m.AgencyName != "Division of Corporations" || m.FilingDescription != "Filed through the state portal" || m.Jurisdiction != "Utah" {
		t.Fatalf("first method %+v", m)
	}
	requireMoney(t, "cost", m.Cost, "0.10", 10)
	if m.FiledIn != (Turnaround{Days: 3}) || m.DocsIn != (Turnaround{Days: 1, Hours: 12}) {
		t.Fatalf("first method turnarounds %+v %+v", m.FiledIn, m.DocsIn)
	}
	m = p.FilingMethods[1]
	if m.Type != FilingMethodType("courier") || m.Name != "Courier" || m.FilingDescription != "Hand delivered" {
		t.Fatalf("second method %+v", m)
	}
	requireMoney(t, "cost", m.Cost, "25", 2500)
	if m.FiledIn != (Turnaround{Days: 10, Hours: 6}) || !m.DocsIn.IsZero() {
		t.Fatalf("second method turnarounds %+v %+v", m.FiledIn, m.DocsIn)
	}

	p = got[1]
	if p.ID != uuid.MustParse("7d2a0c4e-5b1f-4e8a-9c3d-2f1e0a9b8c02") || p.Name != "Utah Amendment" || p.FilingName != "Amendment" || p.FilingMethods != nil {
		t.Fatalf("second product %+v", p)
	}
	requireMoney(t, "price", p.Price, "0.10", 10)
}

func TestFilingProductsWithoutJurisdictionHaveNoMethods(t *testing.T) {
	srv := newAPIServer(t, ok(`[{"id":"7d2a0c4e-5b1f-4e8a-9c3d-2f1e0a9b8c01","name":"Annual Report","filing_name":"Annual Report","price":1e2}]`))
	c := newTestClient(t, srv)
	got, err := c.FilingProducts.List(context.Background(), &FilingProductListParams{URL: "https://www.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].FilingMethods != nil || got[0].Name != "Annual Report" {
		t.Fatalf("products %+v", got)
	}
	requireMoney(t, "price", got[0].Price, "100", 10000)
}

func TestFilingProductsListRequiresURL(t *testing.T) {
	for name, p := range map[string]*FilingProductListParams{
		"nil params": nil,
		"empty url":  {Jurisdiction: "Utah"},
		"blank url":  {URL: "  \t"},
	} {
		t.Run(name, func(t *testing.T) {
			srv := newAPIServer(t, ok(`[]`))
			c := newTestClient(t, srv)
			got, err := c.FilingProducts.List(context.Background(), p)
			if got != nil {
				t.Fatalf("got %v with an error", got)
			}
			requireRefused(t, srv, err, "url")
		})
	}
}

func TestFilingProductsWrongFieldTypes(t *testing.T) {
	for _, tc := range []struct {
		name, result, path string
	}{
		{"price", `[{"name":"A","price":"1.00"},{"name":"B","price":true}]`, "result[1].price"},
		{"filed_in", `[{"name":"A","filing_methods":[{"filed_in":[{"days":1},{"days":2}]}]}]`, "result[0].filing_methods[0].filed_in"},
		{"cost", `[{"name":"A","filing_methods":[{"cost":"free"}]}]`, "result[0].filing_methods[0].cost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(tc.result))
			c := newTestClient(t, srv)
			got, err := c.FilingProducts.List(context.Background(), &FilingProductListParams{URL: "https://www.example.com"})
			if got != nil {
				t.Fatalf("got %v with an error", got)
			}
			requireDecodeError(t, err, "GET /filing-products", tc.path)
		})
	}
}

func TestFilingMethodTypeConstants(t *testing.T) {
	got := []FilingMethodType{FilingMethodMail, FilingMethodOnline, FilingMethodFax}
	if want := []FilingMethodType{"mail", "online", "fax"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("constants %q, want %q", got, want)
	}
}

// Bad parameters of FilingProducts are refused before anything is sent, by a
// *ValidationError naming the field as the API spells it.
func TestFilingProductsRefuseBadParams(t *testing.T) {
	checkRefused(t, []badParams{
		{"offerings without company", "company_id", func(ctx context.Context, c *Client) error {
			_, err := c.FilingProducts.Offerings(ctx, &OfferingParams{Jurisdiction: "UT"})
			return err
		}},
		{"offerings without jurisdiction", "jurisdiction", func(ctx context.Context, c *Client) error {
			_, err := c.FilingProducts.Offerings(ctx, &OfferingParams{CompanyID: wcCompany})
			return err
		}},
	})
}

func TestFilingProductsListByEntityType(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv)
	got, err := c.FilingProducts.List(context.Background(), &FilingProductListParams{URL: "https://www.example.com", Jurisdiction: "UT", EntityType: "Limited Liability Company"})
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("List = %v, %v; want an empty list", got, err)
	}
	requireSent(t, srv, http.MethodGet, "/filing-products", "url=https%3A%2F%2Fwww.example.com&jurisdiction=UT&entity_type=Limited+Liability+Company")
}

// Find refuses a search for nothing (empty, or punctuation only) before
// it lists the offerings: nothing is sent.
func TestFindRefusesEmptyWhatBeforeSending(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv)
	for _, what := range []string{"", "  ", "-/."} {
		p, err := c.FilingProducts.Find(context.Background(), &OfferingParams{CompanyID: uuid.New(), Jurisdiction: "UT"}, what)
		if p != nil {
			t.Fatalf("%q: got %+v, want nil", what, p)
		}
		requireRefused(t, srv, err, "what")
	}
}

// A filing is found by what it files, its synonyms, whatever the case
// and punctuation; no fit and two fits are errors, never a guess.
func TestFindFilingByWhatItFiles(t *testing.T) {
	catalog := demoLikeCatalog()
	for _, tc := range []struct {
		what, want string
		err        error
	}{
		{"EIN", "Tax id filing service", nil},
		{"ein", "Tax id filing service", nil},
		{"Tax-ID", "Tax id filing service", nil},
		{"employer identification number", "Tax id filing service", nil},
		{"annual report", "Annual Report", nil},
		{"Articles of Organization", "Articles of Organization", nil},
		{"formation", "Articles of Organization", nil},
		{"certificate of existence", "Certificate of Good Standing", nil},
		{"amendment", "Amendment", nil},
		{"dissolution", "", ErrNoMatch},
		{"franchise tax", "", ErrNoMatch},
	} {
		p, err := matchFiling(catalog, tc.what)
		switch {
		case tc.err != nil && !errors.Is(err, tc.err):
			t.Errorf("%q: err = %v, want %v", tc.what, err, tc.err)
		case tc.err == nil && (err != nil || p.Name != tc.want):
			t.Errorf("%q: got %+v, %v; want %q", tc.what, p, err, tc.want)
		}
	}
	two := append(catalog, FilingProduct{ID: uuid.New(), Name: "EIN Express", FilingName: "tax id"})
	if _, err := matchFiling(two, "EIN"); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("two EIN products: err = %v, want ErrAmbiguous", err)
	}
}
