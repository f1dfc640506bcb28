package acctadmin

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// ComplianceEventsClient reads compliance events: the due dates of filings
// per company and jurisdiction.
type ComplianceEventsClient service

// routeComplianceEventsList is the route of compliance events.
var routeComplianceEventsList = declare(http.MethodGet, "/compliance-events", "ComplianceEvents.List")

// ComplianceEventStatus is the state of a compliance event. Values the API
// adds later are kept as they come.
type ComplianceEventStatus string

// The compliance event states the API documents.
const (
	// ComplianceEventActive is a filing that is due.
	ComplianceEventActive ComplianceEventStatus = "active"
	// ComplianceEventNoneRequired is a due date that needs no filing.
	ComplianceEventNoneRequired ComplianceEventStatus = "none_required"
)

// ComplianceEvent is the due date of a filing of a company.
// GET /compliance-events.
type ComplianceEvent struct {
	ID        uuid.UUID             `json:"id"`
	CreatedAt time.Time             `json:"created_at"`
	UpdatedAt time.Time             `json:"updated_at"`
	Status    ComplianceEventStatus `json:"status"`
	DueDate   Date                  `json:"due_date"`
	// Jurisdictions are the names of the jurisdictions of the event.
	Jurisdictions []string  `json:"jurisdictions"`
	Company       string    `json:"company"`
	CompanyID     uuid.UUID `json:"company_id"`
	// Filing is the name of the filing that is due.
	Filing string `json:"filing"`
}

// complianceEventWire is a compliance event as the API writes it: its
// jurisdictions come as names or as {"jurisdiction": name} objects.
// It embeds the event without its UnmarshalJSON.
type complianceEventWire struct {
	plainComplianceEvent
	Jurisdictions jurisdictionNames `json:"jurisdictions"`
	CreatedAt     Time              `json:"created_at"`
	UpdatedAt     Time              `json:"updated_at"`
}

type plainComplianceEvent ComplianceEvent

// UnmarshalJSON reads a compliance event in any shape the API writes it.
func (e *ComplianceEvent) UnmarshalJSON(data []byte) error {
	return decodeWire[complianceEventWire](data, e)
}

func (w complianceEventWire) record() ComplianceEvent {
	e := ComplianceEvent(w.plainComplianceEvent)
	e.Jurisdictions = w.Jurisdictions
	e.CreatedAt, e.UpdatedAt = w.CreatedAt.Time, w.UpdatedAt.Time
	return e
}

// maxComplianceEventsLimit is the largest page of GET /compliance-events.
const maxComplianceEventsLimit = 100

// ComplianceEventListParams filters GET /compliance-events. StartDate and
// EndDate are required; other zero values are not sent.
type ComplianceEventListParams struct {
	// Limit is the page size (API default 50, at most 100).
	Limit int
	// Offset is the number of events to skip.
	Offset int
	// Company filters by company name; give it or CompanyID, not both.
	Company string
	// CompanyID filters by company id.
	CompanyID uuid.UUID
	// StartDate and EndDate bound the due dates; both are required and
	// EndDate must not be before StartDate.
	StartDate Date
	EndDate   Date
	// Jurisdictions filters by jurisdiction names; give it or
	// JurisdictionIDs, not both.
	Jurisdictions []string
	// JurisdictionIDs filters by jurisdiction ids.
	JurisdictionIDs []uuid.UUID
}

func (p *ComplianceEventListParams) validate() error {
	err := firstErr(
		checkPage(p.Limit, maxComplianceEventsLimit, p.Offset),
		checkNotBoth("company", p.Company != "", "company_id", p.CompanyID != uuid.Nil),
		checkDate("start_date", p.StartDate),
		checkDate("end_date", p.EndDate),
		checkNotBoth("jurisdictions", len(p.Jurisdictions) > 0, "jurisdiction_ids", len(p.JurisdictionIDs) > 0),
		checkIDs("jurisdiction_ids", p.JurisdictionIDs),
	)
	if err == nil && p.EndDate.Before(p.StartDate) {
		err = invalid("end_date", "%s is before start_date %s", p.EndDate, p.StartDate)
	}
	return err
}

func (p *ComplianceEventListParams) paging() (limit, offset *int) { return &p.Limit, &p.Offset }

func (p *ComplianceEventListParams) query() *query {
	q := &query{}
	q.int("limit", p.Limit)
	q.int("offset", p.Offset)
	q.str("company", p.Company)
	q.id("company_id", p.CompanyID)
	q.date("start_date", p.StartDate)
	q.date("end_date", p.EndDate)
	q.strs("jurisdictions", p.Jurisdictions)
	q.ids("jurisdiction_ids", p.JurisdictionIDs)
	return q
}

// List returns one page of the compliance events due between p.StartDate
// and p.EndDate. GET /compliance-events.
func (s *ComplianceEventsClient) List(ctx context.Context, p *ComplianceEventListParams) ([]ComplianceEvent, error) {
	return listRecords[complianceEventWire](ctx, s.c, routeComplianceEventsList, p)
}

// All returns every compliance event due between p.StartDate and
// p.EndDate, page after page (100 a page unless p.Limit says otherwise),
// reading the next page while the loop works on the current one.
// GET /compliance-events.
func (s *ComplianceEventsClient) All(ctx context.Context, p *ComplianceEventListParams) iter.Seq2[ComplianceEvent, error] {
	return paginate(ctx, listingOf(p, maxComplianceEventsLimit, s.List, func(v ComplianceEvent) uuid.UUID { return v.ID }))
}

// jurisdictionNames is a list of jurisdictions written as plain strings or
// as objects {"jurisdiction": name} (compliance-event listings do that).
type jurisdictionNames []string

func (j *jurisdictionNames) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*j = nil
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		return fmt.Errorf("want an array of jurisdictions, got %s", describe(data))
	}
	out := make([]string, 0, len(items))
	for i, raw := range items {
		if s, ok := unquote(raw); ok {
			out = append(out, s)
			continue
		}
		var obj struct {
			Jurisdiction *string `json:"jurisdiction"`
			Name         *string `json:"name"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil || (obj.Jurisdiction == nil && obj.Name == nil) {
			return fmt.Errorf("item %d: want a jurisdiction name or {\"jurisdiction\": name}, got %s", i, describe(raw))
		}
		if obj.Jurisdiction != nil {
			out = append(out, *obj.Jurisdiction)
		} else {
			out = append(out, *obj.Name)
		}
	}
	*j = out
	return nil
}
