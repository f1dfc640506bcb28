package acctadmin

import "github.com/acctadmin/acctadmin-go/internal/declared"

// The tests of other modules read the route declarations through package
// declared.
func init() {
	declared.Routes = func() []declared.Route {
		out := make([]declared.Route, len(routes))
		for i, r := range routes {
			out[i] = declared.Route{Method: r.method, Pattern: r.pattern, Operation: r.operation}
		}
		return out
	}
}
