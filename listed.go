package acctadmin

import (
	"fmt"
	"slices"

	"github.com/google/uuid"
)

// only returns the one element of list that fits, never guessing: no fit
// is ErrNoMatch, two are ErrAmbiguous; what names it in the error.
func only[T any](list []T, fits func(T) bool, what string) (*T, error) {
	var found []int
	for i := range list {
		if fits(list[i]) {
			found = append(found, i)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("%w: no %s", ErrNoMatch, what)
	case 1:
		return &list[found[0]], nil
	}
	return nil, fmt.Errorf("%w: %d of %s", ErrAmbiguous, len(found), what)
}

// made returns the one record of after that is not in before and fits:
// the record a write made, found by comparing listings.
func made[T any](before, after []T, id func(T) uuid.UUID, fits func(T) bool, what string) (*T, error) {
	known := make(map[uuid.UUID]bool, len(before))
	for _, r := range before {
		known[id(r)] = true
	}
	return only(after, func(r T) bool { return id(r) != uuid.Nil && !known[id(r)] && fits(r) }, what)
}

func cartItemID(it CartItem) uuid.UUID   { return it.ID }
func cardID(m PaymentMethod) uuid.UUID   { return m.ID }
func orderItemID(it OrderItem) uuid.UUID { return it.ID }
func ids[T any](list []T, id func(T) uuid.UUID) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(list))
	for _, r := range list {
		out = append(out, id(r))
	}
	return out
}

// newOrderItems returns the order items of after that are not in
// before: those a checkout made.
func newOrderItems(before, after []OrderItem) []OrderItem {
	known := ids(before, orderItemID)
	var made []OrderItem
	for _, it := range after {
		if it.ID != uuid.Nil && !slices.Contains(known, it.ID) {
			made = append(made, it)
		}
	}
	return made
}
