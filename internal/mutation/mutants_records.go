package main

// The mutants of the records' own decoders (the resource files and
// envelope.go) and of the params sent as bodies (params.go): a record,
// alone or in a page, must still take its second names, defaults, bare
// strings and raw JSON, and a body must leave out the nil UUID.
func init() {
	mutants = append(mutants,
		mutant{id: `records-second-name-ignored`, file: `documents.go`, pkg: `.`,
			what: `a document's jurisdiction written as "state" read as none`,
			from: `		d.Jurisdiction = w.State`,
			to:   `		_ = w.State`},
		mutant{id: `records-page-skips-finish`, file: `transport.go`, pkg: `.`,
			what: `a page read as JSON forms gives its first record for every one`,
			from: `		out[i] = record(&page[i])`,
			to:   `		out[i] = record(&page[0])`},
		mutant{id: `records-default-ignored`, file: `invoices.go`, pkg: `.`,
			what: `an invoice line without a quantity bills none`,
			from: `Quantity: 1} // 1 when the API does not say`,
			to:   `Quantity: 0} // 1 when the API does not say`},
		mutant{id: `records-raw-dropped`, file: `transport.go`, pkg: `.`,
			what: `a record's Raw left empty`,
			from: `	return append(json.RawMessage(nil), data...)`,
			to:   `	return nil`},
		mutant{id: `records-bare-ignored`, file: `documents.go`, pkg: `.`,
			what: `a link written as a bare string refused`,
			from: `	if url, ok := unquote(data); ok {`,
			to:   `	if url, ok := unquote(data); ok && false {`},
		mutant{id: `records-body-sends-nil-uuid`, file: `params.go`, pkg: `.`,
			what: `a params body sends the nil UUID of an optional id`,
			from: `opt == "omitempty" && empty`,
			to:   `opt == "omitempty" && f.Kind() != reflect.Array && empty`},
	)
}
