package main

// The mutants of an invoice line read alone (it keeps its own default),
// and of a filing search for nothing (refused before anything is sent).
func init() {
	mutants = append(mutants,
		mutant{id: `records-item-default-ignored`, file: `invoices.go`, pkg: `.`, run: `TestInvoiceItemQuantity`,
			what: `an invoice line read alone, without a quantity, bills none`,
			from: `		it.Quantity = 1 // when the API does not say`,
			to:   `		it.Quantity = 0 // when the API does not say`},
		mutant{id: `params-find-empty-sent`, file: `filing_products.go`, pkg: `.`, run: `TestFindRefusesEmptyWhatBeforeSending`,
			what: `a filing search for nothing lists the offerings before it is refused`,
			from: `	if normalWords(what) == "" {`,
			to:   `	if false {`},
	)
}
