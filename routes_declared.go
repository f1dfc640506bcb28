package acctadmin

import "github.com/acctadmin/acctadmin-go/internal/declared"

// The route declarations are unexported; the tests that run this package
// against the fake from another module (internal/integration) read them
// through package declared.
func init() {
	declared.Routes = func() []declared.Route {
		out := make([]declared.Route, len(routes))
		for i, r := range routes {
			out[i] = declared.Route{Method: r.method, Pattern: r.pattern, Operation: r.operation}
		}
		return out
	}
}
