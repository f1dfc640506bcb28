package acctadmin

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// AccountClient reads the account the keys belong to.
type AccountClient service

var (
	routeAccountGet       = declare(http.MethodGet, "/account", "Account.Get")
	routeAccountDashPanel = declare(http.MethodGet, "/account/dashpanel", "Account.DashPanel")
)

// Account is the account the keys belong to.
type Account struct {
	ID        uuid.UUID       `json:"id"`
	WebsiteID uuid.UUID       `json:"website_id"`
	Type      string          `json:"type"`
	Name      string          `json:"name"`
	Email     string          `json:"email"`
	CreatedAt time.Time       `json:"created_at"`
	Raw       json.RawMessage `json:"-"` // the record exactly as the API sent it
}

// UnmarshalJSON reads an account as the API writes it, into Raw too.
func (a *Account) UnmarshalJSON(data []byte) error {
	data = unwrapped(data, "account")
	type fields Account
	w := struct {
		*fields
		WebsiteID listedID `json:"website_id"`
		CreatedAt Time     `json:"created_at"`
	}{fields: (*fields)(a)}
	*a = Account{}
	err := readRecord(data, &w)
	a.WebsiteID, a.CreatedAt, a.Raw = uuid.UUID(w.WebsiteID), w.CreatedAt.Time, keepRaw(data)
	return err
}

// unwrapped returns the object that data, an object without an "id",
// holds under key ({"account": {...}}); otherwise data itself.
func unwrapped(data []byte, key string) []byte {
	var probe map[string]json.RawMessage
	if bytes.HasPrefix(data, []byte("{")) && json.Unmarshal(data, &probe) == nil && probe["id"] == nil &&
		bytes.HasPrefix(probe[key], []byte("{")) {
		return probe[key]
	}
	return data
}

// DashPanel is the account's summary, as the provider's dashboard shows it.
type DashPanel struct {
	Companies               int             `json:"companies"`
	ActiveServices          int             `json:"active_services"`
	UnreadDocuments         int             `json:"unread_documents"`
	UnpaidInvoices          int             `json:"unpaid_invoices"`
	UnpaidTotal             Money           `json:"unpaid_total"`
	ItemsRequiringAttention int             `json:"items_requiring_attention"`
	UpcomingDueDates        []DueOn         `json:"upcoming_due_dates"`
	Raw                     json.RawMessage `json:"-"` // the record exactly as the API sent it
}

// DueOn is a filing of a company due on a date.
type DueOn struct {
	CompanyID uuid.UUID `json:"company_id"`
	Company   string    `json:"company"`
	Filing    string    `json:"filing"`
	DueDate   Date      `json:"due_date"`
}

// UnmarshalJSON reads the summary as the API writes it, into Raw too.
func (d *DashPanel) UnmarshalJSON(data []byte) error {
	type fields DashPanel
	w := struct {
		*fields
		Companies               flexInt `json:"companies"`
		ActiveServices          flexInt `json:"active_services"`
		UnreadDocuments         flexInt `json:"unread_documents"`
		UnpaidInvoices          flexInt `json:"unpaid_invoices"`
		ItemsRequiringAttention flexInt `json:"items_requiring_attention"`
	}{fields: (*fields)(d)}
	*d = DashPanel{}
	err := readRecord(data, &w)
	d.Companies, d.ActiveServices, d.UnreadDocuments = int(w.Companies), int(w.ActiveServices), int(w.UnreadDocuments)
	d.UnpaidInvoices, d.ItemsRequiringAttention, d.Raw = int(w.UnpaidInvoices), int(w.ItemsRequiringAttention), keepRaw(data)
	return err
}

// Get returns the account. GET /account.
func (s *AccountClient) Get(ctx context.Context) (*Account, error) {
	var a Account
	if err := s.c.json(ctx, routeAccountGet.at(), nil, nil, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// DashPanel returns the account's summary. GET /account/dashpanel.
func (s *AccountClient) DashPanel(ctx context.Context) (*DashPanel, error) {
	var d DashPanel
	if err := s.c.json(ctx, routeAccountDashPanel.at(), nil, nil, &d); err != nil {
		return nil, err
	}
	return &d, nil
}
