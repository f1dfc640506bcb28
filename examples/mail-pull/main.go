// Command mail-pull downloads every unread document (the account's mail)
// into a folder as PDF files, several at once, each exactly once, and can
// be stopped (Ctrl-C) or killed and run again at any point without losing
// or repeating a document.
//
// Usage:
//
//	mail-pull [-dir ./mail] [-workers 4]
//
// Each document is saved as <id>.pdf. The API marks a document read when it
// is downloaded, so the unread listing shrinks as the program works and a
// later run sees only what is still to be fetched. Documents.Pull does the
// downloading, -workers at a time, and hands each open file to the program.
//
// To survive a crash in the middle of a download (after the API has marked
// the document read, before the file is complete), a file <id>.pdf.part
// is created before the download is asked for (by the HTTP transport the
// client is given, which sees every request go out), written as the
// document arrives, and renamed <id>.pdf once complete. A run starts by
// fetching again every document left as a .part file, by its id, then
// pulls the unread listing. A document already saved as <id>.pdf is not
// written again.
//
// A payment-locked document (received for a company without an active
// registered-agent service) cannot be downloaded until it is paid for:
// the pull leaves it unread, with no .part file, and the summary counts
// it; pay for it on the account (or with Documents.Unlock) and run the
// program again.
//
// On a terminal, a progress line shows the running totals; otherwise (a
// file, a pipe) a plain line is written per document. Ctrl-C stops the
// downloads in flight and prints what was written; the documents it cut
// short are left as .part files for the next run.
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
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"

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

// isTerminal reports whether w is a terminal (a character device), without
// any dependency beyond os.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// run pulls the unread mail as the command line args say, writing progress
// and a summary to out.
func run(ctx context.Context, args []string, out io.Writer) error {
	return runTo(ctx, args, out, isTerminal(out))
}

// runTo is run, with a progress line (tty) or a line per document.
func runTo(ctx context.Context, args []string, out io.Writer, tty bool) error {
	flags := flag.NewFlagSet("mail-pull", flag.ContinueOnError)
	flags.SetOutput(out)
	dir := flags.String("dir", "./mail", "`folder` to save the documents in")
	workers := flags.Int("workers", 4, "documents downloaded at once, 1 to 32")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if flags.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", flags.Args())
	}
	dirGiven := false
	flags.Visit(func(f *flag.Flag) { dirGiven = dirGiven || f.Name == "dir" })

	// Every download request creates its .part file before it goes out.
	hc := &http.Client{Transport: &partMarker{dir: dir, next: http.DefaultTransport}}
	var c *acctadmin.Client
	var err error
	if os.Getenv(acctadmin.EnvAccessKey) != "" {
		c, err = acctadmin.NewClientFromEnv(acctadmin.WithHTTPClient(hc))
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
		c, err = acctadmin.NewClient(fake.AccessKey, fake.SecretKey, acctadmin.WithBaseURL(fake.URL), acctadmin.WithHTTPClient(hc))
	}
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}

	p := &puller{c: c, dir: *dir, out: out, tty: tty, sizes: map[uuid.UUID]int64{}}
	err = p.resume(ctx)
	if err == nil {
		err = p.pullUnread(ctx, *workers)
	}
	p.summary(err)
	return err
}

// partMarker is an http.RoundTripper that creates <id>.pdf.part in dir
// before it sends a document's download request: from the moment the API
// may mark the document read, a crash leaves the .part file behind for the
// next run to find.
type partMarker struct {
	dir  *string
	next http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (m *partMarker) RoundTrip(r *http.Request) (*http.Response, error) {
	if id, ok := downloadID(r); ok {
		final, part := paths(*m.dir, id)
		if !exists(final) {
			f, err := os.OpenFile(part, os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				if r.Body != nil {
					r.Body.Close()
				}
				return nil, err
			}
			if err := f.Close(); err != nil {
				return nil, err
			}
		}
	}
	return m.next.RoundTrip(r)
}

// downloadID returns the document id of a GET /documents/:id/download.
func downloadID(r *http.Request) (uuid.UUID, bool) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/documents/")
	if !ok || r.Method != http.MethodGet {
		return uuid.Nil, false
	}
	rest, ok = strings.CutSuffix(rest, "/download")
	if !ok {
		return uuid.Nil, false
	}
	id, err := uuid.Parse(rest)
	return id, err == nil
}

// paths returns where document id is saved in dir, and where it is
// written first.
func paths(dir string, id uuid.UUID) (final, part string) {
	final = filepath.Join(dir, id.String()+pdfExt)
	return final, final[:len(final)-len(pdfExt)] + partExt
}

