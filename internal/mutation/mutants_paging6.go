package main

// The mutant of a walk's bound on a pass the API's paging cannot end: an
// answer at a later offset counted as the one before back only when it
// opens with all of that answer's rows, so that a server ignoring offset
// and limit whose listing others change past its first rows never ends a
// pass, and Pull lists without end.
func init() {
	mutants = append(mutants,
		mutant{id: `paging6-ignored-paging-unbounded`, file: `internal/paging/walk.go`, pkg: `.`,
			what: `a walk takes an answer at a later offset for the one before back only when it opens with all its rows: a pass over a server ignoring offset and limit, changed by others, never ends`,
			from: `	n := min(len(w.lastAnswer), w.Limit+1)`,
			to:   `	n := len(w.lastAnswer)`,
			run:  `TestPullBeforeDecliningAllOnServerIgnoringPaging|TestPullBeforeOnGeneratedServers`},
	)
}
