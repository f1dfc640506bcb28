package main

// The mutant of the read-ahead's held pages: a page that came back, then
// a page past it that shows the offset honoured, and the rows held back
// are lost.
func init() {
	mutants = append(mutants,
		mutant{id: `plain-paging3-held-page-dropped`, file: `pagination.go`, pkg: `.`,
			what: `a stable listing's page that came back is dropped, though a later page shows the offset honoured`,
			from: `	for _, page := range append(slices.Repeat([][]T{r.prev}, r.held), items) {`,
			to:   `	for _, page := range append(slices.Repeat([][]T{r.prev}, 0), items) {`,
			run:  `TestStableListingsOnGeneratedServers`},
	)
}
