package acctadmin

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
)

// routeCall is one typed method called with valid parameters: the route
// it sends.
type routeCall struct {
	rt   *route
	call func(ctx context.Context, c *Client) error
}

var (
	rcID   = uuid.MustParse("7b3e2d1c-0a9f-4e8d-b7c6-5a4f3e2d1c0b")
	rcDate = Date{Year: 2024, Month: 1, Day: 1}
)

// fileErr closes the file a call returned and keeps its error.
func fileErr(f *File, err error) error {
	if f != nil {
		f.Close()
	}
	return err
}

// everyCall calls every typed method, one for each declared route.
func everyCall() []routeCall {
	id := rcID
	return append([]routeCall{
		{routeServicesList, func(ctx context.Context, c *Client) error { _, err := c.Services.List(ctx, nil); return err }},
		{routeServicesCreate, func(ctx context.Context, c *Client) error {
			_, err := c.Services.Create(ctx, &ServiceCreateParams{CompanyID: id, JurisdictionIDs: []uuid.UUID{id}})
			return err
		}},
		{routeServicesCancel, func(ctx context.Context, c *Client) error {
			_, err := c.Services.RequestCancellation(ctx, id)
			return err
		}},
		{routeDocumentsList, func(ctx context.Context, c *Client) error { _, err := c.Documents.List(ctx, nil); return err }},
		{routeDocumentsGet, func(ctx context.Context, c *Client) error { _, err := c.Documents.Get(ctx, id); return err }},
		{routeDocumentsPage, func(ctx context.Context, c *Client) error { return fileErr(c.Documents.Page(ctx, id, 3, nil)) }},
		{routeDocumentsDownload, func(ctx context.Context, c *Client) error { return fileErr(c.Documents.Download(ctx, id)) }},
		{routeResourcesList, func(ctx context.Context, c *Client) error { _, err := c.Resources.List(ctx, nil); return err }},
		{routeResourcesGet, func(ctx context.Context, c *Client) error { _, err := c.Resources.Get(ctx, id); return err }},
		{routeResourcesPage, func(ctx context.Context, c *Client) error { return fileErr(c.Resources.Page(ctx, id, 0, nil)) }},
		{routeResourcesDownload, func(ctx context.Context, c *Client) error { return fileErr(c.Resources.Download(ctx, id)) }},
		{routeFilingProductsList, func(ctx context.Context, c *Client) error {
			_, err := c.FilingProducts.List(ctx, &FilingProductListParams{URL: "https://example.com"})
			return err
		}},
		{routeComplianceEventsList, func(ctx context.Context, c *Client) error {
			_, err := c.ComplianceEvents.List(ctx, &ComplianceEventListParams{StartDate: rcDate, EndDate: rcDate})
			return err
		}},
		{routeWebsitesGet, func(ctx context.Context, c *Client) error {
			_, err := c.Websites.Get(ctx, "https://example.com")
			return err
		}},
		{routeCallbacksList, func(ctx context.Context, c *Client) error { _, err := c.Callbacks.List(ctx); return err }},
		{routeCallbacksCreate, func(ctx context.Context, c *Client) error {
			_, err := c.Callbacks.Create(ctx, "https://example.com/hook")
			return err
		}},
		{routeCallbacksDelete, func(ctx context.Context, c *Client) error { return c.Callbacks.Delete(ctx, id) }},
		{routeCompaniesList, func(ctx context.Context, c *Client) error { _, err := c.Companies.List(ctx); return err }},
		{routeCompaniesCreate, func(ctx context.Context, c *Client) error {
			_, err := c.Companies.Create(ctx, CompanyCreateParams{Name: "Acme"})
			return err
		}},
		{routeCompaniesUpdate, func(ctx context.Context, c *Client) error {
			_, err := c.Companies.Update(ctx, CompanyUpdateParams{CompanyID: id, Name: "Acme 2"})
			return err
		}},
		{routeInvoicesList, func(ctx context.Context, c *Client) error { _, err := c.Invoices.List(ctx, nil); return err }},
		{routeRegisteredAgentProductsList, func(ctx context.Context, c *Client) error {
			_, err := c.RegisteredAgentProducts.List(ctx, &RegisteredAgentProductListParams{URL: "https://example.com"})
			return err
		}},
	}, newRouteCalls()...)
}

// newRouteCalls calls the methods of the routes beyond the first spec,
// with the values of wireCases.
func newRouteCalls() []routeCall {
	var out []routeCall
	for _, wc := range wireCases() {
		out = append(out, routeCall{wc.rt, wc.call})
	}
	return out
}

