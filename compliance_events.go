package acctadmin

import (
	"context"
	"iter"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// ComplianceEventsClient reads the due dates of the companies' filings.
type ComplianceEventsClient service

var routeComplianceEventsList = declare(http.MethodGet, "/compliance-events", "ComplianceEvents.List")

// ComplianceEventStatus is the state of a compliance event.
type ComplianceEventStatus string

// The compliance event states the API documents.
const (
	ComplianceEventActive       ComplianceEventStatus = "active"        // a filing is due
	ComplianceEventNoneRequired ComplianceEventStatus = "none_required" // no filing is needed
)

// ComplianceEvent is the due date of a filing of a company.
type ComplianceEvent struct {
	ID            uuid.UUID             `json:"id"`
	CreatedAt     time.Time             `json:"created_at"`
	UpdatedAt     time.Time             `json:"updated_at"`
	Status        ComplianceEventStatus `json:"status"`
	DueDate       Date                  `json:"due_date"`
	Jurisdictions []string              `json:"jurisdictions"` // names, read from names, {"jurisdiction": name} or "jurisdiction"
	Company       string                `json:"company"`
	CompanyID     uuid.UUID             `json:"company_id"`
	Filing        string                `json:"filing"` // the name of the filing due
}

// UnmarshalJSON reads a compliance event in every shape the API writes it.
func (e *ComplianceEvent) UnmarshalJSON(data []byte) error {
	type fields ComplianceEvent
	w := struct {
		*fields
		CreatedAt     Time              `json:"created_at"`
		UpdatedAt     Time              `json:"updated_at"`
		Jurisdictions jurisdictionNames `json:"jurisdictions"`
		Jurisdiction  jurisdictionNames `json:"jurisdiction"`
	}{fields: (*fields)(e)}
	*e = ComplianceEvent{}
	err := readRecord(data, &w)
	e.CreatedAt, e.UpdatedAt, e.Jurisdictions = w.CreatedAt.Time, w.UpdatedAt.Time, w.Jurisdictions
	if len(e.Jurisdictions) == 0 {
		e.Jurisdictions = w.Jurisdiction
	}
	return err
}

// ComplianceEventListParams filters GET /compliance-events: StartDate and
// EndDate (not before StartDate) bound the due dates and are required.
type ComplianceEventListParams struct {
	Limit, Offset      int    // page size (API default 50, at most 100), events to skip
	Company            string // a company's name; give it or CompanyID, not both
	CompanyID          uuid.UUID
	StartDate, EndDate Date
	Jurisdictions      []string // names; give it or JurisdictionIDs, not both
	JurisdictionIDs    []uuid.UUID
}

func (p *ComplianceEventListParams) validate() error {
	return firstErr(checkPage(p.Limit, 100, p.Offset),
		checkNotBoth("company", p.Company != "", "company_id", p.CompanyID != uuid.Nil),
		checkDate("start_date", p.StartDate), checkDate("end_date", p.EndDate),
		checkNotBoth("jurisdictions", len(p.Jurisdictions) > 0, "jurisdiction_ids", len(p.JurisdictionIDs) > 0),
		checkIDs("jurisdiction_ids", p.JurisdictionIDs), checkDates(p.StartDate, p.EndDate))
}

func (p *ComplianceEventListParams) paging() (limit, offset *int) { return &p.Limit, &p.Offset }

// List returns one page of the compliance events due between p.StartDate
// and p.EndDate. GET /compliance-events.
func (s *ComplianceEventsClient) List(ctx context.Context, p *ComplianceEventListParams) ([]ComplianceEvent, error) {
	p = orZero(p)
	if err := p.validate(); err != nil {
		return nil, err
	}
	q := new(query).int("limit", p.Limit).int("offset", p.Offset).str("company", p.Company).id("company_id", p.CompanyID).
		date("start_date", p.StartDate).date("end_date", p.EndDate).
		strs("jurisdictions", p.Jurisdictions).ids("jurisdiction_ids", p.JurisdictionIDs)
	var page []ComplianceEvent
	if err := s.c.json(ctx, routeComplianceEventsList.at(), q, nil, &page); err != nil {
		return nil, err
	}
	return page, nil
}

// All returns every compliance event due between p.StartDate and
// p.EndDate (100 a page by default). GET /compliance-events.
func (s *ComplianceEventsClient) All(ctx context.Context, p *ComplianceEventListParams) iter.Seq2[ComplianceEvent, error] {
	return paginate(ctx, listingOf(p, 100, s.List, func(v ComplianceEvent) uuid.UUID { return v.ID }))
}
