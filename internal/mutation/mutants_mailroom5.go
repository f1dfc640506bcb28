package main

// The mutants of the mail room's shared unlock record, its refusal of
// prices that are not positive, its budget per pull, and the folder
// replay cache of package webhook.
func init() {
	mutants = append(mutants,
		mutant{id: `mailroom5-unlock-first-of-any`, file: `mailroom/locked.go`, pkg: `./mailroom`, run: `TestUnlock`,
			what: `an unlock paid when any one place had no record, though another had one`,
			from: `first = first && f`,
			to:   `first = first || f`},
		mutant{id: `mailroom5-unlock-record-in-the-folder-only`, file: `mailroom/room.go`, pkg: `./mailroom`, run: `TestUnlock`,
			what: `rooms on one Redis, each saving into a folder of its own, record their unlocks in their folders only`,
			from: `		if r.shared != nil {
			recs = append(recs, &redisUnlocks{`,
			to: `		if r.shared != nil && r.journal == nil {
			recs = append(recs, &redisUnlocks{`},
		mutant{id: `mailroom5-unlock-recorder-dir-only`, file: `mailroom/room.go`, pkg: `./mailroom`, run: `TestUnlock`,
			what: `a store that wraps Dir and passes BeginUnlock on is refused WithUnlock`,
			from: `if u, ok := store.(UnlockRecorder); ok {`,
			to:   `if u, ok := store.(*dirStore); ok {`},
		mutant{id: `mailroom5-negative-price-paid`, file: `mailroom/locked.go`, pkg: `./mailroom`, run: `TestUnlockRefusesAPriceThatIsNotPositive`,
			what: `a price below zero under the ceiling is paid`,
			from: `	case d.UnlockPrice.Cmp(acctadmin.Money{}) < 0:
		why = "its price " + d.UnlockPrice.String() + " is not positive"
`,
			to: ``},
		mutant{id: `mailroom5-budget-unbounded`, file: `mailroom/locked.go`, pkg: `./mailroom`, run: `TestUnlock`,
			what: `WithUnlockBudget bounds nothing`,
			from: `if p.bounded && next.Cmp(p.budget) > 0 {`,
			to:   `if p.bounded && next.Cmp(p.budget) > 1 {`},
		mutant{id: `mailroom5-budget-exclusive`, file: `mailroom/locked.go`, pkg: `./mailroom`, run: `TestUnlockBudget`,
			what: `an unlock that spends the budget exactly is refused`,
			from: `if p.bounded && next.Cmp(p.budget) > 0 {`,
			to:   `if p.bounded && next.Cmp(p.budget) >= 0 {`},
		mutant{id: `mailroom5-budget-declined-kept`, file: `mailroom/locked.go`, pkg: `./mailroom`, run: `TestUnlockBudget`,
			what: `a declined card's price stays counted against the budget`,
			from: `			rep.giveBack(d.UnlockPrice) // nothing was charged
`,
			to: ``},
		mutant{id: `mailroom5-left-locked-not-listed`, file: `mailroom/locked.go`, pkg: `./mailroom`, run: `TestUnlock`,
			what: `LastPull leaves out the documents a pull kept out as locked`,
			from: `	r.noteLocked(ctx, d, why, func(*lockedDoc) {})
	rep.leave(d, why)
	return true`,
			to: `	r.noteLocked(ctx, d, why, func(*lockedDoc) {})
	return true`},
		mutant{id: `mailroom5-dirreplay-in-progress-ignored`, file: `webhook/replay_dir.go`, pkg: `./webhook`, run: `DirReplay`,
			what: `a second delivery claims an event another holds`,
			from: `case live && e.owner != owner:`,
			to:   `case false && e.owner != owner:`},
		mutant{id: `mailroom5-dirreplay-never-expires`, file: `webhook/replay_dir.go`, pkg: `./webhook`, run: `DirReplay`,
			what: `marks and done records never end`,
			from: `live := ok && now.Before(e.expires)`,
			to:   `live := ok`},
		mutant{id: `mailroom5-dirreplay-release-any-owner`, file: `webhook/replay_dir.go`, pkg: `./webhook`, run: `DirReplay`,
			what: `a delivery releases another's mark`,
			from: `if err != nil || !ok || e.done || e.owner != owner {`,
			to:   `if err != nil || !ok || e.done {`},
		mutant{id: `mailroom5-dirreplay-key-as-name`, file: `webhook/replay_dir.go`, pkg: `./webhook`, run: `DirReplay`,
			what: `the event's key names its file, so a key can escape the folder`,
			from: `	sum := sha256.Sum256([]byte(key))
	return filepath.Join(c.dir, hex.EncodeToString(sum[:])+".event")`,
			to: `	_ = sha256.Sum256
	return filepath.Join(c.dir, key+".event")`},
		mutant{id: `mailroom5-dirreplay-commit-not-recorded`, file: `webhook/replay_dir.go`, pkg: `./webhook`, run: `DirReplay|AtLeastOnceSenderDir`,
			what: `Commit records nothing, so a restarted receiver handles the event again`,
			from: `		return c.write(key, entry{done: true, expires: now.Add(c.ttl)}, true)`,
			to:   `		return nil`},
		mutant{id: `mailroom5-dirreplay-no-folder-lock`, file: `webhook/replay_dir_flock.go`, pkg: `./webhook`, run: `DirReplay|AtLeastOnceSenderDir`,
			what: `caches on one folder (processes) do not lock it, and two deliveries claim one event`,
			from: `		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)`,
			to:   `		err = nil`},
	)
}
