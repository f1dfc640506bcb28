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

// fresh returns the records of after whose id is not in before: those a
// write made, found by comparing listings.
func fresh[T any](before, after []T, id func(T) uuid.UUID) []T {
	known := ids(before, id)
	var out []T
	for _, r := range after {
		if id(r) != uuid.Nil && !slices.Contains(known, id(r)) {
			out = append(out, r)
		}
	}
	return out
}

// made returns the one record a write made that fits.
func made[T any](before, after []T, id func(T) uuid.UUID, fits func(T) bool, what string) (*T, error) {
	return only(fresh(before, after, id), fits, what)
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
