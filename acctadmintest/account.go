package acctadmintest

import (
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// The user of the account, for the /auth routes. Every fake has this user;
// its password changes with POST /auth/reset-password.
const (
	DemoUserEmail    = "demo@example-agent.com"
	DemoUserPassword = "demo-password"
)

// sessionLifetime is how long a session token of /auth/login and
// /auth/refresh lasts.
const sessionLifetime = time.Hour

// account is the account the keys belong to, and its one user.
type account struct {
	ID         uuid.UUID
	Name       string
	Email      string
	password   string
	resetToken string
	CreatedAt  time.Time
}

type personEmailWire struct {
	ID           uuid.UUID `json:"id"`
	EmailAddress string    `json:"email_address"`
	Label        string    `json:"label"`
	Kind         string    `json:"kind"`
}

type personWire struct {
	ID              uuid.UUID         `json:"id"`
	FirstName       string            `json:"first_name"`
	LastName        string            `json:"last_name"`
	PersonEmails    []personEmailWire `json:"person_emails"`
	PersonPhones    []struct{}        `json:"person_phones"`
	PersonAddresses []struct{}        `json:"person_addresses"`
}

type accountWire struct {
	ID        uuid.UUID    `json:"id"`
	WebsiteID *uuid.UUID   `json:"website_id"`
	Type      string       `json:"type"`
	Affiliate *string      `json:"affiliate"`
	People    []personWire `json:"people"`
	Name      string       `json:"name"`
	Email     string       `json:"email"`
	CreatedAt string       `json:"created_at"`
}

// AccountType is the type of the fake's account in GET /account: a
// wholesale account, as the one the real server was recorded answering
// (spec/recorded-behaviour.md, W3), which is invoiced at wholesale prices
// (ServicePrice).
const AccountType = "wholesale-registered-agent"

// GET /account: {"account": {...}}, nested as the real API answers it
// (customers' clients read it so), with the fields they read (website_id:
// the account's first website, if any; type, AccountType; one person,
// the user) and the fake's own name, email and created_at.
func getAccount(c *call) error {
	f := c.f
	wf := f.wire(false)
	out, _ := locked(f, func() (map[string]accountWire, error) {
		a := &f.st.account
		w := accountWire{ID: a.ID, Type: AccountType, Name: a.Name, Email: a.Email, CreatedAt: wf.time(a.CreatedAt),
			People: []personWire{{ID: DemoID("person", 1), FirstName: "Demo", LastName: "User",
				PersonEmails:    []personEmailWire{{ID: DemoID("person-email", 1), EmailAddress: a.Email, Label: "primary", Kind: "primary"}},
				PersonPhones:    []struct{}{},
				PersonAddresses: []struct{}{},
			}}}
		if len(f.st.websites.rows) > 0 {
			id := f.st.websites.rows[0].ID
			w.WebsiteID = &id
		}
		return map[string]accountWire{"account": w}, nil
	})
	return c.ok(out, answer{})
}

type dueDateWire struct {
	CompanyID uuid.UUID `json:"company_id"`
	Company   string    `json:"company"`
	Filing    string    `json:"filing"`
	DueDate   string    `json:"due_date"`
}

type dashpanelWire struct {
	Companies               int           `json:"companies"`
	ActiveServices          int           `json:"active_services"`
	UnreadDocuments         int           `json:"unread_documents"`
	UnpaidInvoices          int           `json:"unpaid_invoices"`
	UnpaidTotal             json.Number   `json:"unpaid_total"`
	ItemsRequiringAttention int           `json:"items_requiring_attention"`
	UpcomingDueDates        []dueDateWire `json:"upcoming_due_dates"`
}

// upcomingWindow is how far ahead the dashboard's due dates reach.
const upcomingWindow = 30

// GET /account/dashpanel: figures computed from the account's records.
func getDashpanel(c *call) error {
	f := c.f
	out, _ := locked(f, func() (dashpanelWire, error) {
		st := &f.st
		var unpaid int64
		inv := st.invoices.filter(func(i *Invoice) bool { return i.Status == InvoiceUnpaid })
		for _, i := range inv {
			for _, it := range i.Items {
				unpaid += cents(it.Price) * int64(it.Quantity)
			}
		}
		now := f.now()
		today := date(now)
		until := date(now.AddDate(0, 0, upcomingWindow))
		due := st.events.filter(func(e *ComplianceEvent) bool {
			d := date(e.DueDate)
			return e.Status == ComplianceActive && d >= today && d <= until
		})
		return dashpanelWire{
			Companies:               st.companies.len(),
			ActiveServices:          len(st.services.filter(func(s *Service) bool { return s.Status == ServiceActive })),
			UnreadDocuments:         len(st.documents.filter(func(d *Document) bool { return d.Status == DocumentUnread })),
			UnpaidInvoices:          len(inv),
			UnpaidTotal:             json.Number(decimal(unpaid)),
			ItemsRequiringAttention: len(st.orders.filter(func(o *OrderItem) bool { return o.Status == OrderItemRequiringAttention })),
			UpcomingDueDates: mapRows(due, func(e *ComplianceEvent) dueDateWire {
				return dueDateWire{CompanyID: e.CompanyID, Company: f.companyName(e.CompanyID), Filing: e.Filing, DueDate: date(e.DueDate)}
			}),
		}, nil
	})
	return c.ok(out, answer{})
}

type sessionWire struct {
	Token     string `json:"token"`
	ExpiresAt string `json:"expires_at"`
	User      struct {
		ID    uuid.UUID `json:"id"`
		Email string    `json:"email"`
	} `json:"user"`
}

// session makes a session token for the account's user; f.mu must be
// held.
func (f *Fake) session(wf wireFormat) sessionWire {
	var s sessionWire
	s.Token = "session_" + randomHex(24)
	s.ExpiresAt = wf.time(f.now().Add(sessionLifetime))
	s.User.ID, s.User.Email = f.st.account.ID, f.st.account.Email
	return s
}

// POST /auth/login: the user's e-mail (any case) and password give a
// session token; anything else is a 401 that does not say which was
// wrong.
func login(c *call) error {
	var body struct {
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	if err := c.decodeBody(&body); err != nil {
		return err
	}
	f := c.f
	wf := f.wire(false)
	out, err := locked(f, func() (sessionWire, error) {
		a := &f.st.account
		okMail := strings.EqualFold(strings.TrimSpace(body.Email), a.Email)
		okPass := subtle.ConstantTimeCompare([]byte(body.Password), []byte(a.password)) == 1
		if !okMail || !okPass {
			return sessionWire{}, &apiError{status: http.StatusUnauthorized, msg: "e-mail or password is wrong"}
		}
		return f.session(wf), nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{})
}

// GET /auth/refresh: a fresh session token for the account's user.
func refreshSession(c *call) error {
	f := c.f
	wf := f.wire(false)
	out, _ := locked(f, func() (sessionWire, error) { return f.session(wf), nil })
	return c.ok(out, answer{})
}

// POST /auth/forgot-password: for the user's address, makes a new reset
// token (the control surface hands it out: GET /_fake/auth/reset-token);
// the answer is the same for any address, so that it reveals nothing.
func forgotPassword(c *call) error {
	var body struct {
		EmailAddress string `json:"email_address"`
	}
	if err := c.decodeBody(&body); err != nil {
		return err
	}
	f := c.f
	_, _ = locked(f, func() (struct{}, error) {
		if strings.EqualFold(strings.TrimSpace(body.EmailAddress), f.st.account.Email) {
			f.st.account.resetToken = randomHex(16)
		}
		f.recordWrite(c, nil)
		return struct{}{}, nil
	})
	return c.ok(map[string]bool{"sent": true}, answer{})
}

// POST /auth/reset-password: the current reset token sets a new password
// (at least 8 characters, confirmed); the token is then used up.
func resetPassword(c *call) error {
	var body struct {
		Token                string `json:"token"`
		Password             string `json:"password"`
		PasswordConfirmation string `json:"password_confirmation"`
	}
	if err := c.decodeBody(&body); err != nil {
		return err
	}
	if body.Password != body.PasswordConfirmation {
		return invalid("password_confirmation", "does not match password")
	}
	f := c.f
	_, err := locked(f, func() (struct{}, error) {
		a := &f.st.account
		if a.resetToken == "" || subtle.ConstantTimeCompare([]byte(body.Token), []byte(a.resetToken)) != 1 {
			return struct{}{}, invalid("token", "is not a current reset token")
		}
		a.password, a.resetToken = body.Password, ""
		f.recordWrite(c, nil)
		return struct{}{}, nil
	})
	if err != nil {
		return err
	}
	return c.ok(map[string]bool{"reset": true}, answer{})
}

// ResetToken returns the current password-reset token of the account's
// user, making one when there is none, as the e-mail that POST
// /auth/forgot-password sends would carry it.
func (f *Fake) ResetToken() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.st.account.resetToken == "" {
		f.st.account.resetToken = randomHex(16)
	}
	return f.st.account.resetToken
}

// GET /companies/:id.
func getCompany(c *call) error {
	return answerByID(c, "company", func(s *state) *table[Company] { return &s.companies }, wireFormat.company, answer{})
}

// serviceInfo is the information a client gave for a service.
type serviceInfo struct {
	data      json.RawMessage
	updatedAt time.Time
}

// serviceInfoWire is the answer of /services/:id/info: the information
// under service_info, as the real server answers it
// (spec/recorded-behaviour.md, V3: {"service_info": {}} before any was
// added), beside the fake's own service_id, status and updated_at.
type serviceInfoWire struct {
	ServiceInfo json.RawMessage `json:"service_info"`
	ServiceID   uuid.UUID       `json:"service_id"`
	Status      string          `json:"status"`
	UpdatedAt   *string         `json:"updated_at"`
}

// serviceInfoWire writes a service's information; f.mu must be held.
func (f *Fake) serviceInfoWire(wf wireFormat, s *Service) serviceInfoWire {
	out := serviceInfoWire{ServiceID: s.ID, Status: s.Status, ServiceInfo: json.RawMessage("{}")}
	if in, ok := f.st.info[s.ID]; ok {
		out.ServiceInfo = in.data
		t := wf.time(in.updatedAt)
		out.UpdatedAt = &t
	}
	return out
}

// GET /services/:id/info: what the client gave for the service, under
// service_info ({} when nothing yet).
func getServiceInfo(c *call) error {
	return answerByID(c, "service", func(s *state) *table[Service] { return &s.services }, c.f.serviceInfoWire, answer{})
}

// POST /services/:id/info: stores the information (the whole JSON object
// replaces what was there); a service awaiting client input becomes
// active.
func addServiceInfo(c *call) error {
	id, err := c.pathID("service")
	if err != nil {
		return err
	}
	var obj map[string]json.RawMessage
	if err := c.decodeBody(&obj); err != nil {
		return err
	}
	f := c.f
	wf := f.wire(false)
	out, err := locked(f, func() (serviceInfoWire, error) {
		s := f.st.services.get(id)
		if s == nil {
			return serviceInfoWire{}, notFound("service")
		}
		now := f.now()
		f.st.info[id] = &serviceInfo{data: slices.Clone(json.RawMessage(c.body)), updatedAt: now}
		if s.Status == ServiceAwaitingClientInput {
			s.Status, s.UpdatedAt = ServiceActive, now
		}
		f.recordWrite(c, nil)
		return f.serviceInfoWire(wf, s), nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{})
}
