package acctadmintest

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"
	"time"
)

// route is one endpoint: a method, a path pattern whose segments that
// start with ':' stand for any one segment, and its handler.
type route struct {
	method  string
	pattern string
	handle  func(*call) error
}

// handlers holds the handler of each operation of the API's OpenAPI
// document, by its operationId. A route is declared once, in the
// document: its method, its path and its parameters are read from there.
var handlers = map[string]func(*call) error{
	"listServices":                     listServices,
	"createServices":                   createServices,
	"requestServiceCancellation":       requestServiceCancellation,
	"listDocuments":                    listDocuments,
	"getDocument":                      getDocument,
	"getDocumentPage":                  getDocumentPage,
	"downloadDocument":                 downloadDocument,
	"unlockDocument":                   unlockDocument,
	"listResources":                    listResources,
	"getResource":                      getResource,
	"getResourcePage":                  getResourcePage,
	"downloadResource":                 downloadResource,
	"listFilingProducts":               listFilingProducts,
	"listComplianceEvents":             listComplianceEvents,
	"getWebsite":                       getWebsite,
	"listCallbacks":                    listCallbacks,
	"createCallback":                   createCallback,
	"deleteCallback":                   deleteCallback,
	"listCompanies":                    listCompanies,
	"createCompanies":                  createCompanies,
	"updateCompanies":                  updateCompanies,
	"listInvoices":                     listInvoices,
	"listRegisteredAgentProducts":      listRegisteredAgentProducts,
	"getAccount":                       getAccount,
	"getDashpanel":                     getDashpanel,
	"login":                            login,
	"refreshSession":                   refreshSession,
	"forgotPassword":                   forgotPassword,
	"resetPassword":                    resetPassword,
	"getCompany":                       getCompany,
	"getServiceInfo":                   getServiceInfo,
	"addServiceInfo":                   addServiceInfo,
	"bulkDownloadDocuments":            bulkDownloadDocuments,
	"getDocumentPageURL":               getDocumentPageURL,
	"listOfferings":                    listOfferings,
	"listFilingMethods":                listFilingMethods,
	"listFilingMethodSchemas":          listFilingMethodSchemas,
	"listSimpleProducts":               listSimpleProducts,
	"listSignedForms":                  listSignedForms,
	"listCartItems":                    listCartItems,
	"addCartItem":                      addCartItem,
	"removeCartItems":                  removeCartItems,
	"checkout":                         checkout,
	"listPaymentMethods":               listPaymentMethods,
	"createPaymentMethod":              createPaymentMethod,
	"updatePaymentMethod":              updatePaymentMethod,
	"deletePaymentMethod":              deletePaymentMethod,
	"getInvoice":                       getInvoice,
	"payInvoices":                      payInvoices,
	"listOrderItemsRequiringAttention": listOrderItemsRequiringAttention,
	"completeOrderItem":                completeOrderItem,
}

// routes is the API: each operation of the document with its handler,
// by path, then method. An operation without a handler, or a handler
// without an operation, is a broken build: it panics.
var routes = sync.OnceValue(func() []route {
	doc := mustContract()
	var out []route
	seen := make(map[string]bool)
	for _, p := range slices.Sorted(maps.Keys(doc.Paths.Map())) {
		item := doc.Paths.Value(p)
		for _, method := range otherMethods {
			op := item.GetOperation(method)
			if op == nil {
				continue
			}
			h := handlers[op.OperationID]
			if h == nil {
				panic("acctadmintest: no handler for the operation " + op.OperationID + " of the OpenAPI document")
			}
			seen[op.OperationID] = true
			out = append(out, route{method, routePattern(p), h})
		}
	}
	for id := range handlers {
		if !seen[id] {
			panic("acctadmintest: the handler " + id + " has no operation in the OpenAPI document")
		}
	}
	return out
})

// routePattern writes an OpenAPI path ("/documents/{id}") as a route
// pattern ("/documents/:id").
func routePattern(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if name, ok := strings.CutPrefix(s, "{"); ok {
			segs[i] = ":" + strings.TrimSuffix(name, "}")
		}
	}
	return strings.Join(segs, "/")
}

