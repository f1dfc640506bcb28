package main

import (
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/google/uuid"
	"github.com/spf13/cobra"
)

func (a *app) invoicesCommand() *cobra.Command {
	var unpaid bool
	var limit int
	list := &cobra.Command{
		Use:     "list [--unpaid]",
		Short:   "List the account's invoices",
		Example: "  acctadmin invoices list --unpaid\n  acctadmin invoices list --json --jq '[.[] | select(.status == \"unpaid\") | .id]'",
		Args:    noArgs,
	}
	list.Flags().BoolVar(&unpaid, "unpaid", false, "only the unpaid invoices")
	list.Flags().IntVar(&limit, "limit", 0, "stop after `N` invoices (0: all)")
	list.RunE = func(cmd *cobra.Command, _ []string) error {
		all := func(c *acctadmin.Client) iter.Seq2[acctadmin.Invoice, error] { return c.Invoices.All(a.ctx, nil) }
		today := acctadmin.DateOf(time.Now())
		return printAll(a, limit, []string{"ID", "COMPANY", "STATUS", "TOTAL", "DUE", "CREATED"}, all, func(inv acctadmin.Invoice) (any, []string) {
			if unpaid && inv.Status != acctadmin.InvoiceUnpaid {
				return nil, nil
			}
			return inv.Raw, []string{idString(inv.ID), inv.Company, invoiceStatus(inv, today), money(inv.Total()), inv.DueDate.String(), day(inv.CreatedAt)}
		}, "")
	}

	get := &cobra.Command{
		Use:     "get ID",
		Short:   "Show an invoice and its lines",
		Example: "  acctadmin invoices get 7a2d...",
		Args:    exactArgs(1),
	}
	get.RunE = func(cmd *cobra.Command, args []string) error {
		return printOne(a, "invoice", "invoices", args[0], func(c *acctadmin.Client, id uuid.UUID) (*acctadmin.Invoice, error) {
			return c.Invoices.Get(a.ctx, id)
		}, func(inv *acctadmin.Invoice) error {
			fields := [][2]string{
				{"ID", idString(inv.ID)},
				{"Company", inv.Company},
				{"Status", invoiceStatus(*inv, acctadmin.DateOf(time.Now()))},
				{"Total", money(inv.Total())},
				{"Due", inv.DueDate.String()},
				{"Created", day(inv.CreatedAt)},
			}
			for i, it := range inv.Items {
				fields = append(fields, [2]string{"Line " + strconv.Itoa(i+1),
					fmt.Sprintf("%s: %d x %s = %s", it.Description, it.Quantity, money(it.Price), money(it.Total()))})
			}
			return a.printRecord(inv.Raw, fields...)
		})
	}

	var card string
	var yes bool
	pay := &cobra.Command{
		Use:   "pay ID... --card CARD_ID --yes",
		Short: "Pay invoices with a stored card (moves money: needs --yes)",
		Long: `Pay one or more invoices with a stored card, the id of a payment method.

This moves money: without --yes it only prints what it would pay and exits 2.
Each invoice is read first: one already paid or cancelled is refused before
anything is sent (exit 2), and an id given twice is one invoice.
The payment is sent once and never repeated: when its outcome is unknown (the
connection broke after the request was sent), check each invoice with
acctadmin invoices get before paying again, or the card may be charged twice.`,
		Example: "  acctadmin invoices pay 7a2d... 9e4f... --card 1c0b...        # prints what it would pay\n" +
			"  acctadmin invoices pay 7a2d... 9e4f... --card 1c0b... --yes  # pays",
		Args: minArgs(1),
	}
	pay.Flags().StringVar(&card, "card", "", "the stored card's `id` to charge, from acctadmin cards list (required)")
	pay.Flags().BoolVar(&yes, "yes", false, "really pay")
	pay.RunE = func(cmd *cobra.Command, args []string) error {
		var ids []uuid.UUID
		given := map[uuid.UUID]bool{}
		for _, s := range args {
			id, err := parseID("invoice", s)
			if err != nil {
				return err
			}
			if given[id] {
				// The same invoice twice is paid once.
				continue
			}
			given[id] = true
			ids = append(ids, id)
		}
		if card == "" {
			return usageErrorf("invoices pay needs --card CARD_ID, the stored card to charge (see `acctadmin cards list`)")
		}
		cardID, err := parseID("payment method", card)
		if err != nil {
			return err
		}
		if _, err := a.checkJQ(); err != nil {
			return err
		}
		c, err := a.client()
		if err != nil {
			return err
		}
		// Read what would be paid, to say it, and to refuse an invoice
		// that is paid or cancelled before anything is sent.
		total := acctadmin.Money{}
		var lines, refused []string
		for _, id := range ids {
			inv, err := c.Invoices.Get(a.ctx, id)
			if err != nil {
				return withHint(err, "list the invoices with `acctadmin invoices list --unpaid`")
			}
			if inv.Status == acctadmin.InvoicePaid || inv.Status == acctadmin.InvoiceCancelled {
				refused = append(refused, fmt.Sprintf("%s is %s", id, inv.Status))
			}
			total = total.Add(inv.Total())
			lines = append(lines, fmt.Sprintf("  %s  %s  %s  %s", inv.ID, inv.Company, inv.Status, money(inv.Total())))
		}
		if len(refused) > 0 {
			return usageErrorf("invoices pay: invoice %s: nothing was paid; pay only the unpaid ones (`acctadmin invoices list --unpaid`)", strings.Join(refused, ", invoice "))
		}
		if !yes && !a.dryRun {
			fmt.Fprintf(a.stdout, "would pay %d invoice(s), %s in all, with the card %s:\n%s\n", len(ids), money(total), cardID, strings.Join(lines, "\n"))
			return exitError{2, "invoices pay moves money: nothing was paid; run it again with --yes to pay"}
		}
		paid, err := c.Invoices.Pay(a.ctx, &acctadmin.InvoicePayParams{InvoiceIDs: ids, PaymentMethodID: cardID})
		if err != nil {
			return hintError{err: err, check: "see whether each invoice is paid with " + invoiceGets(ids),
				hint: "check the invoices with `acctadmin invoices list --unpaid` and the card with `acctadmin cards list`"}
		}
		l := &listing{headers: []string{"ID", "COMPANY", "STATUS", "TOTAL"}}
		for _, inv := range paid {
			if err := l.add(inv.Raw, idString(inv.ID), inv.Company, string(inv.Status), money(inv.Total())); err != nil {
				return err
			}
		}
		if len(paid) == 0 && !a.wantJSON() {
			fmt.Fprintf(a.stdout, "paid %d invoice(s); the API sent no records back\n", len(ids))
			return nil
		}
		return a.printList(l)
	}
	return group("invoices", "List, show and pay invoices", "  acctadmin invoices list --unpaid", list, get, a.addDryRun(pay))
}

// invoiceGets names the acctadmin invoices get command of each id.
func invoiceGets(ids []uuid.UUID) string {
	cmds := make([]string, len(ids))
	for i, id := range ids {
		cmds[i] = "`acctadmin invoices get " + id.String() + "`"
	}
	return strings.Join(cmds, ", ")
}

// invoiceStatus is an invoice's status, with OVERDUE and the days since
// its due date for an unpaid invoice whose due date has passed.
func invoiceStatus(inv acctadmin.Invoice, today acctadmin.Date) string {
	if inv.Status != acctadmin.InvoiceUnpaid || inv.DueDate.IsZero() || !inv.DueDate.Before(today) {
		return string(inv.Status)
	}
	return fmt.Sprintf("unpaid, OVERDUE by %d day(s)", inv.DueDate.DaysUntil(today))
}
