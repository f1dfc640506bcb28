package acctadmintest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// TestFormDataCheckedBySchema: form data that fails the filing method's
// schema is a 400 naming each field, and the item keeps waiting.
func TestFormDataCheckedBySchema(t *testing.T) {
	srv := newDemo(t)
	company := acctadmintest.DemoID("company", 1).String()
	item := acctadmintest.DemoID("order-item", 1).String()
	for _, tc := range []struct {
		form   string
		fields []string
	}{
		{`{}`, []string{"form_data"}},
		{`null`, []string{"form_data"}},
		{strings.Replace(einFormData, `"555-55-5555"`, `"555555555"`, 1), []string{"form_data.ssn"}},
		{strings.Replace(einFormData, `"ein_trucking":true`, `"ein_trucking":"yes"`, 1), []string{"form_data.ein_trucking"}},
		{strings.Replace(einFormData, `"phone_number":"5555555555"`, `"phone_number":5555555555`, 1), []string{"form_data.responsible_party.phone_number"}},
	} {
		r := do(t, srv, http.MethodPost, "/order-items/requiring-attention", `{"company_id":"`+company+`","order_item_id":"`+item+`","form_data":`+tc.form+`}`)
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", tc.form, r.Body)
		fields := errorFields(t, r)
		for _, f := range tc.fields {
			if f == "form_data" {
				require.NotEmpty(t, fields)
				continue
			}
			require.Contains(t, fields, f, "%s", r.Body)
		}
	}
	r := do(t, srv, http.MethodGet, "/order-items/requiring-attention?company_ids[]="+company, nil)
	require.Equal(t, "requiring-client-attention", r.Items(t)[0]["status"])
}

// TestOrderItemsOfOneCompanyID: company_id (one, as a TypeScript client
// sends it) chooses the company's waiting items like company_ids[].
func TestOrderItemsOfOneCompanyID(t *testing.T) {
	srv := newDemo(t)
	for _, tc := range []struct {
		company string
		want    int
	}{{acctadmintest.DemoID("company", 1).String(), 1}, {acctadmintest.DemoID("company", 3).String(), 0}} {
		r := do(t, srv, http.MethodGet, "/order-items/requiring-attention?company_id="+tc.company, nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Len(t, r.Items(t), tc.want, "%s", r.Body)
	}
	r := do(t, srv, http.MethodGet, "/order-items/requiring-attention?company_id=nope", nil)
	require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
}

// TestOrderItemTimesAreEpochNumbers: with the quirks an order item's
// created_at and updated_at are epoch seconds, as a TypeScript client of
// the real API types them; without them, the usual time text.
func TestOrderItemTimesAreEpochNumbers(t *testing.T) {
	company := acctadmintest.DemoID("company", 1).String()
	for _, quirks := range []bool{true, false} {
		var opts []acctadmintest.Option
		if !quirks {
			opts = append(opts, acctadmintest.WithoutQuirks())
		}
		srv := newDemo(t, opts...)
		item := do(t, srv, http.MethodGet, "/order-items/requiring-attention?company_ids[]="+company, nil).Items(t)[0]
		for _, field := range []string{"created_at", "updated_at"} {
			if quirks {
				n, ok := item[field].(float64)
				require.True(t, ok, "%s = %v, want a number", field, item[field])
				require.Equal(t, float64(fixedClock().Add(-24*time.Hour).Unix()), n, field)
			} else {
				require.IsType(t, "", item[field], field)
			}
		}
	}
}
