package main

// The mutants of the record codec (envelope.go) and of the params sent as
// bodies (params.go): a record read through its wire type, in a page or
// alone, must still take its second names, defaults, bare strings and raw
// JSON, and a body must leave out the nil UUID.
func init() {
	mutants = append(mutants,
		mutant{id: `records-second-name-ignored`, file: `envelope.go`, pkg: `.`,
			what: `a document's jurisdiction written as "state" read as none`,
			from: `if to := (*string)(unsafe.Add(r, a.to)); *to == "" {`,
			to:   `if to := (*string)(unsafe.Add(r, a.to)); false {`},
		mutant{id: `records-page-skips-finish`, file: `envelope.go`, pkg: `.`,
			what: `a page read straight into wire records loses the second names`,
			from: `			c.finish(unsafe.Pointer(&l.records[i]), w, nil)`,
			to:   `			_ = w`},
		mutant{id: `records-default-ignored`, file: `envelope.go`, pkg: `.`,
			what: `an invoice line without a quantity bills none`,
			from: `		*(*int)(unsafe.Add(w, d.off)) = d.n`,
			to:   `		_ = d`},
		mutant{id: `records-raw-dropped`, file: `envelope.go`, pkg: `.`,
			what: `a record's Raw left empty`,
			from: `	if c.raw != noField {`,
			to:   `	if false {`},
		mutant{id: `records-bare-ignored`, file: `envelope.go`, pkg: `.`,
			what: `a link written as a bare string refused`,
			from: `if s, ok := unquote(data); ok && c.bare != noField {`,
			to:   `if s, ok := unquote(data); ok && false {`},
		mutant{id: `records-body-sends-nil-uuid`, file: `params.go`, pkg: `.`,
			what: `a params body sends the nil UUID of an optional id`,
			from: `opt == "omitempty" && empty`,
			to:   `opt == "omitempty" && f.Kind() != reflect.Array && empty`},
	)
}
