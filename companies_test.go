package acctadmin

import (
	"context"
	"net/http"
	"reflect"
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
