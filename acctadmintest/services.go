package acctadmintest

import (
	"net/http"
	"time"

	"github.com/google/uuid"
)

// Service statuses.
const (
	ServiceActive              = "active"
	ServiceCancelled           = "cancelled"
	ServiceAwaitingClientInput = "awaiting-client-input"
	ServiceCancelRequested     = "cancel-requested"
)

// DefaultServiceType is the type of services created through POST
// /services and of seeded services given no type.
const DefaultServiceType = "registered-agent"

// ServicePrice is the price of the invoice POST /services makes for each
// service it creates: the wholesale price the real server was recorded
// invoicing for a registered-agent service (spec/recorded-behaviour.md,
// V2).
const ServicePrice = "45.00"

// RegisteredAgentName is the name of the registered agent of every
// service, as the real server answers it (V1).
const RegisteredAgentName = "Registered Agents Inc"

// RegisteredAgent is the registered agent of a service: the name and
// address a customer puts on its formation papers.
type RegisteredAgent struct {
	Name    string
	Address AgentAddress
}

// AgentAddress is the address of a registered agent, in the shape the
// real server answers it (V1): the state as its abbreviation.
type AgentAddress struct {
	Line1               string
	Line2               string
	City                string
	StateProvinceRegion string
	ZipPostalCode       string
}

// registeredAgentIn is the registered agent of a service in jurisdiction
// j: in Florida the address the real server was recorded answering (V1),
// elsewhere an address of the same shape in that state (the fake's own:
// no other is recorded).
func registeredAgentIn(j Jurisdiction) RegisteredAgent {
	if j.Name == "Florida" {
		return RegisteredAgent{Name: RegisteredAgentName, Address: AgentAddress{
			Line1: "7901 4th St N", Line2: "STE 300", City: "St. Petersburg", StateProvinceRegion: "FL", ZipPostalCode: "33702",
		}}
	}
	return RegisteredAgent{Name: RegisteredAgentName, Address: AgentAddress{
		Line1: "100 Main St", Line2: "STE 300", City: j.Name + " City", StateProvinceRegion: j.Abbreviation, ZipPostalCode: "00000",
	}}
}

// needsInfo reports whether a new service in jurisdiction j waits for
// POST /services/:id/info before it is active: in Wyoming, as the
// provider's documentation says (V4), and for a company without a home
// state.
func needsInfo(j Jurisdiction, co *Company) bool {
	return j.Name == "Wyoming" || co.HomeState == ""
}

// Service is a subscription of a company in a jurisdiction.
type Service struct {
	ID             uuid.UUID
	CreatedAt      time.Time
	UpdatedAt      time.Time
	Status         string
	Type           string
	Jurisdiction   string
	JurisdictionID uuid.UUID
	Company        string // the company's current name
	CompanyID      uuid.UUID
	// RegisteredAgent is the agent of the service, in its jurisdiction.
	RegisteredAgent RegisteredAgent

	seq int // the legacy_id quirk
}

// ServiceInput describes a service for AddService. Zero fields get
// defaults: a new ID, DefaultServiceType, status active, the current time.
type ServiceInput struct {
	ID           uuid.UUID
	CompanyID    uuid.UUID // required: an existing company
	Jurisdiction string    // required: a jurisdiction name
	Type         string
	Status       string
	CreatedAt    time.Time
}

// AddService adds a service and returns it. It panics on an unknown company
// or jurisdiction.
func (f *Fake) AddService(in ServiceInput) Service {
	j := mustJurisdiction("AddService", in.Jurisdiction)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mustCompany("AddService", in.CompanyID)
	at := f.timeOr(in.CreatedAt)
	s := f.insertService(f.idOr(in.ID), in.CompanyID, j, orDefault(in.Type, DefaultServiceType), orDefault(in.Status, ServiceActive), at)
	return f.st.services.copyOf(s)
}

