package main

// The slips of ordering: a checkout sent twice, a verdict on a lost
// checkout that says more than the listings show, a record found by
// listing that is not the one the write made.
func init() {
	const run = `TestOrder|TestAddItem|TestFindFiling`
	mutants = append(mutants,
		mutant{id: `ordering-charged-on-invoice-alone`, file: `order.go`, pkg: `.`, run: run,
			what: `a new invoice alone, a stranger's, taken for the checkout's charge`,
			from: `if len(e.InvoiceIDs) > 0 && !inCart {`,
			to:   `if len(e.InvoiceIDs) > 0 && (!inCart || inCart) {`},
		mutant{id: `ordering-charged-on-empty-cart-alone`, file: `order.go`, pkg: `.`, run: run,
			what: `the item gone from the cart, without an invoice, taken for a charge`,
			from: `if len(e.InvoiceIDs) > 0 && !inCart {`,
			to:   `if !inCart {`},
		mutant{id: `ordering-not-charged-on-cart-alone`, file: `order.go`, pkg: `.`, run: run,
			what: `the item still in the cart taken for no charge after a lost answer`,
			from: `			e.Verdict = Charged
		}`,
			to: `			e.Verdict = Charged
		} else if inCart {
			e.Verdict = NotCharged
		}`},
		mutant{id: `ordering-failed-listing-judged`, file: `order.go`, pkg: `.`, run: run,
			what: `a verdict drawn from listings that failed`,
			from: `if e.CheckErr = err; e.CheckErr == nil {`,
			to:   `if e.CheckErr = err; true {`},
		mutant{id: `ordering-checkout-again`, file: `order.go`, pkg: `.`, run: run,
			what: `the checkout sent again once the verdict says not charged`,
			from: `	if !errors.Is(err, ErrOutcomeUnknown) {
		return e
	}`,
			to: `	if !errors.Is(err, ErrOutcomeUnknown) {
		_, _ = c.ShoppingCart.Checkout(ctx, &CheckoutParams{ItemIDs: []uuid.UUID{res.CartItem.ID}, PaymentMethodID: res.Card.ID})
		return e
	}`},
		mutant{id: `ordering-checkout-retried-on-unknown`, file: `order.go`, pkg: `.`, run: run,
			what: `a checkout of unknown outcome sent again before looking`,
			from: `	e.Verdict = ChargeUnknown
`,
			to: `	if again, aerr := c.ShoppingCart.Checkout(ctx, &CheckoutParams{ItemIDs: []uuid.UUID{res.CartItem.ID}, PaymentMethodID: res.Card.ID}); aerr == nil {
		res.Checkout = again
		return nil
	}
	e.Verdict = ChargeUnknown
`},
		mutant{id: `ordering-known-verdict-unknown`, file: `errors.go`, pkg: `.`, run: run,
			what: `a known verdict still Is ErrOutcomeUnknown`,
			from: `	if e.Verdict == Charged {
		return nil
	}`,
			to: ``},
		mutant{id: `ordering-made-takes-old-records`, file: `listed.go`, pkg: `.`, run: run,
			what: `a record that was there before the write taken for the one it made`,
			from: `	return only(fresh(before, after, id), fits, what)`,
			to:   `	return only(after, fits, what)`},
		mutant{id: `ordering-first-waiting-item`, file: `listed.go`, pkg: `.`, run: run,
			what: `any waiting order item of the company taken, an older one included`,
			from: `		if id(r) != uuid.Nil && !slices.Contains(known, id(r)) {`,
			to:   `		if id(r) != uuid.Nil && !slices.Contains(known, uuid.Nil) {`},
		mutant{id: `ordering-ein-synonym-lost`, file: `filing_products.go`, pkg: `.`, run: run,
			what: `EIN no longer the catalogue's "tax id"`,
			from: `{"ein", "tax id", `,
			to:   `{"ein", `},
		mutant{id: `ordering-card-status-is-card`, file: `payment_methods.go`, pkg: `.`, run: `TestPaymentMethodWrites`,
			what: `a {status_code, success} answer read as a card without an id`,
			from: `	if err != nil || len(cards) == 0 || cards[0].ID == uuid.Nil {`,
			to:   `	if err != nil || len(cards) == 0 {`},
		mutant{id: `ordering-epoch-seconds-as-millis`, file: `values.go`, pkg: `.`, run: `TestOrderItemTimes`,
			what: `epoch seconds read as milliseconds`,
			from: `	if math.Abs(f) >= 1e11 {`,
			to:   `	if math.Abs(f) >= 1e8 {`},
	)
}
