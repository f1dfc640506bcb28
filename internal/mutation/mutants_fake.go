package main

// The fake's clock, its control surface and checkout, the file name of a
// download, and Callbacks.Ensure.
func init() {
	mutants = append(mutants,
		mutant{id: `fake-clock-offset`, file: `acctadmintest/fake.go`, pkg: `./acctadmintest`,
			what: `the clock keeps an offset from the underlying clock, which a Duration caps at 292 years`,
			from: `f.clock.set, f.clock.at, f.clock.base = true, t, base`,
			to:   `f.clock.set, f.clock.at, f.clock.base = true, base.Add(t.Sub(base)), base`},
		mutant{id: `fake-clock-stands-still`, file: `acctadmintest/fake.go`, pkg: `./acctadmintest`,
			what: `a clock that was set no longer runs on with the underlying clock`,
			from: `return f.clock.at.Add(f.cfg.clock().Sub(f.clock.base))`,
			to:   `return f.clock.at`},
		mutant{id: `fake-clock-no-upper-bound`, file: `acctadmintest/fake.go`, pkg: `./acctadmintest`,
			what: `the control surface sets the clock past 9999-12-31`,
			from: `return !t.Before(minClock) && !t.After(maxClock)`,
			to:   `return !t.Before(minClock)`},
		mutant{id: `fake-clock-max-refused`, file: `acctadmintest/fake.go`, pkg: `./acctadmintest`,
			what: `the clock's upper bound itself refused`,
			from: `return !t.Before(minClock) && !t.After(maxClock)`,
			to:   `return !t.Before(minClock) && t.Before(maxClock)`},
		mutant{id: `fake-clock-refusal-moves`, file: `acctadmintest/fake.go`, pkg: `./acctadmintest`,
			what: `a refused clock time is set all the same`,
			from: `	if allow != nil && !allow(t) {
		return false
	}
	f.clock.set`,
			to: `	refused := allow != nil && !allow(t)
	f.clock.set, f.clock.at, f.clock.base = true, t, base
	if refused {
		return false
	}
	f.clock.set`},
		mutant{id: `fake-card-spaced-charges`, file: `acctadmintest/payments.go`, pkg: `./acctadmintest`,
			what: `the declined test card written with spaces charges fine`,
			from: `Declines: num == DeclinedCardNumber`,
			to:   `Declines: body.Number == DeclinedCardNumber`},
		mutant{id: `fake-checkout-empty-cart`, file: `acctadmintest/cart.go`, pkg: `./acctadmintest`,
			what: `a checkout that selects no item succeeds with no invoice`,
			from: `		if len(list) == 0 {
			return nil, invalid("item_ids", "selects no item: the carts are empty")
		}
`,
			to: ``},
		mutant{id: `fake-fault-status-unbounded`, file: `acctadmintest/control.openapi.yaml`, pkg: `./acctadmintest`,
			what: `the control surface takes a fault status of 600 or more`,
			from: `status: {type: integer, minimum: 200, maximum: 599,`,
			to:   `status: {type: integer, minimum: 200,`},
		mutant{id: `fake-fault-status-1xx`, file: `acctadmintest/control.openapi.yaml`, pkg: `./acctadmintest`,
			what: `the control surface takes a 1xx fault status`,
			from: `status: {type: integer, minimum: 200, maximum: 599,`,
			to:   `status: {type: integer, minimum: 100, maximum: 599,`},
		mutant{id: `files-dotdot-kept`, file: `files.go`, pkg: `.`,
			what: `a file name of only dots and spaces (.., ...) kept`,
			from: `if strings.Trim(name, ". ") == "" || strings.IndexFunc(name, unicode.IsControl) >= 0 {`,
			to:   `if name == "" || strings.IndexFunc(name, unicode.IsControl) >= 0 {`},
		mutant{id: `files-nul-kept`, file: `files.go`, pkg: `.`,
			what: `a file name with NUL kept`,
			from: `if strings.Trim(name, ". ") == "" || strings.IndexFunc(name, unicode.IsControl) >= 0 {`,
			to:   `if strings.Trim(name, ". ") == "" || strings.IndexFunc(name, unicode.IsControl) > len(name) {`},
		mutant{id: `files-backslash-path`, file: `files.go`, pkg: `.`,
			what: `a name with backslashes kept whole`,
			from: `	name = strings.ReplaceAll(name, "\\", "/")
`,
			to: ``},
		mutant{id: `ensure-keeps-newest`, file: `callbacks.go`, pkg: `.`,
			what: `Ensure keeps the newest registration, so concurrent calls delete each other's`,
			from: `cmp.Or(a.CreatedAt.Compare(b.CreatedAt),`,
			to:   `cmp.Or(b.CreatedAt.Compare(a.CreatedAt),`},
		mutant{id: `ensure-ignores-time`, file: `callbacks.go`, pkg: `.`,
			what: `Ensure orders registrations by ID alone`,
			from: `cmp.Or(a.CreatedAt.Compare(b.CreatedAt),`,
			to:   `cmp.Or(0,`},
		mutant{id: `ensure-url-case`, file: `callbacks.go`, pkg: `.`,
			what: `Ensure compares URLs case-insensitively and deletes another URL's registration`,
			from: `return cb.URL != u`,
			to:   `return !strings.EqualFold(cb.URL, u)`},
	)
}
