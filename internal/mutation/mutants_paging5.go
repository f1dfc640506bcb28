package main

// The mutants of pages longer than the limit and of what paging must
// leave alone: such a page taken for the rest of the listing though it
// shows a row twice, an inner call option's header written into the
// outer context's, a card number written with hyphens no longer known for
// one, a Pull request not widened over the rows still downloading, and
// All asking for its pages with the caller's own params.
func init() {
	mutants = append(mutants,
		mutant{id: `paging5-long-page-ends-listing`, file: `pagination.go`, pkg: `.`,
			what: `a stable listing's page longer than the limit taken for the rest of the listing, though it shows a row twice`,
			from: `last = n == 0 || n < len(r.prev) || long && !paging.HoldsRowTwice(l.id, items)`,
			to:   `last = n == 0 || n < len(r.prev) || long`,
			run:  `TestPagingOnPagesLongerThanTheLimitThatAreNotTheWholeListing|TestStableListingsOnGeneratedServers`},
		mutant{id: `paging5-long-page-ends-pass`, file: `internal/paging/walk.go`, pkg: `.`,
			what: `a walk takes a page longer than the limit at the listing's start for the whole listing, though it shows a row twice`,
			from: `	whole := long && (offset == w.Start && !HoldsRowTwice(w.ID, items) ||`,
			to:   `	whole := long && (offset == w.Start ||`,
			run:  `TestPagingOnPagesLongerThanTheLimitThatAreNotTheWholeListing|TestPagingOnGeneratedServers`},
		mutant{id: `paging5-inner-header-shared`, file: `call_options.go`, pkg: `.`,
			what: `an inner WithCallOptions writes its CallHeader into the outer context's headers`,
			from: `		o.header = outer.header.Clone()`,
			to:   `		o.header = outer.header`,
			run:  `TestCallHeader`},
		mutant{id: `paging5-card-hyphens-unknown`, file: `redact.go`, pkg: `.`,
			what: `a secret written as a card number with hyphens or dots is not known for a card number: its bare digits echoed show`,
			from: `r.addNumber(digitsOf(secret, " -."),`,
			to:   `r.addNumber(digitsOf(secret, " "),`,
			run:  `TestDoSecretCardNumberWithSeparatorsRedacted|TestRedactorCardNumberGroupings`},
		mutant{id: `paging5-tail-not-asked`, file: `internal/paging/walk.go`, pkg: `.`,
			what: `a trusting walk's request not widened over the rows still downloading: answers bring them alone, and Pull asks again and again`,
			from: `	a.limit += len(w.seen)
`,
			to:  ``,
			run: `TestPullCostWhileRowsAreStillDownloading|TestListingCost`},
		mutant{id: `paging5-params-shared`, file: `pagination.go`, pkg: `.`,
			what: `All writes each page's limit and offset into the caller's params, from the goroutines that read ahead`,
			from: `			q := *p
			ql, qo := PP(&q).paging()
			*ql, *qo = limit, offset
			return list(ctx, &q)`,
			to: `			ql, qo := p.paging()
			*ql, *qo = limit, offset
			return list(ctx, p)`,
			run: `TestAllLeavesTheCallersParamsAlone`},
	)
}
