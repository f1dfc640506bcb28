package main

import (
	"errors"
	"fmt"
	"iter"
	"strings"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/spf13/cobra"
)

func (a *app) servicesCommand() *cobra.Command {
	var limit int
	list := &cobra.Command{
		Use:     "list",
		Short:   "List the account's services",
		Example: "  acctadmin services list\n  acctadmin services list --company 'Acme Widgets LLC' --json",
		Args:    noArgs,
	}
	var company string
	list.Flags().IntVar(&limit, "limit", 0, "stop after `N` services (0: all)")
	list.Flags().StringVar(&company, "company", "", "only the services of this company `name`")
	list.RunE = func(cmd *cobra.Command, _ []string) error {
		all := func(c *acctadmin.Client) iter.Seq2[acctadmin.Service, error] {
			return c.Services.All(a.ctx, &acctadmin.ServiceListParams{Company: company})
		}
		return printAll(a, limit, []string{"ID", "COMPANY", "JURISDICTION", "TYPE", "STATUS", "CREATED"}, all, func(s acctadmin.Service) (any, []string) {
			return s, []string{idString(s.ID), s.Company, s.Jurisdiction, s.Type, string(s.Status), day(s.CreatedAt)}
		}, "list the companies with `acctadmin companies list`")
	}

	var createCompany, createCompanyID string
	var jurisdictions []string
	create := &cobra.Command{
		Use:   "create --company NAME --jurisdiction J [--jurisdiction J]...",
		Short: "Create a registered-agent service for a company in one or more jurisdictions",
		Example: "  acctadmin services create --company 'Acme Widgets LLC' --jurisdiction UT --jurisdiction Idaho\n" +
			"  acctadmin services create --company-id 0b9c... --jurisdiction Utah --dry-run",
		Args: noArgs,
	}
	create.Flags().StringVar(&createCompany, "company", "", "the company's `name`")
	create.Flags().StringVar(&createCompanyID, "company-id", "", "the company's `id` (instead of --company)")
	create.Flags().StringArrayVar(&jurisdictions, "jurisdiction", nil, "a jurisdiction, name or abbreviation (repeat for several)")
	create.RunE = func(cmd *cobra.Command, _ []string) error {
		p := &acctadmin.ServiceCreateParams{Company: createCompany, Jurisdictions: jurisdictions}
		switch {
		case createCompany == "" && createCompanyID == "":
			return usageErrorf("services create needs --company NAME or --company-id ID")
		case createCompany != "" && createCompanyID != "":
			return usageErrorf("give --company or --company-id, not both")
		case len(jurisdictions) == 0:
			return usageErrorf("services create needs at least one --jurisdiction")
		}
		if createCompanyID != "" {
			id, err := parseID("company", createCompanyID)
			if err != nil {
				return err
			}
			p.CompanyID = id
		}
		if _, err := a.checkJQ(); err != nil {
			return err
		}
		c, err := a.client()
		if err != nil {
			return err
		}
		created, err := c.Services.Create(a.ctx, p)
		if err != nil {
			return hintError{err: err, hint: "list the companies with `acctadmin companies list`",
				check: "see whether the service was made with `acctadmin services list`"}
		}
		l := &listing{headers: []string{"ID", "COMPANY", "JURISDICTION", "TYPE", "STATUS"}}
		for _, s := range created {
			if err := l.add(s, idString(s.ID), s.Company, s.Jurisdiction, s.Type, string(s.Status)); err != nil {
				return err
			}
		}
		if len(created) == 0 && !a.wantJSON() {
			fmt.Fprintln(a.stderr, "no service created: the company has an open service in each of these jurisdictions")
		}
		return a.printList(l)
	}

	cancel := &cobra.Command{
		Use:     "cancel-request ID",
		Short:   "Ask for a service to be cancelled",
		Long:    "Ask for a service to be cancelled. The API refuses while the service's company has unpaid invoices; the error lists them.",
		Example: "  acctadmin services cancel-request 6f1c2b3a-...\n  acctadmin services cancel-request 6f1c2b3a-... --dry-run",
		Args:    exactArgs(1),
	}
	cancel.RunE = func(cmd *cobra.Command, args []string) error {
		id, err := parseID("service", args[0])
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
		s, err := c.Services.RequestCancellation(a.ctx, id)
		var ue *acctadmin.UnpaidInvoicesError
		if errors.As(err, &ue) {
			ids := make([]string, len(ue.Invoices))
			for i, inv := range ue.Invoices {
				ids[i] = inv.ID.String()
			}
			return exitError{1, fmt.Sprintf("services cancel-request: the API refused: the company has %d unpaid invoice(s) (%s); pay them with `acctadmin invoices pay %s --card CARD_ID --yes` first (the cards: `acctadmin cards list`)",
				len(ids), strings.Join(ids, ", "), strings.Join(ids, " "))}
		}
		if err != nil {
			return hintError{err: err, hint: "list the services with `acctadmin services list`",
				check: "see the service's status with `acctadmin services list`"}
		}
		return a.printRecord(s, serviceFields(s)...)
	}
	return group("services", "List services, create them and request their cancellation", "  acctadmin services list", list, a.addDryRun(create), a.addDryRun(cancel))
}

// serviceFields are the fields of a service, for printRecord.
func serviceFields(s *acctadmin.Service) [][2]string {
	return [][2]string{
		{"ID", idString(s.ID)},
		{"Company", s.Company},
		{"Jurisdiction", s.Jurisdiction},
		{"Type", s.Type},
		{"Status", string(s.Status)},
		{"Created", day(s.CreatedAt)},
		{"Updated", day(s.UpdatedAt)},
	}
}

// checkLimit refuses a negative --limit.
func checkLimit(n int) error {
	if n < 0 {
		return usageErrorf("--limit must be 0 (all) or more, got %d", n)
	}
	return nil
}
