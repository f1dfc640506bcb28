package main

// The redaction of the values of a form (personal data): what the call
// registers, the bounds of the values looked for, their numbers however
// grouped, and the params' printing.
func init() {
	const run = `TestFormDataNeverLeaksGenerated|TestFormRefusalDoesNotQuoteTheSSN|TestRedactorPersonalValues|TestFormParamsFormatRedacted`
	mutants = append(mutants,
		mutant{id: `privacy-form-values-not-registered`, file: `errors.go`, pkg: `.`, run: run,
			what: `the values of a form the call sent are not given to the call's redaction`,
			from: `			st.red.addBodyValues(pb.personalValues(), (*redactor).addPersonal)`,
			to:   `			_ = pb`},
		mutant{id: `privacy-json-escaped-not-registered`, file: `redact.go`, pkg: `.`, run: run,
			what: `a value is looked for as given only, not as a JSON body carried it`,
			from: `		if enc, _ := json.Marshal(v); len(enc) > 2 && string(enc[1:len(enc)-1]) != v {`,
			to:   `		if enc, _ := json.Marshal(v); false && len(enc) > 2 && string(enc[1:len(enc)-1]) != v {`},
		mutant{id: `privacy-number-not-regrouped`, file: `redact.go`, pkg: `.`, run: run,
			what: `the digits of a number of a form are not looked for however grouped`,
			from: `	r.addNumber(digitsOf(v, personalSeps), minPersonalDigits, maxPersonalDigits)
`,
			to: ``},
		mutant{id: `privacy-min-personal-5`, file: `redact.go`, pkg: `.`, run: run,
			what: `a 4-byte value of a form is not looked for`,
			from: `	minPersonal = 4`,
			to:   `	minPersonal = 5`},
		mutant{id: `privacy-min-personal-3`, file: `redact.go`, pkg: `.`, run: run,
			what: `a 3-byte value of a form is taken out where it stands alone`,
			from: `	minPersonal = 4`,
			to:   `	minPersonal = 3`},
		mutant{id: `privacy-short-anywhere`, file: `redact.go`, pkg: `.`, run: run,
			what: `a value of a form shorter than minSecret is taken out inside other words too`,
			from: `	case len(v) >= minSecret:
		r.add(v, redactedText)`,
			to: `	case len(v) >= short:
		r.add(v, redactedText)`},
		mutant{id: `privacy-min-digits-7`, file: `redact.go`, pkg: `.`, run: run,
			what: `a 6-digit number of a form is not looked for however grouped`,
			from: `	minPersonalDigits = 6`,
			to:   `	minPersonalDigits = 7`},
		mutant{id: `privacy-nested-not-walked`, file: `redact.go`, pkg: `.`, run: run,
			what: `the values inside a form's nested objects are not looked for`,
			from: `			for k, e := range v {
				v[k] = walk(e)
			}`,
			to: `			for k, e := range v {
				if _, nested := e.(map[string]any); !nested {
					v[k] = walk(e)
				}
			}`},
		mutant{id: `privacy-lists-not-walked`, file: `redact.go`, pkg: `.`, run: run,
			what: `the values inside a form's arrays are not looked for`,
			from: `				v[i] = walk(e)`,
			to:   `				v[i] = e`},
		mutant{id: `privacy-cart-not-forwarded`, file: `params.go`, pkg: `.`, run: run,
			what: `the form of a cart item is not given to the call's redaction`,
			from: `	if pb, ok := b.p.(personalBody); ok {`,
			to:   `	if pb, ok := b.p.(personalBody); false && ok {`},
		mutant{id: `privacy-format-shows-form`, file: `order_items.go`, pkg: `.`, run: run,
			what: `%v of the params shows the form`,
			from: `	p.FormData = redactedForm(p.FormData)
	formatFields(f, verb, p, "acctadmin.OrderItemFormDataParams")`,
			to: `	formatFields(f, verb, p, "acctadmin.OrderItemFormDataParams")`},
		mutant{id: `privacy-marshal-shows-form`, file: `shopping_cart.go`, pkg: `.`, run: run,
			what: `the JSON of the params shows the form`,
			from: `	type plain CartAddParams
	p.FormData = redactedForm(p.FormData)`,
			to: `	type plain CartAddParams`},
	)
}