// insertService stores a new service; f.mu must be held.
func (f *Fake) insertService(id, companyID uuid.UUID, j Jurisdiction, typ, status string, at time.Time) *Service {
	s := &Service{
		ID:              id,
		CreatedAt:       at,
		UpdatedAt:       at,
		Status:          status,
		Type:            typ,
		Jurisdiction:    j.Name,
		JurisdictionID:  j.ID,
		CompanyID:       companyID,
		RegisteredAgent: registeredAgentIn(j),
		seq:             f.st.services.len() + 1,
	}
	f.st.services.insert(s)
	return s
}

// Services returns every service, oldest first.
func (f *Fake) Services() []Service {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.services.copies()
}

// Service returns the service with the given ID.
func (f *Fake) Service(id uuid.UUID) (Service, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.services.lookup(id)
}

// SetServiceStatus changes the status of a service, as the provider's staff
// would, and reports whether the service exists.
func (f *Fake) SetServiceStatus(id uuid.UUID, status string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.st.services.get(id)
	if s == nil {
		return false
	}
	s.Status = status
	s.UpdatedAt = f.now()
	return true
}

type serviceWire struct {
	ID              uuid.UUID           `json:"id"`
	CreatedAt       string              `json:"created_at"`
	UpdatedAt       string              `json:"updated_at"`
	Status          string              `json:"status"`
	Type            string              `json:"type"`
	Jurisdiction    string              `json:"jurisdiction"`
	JurisdictionID  uuid.UUID           `json:"jurisdiction_id"`
	Company         string              `json:"company"`
	CompanyID       uuid.UUID           `json:"company_id"`
	RegisteredAgent registeredAgentWire `json:"registered_agent"`
	LegacyID        int                 `json:"legacy_id,omitempty"` // an undocumented field (quirk)
}

type agentAddressWire struct {
	Line1               string `json:"line1"`
	Line2               string `json:"line2"`
	City                string `json:"city"`
	StateProvinceRegion string `json:"state_province_region"`
	ZipPostalCode       string `json:"zip_postal_code"`
}

type registeredAgentWire struct {
	Name    string           `json:"name"`
	Address agentAddressWire `json:"address"`
}

// service writes a service; f.mu must be held.
func (f *Fake) serviceWire(wf wireFormat, s *Service) serviceWire {
	w := serviceWire{
		ID:              s.ID,
		CreatedAt:       wf.time(s.CreatedAt),
		UpdatedAt:       wf.time(s.UpdatedAt),
		Status:          s.Status,
		Type:            s.Type,
		Jurisdiction:    s.Jurisdiction,
		JurisdictionID:  s.JurisdictionID,
		Company:         f.companyName(s.CompanyID),
		CompanyID:       s.CompanyID,
		RegisteredAgent: registeredAgentWire{Name: s.RegisteredAgent.Name, Address: agentAddressWire(s.RegisteredAgent.Address)},
	}
	if wf.quirks {
		w.LegacyID = s.seq
	}
	return w
}

