package acctadmintest_test

import (
	"net/http"
	"testing"

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
