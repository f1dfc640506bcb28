package acctadmin

import (
	"net/http"
)

// Every route of the API is declared once, as a *route value in the file
// of its resource: its method, its path pattern, the operation name hooks
// see, and whether a retry may repeat it. The call, the hooks, the retry
// rules and the docs all read the declaration; nothing about a call is
// inferred at run time.

// retryClass says whether a route may be sent again once a request may
// have reached the API.
type retryClass uint8

const (
	// repeatable routes read, or delete what a repeat cannot harm; they are
	// retried on connection errors and on 429, 500, 502, 503 and 504.
	repeatable retryClass = iota
	// atMostOnce routes change what the account owns or move money; they
	// are sent again only when the connection could not be made, and a
	// failure after the request may have arrived is ErrOutcomeUnknown.
	atMostOnce
)

func (c retryClass) String() string {
	if c == atMostOnce {
		return "at most once"
	}
	return "repeatable"
}

// route is one declared route of the API.
type route struct {
	// method is the HTTP method.
	method string
	// pattern is the path, with "{id}" and "{n}" for its parameters, as
	// hooks see it: "/documents/{id}/page/{n}".
	pattern string
	// operation names the SDK method, as "Documents.List".
	operation string
	// class says whether a retry may repeat the request.
	class retryClass
	// verify, for an at-most-once route, says how to find out whether a
	// call whose outcome is unknown took effect: "list the payment
	// methods (PaymentMethods.List)". It ends the error's message.
	verify string
	// goneIsDone, for a repeatable delete, takes a 404 to a retry sent
	// after an earlier attempt may have arrived for that attempt's
	// success: the thing is gone.
	goneIsDone bool
	// pay says whether the route charges a card or reads a document that
	// may be payment-locked (ErrPaymentDeclined, ErrPaymentRequired).
	pay payRole
}

// routes holds every declared route, in declaration order.
var routes []*route

// declare records a route that retries may repeat.
func declare(method, pattern, operation string) *route {
	return declareRoute(&route{method: method, pattern: pattern, operation: operation})
}

// declareDelete records a delete that retries may repeat, whose retry
// that finds nothing (404) after an earlier attempt may have arrived
// reports success: the earlier attempt deleted it.
func declareDelete(pattern, operation string) *route {
	return declareRoute(&route{method: http.MethodDelete, pattern: pattern, operation: operation, goneIsDone: true})
}

// declareOnce records a route that is sent at most once; verify says how
// to find out whether a call whose outcome is unknown took effect.
func declareOnce(method, pattern, operation, verify string) *route {
	return declareRoute(&route{method: method, pattern: pattern, operation: operation, class: atMostOnce, verify: verify})
}

// paying marks the route as charging a card, or reading what may be
// payment-locked.
func (r *route) paying(role payRole) *route {
	r.pay = role
	return r
}

func declareRoute(r *route) *route {
	routes = append(routes, r)
	return r
}
