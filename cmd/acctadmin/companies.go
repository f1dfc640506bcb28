package main

import (
	"fmt"
	"iter"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/google/uuid"
	"github.com/spf13/cobra"
)

func (a *app) companiesCommand() *cobra.Command {
	var limit int
	list := &cobra.Command{
		Use:     "list",
		Short:   "List the account's companies",
		Example: "  acctadmin companies list\n  acctadmin companies list --jq '.[] | select(.home_state == null) | .name'",
		Args:    noArgs,
	}
	list.Flags().IntVar(&limit, "limit", 0, "stop after `N` companies (0: all)")
	list.RunE = func(cmd *cobra.Command, _ []string) error {
		all := func(c *acctadmin.Client) iter.Seq2[acctadmin.Company, error] { return c.Companies.All(a.ctx, nil) }
		return printAll(a, limit, []string{"ID", "NAME", "HOME STATE", "ENTITY TYPE", "CREATED"}, all, func(co acctadmin.Company) (any, []string) {
			return co.Raw, []string{idString(co.ID), co.Name, co.HomeState, co.EntityType, day(co.CreatedAt)}
		}, "")
	}

	get := &cobra.Command{
		Use:     "get ID",
		Short:   "Show a company",
		Example: "  acctadmin companies get 0b9c...",
		Args:    exactArgs(1),
	}
	get.RunE = func(cmd *cobra.Command, args []string) error {
		return printOne(a, "company", "companies", args[0], func(c *acctadmin.Client, id uuid.UUID) (*acctadmin.Company, error) {
			return c.Companies.Get(a.ctx, id)
		}, func(co *acctadmin.Company) error { return a.printRecord(co.Raw, companyFields(co)...) })
	}

	var name, homeState, entityType string
	create := &cobra.Command{
		Use:     "create --name NAME [--home-state S] [--entity-type T]",
		Short:   "Create a company in the account",
		Example: "  acctadmin companies create --name 'Acme Widgets LLC' --home-state UT --entity-type LLC",
		Args:    noArgs,
	}
	create.Flags().StringVar(&name, "name", "", "the company's `name` (required)")
	create.Flags().StringVar(&homeState, "home-state", "", "the jurisdiction of its domestic registration, name or abbreviation")
	create.Flags().StringVar(&entityType, "entity-type", "", "its entity type, as LLC")
	create.RunE = func(cmd *cobra.Command, _ []string) error {
		if name == "" {
			return usageErrorf("companies create needs --name")
		}
		if _, err := a.checkJQ(); err != nil {
			return err
		}
		c, err := a.client()
		if err != nil {
			return err
		}
		created, err := c.Companies.Create(a.ctx, acctadmin.CompanyCreateParams{Name: name, HomeState: homeState, EntityType: entityType})
		if err != nil {
			return withCheck(err, "see whether the company was made with `acctadmin companies list`")
		}
		if len(created) == 0 {
			return exitError{1, fmt.Sprintf("companies create: the API added no company: the account may have one named %q already; see `acctadmin companies list`", name)}
		}
		return a.printRecord(created[0].Raw, companyFields(&created[0])...)
	}

	var newName, newHomeState, newEntityType string
	update := &cobra.Command{
		Use:     "update ID [--name N] [--home-state S] [--entity-type T]",
		Short:   "Change a company's name, home state or entity type",
		Example: "  acctadmin companies update 0b9c... --name 'Acme Widgets Inc' --entity-type Corporation",
		Args:    exactArgs(1),
	}
	update.Flags().StringVar(&newName, "name", "", "the company's new `name`")
	update.Flags().StringVar(&newHomeState, "home-state", "", "its new home state, name or abbreviation")
	update.Flags().StringVar(&newEntityType, "entity-type", "", "its new entity type")
	update.RunE = func(cmd *cobra.Command, args []string) error {
		id, err := parseID("company", args[0])
		if err != nil {
			return err
		}
		if newName == "" && newHomeState == "" && newEntityType == "" {
			return usageErrorf("companies update needs at least one of --name, --home-state and --entity-type")
		}
		if _, err := a.checkJQ(); err != nil {
			return err
		}
		c, err := a.client()
		if err != nil {
			return err
		}
		changed, err := c.Companies.Update(a.ctx, acctadmin.CompanyUpdateParams{CompanyID: id, Name: newName, HomeState: newHomeState, EntityType: newEntityType})
		if err != nil {
			return hintError{err: err, hint: "list the companies with `acctadmin companies list`",
				check: "see the company with `acctadmin companies get " + id.String() + "`"}
		}
		for _, co := range changed {
			if co.ID == id {
				return a.printRecord(co.Raw, companyFields(&co)...)
			}
		}
		// The API's answer is not documented: read the company back.
		co, err := c.Companies.Get(a.ctx, id)
		if err != nil {
			return err
		}
		return a.printRecord(co.Raw, companyFields(co)...)
	}
	return group("companies", "List, show, create and update companies", "  acctadmin companies list", list, get, a.addDryRun(create), a.addDryRun(update))
}

// companyFields are the fields of a company, for printRecord.
func companyFields(co *acctadmin.Company) [][2]string {
	return [][2]string{
		{"ID", idString(co.ID)},
		{"Name", co.Name},
		{"Home state", co.HomeState},
		{"Entity type", co.EntityType},
		{"Created", day(co.CreatedAt)},
		{"Updated", day(co.UpdatedAt)},
	}
}
