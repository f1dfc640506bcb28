package main

import (
	"iter"
	"strings"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/google/uuid"
	"github.com/spf13/cobra"
)

func (a *app) resourcesCommand() *cobra.Command {
	var limit int
	var p acctadmin.ResourceListParams
	list := &cobra.Command{
		Use:     "list",
		Short:   "List reference resources: forms and links per jurisdiction",
		Example: "  acctadmin resources list --jurisdiction Utah\n  acctadmin resources list --entity-type LLC --json",
		Args:    noArgs,
	}
	list.Flags().IntVar(&limit, "limit", 0, "stop after `N` resources (0: all)")
	list.Flags().StringVar(&p.Jurisdiction, "jurisdiction", "", "only this jurisdiction's")
	list.Flags().StringVar(&p.EntityType, "entity-type", "", "only those for this entity type, as LLC")
	list.Flags().StringVar(&p.Agency, "agency", "", "only this agency's")
	list.Flags().StringVar(&p.Name, "name", "", "only those whose name holds this text")
	list.RunE = func(cmd *cobra.Command, _ []string) error {
		all := func(c *acctadmin.Client) iter.Seq2[acctadmin.Resource, error] { return c.Resources.All(a.ctx, &p) }
		return printAll(a, limit, []string{"ID", "NAME", "KIND", "JURISDICTION", "AGENCY"}, all, func(r acctadmin.Resource) (any, []string) {
			return r, []string{idString(r.ID), r.Name, string(r.Kind), r.Jurisdiction, r.Agency}
		}, "")
	}

	get := &cobra.Command{
		Use:     "get ID",
		Short:   "Show a resource",
		Example: "  acctadmin resources get 2c3d...",
		Args:    exactArgs(1),
	}
	get.RunE = func(cmd *cobra.Command, args []string) error {
		return printOne(a, "resource", "resources", args[0], func(c *acctadmin.Client, id uuid.UUID) (*acctadmin.Resource, error) {
			return c.Resources.Get(a.ctx, id)
		}, func(r *acctadmin.Resource) error {
			return a.printRecord(r,
				[2]string{"ID", idString(r.ID)},
				[2]string{"Name", r.Name},
				[2]string{"Kind", string(r.Kind)},
				[2]string{"Jurisdiction", r.Jurisdiction},
				[2]string{"Agency", r.Agency},
				[2]string{"Entity types", strings.Join(r.EntityTypes, ", ")},
				[2]string{"URL", r.URL},
			)
		})
	}

	var out string
	download := &cobra.Command{
		Use:     "download ID [--out FILE]",
		Short:   "Download a resource of kind document as a PDF",
		Example: "  acctadmin resources download 2c3d... --out form.pdf",
		Args:    exactArgs(1),
	}
	download.Flags().StringVar(&out, "out", "", "`file` to write (- for standard output; default <id>.pdf)")
	download.RunE = func(cmd *cobra.Command, args []string) error {
		id, err := parseID("resource", args[0])
		if err != nil {
			return err
		}
		c, err := a.client()
		if err != nil {
			return err
		}
		f, err := c.Resources.Download(a.ctx, id)
		if err != nil {
			return withHint(err, "check the id with `acctadmin resources list`; a resource of kind url is a link and has no file")
		}
		return a.saveFile(f, out, id.String()+".pdf")
	}
	return group("resources", "List, show and download reference resources", "  acctadmin resources list", list, get, download)
}

func (a *app) accountCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "account",
		Short:   "Show the account the keys belong to",
		Example: "  acctadmin account\n  acctadmin account --jq .email",
		Args:    noArgs,
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if _, err := a.checkJQ(); err != nil {
			return err
		}
		c, err := a.client()
		if err != nil {
			return err
		}
		acct, err := c.Account.Get(a.ctx)
		if err != nil {
			return err
		}
		return a.printRecord(acct.Raw,
			[2]string{"ID", idString(acct.ID)},
			[2]string{"Name", acct.Name},
			[2]string{"Email", acct.Email},
			[2]string{"Created", day(acct.CreatedAt)},
		)
	}
	return cmd
}

