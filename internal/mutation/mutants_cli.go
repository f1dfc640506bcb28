package main

// The mutants of the command line's safety: secrets and passwords kept out
// of what it prints, ids deduplicated, spreadsheet cells escaped, its own
// hints after an unknown outcome, and --paginate bounded.
func init() {
	mutants = append(mutants,
		mutant{id: `cli-base-url-password-shown`, file: `client.go`, pkg: `.`, run: `TestNewClientHidesBaseURLPassword`,
			what: `a base URL that is not http shows its password in the error`,
			from: `	shown, _ := redactURLText(s)`,
			to:   `	shown := s`},
		mutant{id: `cli-base-url-unparsable-password-shown`, file: `client.go`, pkg: `.`, run: `TestNewClientHidesBaseURLPassword`,
			what: `a base URL that does not parse shows its password in the error`,
			from: `		shown, changed := redactURLText(s)`,
			to:   `		shown, changed := s, false`},
		mutant{id: `cli-forward-to-password-shown`, file: `cmd/acctadmin/listen.go`, pkg: `./cmd/acctadmin`, run: `TestScripts/listen`,
			what: `listen prints the handler's URL with its password`,
			from: `forwarding to %s (Ctrl-C stops)\n", interval, redactURL(l.url))`,
			to:   `forwarding to %s (Ctrl-C stops)\n", interval, l.url)`},
		mutant{id: `cli-redact-url-unparsable`, file: `cmd/acctadmin/redact.go`, pkg: `./cmd/acctadmin`, run: `TestScripts/listen`,
			what: `a URL that does not parse prints with its password`,
			from: `	return prefix + user + ":xxxxx" + rest[at:]`,
			to:   `	return prefix + user + rest[len(user):]`},
		mutant{id: `cli-paginate-repeats-unnoticed`, file: `cmd/acctadmin/api.go`, pkg: `./cmd/acctadmin`, run: `TestPaginate`,
			what: `--paginate goes on past a page whose records were all read before`,
			from: `		if len(items) > 0 && fresh == 0 && !shorter {`,
			to:   `		if len(items) > 0 && fresh == 0 && !shorter && string(result) == "" {`},
		mutant{id: `cli-paginate-duplicates-printed`, file: `cmd/acctadmin/api.go`, pkg: `./cmd/acctadmin`, run: `TestPaginate`,
			what: `--paginate prints a record again when a page overlaps the one before`,
			from: `			if seen[id] {
				continue
			}`,
			to: `			if seen[id] {
				fresh--
			}`},
	)
}
