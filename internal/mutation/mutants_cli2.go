package main

// The mutants of mail pull's unlocks: the flags refused before anything
// is sent, both ceilings handed to the mail room, each document paid for
// at most once across runs (the records in the folder), and what was paid
// for and left locked reported.
func init() {
	const file, pkg, run = `cmd/acctadmin/mail.go`, `./cmd/acctadmin`, `TestScripts/mail_unlock|TestParseUnlock`
	mutants = append(mutants,
		mutant{id: `cli2-unlock-without-total`, file: file, pkg: pkg, run: run,
			what: `--unlock-with with --max-each alone pays with no total per run`,
			from: `	if !eachGiven || !totalGiven {`,
			to:   `	if !eachGiven {`},
		mutant{id: `cli2-ceiling-without-card`, file: file, pkg: pkg, run: run,
			what: `--max-each and --max-total without a card are ignored`,
			from: `		if eachGiven || totalGiven {`,
			to:   `		if false {`},
		mutant{id: `cli2-zero-ceiling-taken`, file: file, pkg: pkg, run: run,
			what: `a ceiling of zero is taken as an amount`,
			from: `		if err != nil || v.Cmp(acctadmin.Money{}) <= 0 {`,
			to:   `		if err != nil || v.Cmp(acctadmin.Money{}) < 0 {`},
		mutant{id: `cli2-each-over-total-taken`, file: file, pkg: pkg, run: run,
			what: `--max-each over --max-total is taken`,
			from: `	if p.each.Cmp(p.total) > 0 {`,
			to:   `	if p.each.Cmp(p.total) > 0 && false {`},
		mutant{id: `cli2-no-total-per-run`, file: file, pkg: pkg, run: run,
			what: `--max-total is not handed to the mail room: a run pays for every document under --max-each`,
			from: `mailroom.WithUnlock(u.card, u.each), mailroom.WithUnlockBudget(u.total))`,
			to:   `mailroom.WithUnlock(u.card, u.each))`},
		mutant{id: `cli2-total-as-each`, file: file, pkg: pkg, run: run,
			what: `the total is handed to the mail room as the ceiling per document`,
			from: `mailroom.WithUnlock(u.card, u.each), mailroom.WithUnlockBudget(u.total))`,
			to:   `mailroom.WithUnlock(u.card, u.total), mailroom.WithUnlockBudget(u.total))`},
		mutant{id: `cli2-unlock-records-forgotten`, file: file, pkg: pkg, run: run,
			what: `the folder's records of unlocks tried are not read: a document tried before is paid for again`,
			from: `	return u.BeginUnlock(ctx, id)`,
			to: `	_, err := u.BeginUnlock(ctx, id)
	return true, err`},
		mutant{id: `cli2-locked-unlisted`, file: file, pkg: pkg, run: run,
			what: `the documents the ceilings left locked are not listed`,
			from: `		waiting = last.Locked`,
			to:   `		waiting = nil`},
		mutant{id: `cli2-unlocked-unprinted`, file: file, pkg: pkg, run: run,
			what: `the documents paid for get no line`,
			from: `		for _, u := range last.Unlocked {
			d := u.Document
			fmt.Fprintf(a.stdout, "unlocked`,
			to: `		for _, u := range last.Unlocked[:0] {
			d := u.Document
			fmt.Fprintf(a.stdout, "unlocked`},
		mutant{id: `cli2-spent-last-only`, file: file, pkg: pkg, run: run,
			what: `--json's spent is the last document's amount, not the sum`,
			from: `		s.Spent = s.Spent.Add(u.Amount)`,
			to:   `		s.Spent = u.Amount`},
		mutant{id: `cli2-locked-logged-too`, file: file, pkg: pkg, run: run,
			what: `the room's log line for each document left locked reaches standard error, which cron mails`,
			from: `	if r.Message == lockedLine {`,
			to:   `	if r.Message == "" {`},
		mutant{id: `cli2-unknown-unlock-unsaid`, file: file, pkg: pkg, run: `TestScripts/mail_unlock_unknown`,
			what: `an unlock whose answer never came gets no line naming the command that shows it`,
			from: `		if strings.HasPrefix(l.Reason, unknownUnlock) {`,
			to:   `		if false {`},
		mutant{id: `cli2-website-hint-no-try`, file: `cmd/acctadmin/resources.go`, pkg: pkg, run: `TestScripts/read`,
			what: `a website given with https:// gets no text to try`,
			from: `		return how + ": try --url " + host`,
			to:   `		return how`},
	)
}