// GET /services
func listServices(c *call) error {
	limit, offset := c.paging()
	f := c.f
	wf := f.wire(false)
	out, err := locked(f, func() ([]serviceWire, error) {
		co, filter, err := f.companyParam(c.str("company"), c.str("company_id"))
		if err != nil {
			return nil, err
		}
		list := f.st.services.filter(func(s *Service) bool { return !filter || s.CompanyID == co.ID })
		return mapRows(page(list, limit, offset), func(s *Service) serviceWire { return f.serviceWire(wf, s) }), nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{})
}

type serviceCreateBody struct {
	Company         *string  `json:"company"`
	CompanyID       *string  `json:"company_id"`
	Jurisdictions   []string `json:"jurisdictions"`
	JurisdictionIDs []string `json:"jurisdiction_ids"`
}

// POST /services: creates a service of DefaultServiceType for the company
// in each jurisdiction where it has none that is still open (anything but
// cancelled), and answers only the services it created, each with its
// registered agent (V1). They are active at once, before any invoice is
// paid, unless information is needed first (needsInfo):
// awaiting-client-input then. Each new service gets an unpaid invoice of
// ServicePrice (V2), which sends new-invoice.
func createServices(c *call) error {
	var body serviceCreateBody
	if err := c.decodeBody(&body); err != nil {
		return err
	}
	name, id := deref(body.Company), deref(body.CompanyID)
	if name == "" && id == "" {
		return invalidf([]fieldError{
			{Field: "company", Message: "one of company or company_id is required"},
			{Field: "company_id", Message: "one of company or company_id is required"},
		}, "one of company or company_id is required")
	}
	js, ok, err := jurisdictionsParam(nonEmpty(body.Jurisdictions), nonEmpty(body.JurisdictionIDs))
	if err != nil {
		return err
	}
	if !ok {
		return invalidf([]fieldError{
			{Field: "jurisdictions", Message: "one of jurisdictions or jurisdiction_ids is required"},
			{Field: "jurisdiction_ids", Message: "one of jurisdictions or jurisdiction_ids is required"},
		}, "one of jurisdictions or jurisdiction_ids is required")
	}
	f := c.f
	wf := f.wire(false)
	var events []map[string]any
	out, err := locked(f, func() ([]serviceWire, error) {
		co, _, err := f.companyParam(name, id)
		if err != nil {
			return nil, err
		}
		now := f.now()
		out := []serviceWire{}
		var created []uuid.UUID
		for _, j := range js {
			if f.openService(co.ID, j.ID, DefaultServiceType) {
				continue
			}
			status := ServiceActive
			if needsInfo(j, co) {
				status = ServiceAwaitingClientInput
			}
			s := f.insertService(f.newID(), co.ID, j, DefaultServiceType, status, now)
			inv := f.insertInvoice(InvoiceInput{CompanyID: co.ID, CreatedAt: now}, []InvoiceItem{
				{Price: ServicePrice, Description: "Registered Agent Service - " + j.Name, Quantity: 1},
			})
			f.st.invoices.get(inv.ID).serviceID = s.ID
			events = append(events, invoiceEvent(inv))
			created = append(created, s.ID)
			out = append(out, f.serviceWire(wf, s))
		}
		f.recordWrite(c, created)
		return out, nil
	})
	if err != nil {
		return err
	}
	for _, ev := range events {
		f.emit(ev)
	}
	return c.ok(out, answer{})
}

// openService reports whether the company has a service of that type in
// that jurisdiction that is not cancelled; f.mu must be held.
func (f *Fake) openService(companyID, jurisdictionID uuid.UUID, typ string) bool {
	return f.st.services.find(func(s *Service) bool {
		return s.CompanyID == companyID && s.JurisdictionID == jurisdictionID && s.Type == typ && s.Status != ServiceCancelled
	}) != nil
}

// POST /services/:id/cancel-request: refused with 400 and the unpaid
// invoices while the service's company has any, other than the service's
// own invoice of POST /services; otherwise the service becomes
// cancel-requested and its own unpaid invoice cancelled. Both answers use
// the ISO time form (a quirk).
func requestServiceCancellation(c *call) error {
	id, err := c.pathID("service")
	if err != nil {
		return err
	}
	f := c.f
	wf := f.wire(true)
	out, err := locked(f, func() (serviceWire, error) {
		s := f.st.services.get(id)
		if s == nil {
			return serviceWire{}, notFound("service")
		}
		list := f.st.invoices.filter(func(inv *Invoice) bool {
			return inv.CompanyID == s.CompanyID && inv.Status == InvoiceUnpaid && inv.serviceID != s.ID
		})
		unpaid := mapRows(list, func(inv *Invoice) invoiceWire { return f.invoiceWire(wf, inv) })
		if len(unpaid) > 0 {
			return serviceWire{}, &apiError{status: http.StatusBadRequest, msg: "service has unpaid invoices", result: unpaid, iso: true}
		}
		now := f.now()
		for _, inv := range f.st.invoices.filter(func(inv *Invoice) bool { return inv.serviceID == s.ID && inv.Status == InvoiceUnpaid }) {
			inv.Status, inv.UpdatedAt = InvoiceCancelled, now
		}
		s.Status = ServiceCancelRequested
		s.UpdatedAt = now
		f.recordWrite(c, nil)
		return f.serviceWire(wf, s), nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{iso: true})
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func nonEmpty(list []string) []string {
	var out []string
	for _, s := range list {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