// hookedCall is what the hooks saw of one call.
type hookedCall struct{ Operation, Method, Path string }

// hookedClient returns a client for srv whose CallStart records what it
// sees, and the function that reads the record.
func hookedClient(t *testing.T, srv *apiServer, opts ...Option) (*Client, func() []hookedCall) {
	var mu sync.Mutex
	var seen []hookedCall
	opts = append([]Option{WithHooks(Hooks{
		CallStart: func(ctx context.Context, ci CallInfo) context.Context {
			mu.Lock()
			seen = append(seen, hookedCall{ci.Operation, ci.Method, ci.Path})
			mu.Unlock()
			return ctx
		},
	})}, opts...)
	c := newTestClient(t, srv, opts...)
	return c, func() []hookedCall {
		mu.Lock()
		defer mu.Unlock()
		return append([]hookedCall(nil), seen...)
	}
}

// nullServer answers every JSON call with a null result, and the file
// routes with a file of their type.
func nullServer(t *testing.T) *apiServer {
	return newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/download") && !strings.HasSuffix(r.URL.Path, "/bulk-download"):
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = w.Write([]byte("%PDF-1.4"))
		case strings.Contains(r.URL.Path, "/page/") && !strings.HasSuffix(r.URL.Path, "/url"):
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write([]byte("\x89PNG"))
		default:
			writeJSON(w, 200, `{"success":true,"result":null}`)
		}
	})
}

// The operation names and path patterns that hooks see for the first
// routes are pinned: programs group their metrics and traces by them.
func TestHookNamesPinned(t *testing.T) {
	srv := nullServer(t)
	c, seen := hookedClient(t, srv, WithMaxRetries(0))
	ctx := context.Background()
	for _, rc := range everyCall() {
		_ = rc.call(ctx, c)
	}
	for range c.Documents.All(ctx, &DocumentListParams{Limit: 1}) {
		break
	}
	got := map[string]hookedCall{}
	for _, h := range seen() {
		got[h.Operation] = h
	}
	for _, want := range []hookedCall{
		{"Services.List", "GET", "/services"},
		{"Services.Create", "POST", "/services"},
		{"Services.RequestCancellation", "POST", "/services/{id}/cancel-request"},
		{"Documents.List", "GET", "/documents"},
		{"Documents.Get", "GET", "/documents/{id}"},
		{"Documents.Page", "GET", "/documents/{id}/page/{n}"},
		{"Documents.Download", "GET", "/documents/{id}/download"},
		{"Resources.List", "GET", "/resources"},
		{"Resources.Get", "GET", "/resources/{id}"},
		{"Resources.Page", "GET", "/resources/{id}/page/{n}"},
		{"Resources.Download", "GET", "/resources/{id}/download"},
		{"FilingProducts.List", "GET", "/filing-products"},
		{"ComplianceEvents.List", "GET", "/compliance-events"},
		{"Websites.Get", "GET", "/websites"},
		{"Callbacks.List", "GET", "/callbacks"},
		{"Callbacks.Create", "POST", "/callbacks"},
		{"Callbacks.Delete", "DELETE", "/callbacks/{id}"},
		{"Companies.List", "GET", "/companies"},
		{"Companies.Create", "POST", "/companies"},
		{"Companies.Update", "PATCH", "/companies"},
		{"Invoices.List", "GET", "/invoices"},
		{"RegisteredAgentProducts.List", "GET", "/registered-agent-products"},
	} {
		if got[want.Operation] != want {
			t.Errorf("hooks saw %+v, want %+v", got[want.Operation], want)
		}
	}
	// A page read by All is a List call.
	last := seen()[len(seen())-1]
	if last != (hookedCall{"Documents.List", "GET", "/documents"}) {
		t.Errorf("a page of All: hooks saw %+v", last)
	}
}

