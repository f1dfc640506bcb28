// Package declared hands the routes package acctadmin declares to the
// tests that live outside it, in other modules of this repository
// (internal/integration): they hold the declarations against the fake's
// routes and its OpenAPI document. Package acctadmin sets Routes when it is
// initialised; only those tests read it.
package declared

// Route is one route package acctadmin declares.
type Route struct {
	// Method is the HTTP method.
	Method string
	// Pattern is the path, with "{id}" and "{n}" for its parameters.
	Pattern string
	// Operation names the SDK method, as "Documents.List".
	Operation string
}

// Routes returns every declared route, in declaration order. It is nil
// until package acctadmin is initialised.
var Routes func() []Route
