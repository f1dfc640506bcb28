package main

// The mutants of the read-ahead's held pages (a page that came back, then
// a page past it that shows the offset honoured, and the rows held back
// are lost) and of the download watch (what the downloads did is kept
// after the last walk ended).
func init() {
	mutants = append(mutants,
		mutant{id: `plain-paging3-held-page-dropped`, file: `pagination.go`, pkg: `.`,
			what: `a stable listing's page that came back is dropped, though a later page shows the offset honoured`,
			from: `	for ; r.held >= 0; r.held-- {`,
			to:   `	for r.held = 0; r.held >= 0; r.held-- {`,
			run:  `TestStableListingsOnGeneratedServers`},
		mutant{id: `plain-paging3-watch-never-forgets`, file: `pagination.go`, pkg: `.`,
			what: `the download watch keeps what the downloads did after the last walk ended`,
			from: `	if d.walks == 0 {
		d.ids = nil
	}`,
			to: `	if d.walks == 0 {
		_ = 0
	}`,
			run: `TestAWalkForgetsWhatItWatchedWhenTheLoopBreaks`},
	)
}
