package main

import (
	"fmt"
	"iter"
	"strings"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/spf13/cobra"
)

// cardsCommand lists the stored cards, whose ids invoices pay and
// documents unlock take.
func (a *app) cardsCommand() *cobra.Command {
	list := &cobra.Command{
		Use:   "list",
		Short: "List the stored cards: the id to pay with, brand, last 4 digits, expiry, name",
		Long: `List the account's stored cards (payment methods): the id that
acctadmin invoices pay --card and acctadmin documents unlock --card take,
the brand, the last four digits, the expiry and the holder's name. A full
card number is never shown; --json prints the cards in the API's field
names, without a number.`,
		Example: "  acctadmin cards list\n  acctadmin cards list --jq '.[] | select(.brand == \"visa\") | .id'",
		Args:    noArgs,
	}
	list.RunE = func(cmd *cobra.Command, _ []string) error {
		all := func(c *acctadmin.Client) iter.Seq2[acctadmin.PaymentMethod, error] {
			return each(c.PaymentMethods.List(a.ctx))
		}
		return printAll(a, 0, []string{"ID", "BRAND", "LAST 4", "EXPIRES", "NAME"}, all, func(pm acctadmin.PaymentMethod) (any, []string) {
			// The SDK's record, not the API's: it has no field that could
			// hold a full number.
			return pm, []string{idString(pm.ID), pm.Brand, pm.Last4, fmt.Sprintf("%02d/%d", pm.ExpMonth, pm.ExpYear),
				strings.TrimSpace(pm.FirstName + " " + pm.LastName)}
		}, "")
	}
	c := group("cards", "List the stored cards (payment methods) to pay with", "  acctadmin cards list", list)
	c.Aliases = []string{"payment-methods"}
	return c
}
