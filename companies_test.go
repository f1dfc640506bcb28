package acctadmin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

var (
	companyAcmeID = uuid.MustParse("5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c01")
	companyBetaID = uuid.MustParse("5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c02")
)

const (
	companyAcmeJSON = `{"id":"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c01","name":"Acme Widgets LLC","home_state":"Utah","entity_type":"LLC",
		"created_at":"2024-05-01 10:00:00 -0600","updated_at":"2024-05-01T10:00:00.123-06:00","ein":"12-3456789","officers":[{"name":"A"}]}`
	companyBetaJSON = `{"id":"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c02","name":"Beta Corp","home_state":null,"entity_type":"Corporation",
		"created_at":"2024-06-02 08:30:00 +0000","updated_at":null}`
)

// requireAcme checks the company decoded from companyAcmeJSON.
func requireAcme(t *testing.T, c Company) {
	t.Helper()
	if c.ID != companyAcmeID || c.Name != "Acme Widgets LLC" || c.HomeState != "Utah" || c.EntityType != "LLC" ||
		!c.CreatedAt.Equal(time.Date(2024, 5, 1, 16, 0, 0, 0, time.UTC)) || !c.UpdatedAt.Equal(time.Date(2024, 5, 1, 16, 0, 0, 123e6, time.UTC)) {
		t.Fatalf("company %+v", c)
	}
	requireJSONBody(t, string(c.Raw), companyAcmeJSON)
}

// requireBeta checks the company decoded from companyBetaJSON.
func requireBeta(t *testing.T, c Company) {
	t.Helper()
	if c.ID != companyBetaID || c.Name != "Beta Corp" || c.HomeState != "" || c.EntityType != "Corporation" ||
		!c.CreatedAt.Equal(time.Date(2024, 6, 2, 8, 30, 0, 0, time.UTC)) || !c.UpdatedAt.IsZero() {
		t.Fatalf("company %+v", c)
	}
	requireJSONBody(t, string(c.Raw), companyBetaJSON)
}

func TestCompaniesList(t *testing.T) {
	srv := newAPIServer(t, okText(`[`+companyAcmeJSON+`,`+companyBetaJSON+`]`))
	c := newTestClient(t, srv)
	got, err := c.Companies.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	requireSent(t, srv, http.MethodGet, "/companies", "")
	if len(got) != 2 {
		t.Fatalf("got %d companies, want 2", len(got))
	}
	requireAcme(t, got[0])
	requireBeta(t, got[1])
}

func TestCompaniesListWrongFieldType(t *testing.T) {
	srv := newAPIServer(t, ok(`[`+companyAcmeJSON+`,{"id":"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c02","created_at":"June 2nd"}]`))
	c := newTestClient(t, srv)
	got, err := c.Companies.List(context.Background())
	if got != nil {
		t.Fatalf("got %v with an error", got)
	}
	requireDecodeError(t, err, "GET /companies", "result[1].created_at")
}

func TestCompaniesCreate(t *testing.T) {
	srv := newAPIServer(t, ok(`[`+companyAcmeJSON+`]`))
	c := newTestClient(t, srv)
	got, err := c.Companies.Create(context.Background(),
		CompanyCreateParams{Name: "Acme Widgets LLC", HomeState: "Utah", EntityType: "LLC"},
		CompanyCreateParams{Name: "Beta Corp"},
	)
	if err != nil {
		t.Fatal(err)
	}
	r := srv.last(t)
	if srv.count() != 1 || r.Method != http.MethodPost || r.Path != "/companies" || r.RawQuery != "" || !r.AuthOK {
		t.Fatalf("request %s %s?%s (JWT: %v %s)", r.Method, r.Path, r.RawQuery, r.AuthOK, r.AuthErr)
	}
	requireJSONBody(t, r.Body, `{"companies":[{"name":"Acme Widgets LLC","home_state":"Utah","entity_type":"LLC"},{"name":"Beta Corp"}]}`)
	// Only the companies just added come back.
	if len(got) != 1 {
		t.Fatalf("got %d companies, want 1", len(got))
	}
	requireAcme(t, got[0])
}

