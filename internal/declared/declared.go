// Package declared hands the routes package acctadmin declares to the
// tests in other modules of this repository (internal/integration), which
// hold them against the fake's routes and its OpenAPI document.
package declared

// Route is one route package acctadmin declares.
type Route struct {
	Method    string
	Pattern   string // the path, with "{id}" and "{n}" for its parameters
	Operation string // the SDK method, as "Documents.List"
}

// Routes returns every declared route, in declaration order; acctadmin
// sets it when it is initialised.
var Routes func() []Route
