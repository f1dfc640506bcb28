package acctadmin

import (
	"context"
	"iter"
	"net/http"

	"github.com/google/uuid"
)

// ResourcesClient reads reference resources: forms and links per
// jurisdiction, agency and entity type, some of them readable as page
// images or as a PDF.
type ResourcesClient service

// The routes of resources.
var (
	routeResourcesList     = declare(http.MethodGet, "/resources", "Resources.List")
	routeResourcesGet      = declare(http.MethodGet, "/resources/{id}", "Resources.Get")
	routeResourcesPage     = declare(http.MethodGet, "/resources/{id}/page/{n}", "Resources.Page")
	routeResourcesDownload = declare(http.MethodGet, "/resources/{id}/download", "Resources.Download")
)

// ResourceKind says what a resource is. Values the API adds later are kept
// as they come.
type ResourceKind string

// The resource kinds the API documents.
const (
	// ResourceKindDocument is a file, readable with Page and Download.
	ResourceKindDocument ResourceKind = "document"
	// ResourceKindURL is a link to a page elsewhere.
	ResourceKindURL ResourceKind = "url"
)

// Resource is a reference form or link. GET /resources.
type Resource struct {
	ID   uuid.UUID `json:"id"`
	Name string    `json:"name"`
	// URL is where the original can be found.
	URL          string       `json:"url"`
	Kind         ResourceKind `json:"kind"`
	Jurisdiction string       `json:"jurisdiction"`
	// Agency is the agency that provides the resource.
	Agency string `json:"agency"`
	// EntityTypes are the entity types the resource is for.
	EntityTypes []string `json:"entity_types"`
}

// resourceWire is a resource as the API writes it: no field of it needs a
// shape of its own.
type resourceWire Resource

func (w resourceWire) record() Resource { return Resource(w) }

// maxResourcesLimit is the largest page of GET /resources.
const maxResourcesLimit = 200

// ResourceListParams filters GET /resources. Zero values are not sent.
type ResourceListParams struct {
	// Limit is the page size (API default 50, at most 200).
	Limit int
	// Offset is the number of resources to skip.
	Offset int
	// EntityType filters by entity type, as "LLC".
	EntityType string
	// Agency filters by agency name.
	Agency string
	// Jurisdiction filters by jurisdiction name.
	Jurisdiction string
	// Name filters by resource name.
	Name string
}

func (p *ResourceListParams) validate() error {
	return checkPage(p.Limit, maxResourcesLimit, p.Offset)
}

func (p *ResourceListParams) paging() (limit, offset *int) { return &p.Limit, &p.Offset }

func (p *ResourceListParams) query() *query {
	q := &query{}
	q.int("limit", p.Limit)
	q.int("offset", p.Offset)
	q.str("entity_type", p.EntityType)
	q.str("agency", p.Agency)
	q.str("jurisdiction", p.Jurisdiction)
	q.str("name", p.Name)
	return q
}

// List returns one page of resources. GET /resources.
func (s *ResourcesClient) List(ctx context.Context, p *ResourceListParams) ([]Resource, error) {
	return listRecords[resourceWire](ctx, s.c, routeResourcesList, p)
}

// All returns every resource, page after page (200 a page unless p.Limit
// says otherwise), reading the next page while the loop works on the
// current one. GET /resources.
func (s *ResourcesClient) All(ctx context.Context, p *ResourceListParams) iter.Seq2[Resource, error] {
	return paginate(ctx, listingOf(p, maxResourcesLimit, s.List, func(v Resource) uuid.UUID { return v.ID }))
}

// Get returns the resource id. The API does not document this answer; it
// is read as a Resource. GET /resources/:id.
func (s *ResourcesClient) Get(ctx context.Context, id uuid.UUID) (*Resource, error) {
	if err := checkID("id", id); err != nil {
		return nil, err
	}
	return fromWire(call[resourceWire](ctx, s.c, routeResourcesGet.at(id.String()), nil, nil))
}

// Page returns page n (counted from 0) of the resource id as a PNG image,
// streamed; the caller closes it. GET /resources/:id/page/:page_number.
func (s *ResourcesClient) Page(ctx context.Context, id uuid.UUID, n int, p *PageParams) (*File, error) {
	return pageImage(ctx, s.c, routeResourcesPage, id, n, p)
}

// Download returns the resource id as a PDF file, streamed; the caller
// closes it. GET /resources/:id/download.
func (s *ResourcesClient) Download(ctx context.Context, id uuid.UUID) (*File, error) {
	return pdfFile(ctx, s.c, routeResourcesDownload, id)
}
