package acctadmin

import "net/http"

// Every route of the API is declared once, as a *route value in the file
// of its resource; the call, the hooks and the retries read it.

// retryClass says whether a route may be sent again once a request may
// have reached the API: a repeatable one (a read, or a delete a repeat
// cannot harm) may, an atMostOnce one (a write, a payment) may not.
type retryClass uint8

const (
	repeatable retryClass = iota
	atMostOnce
)

type route struct {
	method string
	// pattern is the path as hooks see it: "/documents/{id}/page/{n}".
	pattern   string
	operation string // the SDK method, as "Documents.List"
	class     retryClass
	// verify, for an at-most-once route, ends the message of an unknown
	// outcome: how to find out whether it took effect.
	verify string
	// goneIsDone, for a repeatable delete, takes a 404 to a retry sent
	// after an earlier attempt may have arrived for success.
	goneIsDone bool
	pay        payRole
}

// routes holds every declared route, in declaration order.
var routes []*route

func declare(method, pattern, operation string) *route {
	return declareRoute(&route{method: method, pattern: pattern, operation: operation})
}

func declareDelete(pattern, operation string) *route {
	return declareRoute(&route{method: http.MethodDelete, pattern: pattern, operation: operation, goneIsDone: true})
}

func declareOnce(method, pattern, operation, verify string) *route {
	return declareRoute(&route{method: method, pattern: pattern, operation: operation, class: atMostOnce, verify: verify})
}

func (r *route) paying(role payRole) *route {
	r.pay = role
	return r
}

func declareRoute(r *route) *route {
	routes = append(routes, r)
	return r
}
