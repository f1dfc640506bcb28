package acctadmintest

import (
	"strings"

	"github.com/google/uuid"
)

// Resource kinds.
const (
	ResourceDocument = "document"
	ResourceURL      = "url"
)

// Resource is a reference form or link for a jurisdiction, agency and
// entity types.
type Resource struct {
	ID           uuid.UUID
	Name         string
	URL          string
	Kind         string
	Jurisdiction string
	Agency       string
	EntityTypes  []string
	// Pages and PDFSize describe the file of a resource of kind document;
	// a resource of kind url has no file.
	Pages   int
	PDFSize int64
}

// ResourceInput describes a resource for AddResource. Zero fields get
// defaults: a new ID, kind document, 1 page.
type ResourceInput struct {
	ID           uuid.UUID
	Name         string
	URL          string
	Kind         string
	Jurisdiction string // a jurisdiction name, or ""
	Agency       string
	EntityTypes  []string
	Pages        int
	PDFSize      int64
}

// AddResource adds a resource and returns it. It panics on an unknown
// jurisdiction.
func (f *Fake) AddResource(in ResourceInput) Resource {
	if in.Jurisdiction != "" {
		in.Jurisdiction = mustJurisdiction("AddResource", in.Jurisdiction).Name
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	r := &Resource{
		ID:           f.idOr(in.ID),
		Name:         in.Name,
		URL:          in.URL,
		Kind:         orDefault(in.Kind, ResourceDocument),
		Jurisdiction: in.Jurisdiction,
		Agency:       in.Agency,
		EntityTypes:  append([]string(nil), in.EntityTypes...),
		Pages:        max(in.Pages, 1),
		PDFSize:      in.PDFSize,
	}
	f.st.resources.insert(r)
	return f.st.resources.copyOf(r)
}

// Resources returns every resource in the order they were added, which is
// the order of the listing.
func (f *Fake) Resources() []Resource {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.resources.copies()
}

// Resource returns the resource with the given ID.
func (f *Fake) Resource(id uuid.UUID) (Resource, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.resources.lookup(id)
}

type resourceWire struct {
	ID           uuid.UUID `json:"id"`
	Name         string    `json:"name"`
	URL          string    `json:"url"`
	Kind         string    `json:"kind"`
	Jurisdiction string    `json:"jurisdiction"`
	Agency       string    `json:"agency"`
	EntityTypes  []string  `json:"entity_types"`
}

func (wf wireFormat) resource(r *Resource) resourceWire {
	return resourceWire{
		ID:           r.ID,
		Name:         r.Name,
		URL:          r.URL,
		Kind:         r.Kind,
		Jurisdiction: r.Jurisdiction,
		Agency:       r.Agency,
		EntityTypes:  emptyAsNull(wf, r.EntityTypes),
	}
}

// GET /resources: filters are all optional and combine. name matches any
// resource whose name contains it; agency and entity_type match exactly;
// jurisdiction must be a valid jurisdiction name (400 otherwise). All
// comparisons ignore case.
func listResources(c *call) error {
	limit, offset := c.paging()
	name, agency, entityType := c.str("name"), c.str("agency"), c.str("entity_type")
	jurisdiction := c.str("jurisdiction")
	if jurisdiction != "" {
		j, ok := LookupJurisdiction(jurisdiction)
		if !ok {
			return invalid("jurisdiction", "must be a valid jurisdiction name or abbreviation")
		}
		jurisdiction = j.Name
	}
	f := c.f
	wf := f.wire(false)
	out, _ := locked(f, func() ([]resourceWire, error) {
		list := f.st.resources.filter(func(r *Resource) bool {
			return (name == "" || strings.Contains(strings.ToLower(r.Name), strings.ToLower(name))) &&
				(agency == "" || strings.EqualFold(r.Agency, agency)) &&
				(jurisdiction == "" || r.Jurisdiction == jurisdiction) &&
				(entityType == "" || containsFold(r.EntityTypes, entityType))
		})
		return mapRows(page(list, limit, offset), wf.resource), nil
	})
	return c.ok(out, answer{stringSuccess: true})
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// lookupResource finds the resource of the :id path parameter.
func (c *call) lookupResource() (Resource, error) {
	id, err := c.pathID("resource")
	if err != nil {
		return Resource{}, err
	}
	r, ok := c.f.Resource(id)
	if !ok {
		return Resource{}, notFound("resource")
	}
	return r, nil
}

// lookupResourceFile is lookupResource for the file endpoints: a resource
// of kind url is a link and has no file (404).
func (c *call) lookupResourceFile() (Resource, error) {
	r, err := c.lookupResource()
	if err == nil && r.Kind == ResourceURL {
		return Resource{}, notFound("file of resource " + r.ID.String() + " (it is a link)")
	}
	return r, err
}

// GET /resources/:id
func getResource(c *call) error {
	r, err := c.lookupResource()
	if err != nil {
		return err
	}
	return c.ok(c.f.wire(false).resource(&r), answer{})
}

// GET /resources/:id/page/:page_number
func getResourcePage(c *call) error {
	r, err := c.lookupResourceFile()
	if err != nil {
		return err
	}
	return c.servePage(r.Pages)
}

// GET /resources/:id/download: the PDF; downloading changes nothing.
func downloadResource(c *call) error {
	r, err := c.lookupResourceFile()
	if err != nil {
		return err
	}
	return c.serveFile(r.Name, r.Pages, r.PDFSize)
}
