package main

import (
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strconv"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/google/uuid"
	"github.com/spf13/cobra"
)

func (a *app) documentsCommand() *cobra.Command {
	var status string
	var limit int
	list := &cobra.Command{
		Use:     "list [--status read|unread] [--limit N]",
		Short:   "List documents (the unread ones unless --status read)",
		Example: "  acctadmin documents list\n  acctadmin documents list --status read --limit 10 --json",
		Args:    noArgs,
	}
	list.Flags().StringVar(&status, "status", "unread", "read or unread")
	list.Flags().IntVar(&limit, "limit", 0, "stop after `N` documents (0: all)")
	list.RunE = func(cmd *cobra.Command, _ []string) error {
		if status != "read" && status != "unread" {
			return usageErrorf("--status must be read or unread, got %q", status)
		}
		all := func(c *acctadmin.Client) iter.Seq2[acctadmin.Document, error] {
			return c.Documents.All(a.ctx, &acctadmin.DocumentListParams{Status: acctadmin.DocumentStatus(status)})
		}
		return printAll(a, limit, []string{"ID", "RECEIVED", "COMPANY", "TYPE", "TITLE", "PAGES", "STATUS"}, all, func(d acctadmin.Document) (any, []string) {
			return d, []string{idString(d.ID), day(d.CreatedAt), d.CompanyName, d.Type, d.Title, strconv.Itoa(d.Pages), documentStatus(d)}
		}, "")
	}

	get := &cobra.Command{
		Use:     "get ID",
		Short:   "Show a document's record (this does not mark it read)",
		Example: "  acctadmin documents get 3f1e...\n  acctadmin documents get 3f1e... --jq .title",
		Args:    exactArgs(1),
	}
	get.RunE = func(cmd *cobra.Command, args []string) error {
		return printOne(a, "document", "documents", args[0], func(c *acctadmin.Client, id uuid.UUID) (*acctadmin.Document, error) {
			return c.Documents.Get(a.ctx, id)
		}, func(d *acctadmin.Document) error {
			fields := [][2]string{
				{"ID", idString(d.ID)},
				{"Title", d.Title},
				{"Type", d.Type},
				{"Company", d.CompanyName},
				{"Jurisdiction", d.Jurisdiction},
				{"Received", day(d.CreatedAt)},
				{"Pages", strconv.Itoa(d.Pages)},
				{"Source", string(d.Source)},
				{"Status", documentStatus(*d)},
			}
			if d.PaymentLocked {
				fields = append(fields, [2]string{"Unlock price", money(d.UnlockPrice) + " (acctadmin documents unlock " + d.ID.String() + " --card CARD_ID)"})
			}
			return a.printRecord(d, fields...)
		})
	}

	var out string
	download := &cobra.Command{
		Use:   "download ID [--out FILE]",
		Short: "Download a document as a PDF (this marks it read)",
		Long: "Download a document as a PDF into --out (- for standard output), or into\n" +
			"<id>.pdf in the current folder. Downloading marks the document read.",
		Example: "  acctadmin documents download 3f1e... --out notice.pdf\n  acctadmin documents download 3f1e... --out - | pdftotext - -",
		Args:    exactArgs(1),
	}
	download.Flags().StringVar(&out, "out", "", "`file` to write (- for standard output; default <id>.pdf)")
	download.RunE = func(cmd *cobra.Command, args []string) error {
		id, err := parseID("document", args[0])
		if err != nil {
			return err
		}
		c, err := a.client()
		if err != nil {
			return err
		}
		f, err := c.Documents.Download(a.ctx, id)
		if err != nil {
			return withHint(err, "list the documents with `acctadmin documents list --status read` or `--status unread`")
		}
		return a.saveFile(f, out, id.String()+".pdf")
	}

	var pageOut string
	var dpi int
	page := &cobra.Command{
		Use:     "page ID N [--dpi 72|150|300] [--out FILE]",
		Short:   "Download page N (from 0) of a document as a PNG image",
		Example: "  acctadmin documents page 3f1e... 0 --dpi 72 --out first.png",
		Args:    exactArgs(2),
	}
	page.Flags().IntVar(&dpi, "dpi", 0, "resolution: 72, 150 or 300 (default: the API's)")
	page.Flags().StringVar(&pageOut, "out", "", "`file` to write (- for standard output; default <id>-page-<N>.png)")
	page.RunE = func(cmd *cobra.Command, args []string) error {
		id, err := parseID("document", args[0])
		if err != nil {
			return err
		}
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 0 {
			return usageErrorf("page number %q must be a whole number from 0", args[1])
		}
		if dpi != 0 && dpi != 72 && dpi != 150 && dpi != 300 {
			return usageErrorf("--dpi must be 72, 150 or 300, got %d", dpi)
		}
		c, err := a.client()
		if err != nil {
			return err
		}
		f, err := c.Documents.Page(a.ctx, id, n, &acctadmin.PageParams{DPI: dpi})
		if err != nil {
			return withHint(err, "check the id and that the page exists (pages count from 0; `acctadmin documents get ID` shows how many)")
		}
		return a.saveFile(f, pageOut, fmt.Sprintf("%s-page-%d.png", id, n))
	}
	return group("documents", "List, show, download and unlock documents", "  acctadmin documents list", list, get, download, page, a.unlockCommand())
}

// documentStatus is a document's status, with payment-locked shown.
func documentStatus(d acctadmin.Document) string {
	if d.PaymentLocked {
		return string(d.Status) + " (payment locked)"
	}
	return string(d.Status)
}

// saveFile writes a file of the API to out: "-" is standard output, ""
// fallback, a name that holds the record's id, in the current folder. It writes
// under a temporary name and renames, so that a file cut short is never
// left under the final name, and prints the path written.
func (a *app) saveFile(f *acctadmin.File, out, fallback string) error {
	defer f.Close()
	if out == "-" {
		_, err := io.Copy(a.stdout, f)
		return err
	}
	if out == "" {
		out = fallback
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*")
	if err != nil {
		return err
	}
	n, err := io.Copy(tmp, f)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), out)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	fmt.Fprintf(a.stdout, "wrote %s (%d bytes)\n", out, n)
	return nil
}
