package acctadmintest

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParamsReadThroughTheContract: a handler gets a parameter as the
// document types it, with the document's default when it is absent; a
// name or a type the document does not declare for the operation is a
// bug of the fake and panics rather than reading something unchecked.
func TestParamsReadThroughTheContract(t *testing.T) {
	read := func(method, pattern, target string) *call {
		t.Helper()
		op, err := contractRoute(method, pattern)
		require.NoError(t, err)
		r := httptest.NewRequest(method, target, nil)
		mux := http.NewServeMux()
		var in *params
		mux.HandleFunc(method+" "+muxPattern(pattern), func(_ http.ResponseWriter, r *http.Request) {
			var e *apiError
			in, e = validateRequest(op, r, nil)
			require.Nil(t, e)
		})
		mux.ServeHTTP(httptest.NewRecorder(), r)
		require.NotNil(t, in, "the request did not reach the route")
		return &call{r: r, in: in}
	}

	c := read(http.MethodGet, "/documents", "/documents?status=read")
	limit, offset := c.paging()
	require.Equal(t, [2]int{50, 0}, [2]int{limit, offset}, "the defaults are the document's")
	require.Equal(t, "read", c.str("status"))
	require.Equal(t, "", c.str("start"))

	c = read(http.MethodGet, "/services", "/services?limit=&offset=")
	limit, offset = c.paging()
	require.Equal(t, [2]int{50, 0}, [2]int{limit, offset}, "an empty value is an absent one")

	c = read(http.MethodGet, "/invoices", "/invoices?offset=3&company_ids[]=a&company_ids=b&company_ids[]=")
	limit, offset = c.paging()
	require.Equal(t, [2]int{0, 3}, [2]int{limit, offset}, "no default limit: all rows")
	require.Equal(t, []string{"a", "b"}, c.strs("company_ids"), "both spellings, empty values skipped")

	c = read(http.MethodGet, "/documents/:id/page/:page_number", "/documents/"+DemoID("document", 1).String()+"/page/2")
	require.Equal(t, DefaultDPI, c.num("dpi"))
	require.Equal(t, "2", c.str("page_number"))
	require.Equal(t, DemoID("document", 1).String(), c.str("id"))

	require.PanicsWithValue(t,
		`acctadmintest: the handler reads "company", which its operation in the OpenAPI document does not declare`,
		func() { c.str("company") })
	require.PanicsWithValue(t,
		`acctadmintest: the handler reads "dpi" as string, which the OpenAPI document does not`,
		func() { c.str("dpi") })
	require.Panics(t, func() { c.strs("ids") })
}