// Every declared route: unique, well formed, called by one typed method
// that sends exactly what the declaration says and that the hooks name by
// it; at-most-once routes say how to find out what happened.
func TestDeclaredRoutes(t *testing.T) {
	calls := everyCall()
	if len(calls) != len(routes) {
		t.Errorf("%d routes declared, %d called by the test table", len(routes), len(calls))
	}
	byRoute := map[*route]routeCall{}
	for _, rc := range calls {
		if _, dup := byRoute[rc.rt]; dup {
			t.Errorf("route %s %s called twice in the table", rc.rt.method, rc.rt.pattern)
		}
		byRoute[rc.rt] = rc
	}
	pattern := regexp.MustCompile(`^(/[a-z0-9-]+|/\{id\}|/\{n\})+$`)
	operation := regexp.MustCompile(`^[A-Z][A-Za-z]+\.[A-Z][A-Za-z]+$`)
	seenRoute, seenOp := map[string]bool{}, map[string]bool{}
	for _, r := range routes {
		key := r.method + " " + r.pattern
		if seenRoute[key] || seenOp[r.operation] {
			t.Errorf("%s (%s) declared twice", key, r.operation)
		}
		seenRoute[key], seenOp[r.operation] = true, true
		if !pattern.MatchString(r.pattern) || !operation.MatchString(r.operation) {
			t.Errorf("%s: malformed declaration %+v", key, *r)
		}
		if (r.class == atMostOnce) != (r.verify != "") {
			t.Errorf("%s: class %d with verify %q", key, r.class, r.verify)
		}
		if r.class == repeatable && r.method != http.MethodGet && r.method != http.MethodDelete {
			t.Errorf("%s: a %s is never repeatable", key, r.method)
		}
		if _, ok := byRoute[r]; !ok {
			t.Errorf("%s: no typed method in the test table", key)
		}
	}

	srv := nullServer(t)
	c, seen := hookedClient(t, srv, WithMaxRetries(0))
	ctx := context.Background()
	for i, rc := range calls {
		_ = rc.call(ctx, c)
		reqs := srv.requests()
		if len(reqs) != i+1 {
			t.Fatalf("%s %s: %d requests in all after %d calls", rc.rt.method, rc.rt.pattern, len(reqs), i+1)
		}
		req := reqs[i]
		want := strings.NewReplacer("{id}", "[0-9a-f-]{36}", "{n}", "[0-9]+").Replace(rc.rt.pattern)
		if req.Method != rc.rt.method || !regexp.MustCompile("^"+want+"$").MatchString(req.Path) || !req.AuthOK {
			t.Errorf("%s %s sent %s %s (auth %v %s)", rc.rt.method, rc.rt.pattern, req.Method, req.Path, req.AuthOK, req.AuthErr)
		}
		h := seen()[i]
		if h != (hookedCall{rc.rt.operation, rc.rt.method, rc.rt.pattern}) {
			t.Errorf("%s %s: hooks saw %+v", rc.rt.method, rc.rt.pattern, h)
		}
	}
}

// Each route beyond the first spec sends exactly what the provider's
// clients send (method, path, query, body), signed, and reads the answer
// in the shape the fake gives.
func TestRoutesOnTheWire(t *testing.T) {
	for _, wc := range wireCases() {
		t.Run(wc.rt.operation, func(t *testing.T) {
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				top := ""
				if wc.top != "" {
					top = "," + wc.top
				}
				writeJSON(w, 200, `{"success":true,"timestamp":"2024-01-02 03:04:05 +0000","result":`+wc.answer+top+`}`)
			})
			got, err := wc.run(context.Background(), newTestClient(t, srv))
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			req := srv.last(t)
			path := wc.rt.at(pathArgs(wc.rt)...).path
			if req.Method != wc.rt.method || req.Path != path || req.RawQuery != wc.query || !req.AuthOK {
				t.Errorf("sent %s %s?%s (auth %v %s), want %s %s?%s", req.Method, req.Path, req.RawQuery, req.AuthOK, req.AuthErr,
					wc.rt.method, path, wc.query)
			}
			if wc.body == "" && req.Body != "" || wc.body != "" && !sameJSON(req.Body, wc.body) {
				t.Errorf("body %s\nwant %s", req.Body, wc.body)
			}
			if wc.check != nil {
				if err := wc.check(got); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// pathArgs are the path parameters the wire cases use for rt.
func pathArgs(rt *route) []string {
	switch rt {
	case routeCompaniesGet:
		return []string{wcCompany.String()}
	case routeDocumentsPageURL:
		return []string{wcDocument.String(), "2"}
	case routeDocumentsUnlock:
		return []string{wcDocument.String()}
	case routeServicesInfo, routeServicesAddInfo:
		return []string{wcService.String()}
	case routePaymentMethodsUpdate, routePaymentMethodsDelete:
		return []string{wcCard.String()}
	case routeInvoicesGet:
		return []string{wcInvoice.String()}
	}
	return nil
}
