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
		mutant{id: `cli-dry-run-body-shown`, file: `cmd/acctadmin/app.go`, pkg: `./cmd/acctadmin`, run: `TestScripts/writes|TestRedact|TestDryRun`,
			what: `--dry-run prints the body with its card number, CVC and password`,
			from: `redactBody(bytes.TrimSpace(body))`,
			to:   `bytes.TrimSpace(body)`},
		mutant{id: `cli-dry-run-nested-secret-shown`, file: `cmd/acctadmin/redact.go`, pkg: `./cmd/acctadmin`, run: `TestScripts/writes|TestRedact`,
			what: `a secret field holding an object or array shows what it holds`,
			from: `				inner = secret || isSecretField(name)`,
			to:   `				inner = isSecretField(name)`},
		mutant{id: `cli-dry-run-query-shown`, file: `cmd/acctadmin/app.go`, pkg: `./cmd/acctadmin`, run: `TestScripts/writes|TestRedact|TestDryRun`,
			what: `--dry-run prints a token in the query string`,
			from: `redactQuery(req.URL).String()`,
			to:   `req.URL.String()`},
		mutant{id: `cli-dry-run-card-in-any-field`, file: `cmd/acctadmin/redact.go`, pkg: `./cmd/acctadmin`, run: `TestScripts/writes|TestRedact`,
			what: `a card number in a field of another name shows`,
			from: `		if secret || isCardNumber(t) {`,
			to:   `		if secret {`},
		mutant{id: `cli-pay-ids-not-deduplicated`, file: `cmd/acctadmin/invoices.go`, pkg: `./cmd/acctadmin`, run: `TestScripts/writes`,
			what: `invoices pay ID ID previews and pays the invoice twice`,
			from: `			if given[id] {`,
			to:   `			if given[id] && false {`},
		mutant{id: `cli-csv-formula-live`, file: `cmd/acctadmin/due.go`, pkg: `./cmd/acctadmin`, run: `TestDueCSV|TestScripts/due`,
			what: `a CSV cell that starts with = is written as a live formula`,
			from: `strings.ContainsRune("=+-@\t\r", rune(s[0]))`,
			to:   `strings.ContainsRune("+-@\t\r", rune(s[0]))`},
		mutant{id: `cli-csv-tab-live`, file: `cmd/acctadmin/due.go`, pkg: `./cmd/acctadmin`, run: `TestDueCSV|TestScripts/due`,
			what: `a CSV cell that starts with a tab or a carriage return is not escaped`,
			from: `strings.ContainsRune("=+-@\t\r", rune(s[0]))`,
			to:   `strings.ContainsRune("=+-@", rune(s[0]))`},
		mutant{id: `cli-outcome-go-method-kept`, file: `cmd/acctadmin/app.go`, pkg: `./cmd/acctadmin`, run: `TestScripts/outcome`,
			what: `an unknown outcome ends with the SDK's Go method, not the acctadmin command`,
			from: `	if i := strings.LastIndex(msg, sdkOutcome); i >= 0 {`,
			to:   `	if i := strings.LastIndex(msg, sdkOutcome); i < 0 {`},
		mutant{id: `cli-outcome-case-dropped`, file: `cmd/acctadmin/app.go`, pkg: `./cmd/acctadmin`, run: `TestScripts/outcome`,
			what: `a write whose outcome is unknown after a 5xx says "try again later": the user pays again`,
			from: `	case errors.Is(err, acctadmin.ErrOutcomeUnknown):
		return 1, outcomeUnknown(msg, check)
`,
			to: `	case errors.Is(err, acctadmin.ErrOutcomeUnknown) && check == "-":
		return 1, outcomeUnknown(msg, check)
`},
		mutant{id: `cli-outcome-pay-check-dropped`, file: `cmd/acctadmin/invoices.go`, pkg: `./cmd/acctadmin`, run: `TestScripts/outcome`,
			what: `invoices pay drops its own hint after an unknown outcome`,
			from: `			return withCheck(err, "see whether each invoice is paid with "+invoiceGets(ids))`,
			to:   `			return err`},
	)
}
