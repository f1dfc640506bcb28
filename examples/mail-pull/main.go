// Command mail-pull downloads every unread document (the account's mail)
// into a folder as PDF files, each exactly once, and can be stopped and
// run again at any point without losing or repeating a document.
//
// Usage:
//
//	mail-pull [-dir ./mail]
//
// Each document is saved as <id>.pdf. The API marks a document read when it
// is downloaded, so the unread listing shrinks as the program works and a
// later run sees only what is still to be fetched. To survive a crash in
// the middle of a download (after the API has marked the document read,
// before the file is complete), the file is first written as
// <id>.pdf.part, created before the download is asked for, and renamed to
// <id>.pdf once complete. A run starts by fetching again every document
// left as a .part file, by its id, then walks the unread listing, skipping
// any document whose <id>.pdf is already there.
//
// With no ACCTADMIN_ACCESS_KEY set it pulls the mail of the built-in fake
// API's demo account, into a new temporary folder unless -dir is given, so
// it runs anywhere with no setup:
//
//	go run ./examples/mail-pull
//
// With ACCTADMIN_ACCESS_KEY and ACCTADMIN_SECRET_KEY set (and
// ACCTADMIN_BASE_URL, optionally) it pulls that account's unread mail, and
// so marks it read.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/google/uuid"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "mail-pull:", err)
		}
		os.Exit(1)
	}
}

const (
	pdfExt  = ".pdf"
	partExt = ".pdf.part"
)

// run pulls the unread mail as the command line args say, writing a line
// per document and a summary to out.
func run(ctx context.Context, args []string, out io.Writer) error {
	flags := flag.NewFlagSet("mail-pull", flag.ContinueOnError)
	flags.SetOutput(out)
	dir := flags.String("dir", "./mail", "`folder` to save the documents in")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if flags.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", flags.Args())
	}
	dirGiven := false
	flags.Visit(func(f *flag.Flag) { dirGiven = dirGiven || f.Name == "dir" })

	var c *acctadmin.Client
	var err error
	if os.Getenv(acctadmin.EnvAccessKey) != "" {
		c, err = acctadmin.NewClientFromEnv()
	} else {
		fake := acctadmintest.NewServer(acctadmintest.WithDemoData())
		defer fake.Close()
		fmt.Fprintf(out, "No %s set: pulling the mail of the built-in fake API's demo account\n", acctadmin.EnvAccessKey)
		if !dirGiven {
			// Demo mail is not worth keeping in the current folder.
			if *dir, err = os.MkdirTemp("", "mail-pull-"); err != nil {
				return err
			}
		}
		c, err = acctadmin.NewClient(fake.AccessKey, fake.SecretKey, acctadmin.WithBaseURL(fake.URL))
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}

	p := &puller{c: c, dir: *dir, out: out}
	if err := p.resume(ctx); err != nil {
		return err
	}
	if err := p.pullUnread(ctx); err != nil {
		return err
	}
	fmt.Fprintf(out, "%d document(s) downloaded (%d bytes) into %s", p.n, p.bytes, p.dir)
	if p.resumed > 0 {
		fmt.Fprintf(out, ", %d of them left unfinished by an earlier run", p.resumed)
	}
	if p.skipped > 0 {
		fmt.Fprintf(out, "; %d already there", p.skipped)
	}
	fmt.Fprintln(out)
	return nil
}

// puller saves documents into dir and counts what it did.
type puller struct {
	c   *acctadmin.Client
	dir string
	out io.Writer

	n, resumed, skipped int
	bytes               int64
}

// paths returns where document id is saved, and where it is written first.
func (p *puller) paths(id uuid.UUID) (final, part string) {
	final = filepath.Join(p.dir, id.String()+pdfExt)
	return final, final[:len(final)-len(pdfExt)] + partExt
}

// resume fetches again the documents whose download an earlier run began
// and did not finish. The API may have marked them read already, so they
// would not come back in the unread listing: they are fetched by id.
func (p *puller) resume(ctx context.Context) error {
	entries, err := os.ReadDir(p.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, partExt) {
			continue
		}
		id, err := uuid.Parse(strings.TrimSuffix(name, partExt))
		if err != nil {
			continue // not one of ours
		}
		final, part := p.paths(id)
		if exists(final) {
			if err := os.Remove(part); err != nil {
				return err
			}
			continue
		}
		d, err := p.c.Documents.Get(ctx, id)
		if errors.Is(err, acctadmin.ErrNotFound) {
			fmt.Fprintf(p.out, "[-] %s no longer exists; dropping %s\n", id, part)
			if err := os.Remove(part); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("document %s: %w", id, err)
		}
		if err := p.save(ctx, *d); err != nil {
			return err
		}
		p.resumed++
	}
	return nil
}

// pullUnread saves every unread document that is not saved yet. All
// yields each unread document once although every download takes one out
// of the listing it walks.
func (p *puller) pullUnread(ctx context.Context) error {
	for d, err := range p.c.Documents.All(ctx, nil) {
		if err != nil {
			return fmt.Errorf("list unread documents: %w", err)
		}
		if final, _ := p.paths(d.ID); exists(final) {
			p.skipped++
			continue
		}
		if err := p.save(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

// save downloads document d into <id>.pdf.part and renames it <id>.pdf
// once complete, so that <id>.pdf is always a whole file. The .part file
// is created before the download is asked for: from the moment the API may
// mark the document read, a crash leaves it behind for resume to find. On
// failure it is left in place for the same reason.
func (p *puller) save(ctx context.Context, d acctadmin.Document) error {
	final, part := p.paths(d.ID)
	dst, err := os.OpenFile(part, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	n, err := p.download(ctx, d.ID, dst)
	if err == nil {
		err = dst.Sync()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(part, final)
	}
	if err != nil {
		return fmt.Errorf("download %q (%s): %w", d.Title, d.ID, err)
	}
	p.n++
	p.bytes += n
	fmt.Fprintf(p.out, "[%d] %s -> %s (%d bytes)\n", p.n, d.Title, final, n)
	return nil
}

// download copies the PDF of document id into dst.
func (p *puller) download(ctx context.Context, id uuid.UUID, dst io.Writer) (int64, error) {
	f, err := p.c.Documents.Download(ctx, id)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, err := io.Copy(dst, f)
	if err == nil && f.ContentLength >= 0 && n != f.ContentLength {
		err = fmt.Errorf("got %d of %d bytes", n, f.ContentLength)
	}
	return n, err
}

// exists reports whether a file is at path.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
