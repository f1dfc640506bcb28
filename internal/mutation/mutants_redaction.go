package main

// The redaction of the SDK's texts and the printing of its values that
// hold keys and secrets: card numbers in groups, the boundary of short
// secrets, Body's cut, Do's decode errors, the Client's and the
// Verifier's Format, Secret's text encoding and the Card's Format.
func init() {
	mutants = append(mutants,
		mutant{id: `redaction-secret-marshaltext-reveals`, file: `values.go`, pkg: `.`, run: `TestSecretShowsOnlyWhereItsDocSays|TestSensitiveValuesFormatRedacted`,
			what: `MarshalText of a Secret writes its value`,
			from: `func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }`,
			to:   `func (s Secret) MarshalText() ([]byte, error) { return []byte(s), nil }`},
		mutant{id: `redaction-sensitive-anywhere-boundary`, file: `redact.go`, pkg: `.`, run: `TestRedactorShortSecretBoundary|TestShortSecretsAreRedactedWhereTheyStandAlone`,
			what: `a sensitive value of exactly minSecret bytes taken out only where it stands alone`,
			from: `	case len(v) >= minSecret:`,
			to:   `	case len(v) > minSecret:`},
		mutant{id: `redaction-add-boundary`, file: `redact.go`, pkg: `.`, run: `TestRedactorShortSecretBoundary|TestShortSecretsAreRedactedWhereTheyStandAlone`,
			what: `a secret of exactly minSecret bytes not looked for`,
			from: `	if len(secret) < minSecret ||`,
			to:   `	if len(secret) <= minSecret ||`},
		mutant{id: `redaction-min-secret-5`, file: `redact.go`, pkg: `.`, run: `TestRedactorShortSecretBoundary|TestShortSecretsAreRedactedWhereTheyStandAlone`,
			what: `a 5-byte sensitive value taken out inside other words and numbers`,
			from: `	minSecret = 6
`,
			to: `	minSecret = 5
`},
		mutant{id: `redaction-min-secret-7`, file: `redact.go`, pkg: `.`, run: `TestRedactorShortSecretBoundary|TestShortSecretsAreRedactedWhereTheyStandAlone`,
			what: `a 6-byte sensitive value taken out only where it stands alone`,
			from: `	minSecret = 6
`,
			to: `	minSecret = 7
`},
		mutant{id: `redaction-min-short-secret-4`, file: `redact.go`, pkg: `.`, run: `TestRedactorShortSecretBoundary|TestShortSecretsAreRedactedWhereTheyStandAlone`,
			what: `a 3-digit CVC not looked for`,
			from: `	minShortSecret = 3`,
			to:   `	minShortSecret = 4`},
		mutant{id: `redaction-min-short-secret-2`, file: `redact.go`, pkg: `.`, run: `TestRedactorShortSecretBoundary|TestShortSecretsAreRedactedWhereTheyStandAlone`,
			what: `a 2-byte value looked for where it stands alone`,
			from: `	minShortSecret = 3`,
			to:   `	minShortSecret = 2`},
		mutant{id: `redaction-card-separators-spaces`, file: `redact.go`, pkg: `.`, run: `TestRedactorCardNumberGroupings|TestCardNumberEchoedInGroupsIsRedacted|TestRedactionAndBoundsOnGeneratedServers`,
			what: `a card number grouped with hyphens, dots or dashes not recognised`,
			from: "cardSeparators    = `[\\s.\\-\\x{00A0}\\x{2007}\\x{2009}\\x{202F}\\x{2010}-\\x{2015}\\x{2212}]{0,3}`",
			to:   "cardSeparators    = `[ ]{0,3}`"},
		mutant{id: `redaction-card-separators-one`, file: `redact.go`, pkg: `.`, run: `TestRedactorCardNumberGroupings|TestCardNumberEchoedInGroupsIsRedacted|TestRedactionAndBoundsOnGeneratedServers`,
			what: `a card number with more than one character between groups not recognised`,
			from: "cardSeparators    = `[\\s.\\-\\x{00A0}\\x{2007}\\x{2009}\\x{202F}\\x{2010}-\\x{2015}\\x{2212}]{0,3}`",
			to:   "cardSeparators    = `[\\s.\\-\\x{00A0}\\x{2007}\\x{2009}\\x{202F}\\x{2010}-\\x{2015}\\x{2212}]?`"},
		mutant{id: `redaction-card-no-nbsp`, file: `redact.go`, pkg: `.`, run: `TestRedactorCardNumberGroupings|TestCardNumberEchoedInGroupsIsRedacted|TestRedactionAndBoundsOnGeneratedServers`,
			what: `a card number grouped with no-break spaces not recognised`,
			from: "cardSeparators    = `[\\s.\\-\\x{00A0}\\x{2007}\\x{2009}\\x{202F}\\x{2010}-\\x{2015}\\x{2212}]{0,3}`",
			to:   "cardSeparators    = `[\\s.\\-\\x{2010}-\\x{2015}\\x{2212}]{0,3}`"},
		mutant{id: `redaction-card-digits-13`, file: `redact.go`, pkg: `.`, run: `TestRedactorCardNumberGroupings|TestCardNumberEchoedInGroupsIsRedacted|TestRedactionAndBoundsOnGeneratedServers`,
			what: `a 12-digit card number matched only exactly`,
			from: `	minCardDigits     = 12`,
			to:   `	minCardDigits     = 13`},
		mutant{id: `redaction-card-not-grouped`, file: `redact.go`, pkg: `.`, run: `TestRedactorCardNumberGroupings|TestCardNumberEchoedInGroupsIsRedacted|TestRedactionAndBoundsOnGeneratedServers`,
			what: `a grouped card number left as the server wrote it`,
			from: `			s = card.ReplaceAllString(s, redactedText)`,
			to:   `			_ = card`},
		mutant{id: `redaction-body-cut-splits-rune`, file: `redact.go`, pkg: `.`, run: `TestAPIErrorBodyIsCutOnARuneBoundary|TestAPIErrorBodyIsCapped`,
			what: `Body cut at 64 KiB inside a character`,
			from: `		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n]`,
			to: `		_ = utf8.RuneStart
		s = s[:n]`},
		mutant{id: `redaction-type-error-quotes`, file: `errors.go`, pkg: `.`, run: `TestDoDecodeErrorDescribesTheValue|TestDecodeError`,
			what: `a number that overflows its field quoted in the decode error`,
			from: `		kind += " of " + byteCount(len(literal))`,
			to:   `		kind += " " + literal`},
		mutant{id: `redaction-do-quotes`, file: `envelope.go`, pkg: `.`, run: `TestDoDecodeErrorDescribesTheValue`,
			what: `Do's decode error quotes encoding/json's text, value included`,
			from: `	path, cause := locateIn(data, t, path, err, 0)
	var ute *json.UnmarshalTypeError
	if errors.As(cause, &ute) {`,
			to: `	path, cause := locateIn(data, t, path, err, 0)
	var ute *json.UnmarshalTypeError
	if false && errors.As(cause, &ute) {`},
		mutant{id: `redaction-do-path-unredacted`, file: `errors.go`, pkg: `.`, run: `TestDoDecodeErrorDescribesTheValue`,
			what: `Do's decode error shows a map key that holds a key`,
			from: `	de.Path = r.clean(de.Path, maxDetail)`,
			to:   `	de.Path = de.Path + ""`},
		mutant{id: `redaction-client-format-removed`, file: `client.go`, pkg: `.`, run: `TestClientPrintsNoKey`,
			what: `a Client printed by fmt's reflection`,
			from: `func (c Client) Format(f fmt.State, verb rune) {`,
			to:   `func (c Client) format(f fmt.State, verb rune) {`},
		mutant{id: `redaction-client-format-reveals`, file: `client.go`, pkg: `.`, run: `TestClientPrintsNoKey`,
			what: `a Client's Format names its keys`,
			from: `		text = "acctadmin.Client(" + c.baseURL.String() + ")"`,
			to:   `		text = "acctadmin.Client(" + c.baseURL.String() + " " + strings.Join(c.keys().secrets, " ") + ")"`},
		mutant{id: `redaction-card-format-removed`, file: `payment_methods.go`, pkg: `.`, run: `TestSensitiveValuesFormatRedacted`,
			what: `a []*Card printed in fmt's %!s(*Card=…) form`,
			from: `func (p Card) Format(f fmt.State, verb rune) {`,
			to:   `func (p Card) format(f fmt.State, verb rune) {`},
		mutant{id: `redaction-verifier-format-reveals`, file: `webhook/verifier.go`, pkg: `./webhook`, run: `TestVerifierPrintsNoKey`,
			what: `a Verifier's Format names its access key`,
			from: `	text := "webhook.Verifier([redacted])"`,
			to:   `	text := "webhook.Verifier(" + v.accessKey() + ")"`},
		mutant{id: `redaction-verifier-format-removed`, file: `webhook/verifier.go`, pkg: `./webhook`, run: `TestVerifierPrintsNoKey`,
			what: `a Verifier printed by fmt's reflection`,
			from: `func (v Verifier) Format(f fmt.State, verb rune) {`,
			to:   `func (v Verifier) format(f fmt.State, verb rune) {`},
	)
}
