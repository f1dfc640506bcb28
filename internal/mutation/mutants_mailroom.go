package main

// The mail room's mutants: the claims, the store's durable writes, and
// what stops its downloads.
func init() {
	mutants = append(mutants,
		mutant{id: `mailroom-cut-download-refuses`, file: `mailroom/room.go`, pkg: `./mailroom`,
			what: `a download cut short taken for a store that refuses writes`,
			from: `if ctx.Err() == nil && !src.failed.Load() {`,
			to:   `if ctx.Err() == nil {`},
	)
}
