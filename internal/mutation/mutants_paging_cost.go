package main

// The mutants of the trusting walk over the unread listing, which pays the
// minimum on a well-behaved server and turns careful on evidence: each
// check of an answer dropped, what the client tells of its downloads
// lost, the pass that began trusting let confirm, a Pull that asks early,
// and the read-ahead made deeper.
func init() {
	const run = `TestPagingOnGeneratedServers|TestListingCost|TestStableListingsOnGeneratedServers|TestListingUnsettledIsASentinel|TestWorkerPoolFedFromAllGetsEveryDocument|TestPullBeforeOnGeneratedServers|TestPagingOnAListingThatTrailsItsReadMarks`
	mutants = append(mutants,
		mutant{id: `cost-overlap-unchecked`, file: `pagination.go`, pkg: `.`, run: run,
			what: `the row before the offset not checked: a row that vanished before it goes unseen`,
			from: `		if n == 0 || !w.sameRow(items[0], w.over) {`,
			to:   `		if n == 0 {`},
		mutant{id: `cost-gone-row-listed`, file: `pagination.go`, pkg: `.`, run: run,
			what: `a row whose download answered, still listed, taken as it comes`,
			from: `		case here && f == rowGoes:`,
			to:   `		case false:`},
		mutant{id: `cost-staying-row-missing`, file: `pagination.go`, pkg: `.`, run: run,
			what: `a row known to stay, missing from the answer, not noticed`,
			from: `		case f == rowStays && (j < n || n < a.limit):`,
			to:   `		case false:`},
		mutant{id: `cost-row-twice-unnoticed`, file: `pagination.go`, pkg: `.`, run: run,
			what: `a row handed out before, listed again as new, not noticed`,
			from: `		if _, known := w.known[id]; known || fresh[id] {`,
			to:   `		if false {`},
		mutant{id: `cost-long-page-trusted`, file: `pagination.go`, pkg: `.`, run: run,
			what: `an answer longer than asked for (the limit ignored) trusted`,
			from: `	if n > a.limit {
		return nil, walkOn, false
	}
	switch {`,
			to: `	if false {
		return nil, walkOn, false
	}
	switch {`},
		mutant{id: `cost-cap-of-one-trusted`, file: `pagination.go`, pkg: `.`, run: run,
			what: `a short answer that brings nothing new taken for the end, though a server that caps its pages sends it too`,
			from: `	if n < a.limit && j == n && n >= longest && n > 0 {`,
			to:   `	if false {`},
		mutant{id: `cost-tainted-pass-confirms`, file: `pagination.go`, pkg: `.`, run: run,
			what: `the pass that began trusting and turned careful confirms the next`,
			from: `	w.prevSig, w.prevOK, w.tainted = sig, !w.tainted, false`,
			to:   `	w.prevSig, w.prevOK, w.tainted = sig, true, false`},
		mutant{id: `cost-unsure-row-trusted`, file: `pagination.go`, pkg: `.`, run: run,
			what: `All trusts on while a row it was given has an unknown fate (its download failed, or runs elsewhere)`,
			from: `		if w.idless && len(w.tail) > 0 {`,
			to:   `		if false {`},
		mutant{id: `cost-downloads-unseen`, file: `pagination.go`, pkg: `.`, run: run,
			what: `the client tells no walk of its downloads`,
			from: `	if d == nil || d.n.Load() == 0 {
		return
	}`,
			to: `	if true {
		return
	}`},
		mutant{id: `cost-pull-asks-early`, file: `pagination.go`, pkg: `.`, run: run,
			what: `Pull asks for its next page while the rows still downloading fill the answer`,
			from: `	return b == 0 || w.full && (w.l.max <= 0 || w.l.limit+1+b <= w.l.max)`,
			to:   `	return true`},
		mutant{id: `cost-read-ahead-four`, file: `pagination.go`, pkg: `.`, run: run,
			what: `stable listings read four pages ahead, three past the end`,
			from: `const maxReadAhead = 2`,
			to:   `const maxReadAhead = 4`},
	)
}
