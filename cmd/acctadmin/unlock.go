package main

import (
	"errors"
	"fmt"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/google/uuid"
	"github.com/spf13/cobra"
)

// unlockCommand pays for payment-locked documents with a stored card.
func (a *app) unlockCommand() *cobra.Command {
	var card, maxPrice string
	var yes bool
	cmd := &cobra.Command{
		Use:   "unlock ID... --card CARD_ID [--max AMOUNT] --yes",
		Short: "Pay for payment-locked documents with a stored card (moves money: needs --yes)",
		Long: `Pay for payment-locked documents (mail received for a company without an
active registered-agent service) with a stored card, the id that
acctadmin cards list shows. Each document is read first: one that is not
payment-locked, or whose price is over --max, is refused before anything
is sent (exit 2, naming it and its price).

This moves money: without --yes it prints each document, its price and the
total, and exits 2 sending nothing. With --yes each unlock is sent once and
never repeated: when its outcome is unknown, see the document with
acctadmin documents get ID (its status says whether it is still payment
locked) before trying again, or the card may be charged twice.`,
		Example: "  acctadmin documents unlock 3f1e... 9b2c... --card 1c0b... --max 30         # prints the prices\n" +
			"  acctadmin documents unlock 3f1e... 9b2c... --card 1c0b... --max 30 --yes   # pays",
		Args: minArgs(1),
	}
	cmd.Flags().StringVar(&card, "card", "", "the stored card's `id` to charge, from acctadmin cards list (required)")
	cmd.Flags().StringVar(&maxPrice, "max", "", "refuse a document whose price is over `AMOUNT` (as 30 or 30.00)")
	cmd.Flags().BoolVar(&yes, "yes", false, "really pay")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var ids []uuid.UUID
		given := map[uuid.UUID]bool{}
		for _, s := range args {
			id, err := parseID("document", s)
			if err != nil {
				return err
			}
			if !given[id] {
				given[id] = true
				ids = append(ids, id)
			}
		}
		if card == "" {
			return usageErrorf("documents unlock needs --card CARD_ID, the stored card to charge (see `acctadmin cards list`)")
		}
		cardID, err := parseID("card", card)
		if err != nil {
			return err
		}
		var ceiling *acctadmin.Money
		if maxPrice != "" {
			m, err := acctadmin.ParseMoney(maxPrice)
			if err != nil || m.Cmp(acctadmin.Money{}) < 0 {
				return usageErrorf("--max %q: want an amount such as 30 or 30.00", maxPrice)
			}
			ceiling = &m
		}
		if _, err := a.checkJQ(); err != nil {
			return err
		}
		c, err := a.client()
		if err != nil {
			return err
		}
		// Read each document and its price; refuse before anything is sent.
		docs := make([]*acctadmin.Document, 0, len(ids))
		total := acctadmin.Money{}
		for _, id := range ids {
			d, err := c.Documents.Get(a.ctx, id)
			if err != nil {
				return withHint(err, "list the documents with `acctadmin documents list`")
			}
			switch {
			case !d.PaymentLocked:
				return usageErrorf("documents unlock: document %s is not payment-locked: nothing was paid", id)
			case d.UnlockPrice.Cmp(acctadmin.Money{}) <= 0:
				return usageErrorf("documents unlock: document %s has the price %s, not a price to pay: nothing was paid", id, money(d.UnlockPrice))
			case ceiling != nil && d.UnlockPrice.Cmp(*ceiling) > 0:
				return usageErrorf("documents unlock: document %s costs %s, over --max %s: nothing was paid", id, money(d.UnlockPrice), money(*ceiling))
			}
			docs = append(docs, d)
			total = total.Add(d.UnlockPrice)
		}
		if !yes && !a.dryRun {
			fmt.Fprintf(a.stdout, "would unlock %d document(s), %s in all, with the card %s:\n", len(docs), money(total), cardID)
			for _, d := range docs {
				fmt.Fprintf(a.stdout, "  %s  %s  %s  %s  %s\n", day(d.CreatedAt), d.CompanyName, d.Type, d.ID, money(d.UnlockPrice))
			}
			return exitError{2, "documents unlock moves money: nothing was paid; run it again with --yes to pay"}
		}
		l := &listing{headers: []string{"ID", "COMPANY", "TYPE", "CHARGED"}}
		for i, d := range docs {
			u, err := c.Documents.Unlock(a.ctx, d.ID, cardID)
			if errors.Is(err, errDryRun) {
				continue
			}
			if err != nil {
				done := ""
				if i > 0 {
					done = fmt.Sprintf(" (%d unlocked before it; %d not tried)", i, len(docs)-i-1)
				} else if len(docs) > 1 {
					done = fmt.Sprintf(" (%d not tried)", len(docs)-1)
				}
				_ = a.printList(l)
				return hintError{err: fmt.Errorf("%w%s", err, done),
					check: "see whether the document is still payment locked with `acctadmin documents get " + d.ID.String() + "`",
					hint:  "check the card with `acctadmin cards list`"}
			}
			charged := u.Amount
			if charged.IsZero() {
				charged = d.UnlockPrice
			}
			if err := l.add(map[string]any{"id": d.ID, "company_name": d.CompanyName, "type": d.Type, "amount": charged, "invoice_ids": u.InvoiceIDs},
				idString(d.ID), d.CompanyName, d.Type, money(charged)); err != nil {
				return err
			}
		}
		if a.dryRun {
			return errDryRun
		}
		return a.printList(l)
	}
	return a.addDryRun(cmd)
}