// Routes lists the endpoints the fake serves as "METHOD /pattern" strings,
// with path parameters written ":name" (for example
// "GET /documents/:id/page/:page_number"). These patterns are what
// Fault.Path, Request.Route and RequestCount take.
func Routes() []string {
	rs := routes()
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.method + " " + r.pattern
	}
	return out
}

// muxPattern writes a route pattern as an http.ServeMux path pattern:
// "/documents/:id" becomes "/documents/{id}".
func muxPattern(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if name, ok := strings.CutPrefix(s, ":"); ok {
			segs[i] = "{" + name + "}"
		}
	}
	return strings.Join(segs, "/")
}

// router routes authenticated API requests with an http.ServeMux of
// method-and-wildcard patterns. Besides the routes, it holds a method-less
// pattern per path that answers 405 with Allow, the unserved endpoints and
// a catch-all that answer 404.
type router struct {
	mux *http.ServeMux
	// names maps each mux pattern to the route pattern it stands for, ""
	// for those that answer "no such endpoint".
	names map[string]string
	// notAllowed answers 405 for each route pattern.
	notAllowed     map[string]http.Handler
	noSuchEndpoint http.Handler
}

func newRouter(f *Fake) *router {
	rt := &router{mux: http.NewServeMux(), names: make(map[string]string), notAllowed: make(map[string]http.Handler)}
	rt.noSuchEndpoint = f.endpoint(noSuchEndpoint)
	allowed := make(map[string][]string)
	var paths []string
	for _, r := range routes() {
		mp := r.method + " " + muxPattern(r.pattern)
		rt.mux.Handle(mp, f.endpoint(validated(r)))
		rt.names[mp] = r.pattern
		if _, ok := allowed[r.pattern]; !ok {
			paths = append(paths, r.pattern)
		}
		allowed[r.pattern] = append(allowed[r.pattern], r.method)
	}
	for _, p := range paths {
		methods := slices.Sorted(slices.Values(allowed[p]))
		rt.notAllowed[p] = f.endpoint(methodNotAllowed(p, methods))
		// One pattern per method, not a method-less one: that would
		// conflict with a wildcard pattern of a sibling path
		// (/documents/bulk-download beside GET /documents/{id}).
		for _, m := range otherMethods {
			if slices.Contains(methods, m) {
				continue
			}
			mp := m + " " + muxPattern(p)
			if handleUnlessConflict(rt.mux, mp, rt.notAllowed[p]) {
				rt.names[mp] = p
			}
		}
	}
	rt.mux.Handle("/", rt.noSuchEndpoint)
	rt.names["/"] = ""
	return rt
}

// handleUnlessConflict registers the 405 answer h for the pattern mp,
// unless mp conflicts with a route of the API: GET /documents/unlock/{id}
// would with GET /documents/{id}/download, which both match
// "/documents/unlock/download". Such a request then finds the route, or
// the catch-all's 404.
func handleUnlessConflict(mux *http.ServeMux, mp string, h http.Handler) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	mux.Handle(mp, h)
	return true
}

// cleanPath reports whether p is a path the router matches as it is:
// ServeMux would redirect any other to its cleaned form, and an API does
// not redirect.
func cleanPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c == p
}

// match returns the route pattern a request's path is for, whatever its
// method, as the request log and faults name it; "" when no route has
// the path.
func (rt *router) match(r *http.Request) string {
	if !cleanPath(r.URL.Path) {
		return ""
	}
	_, p := rt.mux.Handler(r)
	return rt.names[p]
}

func (rt *router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case !cleanPath(r.URL.Path):
		rt.noSuchEndpoint.ServeHTTP(w, r)
	case r.Method == http.MethodHead:
		// ServeMux lets GET patterns take HEAD; the API has no HEAD.
		if h, ok := rt.notAllowed[rt.match(r)]; ok {
			h.ServeHTTP(w, r)
			return
		}
		rt.noSuchEndpoint.ServeHTTP(w, r)
	default:
		rt.mux.ServeHTTP(w, r)
	}
}