// puller saves documents into dir and counts what it did.
type puller struct {
	c   *acctadmin.Client
	dir string
	out io.Writer
	tty bool

	mu    sync.Mutex // guards sizes, which fn fills on several goroutines
	sizes map[uuid.UUID]int64

	n, resumed, skipped int
	bytes               int64
	// locked are the payment-locked documents met, filled by the pull's
	// own goroutine (Skip, OnProgress) and by resume.
	locked map[uuid.UUID]bool
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
		final, part := paths(p.dir, id)
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
		f, err := p.c.Documents.Download(ctx, id)
		if errors.Is(err, acctadmin.ErrPaymentRequired) {
			if err := p.leaveLocked(id); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("download %q (%s): %w", d.Title, id, err)
		}
		err = p.save(*d, f)
		f.Close()
		if err != nil {
			return err
		}
		p.resumed++
		p.done(*d)
	}
	return nil
}

// pullUnread saves every unread document, workers at a time. Pull hands
// each one to save exactly once although every download takes one out of
// the listing it reads.
func (p *puller) pullUnread(ctx context.Context, workers int) error {
	var failed error
	err := p.c.Documents.Pull(ctx, &acctadmin.PullParams{
		Workers: workers,
		// A payment-locked document is refused: not asked for.
		Skip: func(d acctadmin.Document) bool {
			if d.PaymentLocked {
				p.lockedOne(d.ID)
			}
			return d.PaymentLocked
		},
		OnProgress: func(pr acctadmin.PullProgress) {
			switch {
			case pr.Err == nil && !pr.Document.PaymentLocked: // kept out by Skip otherwise
				p.done(pr.Document)
			case errors.Is(pr.Err, acctadmin.ErrPaymentRequired):
				// Refused though the listing did not say it is locked.
				if err := p.leaveLocked(pr.Document.ID); err != nil && failed == nil {
					failed = err
				}
			}
		},
	}, func(ctx context.Context, d acctadmin.Document, f *acctadmin.File) error {
		return p.save(d, f)
	})
	if err == nil {
		err = failed
	}
	return err
}

// lockedOne counts the payment-locked document id, once.
func (p *puller) lockedOne(id uuid.UUID) {
	if p.locked == nil {
		p.locked = make(map[uuid.UUID]bool)
	}
	p.locked[id] = true
}

// leaveLocked counts a document whose download was refused as
// payment-locked and removes its .part file: nothing of it was read, and
// the next run finds it in the unread listing.
func (p *puller) leaveLocked(id uuid.UUID) error {
	p.lockedOne(id)
	_, part := paths(p.dir, id)
	if err := os.Remove(part); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// save writes the open file f of document d into <id>.pdf.part, which the
// transport created before the download went out, and renames it <id>.pdf
// once complete, so that <id>.pdf is always a whole file. On failure the
// .part file is left in place for the next run. A document already saved
// is not written again. save runs on several goroutines at once.
func (p *puller) save(d acctadmin.Document, f *acctadmin.File) error {
	final, part := paths(p.dir, d.ID)
	if exists(final) {
		p.setSize(d.ID, -1)
		return nil
	}
	dst, err := os.OpenFile(part, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	n, err := io.Copy(dst, f)
	if err == nil && f.ContentLength >= 0 && n != f.ContentLength {
		err = fmt.Errorf("got %d of %d bytes", n, f.ContentLength)
	}
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
	p.setSize(d.ID, n)
	return nil
}

func (p *puller) setSize(id uuid.UUID, n int64) {
	p.mu.Lock()
	p.sizes[id] = n
	p.mu.Unlock()
}

// done counts a document saved (or found saved) and shows it. It is
// called for one document at a time.
func (p *puller) done(d acctadmin.Document) {
	p.mu.Lock()
	n := p.sizes[d.ID]
	delete(p.sizes, d.ID)
	p.mu.Unlock()
	if n < 0 {
		p.skipped++
		return
	}
	p.n++
	p.bytes += n
	if p.tty {
		fmt.Fprintf(p.out, "\r\033[K%d document(s), %d bytes: %s", p.n, p.bytes, d.Title)
		return
	}
	final, _ := paths(p.dir, d.ID)
	fmt.Fprintf(p.out, "[%d] %s -> %s (%d bytes)\n", p.n, d.Title, final, n)
}

// summary says what was written, and, when err stopped the pull, what is
// left for the next run.
func (p *puller) summary(err error) {
	if p.tty {
		fmt.Fprint(p.out, "\r\033[K")
	}
	if err != nil {
		fmt.Fprint(p.out, "stopped: ")
	}
	fmt.Fprintf(p.out, "%d document(s) downloaded (%d bytes) into %s", p.n, p.bytes, p.dir)
	if p.resumed > 0 {
		fmt.Fprintf(p.out, ", %d of them left unfinished by an earlier run", p.resumed)
	}
	if p.skipped > 0 {
		fmt.Fprintf(p.out, "; %d already there", p.skipped)
	}
	if len(p.locked) > 0 {
		fmt.Fprintf(p.out, "; %d payment-locked, left unread", len(p.locked))
	}
	var pe *acctadmin.PullError
	if errors.As(err, &pe) && len(pe.Unfinished) > 0 {
		fmt.Fprintf(p.out, "; %d cut short, left as .part files for the next run", len(pe.Unfinished))
	}
	fmt.Fprintln(p.out)
}

// exists reports whether a file is at path.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
