package main

// The mutants of the trusting walk over the unread listing, which pays the
// minimum on a well-behaved server and turns careful on evidence: a check
// of an answer dropped, a row of unknown fate trusted, a look past the
// only row not checked, what the client tells of its downloads lost, the
// pass that began trusting let confirm, a Pull that asks early, and the
// read-ahead made deeper.
func init() {
	const run = `TestPagingOnGeneratedServers|TestListingCost|TestStableListingsOnGeneratedServers|TestListingUnsettledIsASentinel|TestWorkerPoolFedFromAllGetsEveryDocument|TestPullBeforeOnGeneratedServers|TestPagingOnAListingThatTrailsItsReadMarks|TestAllGoesOnPastDownloadsThatFailed|TestAllGoesOnPastADownloadThatFailed|TestAWalkChecksTheRowItLookedPast|TestUnreadAllEndsWhenTheAPIIgnoresPaging|TestAllEndsWhenTheAPIIgnoresTheOffsetOfRecordsWithoutAnID|TestAllYieldsRecordsWithoutAnID`
	mutants = append(mutants,
		mutant{id: `cost-overlap-unchecked`, file: `internal/paging/walk.go`, pkg: `.`, run: run,
			what: `the row before the offset not checked: a row that vanished before it goes unseen`,
			from: `		if n == 0 || !sameRow(w.ID, items[0], w.lastStaying) {`,
			to:   `		if n == 0 {`},
		mutant{id: `cost-row-twice-unnoticed`, file: `internal/paging/walk.go`, pkg: `.`, run: run,
			what: `a row handed out before, listed again as new, not noticed`,
			from: `		if _, known := w.handedOut[id]; known || fresh[id] {`,
			to:   `		if false {`},
		mutant{id: `cost-long-page-trusted`, file: `internal/paging/walk.go`, pkg: `.`, run: run + `|TestListingsWhenTheAPIIgnoresPaging`,
			what: `an answer longer than asked for (the limit ignored) trusted`,
			from: `	if n > a.limit {
		return nil, StepOn, false // the limit ignored: the offset may be too
	}`,
			to: `	if false {
		return nil, StepOn, false // the limit ignored: the offset may be too
	}`},
		mutant{id: `cost-tainted-pass-confirms`, file: `internal/paging/walk.go`, pkg: `.`, run: run,
			what: `the pass that began trusting and turned careful confirms the next`,
			from: `	w.prevSignature, w.prevConfirms, w.passBeganCounting = sig, !w.passBeganCounting, false`,
			to:   `	w.prevSignature, w.prevConfirms, w.passBeganCounting = sig, true, false`},
		mutant{id: `cost-unsure-row-trusted`, file: `internal/paging/walk.go`, pkg: `.`, run: run,
			what: `All trusts on while a row it was given has an unknown fate (its download failed, or runs elsewhere)`,
			from: `		if w.Loop && len(w.seen) > 0 {`,
			to:   `		if false {`},
		mutant{id: `cost-downloads-unseen`, file: `pagination.go`, pkg: `.`, run: run,
			what: `the client tells no walk of its downloads`,
			from: `	if d.walks > 0 && d.ids[id] != paging.RowGone {`,
			to:   `	if false {`},
		mutant{id: `cost-pull-asks-early`, file: `internal/paging/walk.go`, pkg: `.`, run: run,
			what: `Pull asks for its next page while the rows still downloading fill the answer`,
			from: `			return w.lastFull && (w.Max <= 0 || w.Limit+1+b <= w.Max)`,
			to:   `			return b >= 0`},
		mutant{id: `cost-blind-unchecked`, file: `internal/paging/walk.go`, pkg: `.`, run: run,
			what: `a look past the only row seen, finding nothing, taken for the end without checking that row is still there`,
			from: `		w.checkLastStaying = true // nothing past stayingEnd: if the overlap is still there, that is the end
		return nil, StepOn, true`,
			to: `		w.checkLastStaying = true // nothing past stayingEnd: if the overlap is still there, that is the end
		return nil, StepDone, true`},
		mutant{id: `cost-read-ahead-four`, file: `pagination.go`, pkg: `.`, run: run,
			what: `stable listings read four pages ahead, three past the end`,
			from: `const maxReadAhead = 2`,
			to:   `const maxReadAhead = 4`},
	)
}
