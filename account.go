package acctadmin

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// AccountClient reads the account the keys belong to.
type AccountClient service

// The routes of the account.
var (
	routeAccountGet       = declare(http.MethodGet, "/account", "Account.Get")
	routeAccountDashPanel = declare(http.MethodGet, "/account/dashpanel", "Account.DashPanel")
)

// Account is the account the keys belong to. Its shape is not shown by
// the provider; the fields typed here are those of the SDK's fake, and
// the whole record is kept in Raw.
type Account struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	Email     string    `json:"email"`
	CreatedAt time.Time `json:"created_at"`
	// Raw is the record exactly as the API sent it.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the known fields and keeps the whole record in Raw.
func (a *Account) UnmarshalJSON(data []byte) error {
	return decodeRecord[accountWire](data, a, &a.Raw)
}

type plainAccount Account

type accountWire struct {
	plainAccount
	CreatedAt Time `json:"created_at"`
}

func (w accountWire) record() Account {
	a := Account(w.plainAccount)
	a.CreatedAt = w.CreatedAt.Time
	return a
}

// DashPanel is the account's summary, as the provider's dashboard shows
// it. Only its name is shown by the provider; the fields typed here are
// those of the SDK's fake, and the whole record is kept in Raw.
type DashPanel struct {
	Companies               int     `json:"companies"`
	ActiveServices          int     `json:"active_services"`
	UnreadDocuments         int     `json:"unread_documents"`
	UnpaidInvoices          int     `json:"unpaid_invoices"`
	UnpaidTotal             Money   `json:"unpaid_total"`
	ItemsRequiringAttention int     `json:"items_requiring_attention"`
	UpcomingDueDates        []DueOn `json:"upcoming_due_dates"`
	// Raw is the record exactly as the API sent it.
	Raw json.RawMessage `json:"-"`
}

// DueOn is a filing of a company due on a date.
type DueOn struct {
	CompanyID uuid.UUID `json:"company_id"`
	Company   string    `json:"company"`
	Filing    string    `json:"filing"`
	DueDate   Date      `json:"due_date"`
}

// UnmarshalJSON decodes the known fields and keeps the whole record in Raw.
func (d *DashPanel) UnmarshalJSON(data []byte) error {
	return decodeRecord[dashPanelWire](data, d, &d.Raw)
}

// dashPanelWire reads the counts as JSON numbers or numeric strings: the
// API's shape for this record is known only from the example clients, which
// print it without reading it.
type dashPanelWire struct {
	dashPanelFields
	Companies               flexInt `json:"companies"`
	ActiveServices          flexInt `json:"active_services"`
	UnreadDocuments         flexInt `json:"unread_documents"`
	UnpaidInvoices          flexInt `json:"unpaid_invoices"`
	ItemsRequiringAttention flexInt `json:"items_requiring_attention"`
}

type dashPanelFields DashPanel

func (w dashPanelWire) record() DashPanel {
	d := DashPanel(w.dashPanelFields)
	d.Companies, d.ActiveServices, d.UnreadDocuments = int(w.Companies), int(w.ActiveServices), int(w.UnreadDocuments)
	d.UnpaidInvoices, d.ItemsRequiringAttention = int(w.UnpaidInvoices), int(w.ItemsRequiringAttention)
	return d
}

// Get returns the account. GET /account.
func (s *AccountClient) Get(ctx context.Context) (*Account, error) {
	return one(call[Account](ctx, s.c, routeAccountGet.at(), nil, nil))
}

// DashPanel returns the account's summary. GET /account/dashpanel.
func (s *AccountClient) DashPanel(ctx context.Context) (*DashPanel, error) {
	return one(call[DashPanel](ctx, s.c, routeAccountDashPanel.at(), nil, nil))
}
