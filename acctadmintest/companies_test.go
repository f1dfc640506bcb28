package acctadmintest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

func TestCompaniesCreateReturnsOnlyNew(t *testing.T) {
	srv := newServer(t)
	srv.AddCompany(acctadmintest.CompanyInput{Name: "Old Co", HomeState: "Utah"})
	r := do(t, srv, http.MethodPost, "/companies", map[string]any{"companies": []map[string]any{
		{"name": "Old Co", "home_state": "Utah"},
		{"name": "New Co", "home_state": "idaho", "entity_type": "LLC"},
		{"name": "Plain Co"},
	}})
	requireOK(t, r, "true")
	items := r.Items(t)
	require.Len(t, items, 2)
	require.Equal(t, "New Co", items[0]["name"])
	require.Equal(t, "Idaho", items[0]["home_state"])
	require.Equal(t, "LLC", items[0]["entity_type"])
	require.Equal(t, "2025-03-14 08:09:26 -0700", items[0]["created_at"])
	require.Equal(t, "Plain Co", items[1]["name"])
	require.Nil(t, items[1]["home_state"])
	require.Len(t, srv.Companies(), 3)
	w := srv.Writes()
	require.Len(t, w, 1)
	require.Len(t, w[0].Created, 2)
	require.Equal(t, items[0]["id"], w[0].Created[0].String())

	r = do(t, srv, http.MethodGet, "/companies", nil)
	requireOK(t, r, "true")
	require.Len(t, r.Items(t), 3)
	r = do(t, srv, http.MethodGet, "/companies?limit=1&offset=2", nil)
	require.Len(t, r.Items(t), 1)
}

func TestCompaniesCreateValidation(t *testing.T) {
	srv := newServer(t)
	for _, tc := range []struct {
		body  any
		field string
	}{
		{map[string]any{}, "companies"},
		{map[string]any{"companies": []any{}}, "companies"},
		{map[string]any{"companies": []map[string]any{{"home_state": "Utah"}}}, "companies[0].name"},
		{map[string]any{"companies": []map[string]any{{"name": "A"}, {"name": "B", "home_state": "Westeros"}}}, "companies[1].home_state"},
		{map[string]any{"companies": []map[string]any{{"name": 7}}}, "companies[0].name"},
	} {
		requireFieldError(t, do(t, srv, http.MethodPost, "/companies", tc.body), tc.field)
	}
	require.Empty(t, srv.Companies(), "a bad batch adds nothing")
}

func TestCompaniesUpdate(t *testing.T) {
	srv := newServer(t)
	a := srv.AddCompany(acctadmintest.CompanyInput{Name: "Alpha LLC", HomeState: "Utah", EntityType: "LLC"})
	b := srv.AddCompany(acctadmintest.CompanyInput{Name: "Beta Inc", EntityType: "Corporation"})
	svc := srv.AddService(acctadmintest.ServiceInput{CompanyID: a.ID, Jurisdiction: "Utah"})

	r := do(t, srv, http.MethodPatch, "/companies", map[string]any{"companies": []map[string]any{
		{"company": "alpha llc", "name": "Alpha Holdings LLC", "entity_type": "Corporation"},
		{"company_id": b.ID, "home_state": "Texas"},
	}})
	requireOK(t, r, "true")
	items := r.Items(t)
	require.Len(t, items, 2)
	require.Equal(t, "Alpha Holdings LLC", items[0]["name"])
	require.Equal(t, "Corporation", items[0]["entity_type"])
	require.Equal(t, "Utah", items[0]["home_state"])
	require.Equal(t, "Beta Inc", items[1]["name"])
	require.Equal(t, "Texas", items[1]["home_state"])
	got, _ := srv.Company(a.ID)
	require.Equal(t, "Alpha Holdings LLC", got.Name)
	s, _ := srv.Service(svc.ID)
	require.Equal(t, "Alpha Holdings LLC", s.Company, "records follow the rename")
	r = do(t, srv, http.MethodGet, "/services?company=Alpha+Holdings+LLC", nil)
	require.Len(t, r.Items(t), 1)
}

func TestCompaniesUpdateValidation(t *testing.T) {
	srv := newServer(t)
	a := srv.AddCompany(acctadmintest.CompanyInput{Name: "Alpha LLC"})
	srv.AddCompany(acctadmintest.CompanyInput{Name: "Beta Inc"})
	for _, tc := range []struct {
		body  any
		field string
	}{
		{map[string]any{"companies": []map[string]any{{"name": "X"}}}, "companies[0].company"},
		{map[string]any{"companies": []map[string]any{{"company": "Alpha LLC", "company_id": a.ID, "name": "X"}}}, "companies[0].company_id"},
		{map[string]any{"companies": []map[string]any{{"company": "Alpha LLC", "home_state": "Oz"}}}, "companies[0].home_state"},
		{map[string]any{"companies": []map[string]any{{"company": "Alpha LLC", "name": "beta inc"}}}, "companies[0].name"},
		{map[string]any{"companies": []map[string]any{{"company_id": "12", "name": "X"}}}, "companies[0].company_id"},
	} {
		requireFieldError(t, do(t, srv, http.MethodPatch, "/companies", tc.body), tc.field)
	}
	requireError(t, do(t, srv, http.MethodPatch, "/companies", map[string]any{"companies": []map[string]any{{"company_id": uuid.New(), "name": "X"}}}), http.StatusNotFound, "company not found")
	// A bad item stops the whole batch.
	requireFieldError(t, do(t, srv, http.MethodPatch, "/companies", map[string]any{"companies": []map[string]any{
		{"company": "Alpha LLC", "name": "Renamed"}, {"company": "Beta Inc", "home_state": "Oz"},
	}}), "companies[1].home_state")
	got, _ := srv.Company(a.ID)
	require.Equal(t, "Alpha LLC", got.Name)
	require.Empty(t, srv.Writes())
}

