package main

// The mutants of an invoice line read alone: it keeps its own default.
func init() {
	mutants = append(mutants,
		mutant{id: `records-item-default-ignored`, file: `invoices.go`, pkg: `.`, run: `TestInvoiceItemQuantity`,
			what: `an invoice line read alone, without a quantity, bills none`,
			from: `		it.Quantity = 1 // when the API does not say`,
			to:   `		it.Quantity = 0 // when the API does not say`},
	)
}