// validated checks each request of a route against its operation in the
// OpenAPI document before the route's handler sees it.
func validated(r route) func(*call) error {
	op, err := contractRoute(r.method, r.pattern)
	if err != nil {
		panic("acctadmintest: " + err.Error())
	}
	handle := func(c *call) error {
		in, e := validateRequest(op, c.r, c.body)
		if e != nil {
			return e
		}
		c.in = in
		return r.handle(c)
	}
	return func(c *call) error {
		if c.f.cfg.contractReport != nil {
			return c.f.checkedAnswer(op, c, handle)
		}
		return handle(c)
	}
}

// otherMethods are the methods answered 405 on a path that has routes
// for other methods; any other method is a 404.
var otherMethods = []string{
	http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions,
}

func noSuchEndpoint(c *call) error {
	return &apiError{status: http.StatusNotFound, msg: "no such endpoint: " + c.r.Method + " " + c.r.URL.Path}
}

func methodNotAllowed(pattern string, methods []string) func(*call) error {
	allow := strings.Join(methods, ", ")
	return func(c *call) error {
		c.w.Header().Set("Allow", allow)
		return &apiError{status: http.StatusMethodNotAllowed, msg: fmt.Sprintf("method %s is not allowed on %s", c.r.Method, pattern)}
	}
}

// exchange is what the layers of the handler learn about a request and
// pass on in its context.
type exchange struct {
	f     *Fake
	idx   int    // number of the request in the log
	route string // route pattern, "" when none matched
	body  []byte // read by the authentication layer
}

type exchangeKey struct{}

func exchangeOf(r *http.Request) *exchange {
	ex, _ := r.Context().Value(exchangeKey{}).(*exchange)
	return ex
}

// newHandler assembles the fake: the control surface apart, every request
// is logged, delayed, exposed to faults, authenticated and only then
// routed.
func newHandler(f *Fake) http.Handler {
	rt := newRouter(f)
	api := f.logged(rt, f.delayed(f.withFaults(f.authenticated(f.answered(rt)))))
	var ctl http.Handler
	if f.cfg.control {
		ctl = newControl(f)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// URLs the API hands out serve with or without the control
		// surface; the token in the path is their authority.
		if strings.HasPrefix(r.URL.EscapedPath(), FilesPrefix) && cleanPath(r.URL.Path) {
			f.serveLink(w, r)
			return
		}
		if ctl == nil {
			api.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			switch r.URL.Path {
			case OpenAPIPath:
				serveDocument(w, r, openAPIDoc)
				return
			case ControlOpenAPIPath:
				serveDocument(w, r, controlOpenAPIDoc)
				return
			}
		}
		// The prefix as written: an escaped form of it is an API path.
		if strings.HasPrefix(r.URL.EscapedPath(), ControlPrefix) {
			if !cleanPath(r.URL.Path) {
				// ServeMux would redirect; the control surface does not.
				writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such control endpoint: " + r.Method + " " + r.URL.Path})
				return
			}
			ctl.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}

// ServeHTTP serves the API (and, with WithControl, the control surface).
func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.handler.ServeHTTP(w, r)
}

// logged records the request in the log, under the route the router
// finds for it, and its status as soon as it is written.
func (f *Fake) logged(rt *router, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		route := rt.match(r)
		idx := f.logRequest(r, route)
		ex := &exchange{f: f, idx: idx, route: route}
		sw := &statusWriter{ResponseWriter: w, f: f, idx: idx}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex)))
	})
}

// delayed waits the latency set by WithLatency or SetLatency.
func (f *Fake) delayed(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d := time.Duration(f.latency.Load()); d > 0 && !f.sleep(r, d) {
			f.abandon(w)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// abandon ends a request whose wait was cut short: the client has gone, or
// the fake is closing, which it tells with a 503.
func (f *Fake) abandon(w http.ResponseWriter) {
	if f.ctx.Err() != nil {
		writeJSON(w, http.StatusServiceUnavailable, errorAnswer(f.envelopeTime(false), "server is shutting down"))
	}
}

// endpoint adapts a handler of the API to http.Handler: it reads the
// query and writes a returned error in the API's error shape.
func (f *Fake) endpoint(h func(*call) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ex := exchangeOf(r)
		c := &call{f: f, w: w, r: r, body: ex.body, route: ex.route, idx: ex.idx}
		err := c.parseQuery()
		if err == nil {
			err = h(c)
		}
		if err != nil {
			c.writeError(err)
		}
	})
}