func (a *app) filingProductsCommand() *cobra.Command {
	var p acctadmin.FilingProductListParams
	list := &cobra.Command{
		Use:     "list --url WEBSITE [--jurisdiction J]",
		Short:   "List the filing products a website sells",
		Example: "  acctadmin filing-products list --url www.example-agent.com --jurisdiction UT",
		Args:    noArgs,
	}
	list.Flags().StringVar(&p.URL, "url", "", "the `WEBSITE` as it is registered, as www.example-agent.com: no https://, no slash (required)")
	list.Flags().StringVar(&p.Jurisdiction, "jurisdiction", "", "also list each product's filing methods there")
	list.RunE = func(cmd *cobra.Command, _ []string) error {
		if p.URL == "" {
			return usageErrorf("filing-products list needs --url, the website as it is registered, as www.example-agent.com")
		}
		all := func(c *acctadmin.Client) iter.Seq2[acctadmin.FilingProduct, error] {
			return each(c.FilingProducts.List(a.ctx, &p))
		}
		return printAll(a, 0, []string{"ID", "NAME", "FILING", "PRICE", "METHODS"}, all, func(fp acctadmin.FilingProduct) (any, []string) {
			var methods []string
			for _, m := range fp.FilingMethods {
				methods = append(methods, m.Name+" ("+string(m.Type)+", "+money(m.Cost)+")")
			}
			return fp, []string{idString(fp.ID), fp.Name, fp.FilingName, money(fp.Price), strings.Join(methods, "; ")}
		}, websiteHint(p.URL))
	}
	return group("filing-products", "List the filings a website sells", "  acctadmin filing-products list --url WEBSITE", list)
}

func (a *app) websitesCommand() *cobra.Command {
	var websiteURL string
	get := &cobra.Command{
		Use:     "get --url WEBSITE",
		Short:   "Show a website's contact and billing information",
		Example: "  acctadmin websites get --url www.example-agent.com",
		Args:    noArgs,
	}
	get.Flags().StringVar(&websiteURL, "url", "", "the `WEBSITE` as it is registered, as www.example-agent.com: no https://, no slash (required)")
	get.RunE = func(cmd *cobra.Command, _ []string) error {
		if websiteURL == "" {
			return usageErrorf("websites get needs --url, the website as it is registered, as www.example-agent.com")
		}
		if _, err := a.checkJQ(); err != nil {
			return err
		}
		c, err := a.client()
		if err != nil {
			return err
		}
		w, err := c.Websites.Get(a.ctx, websiteURL)
		if err != nil {
			return withHint(err, websiteHint(websiteURL))
		}
		var addrs []string
		for _, ad := range w.Addresses {
			addrs = append(addrs, strings.Join(nonEmpty(ad.Line1, ad.Line2, ad.City, ad.State, ad.ZipCode, ad.Country), ", "))
		}
		return a.printRecord(w,
			[2]string{"ID", idString(w.ID)},
			[2]string{"Name", w.Name},
			[2]string{"URL", w.URL},
			[2]string{"Billing name", w.BillingName},
			[2]string{"Login URL", w.LoginURL},
			[2]string{"Emails", strings.Join(w.Emails, ", ")},
			[2]string{"Phone numbers", strings.Join(w.PhoneNumbers, ", ")},
			[2]string{"Addresses", strings.Join(addrs, "; ")},
		)
	}
	return group("websites", "Show websites of the account", "  acctadmin websites get --url WEBSITE", get)
}

// websiteHint says how to give a website that the API did not find: as it
// is registered, a host name without scheme or slash (the API matches the
// text exactly), and, for one given with them, the text to try.
func websiteHint(given string) string {
	const how = "give the website as it is registered, a host name without https:// or a slash, as www.example-agent.com"
	host := given
	if i := strings.Index(host, "://"); i >= 0 {
		host = host[i+len("://"):]
	}
	host = strings.TrimRight(host, "/")
	if host != given && host != "" && !strings.ContainsAny(host, "/?#") {
		return how + ": try --url " + host
	}
	return how
}

// nonEmpty keeps the strings that are not empty.
func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
