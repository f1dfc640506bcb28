package main

// The fake's answers to a card written, shaped as the real server's:
// result {status_code: 200, success: true}, never the card.
func init() {
	mutants = append(mutants,
		mutant{id: `cards-create-answers-card`, file: `acctadmintest/payments.go`, pkg: `./acctadmintest`,
			what: `POST /payment-methods answers the stored card in a list, which the real server never does`,
			from: `		f.recordWrite(c, []uuid.UUID{pm.ID})
		return struct{}{}, nil
	})
	return c.writtenCard()`,
			to: `		f.recordWrite(c, []uuid.UUID{pm.ID})
		return struct{}{}, nil
	})
	return c.ok([]paymentMethodWire{f.wire(false).paymentMethod(&pm)}, answer{})`},
		mutant{id: `cards-status-code-text`, file: `acctadmintest/payments.go`, pkg: `./acctadmintest`,
			what: `status_code written as the text "200" (as the C# model types it) rather than a number`,
			from: "StatusCode int  `json:\"status_code\"`",
			to:   "StatusCode int  `json:\"status_code,string\"`"},
		mutant{id: `cards-update-answers-card`, file: `acctadmintest/payments.go`, pkg: `./internal/integration`,
			run:  `TestStoreFindsTheCardByListingOnTheFake|TestFakeEndToEndEveryEndpoint`,
			what: `PATCH /payment-methods/:id answers the changed card, so Update returns one on the fake alone`,
			from: `		*old = pm
		f.recordWrite(c, nil)
		return struct{}{}, nil
	})
	if err != nil {
		return err
	}
	return c.writtenCard()`,
			to: `		*old = pm
		f.recordWrite(c, nil)
		return struct{}{}, nil
	})
	if err != nil {
		return err
	}
	return c.ok(f.wire(false).paymentMethod(&pm), answer{})`},
	)
}
