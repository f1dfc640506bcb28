package acctadmin

import (
	"context"
	"iter"
	"net/http"
	"strconv"

	"github.com/google/uuid"
)

// ResourcesClient reads reference forms and links per jurisdiction, agency
// and entity type, some readable as page images or a PDF.
type ResourcesClient service

// The routes of resources.
var (
	routeResourcesList     = declare(http.MethodGet, "/resources", "Resources.List")
	routeResourcesGet      = declare(http.MethodGet, "/resources/{id}", "Resources.Get")
	routeResourcesPage     = declare(http.MethodGet, "/resources/{id}/page/{n}", "Resources.Page")
	routeResourcesDownload = declare(http.MethodGet, "/resources/{id}/download", "Resources.Download")
)

// ResourceKind says what a resource is; other values are kept as they come.
type ResourceKind string

// The resource kinds the API documents.
const (
	ResourceKindDocument ResourceKind = "document" // a file: see Page and Download
	ResourceKindURL      ResourceKind = "url"      // a link to a page elsewhere
)

// Resource is a reference form or link.
type Resource struct {
	ID           uuid.UUID    `json:"id"`
	Name         string       `json:"name"`
	URL          string       `json:"url"` // where the original is
	Kind         ResourceKind `json:"kind"`
	Jurisdiction string       `json:"jurisdiction"`
	Agency       string       `json:"agency"`       // the agency that provides it
	EntityTypes  []string     `json:"entity_types"` // the entity types it is for
}

// maxResourcesLimit is the largest page of GET /resources.
const maxResourcesLimit = 200

// ResourceListParams filters GET /resources. Zero values are not sent.
type ResourceListParams struct {
	Limit        int    // page size: API default 50, at most 200
	Offset       int    // resources to skip
	EntityType   string // as "LLC"
	Agency       string // an agency's name
	Jurisdiction string // a jurisdiction's name
	Name         string // a resource's name
}

func (p *ResourceListParams) validate() error {
	return checkPage(p.Limit, maxResourcesLimit, p.Offset)
}

func (p *ResourceListParams) paging() (limit, offset *int) { return &p.Limit, &p.Offset }

func (p *ResourceListParams) query() *query {
	return new(query).int("limit", p.Limit).int("offset", p.Offset).str("entity_type", p.EntityType).str("agency", p.Agency).
		str("jurisdiction", p.Jurisdiction).str("name", p.Name)
}

// List returns one page of resources. GET /resources.
func (s *ResourcesClient) List(ctx context.Context, p *ResourceListParams) ([]Resource, error) {
	p = orZero(p)
	if err := p.validate(); err != nil {
		return nil, err
	}
	var page []Resource
	if err := s.c.json(ctx, routeResourcesList.at(), p.query(), nil, &page); err != nil {
		return nil, err
	}
	return page, nil
}

// All returns every resource, page after page (200 a page unless p.Limit
// says otherwise), read ahead of the loop. GET /resources.
func (s *ResourcesClient) All(ctx context.Context, p *ResourceListParams) iter.Seq2[Resource, error] {
	return paginate(ctx, listingOf(p, maxResourcesLimit, s.List, func(v Resource) uuid.UUID { return v.ID }))
}

// Get returns the resource id (an undocumented answer). GET /resources/:id.
func (s *ResourcesClient) Get(ctx context.Context, id uuid.UUID) (*Resource, error) {
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	var r Resource
	if err := s.c.json(ctx, routeResourcesGet.at(id.String()), nil, nil, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Page returns page n (from 0) of the resource id as a PNG image,
// streamed; the caller closes it. GET /resources/:id/page/:page_number.
func (s *ResourcesClient) Page(ctx context.Context, id uuid.UUID, n int, p *PageParams) (*File, error) {
	p = orZero(p)
	if err := firstErr(checkID("id", id), p.validate(), checkNotNegative("page_number", n)); err != nil {
		return nil, err
	}
	return s.c.file(ctx, routeResourcesPage.at(id.String(), strconv.Itoa(n)), new(query).int("dpi", p.DPI), nil, "image/png")
}

// Download returns the resource id as a PDF file, streamed; the caller
// closes it. GET /resources/:id/download.
func (s *ResourcesClient) Download(ctx context.Context, id uuid.UUID) (*File, error) {
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	return s.c.file(ctx, routeResourcesDownload.at(id.String()), nil, nil, "application/pdf")
}
