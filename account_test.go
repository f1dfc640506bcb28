package acctadmin

import (
	"encoding/json"
	"testing"
)

func TestDashPanelCountsAsNumbersOrNumericStrings(t *testing.T) {
	for _, body := range []string{
		`{"companies":3,"active_services":4,"unread_documents":5,"unpaid_invoices":1,"unpaid_total":"12.50","items_requiring_attention":2}`,
		`{"companies":"3","active_services":"4","unread_documents":" 5","unpaid_invoices":"1","unpaid_total":12.50,"items_requiring_attention":"2"}`,
	} {
		var d DashPanel
		if err := json.Unmarshal([]byte(body), &d); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if d.Companies != 3 || d.ActiveServices != 4 || d.UnreadDocuments != 5 || d.UnpaidInvoices != 1 ||
			d.ItemsRequiringAttention != 2 || d.UnpaidTotal.String() != "12.50" || string(d.Raw) != body {
			t.Fatalf("%s: got %+v", body, d)
		}
	}
	var d DashPanel
	if err := json.Unmarshal([]byte(`{"companies":"three"}`), &d); err == nil {
		t.Fatal("a count that is no number decoded")
	}
}
