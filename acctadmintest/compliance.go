package acctadmintest

import (
	"time"

	"github.com/google/uuid"
)

// Compliance event statuses.
const (
	ComplianceActive       = "active"
	ComplianceNoneRequired = "none_required"
)

// ComplianceEvent is the due date of a filing for a company in one or more
// jurisdictions.
type ComplianceEvent struct {
	ID            uuid.UUID
	CreatedAt     time.Time
	UpdatedAt     time.Time
	Status        string
	DueDate       time.Time // only the calendar date counts
	Jurisdictions []string
	CompanyID     uuid.UUID
	Company       string // the company's current name
	Filing        string
}

// ComplianceEventInput describes an event for AddComplianceEvent. Zero
// fields get defaults: a new ID, status active, the company's home state
// as the only jurisdiction, the current time.
type ComplianceEventInput struct {
	ID            uuid.UUID
	CompanyID     uuid.UUID // required: an existing company
	Status        string
	DueDate       time.Time // required
	Jurisdictions []string  // jurisdiction names
	Filing        string
	CreatedAt     time.Time
}

// AddComplianceEvent adds a compliance event and returns it. It panics on
// an unknown company or jurisdiction, or a zero due date.
func (f *Fake) AddComplianceEvent(in ComplianceEventInput) ComplianceEvent {
	if in.DueDate.IsZero() {
		panic("acctadmintest: AddComplianceEvent: no due date")
	}
	var js []string
	for _, n := range in.Jurisdictions {
		js = append(js, mustJurisdiction("AddComplianceEvent", n).Name)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	co := f.mustCompany("AddComplianceEvent", in.CompanyID)
	if len(js) == 0 && co.HomeState != "" {
		js = []string{co.HomeState}
	}
	at := f.timeOr(in.CreatedAt)
	ev := &ComplianceEvent{
		ID:            f.idOr(in.ID),
		CreatedAt:     at,
		UpdatedAt:     at,
		Status:        orDefault(in.Status, ComplianceActive),
		DueDate:       in.DueDate,
		Jurisdictions: js,
		CompanyID:     co.ID,
		Filing:        in.Filing,
	}
	f.st.events.insert(ev)
	return f.st.events.copyOf(ev)
}

// ComplianceEvents returns every compliance event in the order of the
// listing: by due date, then creation time, then ID.
func (f *Fake) ComplianceEvents() []ComplianceEvent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.events.copies()
}

type complianceJurisdictionWire struct {
	Jurisdiction string `json:"jurisdiction"`
}

type complianceEventWire struct {
	ID            uuid.UUID `json:"id"`
	CreatedAt     string    `json:"created_at"`
	UpdatedAt     string    `json:"updated_at"`
	Status        string    `json:"status"`
	DueDate       string    `json:"due_date"`
	Jurisdictions any       `json:"jurisdictions"`
	Company       string    `json:"company"`
	CompanyID     uuid.UUID `json:"company_id"`
	Filing        string    `json:"filing"`
}

// complianceWire writes an event; with quirks its jurisdictions are
// objects {"jurisdiction": name}. f.mu must be held.
func (f *Fake) complianceWire(wf wireFormat, ev *ComplianceEvent) complianceEventWire {
	var js any = orEmpty(ev.Jurisdictions)
	if wf.quirks {
		objs := make([]complianceJurisdictionWire, len(ev.Jurisdictions))
		for i, j := range ev.Jurisdictions {
			objs[i] = complianceJurisdictionWire{Jurisdiction: j}
		}
		js = objs
	}
	return complianceEventWire{
		ID:            ev.ID,
		CreatedAt:     wf.time(ev.CreatedAt),
		UpdatedAt:     wf.time(ev.UpdatedAt),
		Status:        ev.Status,
		DueDate:       date(ev.DueDate),
		Jurisdictions: js,
		Company:       f.companyName(ev.CompanyID),
		CompanyID:     ev.CompanyID,
		Filing:        ev.Filing,
	}
}

// parseDate reads a YYYY-MM-DD parameter.
func parseDate(field, s string) (string, error) {
	if s == "" {
		return "", invalid(field, "is required")
	}
	t, err := time.Parse(DateLayout, s)
	if err != nil {
		return "", invalid(field, "must be a date like 2006-01-02")
	}
	return date(t), nil
}

// optionalDates reads the optional start_date and end_date of a listing
// (YYYY-MM-DD; "" when absent), end not before start.
func optionalDates(c *call) (start, end string, err error) {
	if s := c.str("start_date"); s != "" {
		if start, err = parseDate("start_date", s); err != nil {
			return "", "", err
		}
	}
	if s := c.str("end_date"); s != "" {
		if end, err = parseDate("end_date", s); err != nil {
			return "", "", err
		}
	}
	if start != "" && end != "" && end < start {
		return "", "", invalid("end_date", "must not be before start_date")
	}
	return start, end, nil
}

// GET /compliance-events: events due within [start_date, end_date] (both
// required, both inclusive), optionally of one company (company or
// company_id) and of any of the given jurisdictions (jurisdictions or
// jurisdiction_ids), by due date.
func listComplianceEvents(c *call) error {
	limit, offset := c.paging()
	start, err := parseDate("start_date", c.str("start_date"))
	if err != nil {
		return err
	}
	end, err := parseDate("end_date", c.str("end_date"))
	if err != nil {
		return err
	}
	if end < start {
		return invalid("end_date", "must not be before start_date")
	}
	js, byJurisdiction, err := jurisdictionsParam(c.strs("jurisdictions"), c.strs("jurisdiction_ids"))
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, j := range js {
		want[j.Name] = true
	}
	f := c.f
	wf := f.wire(false)
	out, err := locked(f, func() ([]complianceEventWire, error) {
		co, byCompany, err := f.companyParam(c.str("company"), c.str("company_id"))
		if err != nil {
			return nil, err
		}
		list := f.st.events.filter(func(ev *ComplianceEvent) bool {
			due := date(ev.DueDate)
			return due >= start && due <= end &&
				(!byCompany || ev.CompanyID == co.ID) &&
				(!byJurisdiction || anyWanted(ev.Jurisdictions, want))
		})
		return mapRows(page(list, limit, offset), func(ev *ComplianceEvent) complianceEventWire { return f.complianceWire(wf, ev) }), nil
	})
	if err != nil {
		return err
	}
	return c.ok(out, answer{stringSuccess: true})
}

func anyWanted(list []string, want map[string]bool) bool {
	for _, s := range list {
		if want[s] {
			return true
		}
	}
	return false
}