func TestCompaniesCreateValidation(t *testing.T) {
	for _, tc := range []struct {
		name      string
		companies []CompanyCreateParams
		field     string
	}{
		{"no company", nil, "companies"},
		{"no name", []CompanyCreateParams{{HomeState: "Utah"}}, "companies[0].name"},
		{"second without a name", []CompanyCreateParams{{Name: "Acme"}, {Name: "  ", EntityType: "LLC"}}, "companies[1].name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(`[]`))
			c := newTestClient(t, srv)
			got, err := c.Companies.Create(context.Background(), tc.companies...)
			if got != nil {
				t.Fatalf("got %v with an error", got)
			}
			requireRefused(t, srv, err, tc.field)
		})
	}
}

func TestCompaniesUpdateRequest(t *testing.T) {
	srv := newAPIServer(t, ok(`[`+companyAcmeJSON+`,`+companyBetaJSON+`]`))
	c := newTestClient(t, srv)
	got, err := c.Companies.Update(context.Background(),
		CompanyUpdateParams{Company: "Acme Widgets", Name: "Acme Widgets LLC"},
		CompanyUpdateParams{CompanyID: companyBetaID, EntityType: "Corporation", HomeState: "Nevada"},
	)
	if err != nil {
		t.Fatal(err)
	}
	r := srv.last(t)
	if srv.count() != 1 || r.Method != http.MethodPatch || r.Path != "/companies" || r.RawQuery != "" || !r.AuthOK {
		t.Fatalf("request %s %s?%s (JWT: %v %s)", r.Method, r.Path, r.RawQuery, r.AuthOK, r.AuthErr)
	}
	requireJSONBody(t, r.Body, `{"companies":[
		{"company":"Acme Widgets","name":"Acme Widgets LLC"},
		{"company_id":"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c02","entity_type":"Corporation","home_state":"Nevada"}
	]}`)
	if len(got) != 2 {
		t.Fatalf("got %d companies, want 2", len(got))
	}
	requireAcme(t, got[0])
	requireBeta(t, got[1])
}

func TestCompaniesUpdateAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		result string
		check  func(t *testing.T, got []Company)
	}{
		{"one company", companyBetaJSON, func(t *testing.T, got []Company) {
			if len(got) != 1 {
				t.Fatalf("got %d companies, want 1", len(got))
			}
			requireBeta(t, got[0])
		}},
		{"companies under a key", `{"companies":[` + companyAcmeJSON + `],"updated":1}`, func(t *testing.T, got []Company) {
			if len(got) != 1 {
				t.Fatalf("got %d companies, want 1", len(got))
			}
			requireAcme(t, got[0])
		}},
		{"empty array", `[]`, func(t *testing.T, got []Company) {
			if got == nil || len(got) != 0 {
				t.Fatalf("got %#v, want an empty list", got)
			}
		}},
		{"a message", `"2 companies updated"`, nil},
		{"true", `true`, nil},
		{"null", `null`, nil},
		{"an object that is no company", `{"message":"updated","count":2}`, nil},
		{"companies that are not a list", `{"companies":2}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(tc.result))
			c := newTestClient(t, srv)
			got, err := c.Companies.Update(context.Background(), CompanyUpdateParams{CompanyID: companyBetaID, Name: "Beta Corp"})
			if err != nil {
				t.Fatal(err)
			}
			if tc.check != nil {
				tc.check(t, got)
			} else if got != nil {
				t.Fatalf("got %#v, want nil", got)
			}
		})
	}
}

func TestCompaniesUpdateBadCompanies(t *testing.T) {
	// The answer's shape is undocumented and read by one decoder that
	// tells the shapes apart, so a bad company is reported on the result
	// as a whole.
	for _, tc := range []struct {
		name, result, cause string
	}{
		{"in an array", `[` + companyAcmeJSON + `,{"id":"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c02","name":7}]`, "cannot read JSON number as string"},
		{"a single company", `{"id":"not-a-uuid","name":"Beta Corp"}`, "invalid UUID length: 10"},
		{"not an object", `[3]`, "want a JSON object, got a number of 1 byte"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(tc.result))
			c := newTestClient(t, srv)
			got, err := c.Companies.Update(context.Background(), CompanyUpdateParams{Company: "Beta", Name: "Beta Corp"})
			if got != nil {
				t.Fatalf("got %v with an error", got)
			}
			de := requireDecodeError(t, err, "PATCH /companies", "result")
			if de.Err.Error() != tc.cause {
				t.Fatalf("cause %q, want %q", de.Err, tc.cause)
			}
		})
	}
}

func TestCompaniesUpdateValidation(t *testing.T) {
	for _, tc := range []struct {
		name    string
		updates []CompanyUpdateParams
		field   string
	}{
		{"no company", nil, "companies"},
		{"neither name nor id", []CompanyUpdateParams{{Name: "New"}}, "companies[0].company"},
		{"both name and id", []CompanyUpdateParams{{Company: "Acme", CompanyID: companyAcmeID, Name: "New"}}, "companies[0].company"},
		{"nothing to change", []CompanyUpdateParams{{Company: "Acme", Name: "New"}, {CompanyID: companyBetaID}}, "companies[1].name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(`[]`))
			c := newTestClient(t, srv)
			got, err := c.Companies.Update(context.Background(), tc.updates...)
			if got != nil {
				t.Fatalf("got %v with an error", got)
			}
			requireRefused(t, srv, err, tc.field)
		})
	}
}

func TestCompanyUnmarshalResetsTheRecord(t *testing.T) {
	c := Company{Name: "stale", EntityType: "stale", Raw: []byte(`{}`)}
	if err := c.UnmarshalJSON([]byte(`{"id":"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c02","name":"Beta Corp"}`)); err != nil {
		t.Fatal(err)
	}
	want := Company{ID: companyBetaID, Name: "Beta Corp", Raw: []byte(`{"id":"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c02","name":"Beta Corp"}`)}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("company %+v, want %+v", c, want)
	}
}

// Bad parameters of Companies are refused before anything is sent, by a
// *ValidationError naming the field as the API spells it.
func TestCompaniesRefuseBadParams(t *testing.T) {
	checkRefused(t, []badParams{
		{"company nil id", "id", func(ctx context.Context, c *Client) error { _, err := c.Companies.Get(ctx, uuid.Nil); return err }},
	})
}

func TestCompaniesListPageAndNames(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     []*CompanyListParams
		query string
	}{
		{"no params", nil, ""},
		{"nil params", []*CompanyListParams{nil}, ""},
		{"a page of names", []*CompanyListParams{{Limit: 100, Offset: 200, Names: []string{"Acme Widgets LLC", "Beta & Co, Inc."}}},
			"limit=100&offset=200&names[]=Acme+Widgets+LLC&names[]=Beta+%26+Co%2C+Inc."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(`[`+companyAcmeJSON+`]`))
			c := newTestClient(t, srv)
			got, err := c.Companies.List(context.Background(), tc.p...)
			if err != nil || len(got) != 1 {
				t.Fatalf("List = %v, %v", got, err)
			}
			requireSent(t, srv, http.MethodGet, "/companies", tc.query)
			requireAcme(t, got[0])
		})
	}
	for _, tc := range []struct {
		name  string
		p     []*CompanyListParams
		field string
	}{
		{"two params", []*CompanyListParams{{Limit: 5}, {Limit: 6}}, "p"},
		{"a limit over 100", []*CompanyListParams{{Limit: 101}}, "limit"},
		{"a negative offset", []*CompanyListParams{{Offset: -1}}, "offset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(`[]`))
			got, err := newTestClient(t, srv).Companies.List(context.Background(), tc.p...)
			if got != nil {
				t.Fatalf("got %v with an error", got)
			}
			requireRefused(t, srv, err, tc.field)
		})
	}
}

func companyJSON(i int) string {
	return fmt.Sprintf(`{"id":"%s","name":"Company %d","entity_type":"LLC","jurisdictions":["Utah"]}`, indexID(i), i)
}

// An account with hundreds of companies is read to its end, not cut at a
// first page.
func TestCompaniesAllReadsEveryPage(t *testing.T) {
	srv := newAPIServer(t, offsetPager(250, companyJSON))
	c := newTestClient(t, srv)
	got, errs := collectSeq(c.Companies.All(context.Background(), &CompanyListParams{Names: []string{"Acme"}}))
	if len(errs) != 0 || len(got) != 250 {
		t.Fatalf("got %d companies and %v, want 250", len(got), errs)
	}
	for i, co := range got {
		if co.ID != indexID(i) || co.Name != fmt.Sprintf("Company %d", i) || !reflect.DeepEqual(co.Jurisdictions, []string{"Utah"}) {
			t.Fatalf("company %d is %+v", i, co)
		}
	}
	checkPagesAsked(t, srv, "limit=100&names[]=Acme", "limit=100&offset=100&names[]=Acme", "limit=100&offset=200&names[]=Acme")
}

// A server that ignores the paging of companies (the provider's examples
// never page them) is read safely: one that sends the whole listing
// whatever the limit gives it all; one that honours the limit but not the
// offset ends with ErrPagingIgnored after the rows it can reach, never
// repeating them.
func TestCompaniesAllOnAServerIgnoringThePaging(t *testing.T) {
	all := make([]string, 250)
	for i := range all {
		all[i] = companyJSON(i)
	}
	t.Run("limit and offset ignored", func(t *testing.T) {
		srv := newAPIServer(t, ok(`[`+strings.Join(all, ",")+`]`))
		got, errs := collectSeq(newTestClient(t, srv).Companies.All(context.Background(), nil))
		if len(errs) != 0 || len(got) != 250 {
			t.Fatalf("got %d companies and %v, want 250", len(got), errs)
		}
		for i, co := range got {
			if co.ID != indexID(i) {
				t.Fatalf("company %d is %s", i, co.ID)
			}
		}
	})
	t.Run("offset ignored", func(t *testing.T) {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
			ok(`[`+strings.Join(all[:limit], ",")+`]`)(w, r)
		})
		got, errs := collectSeq(newTestClient(t, srv).Companies.All(context.Background(), &CompanyListParams{Limit: 40}))
		if len(got) != 40 || len(errs) != 1 || !errors.Is(errs[0], ErrPagingIgnored) {
			t.Fatalf("got %d companies and %v, want 40 and ErrPagingIgnored", len(got), errs)
		}
		for i, co := range got {
			if co.ID != indexID(i) {
				t.Fatalf("company %d is %s", i, co.ID)
			}
		}
		if n := srv.count(); n < ignoredAfter || n > ignoredAfter+maxReadAhead {
			t.Fatalf("the server received %d requests", n)
		}
	})
}

func TestCompaniesAllValidation(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	got, errs := collectSeq(newTestClient(t, srv).Companies.All(context.Background(), &CompanyListParams{Limit: 101}))
	if len(got) != 0 || len(errs) != 1 {
		t.Fatalf("got %d companies and %v, want one error", len(got), errs)
	}
	requireRefused(t, srv, errs[0], "limit")
}

func TestCompaniesCreateJurisdictionsAndDuplicateNames(t *testing.T) {
	srv := newAPIServer(t, ok(`[`+companyAcmeJSON+`]`))
	c := newTestClient(t, srv)
	_, err := c.Companies.Create(context.Background(),
		CompanyCreateParams{Name: "Acme Widgets LLC", EntityType: "Limited Liability Company", Jurisdictions: []string{"California", "Wyoming"}, DuplicateNameAllowed: true},
		CompanyCreateParams{Name: "Acme Widgets LLC", HomeState: "UT", DuplicateNameAllowed: true},
	)
	if err != nil {
		t.Fatal(err)
	}
	requireJSONBody(t, srv.last(t).Body, `{"companies":[
		{"name":"Acme Widgets LLC","entity_type":"Limited Liability Company","jurisdictions":["California","Wyoming"]},
		{"name":"Acme Widgets LLC","home_state":"UT"}],"duplicate_name_allowed":true}`)

	// Not allowed: the flag is not sent at all.
	srv = newAPIServer(t, ok(`[]`))
	if _, err := newTestClient(t, srv).Companies.Create(context.Background(), CompanyCreateParams{Name: "Beta"}); err != nil {
		t.Fatal(err)
	}
	requireJSONBody(t, srv.last(t).Body, `{"companies":[{"name":"Beta"}]}`)

	srv = newAPIServer(t, ok(`[]`))
	got, err := newTestClient(t, srv).Companies.Create(context.Background(),
		CompanyCreateParams{Name: "Acme", DuplicateNameAllowed: true}, CompanyCreateParams{Name: "Beta"})
	if got != nil {
		t.Fatalf("got %v with an error", got)
	}
	requireRefused(t, srv, err, "companies[1].duplicate_name_allowed")
}

func TestCompaniesUpdateJurisdictionsAndDuplicateNames(t *testing.T) {
	srv := newAPIServer(t, ok(`[`+companyAcmeJSON+`]`))
	c := newTestClient(t, srv)
	_, err := c.Companies.Update(context.Background(),
		CompanyUpdateParams{Company: "Acme", Jurisdictions: []string{"Utah", "Idaho"}, DuplicateNameAllowed: true},
		CompanyUpdateParams{CompanyID: companyBetaID, Name: "Acme", DuplicateNameAllowed: true},
	)
	if err != nil {
		t.Fatal(err)
	}
	requireJSONBody(t, srv.last(t).Body, `{"companies":[{"company":"Acme","jurisdictions":["Utah","Idaho"]},
		{"company_id":"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c02","name":"Acme"}],"duplicate_name_allowed":true}`)

	for _, tc := range []struct {
		name    string
		updates []CompanyUpdateParams
		field   string
	}{
		{"flags that differ", []CompanyUpdateParams{{Company: "Acme", Name: "B"}, {Company: "C", Name: "D", DuplicateNameAllowed: true}},
			"companies[1].duplicate_name_allowed"},
		{"an empty list changes nothing", []CompanyUpdateParams{{Company: "Acme", Jurisdictions: []string{}}}, "companies[0].name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(`[]`))
			got, err := newTestClient(t, srv).Companies.Update(context.Background(), tc.updates...)
			if got != nil {
				t.Fatalf("got %v with an error", got)
			}
			requireRefused(t, srv, err, tc.field)
		})
	}
}

// GET /companies/:id answers one object, with the jurisdictions the
// company is registered in when the API says.
func TestCompaniesGetOneObject(t *testing.T) {
	srv := newAPIServer(t, ok(`{"id":"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c01","name":"Acme","entity_type":"LLC",
		"jurisdictions":["Utah",{"jurisdiction":"Idaho"}],"home_state":"Utah","created_at":"2024-05-01 10:00:00 -0600"}`))
	co, err := newTestClient(t, srv).Companies.Get(context.Background(), companyAcmeID)
	if err != nil {
		t.Fatal(err)
	}
	requireSent(t, srv, http.MethodGet, "/companies/5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c01", "")
	if co.ID != companyAcmeID || co.Name != "Acme" || co.HomeState != "Utah" || !reflect.DeepEqual(co.Jurisdictions, []string{"Utah", "Idaho"}) {
		t.Fatalf("company %+v", co)
	}
}
