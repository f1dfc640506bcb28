package acctadmintest_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// GET /account nests the account under "account", as the real API
// answers (customers' clients read it so).
func TestAccountNestedUnderAccount(t *testing.T) {
	srv := newServer(t)
	r := do(t, srv, http.MethodGet, "/account", nil)
	requireOK(t, r, "true")
	var res map[string]map[string]any
	r.Result(t, &res)
	require.Equal(t, []string{"account"}, keys(map[string]any{"account": res["account"]}))
	require.Len(t, res, 1)
	a := res["account"]
	require.Equal(t, acctadmintest.DemoUserEmail, a["email"])
	require.Nil(t, a["website_id"], "no website yet")
	require.Nil(t, a["affiliate"])
	require.Equal(t, "wholesale-registered-agent", a["type"])
	people := a["people"].([]any)
	require.Len(t, people, 1)
	emails := people[0].(map[string]any)["person_emails"].([]any)
	require.Equal(t, acctadmintest.DemoUserEmail, emails[0].(map[string]any)["email_address"])

	w := srv.AddWebsite(acctadmintest.WebsiteInput{URL: "https://shop.example.com", Name: "Shop"})
	do(t, srv, http.MethodGet, "/account", nil).Result(t, &res)
	require.Equal(t, w.ID.String(), res["account"]["website_id"])
}
