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

// Account is the account the keys belong to, read nested under "account"
// or not. Its fields are the fake's and clients'; the whole is in Raw.
type Account struct {
	ID        uuid.UUID       `json:"id"`
	WebsiteID uuid.UUID       `json:"website_id" wire:"anyid"`
	Type      string          `json:"type"`
	Name      string          `json:"name"`
	Email     string          `json:"email"`
	CreatedAt time.Time       `json:"created_at"`
	Raw       json.RawMessage `json:"-"` // the record exactly as the API sent it
}

// UnmarshalJSON reads an account as the API writes it, into Raw too.
func (a *Account) UnmarshalJSON(data []byte) error {
	return decodeRecord(unwrapped(data, "account"), a)
}

// DashPanel is the account's summary, as the provider's dashboard shows it
// (only its name is known: the fields are the fake's; the whole is in Raw).
type DashPanel struct {
	Companies               int             `json:"companies" wire:"numeric"`
	ActiveServices          int             `json:"active_services" wire:"numeric"`
	UnreadDocuments         int             `json:"unread_documents" wire:"numeric"`
	UnpaidInvoices          int             `json:"unpaid_invoices" wire:"numeric"`
	UnpaidTotal             Money           `json:"unpaid_total"`
	ItemsRequiringAttention int             `json:"items_requiring_attention" wire:"numeric"`
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
func (d *DashPanel) UnmarshalJSON(data []byte) error { return decodeRecord(data, d) }

// Get returns the account. GET /account.
func (s *AccountClient) Get(ctx context.Context) (*Account, error) {
	return one(call[Account](ctx, s.c, routeAccountGet.at(), nil, nil))
}

// DashPanel returns the account's summary. GET /account/dashpanel.
func (s *AccountClient) DashPanel(ctx context.Context) (*DashPanel, error) {
	return one(call[DashPanel](ctx, s.c, routeAccountDashPanel.at(), nil, nil))
}
