package main

import (
	"fmt"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/spf13/cobra"
)

func (a *app) callbacksCommand() *cobra.Command {
	list := &cobra.Command{
		Use:     "list",
		Short:   "List the registered callback URLs",
		Example: "  acctadmin callbacks list",
		Args:    noArgs,
	}
	list.RunE = func(cmd *cobra.Command, _ []string) error {
		if _, err := a.checkJQ(); err != nil {
			return err
		}
		c, err := a.client()
		if err != nil {
			return err
		}
		cbs, err := c.Callbacks.List(a.ctx)
		if err != nil {
			return err
		}
		if len(cbs) == 0 && !a.wantJSON() {
			fmt.Fprintln(a.stdout, "no callback URL is registered; register one with `acctadmin callbacks ensure URL`")
			return nil
		}
		l := &listing{headers: []string{"ID", "URL", "CREATED"}}
		for _, cb := range cbs {
			if err := l.add(shownCallback(cb), idString(cb.ID), redactURL(cb.URL), clock(cb.CreatedAt)); err != nil {
				return err
			}
		}
		return a.printList(l)
	}

	create := &cobra.Command{
		Use:     "create URL",
		Short:   "Register a callback URL (a second create registers it twice; see ensure)",
		Example: "  acctadmin callbacks create https://example.com/hooks/acctadmin",
		Args:    exactArgs(1),
	}
	create.RunE = func(cmd *cobra.Command, args []string) error {
		if _, err := a.checkJQ(); err != nil {
			return err
		}
		c, err := a.client()
		if err != nil {
			return err
		}
		cb, err := c.Callbacks.Create(a.ctx, args[0])
		if err != nil {
			return withCheck(err, "see whether it was registered with `acctadmin callbacks list`")
		}
		return a.printRecord(shownCallback(*cb), callbackFields(cb)...)
	}

	del := &cobra.Command{
		Use:     "delete ID",
		Short:   "Remove a registered callback",
		Example: "  acctadmin callbacks delete 5e6f...",
		Args:    exactArgs(1),
	}
	del.RunE = func(cmd *cobra.Command, args []string) error {
		id, err := parseID("callback", args[0])
		if err != nil {
			return err
		}
		c, err := a.client()
		if err != nil {
			return err
		}
		if err := c.Callbacks.Delete(a.ctx, id); err != nil {
			return withHint(err, "list the callbacks with `acctadmin callbacks list`")
		}
		if !a.wantJSON() {
			fmt.Fprintf(a.stdout, "deleted callback %s\n", id)
		}
		return nil
	}

	ensure := &cobra.Command{
		Use:   "ensure URL",
		Short: "Make sure URL is registered exactly once (safe to repeat)",
		Long: "Make sure URL is registered exactly once, whatever is registered now: register it\n" +
			"when it is not, and delete every registration of it but the oldest. Callbacks\n" +
			"of other URLs are left alone. With --dry-run the listing is read and the\n" +
			"first write printed.",
		Example: "  acctadmin callbacks ensure https://example.com/hooks/acctadmin",
		Args:    exactArgs(1),
	}
	ensure.RunE = func(cmd *cobra.Command, args []string) error {
		if _, err := a.checkJQ(); err != nil {
			return err
		}
		c, err := a.client()
		if err != nil {
			return err
		}
		cb, err := c.Callbacks.Ensure(a.ctx, args[0])
		if err != nil {
			return err
		}
		return a.printRecord(shownCallback(*cb), callbackFields(cb)...)
	}
	return group("callbacks", "List, register and remove callback URLs", "  acctadmin callbacks ensure https://example.com/hooks",
		list, a.addDryRun(create), a.addDryRun(del), a.addDryRun(ensure))
}

// callbackFields are the fields of a callback, for printRecord.
func callbackFields(cb *acctadmin.Callback) [][2]string {
	return [][2]string{
		{"ID", idString(cb.ID)},
		{"URL", redactURL(cb.URL)},
		{"Created", clock(cb.CreatedAt)},
	}
}

// clock is a moment as the command prints it: date, time and zone, the
// zone as the API gave it (UTC, or its offset).
func clock(t time.Time) string {
	if _, offset := t.Zone(); offset == 0 {
		return t.Format(time.DateTime) + " UTC"
	}
	return t.Format(time.DateTime + " -07:00")
}

// shownCallback is a callback as the command prints it in JSON: its URL's
// password hidden.
func shownCallback(cb acctadmin.Callback) acctadmin.Callback {
	cb.URL = redactURL(cb.URL)
	return cb
}
