package acctadmin_test

import (
	"context"
	"regexp"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/internal/declared"
)

// route is one route the SDK declares, as package declared hands it out.
type route struct{ method, pattern, operation string }

// routes holds the SDK's route declarations, in declaration order.
var routes = func() []route {
	var out []route
	for _, r := range declared.Routes() {
		out = append(out, route{method: r.Method, pattern: r.Pattern, operation: r.Operation})
	}
	return out
}()

// routeShape writes a method and a path pattern with its parameters
// blanked ("/documents/{id}", "/documents/:id" and "/documents/{x}" are
// all "/documents/{}"), so that the SDK's declarations, the fake's routes
// and the OpenAPI document's paths compare whatever they name their
// parameters.
func routeShape(method, pattern string) string {
	return method + " " + paramRE.ReplaceAllString(pattern, "/{}")
}

var paramRE = regexp.MustCompile(`/(\{[^}/]*\}|:[^/]+)`)

// DeclaredRouteShapes lists the routes the SDK declares, as routeShape
// writes them.
func DeclaredRouteShapes() []string {
	out := make([]string, len(routes))
	for i, r := range routes {
		out[i] = routeShape(r.method, r.pattern)
	}
	return out
}

// RouteShape is routeShape.
var RouteShape = routeShape

// TestDeclaredRoutesAreInTheContract holds the SDK's route declarations
// against the OpenAPI document of acctadmintest: every route the SDK
// calls is an operation of the document, and every operation has a
// method of the SDK.
func TestDeclaredRoutesAreInTheContract(t *testing.T) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(acctadmintest.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	ops := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			ops[routeShape(method, path)] = true
		}
	}
	if len(routes) == 0 {
		t.Fatal("no route is declared")
	}
	declared := map[string]bool{}
	for _, r := range routes {
		declared[routeShape(r.method, r.pattern)] = true
		if !ops[routeShape(r.method, r.pattern)] {
			t.Errorf("the SDK declares %s %s (%s), which the OpenAPI document lacks", r.method, r.pattern, r.operation)
		}
	}
	for op := range ops {
		if !declared[op] {
			t.Errorf("the OpenAPI document has %s, for which the SDK has no method", op)
		}
	}
	if len(ops) != len(declared) {
		t.Errorf("%d operations, %d declared routes", len(ops), len(declared))
	}
	if got := routeShape("GET", "/documents/{id}/page/{n}"); got != routeShape("GET", "/documents/:id/page/:page_number") {
		t.Fatalf("shapes differ: %s", got)
	}
}