func TestCompaniesPagedAndByNames(t *testing.T) {
	srv := newServer(t)
	var names []string
	for i := 0; i < 250; i++ {
		co := srv.AddCompany(acctadmintest.CompanyInput{Name: "Company " + itoa(i), CreatedAt: fixedNow.Add(time.Duration(i-250) * time.Minute)})
		names = append(names, co.Name)
	}
	var seen []string
	for offset := 0; ; offset += 100 {
		items := do(t, srv, http.MethodGet, "/companies?limit=100&offset="+itoa(offset), nil).Items(t)
		for _, it := range items {
			seen = append(seen, it["name"].(string))
		}
		if len(items) < 100 {
			break
		}
	}
	require.Equal(t, names, seen)
	require.Len(t, do(t, srv, http.MethodGet, "/companies", nil).Items(t), 250, "no limit: every company")

	got := func(q string) []string {
		out := []string{}
		for _, it := range do(t, srv, http.MethodGet, "/companies?"+q, nil).Items(t) {
			out = append(out, it["name"].(string))
		}
		return out
	}
	require.Equal(t, []string{"Company 7", "Company 42"}, got("names[]=company+42&names[]=Company+7"))
	require.Equal(t, []string{"Company 7", "Company 42"}, got("names=Company+42,Company+7"), "comma-joined, as Spring sends them")
	require.Equal(t, []string{"Company 42"}, got("names[]=Company+7&names[]=Company+42&offset=1"))
	require.Equal(t, []string{}, got("names[]=Nobody"))
	requireFieldError(t, do(t, srv, http.MethodGet, "/companies?limit=101", nil), "limit")
}

func TestCompaniesJurisdictionsAndDuplicateNames(t *testing.T) {
	srv := newServer(t)
	srv.AddCompany(acctadmintest.CompanyInput{Name: "Old Co", Jurisdictions: []string{"UT"}})
	r := do(t, srv, http.MethodPost, "/companies", map[string]any{"companies": []map[string]any{
		{"name": "Old Co", "jurisdictions": []string{"California", "WY"}, "entity_type": "Limited Liability Company"},
		{"name": "New Co", "jurisdictions": []string{"Utah,Idaho", "utah"}},
	}, "duplicate_name_allowed": true})
	requireOK(t, r, "true")
	items := r.Items(t)
	require.Len(t, items, 2, "a name the account has is added when duplicates are allowed")
	require.Equal(t, []any{"California", "Wyoming"}, items[0]["jurisdictions"])
	require.Equal(t, []any{"Utah", "Idaho"}, items[1]["jurisdictions"])
	require.Len(t, srv.Companies(), 3)
	require.Equal(t, []string{"Utah"}, srv.Companies()[0].Jurisdictions)

	// Without the flag a known name is skipped, as before.
	r = do(t, srv, http.MethodPost, "/companies", map[string]any{"companies": []map[string]any{{"name": "New Co"}}, "duplicate_name_allowed": false})
	require.Empty(t, r.Items(t))
	requireFieldError(t, do(t, srv, http.MethodPost, "/companies", map[string]any{"companies": []map[string]any{
		{"name": "X", "jurisdictions": []string{"Utah,Westeros"}}}}), "companies[0].jurisdictions")
	requireFieldError(t, do(t, srv, http.MethodPost, "/companies", map[string]any{"companies": []map[string]any{{"name": "X"}},
		"duplicate_name_allowed": "yes"}), "duplicate_name_allowed")
	require.Len(t, srv.Companies(), 3)

	// PATCH: jurisdictions replace the list; a taken name needs the flag.
	newCo, _ := srv.Company(uuid.MustParse(items[1]["id"].(string)))
	r = do(t, srv, http.MethodPatch, "/companies", map[string]any{"companies": []map[string]any{
		{"company_id": newCo.ID, "jurisdictions": []string{"Nevada"}}}})
	require.Equal(t, []any{"Nevada"}, r.Items(t)[0]["jurisdictions"])
	requireFieldError(t, do(t, srv, http.MethodPatch, "/companies", map[string]any{"companies": []map[string]any{
		{"company_id": newCo.ID, "name": "Old Co"}}}), "companies[0].name")
	r = do(t, srv, http.MethodPatch, "/companies", map[string]any{"companies": []map[string]any{
		{"company_id": newCo.ID, "name": "Old Co", "jurisdictions": []string{}}}, "duplicate_name_allowed": true})
	require.Equal(t, "Old Co", r.Items(t)[0]["name"])
	require.Equal(t, []any{}, r.Items(t)[0]["jurisdictions"])
	got, _ := srv.Company(newCo.ID)
	require.Equal(t, "Old Co", got.Name)
	require.Empty(t, got.Jurisdictions)

	// One company: one object, its jurisdictions with it.
	one := do(t, srv, http.MethodGet, "/companies/"+items[0]["id"].(string), nil).JSON(t)["result"].(map[string]any)
	require.Equal(t, []any{"California", "Wyoming"}, one["jurisdictions"])
}
