// Command quickstart tours the SDK's main jobs: listing services and
// compliance due dates, paging through mail, downloading a document as a
// PDF, and receiving a verified callback event.
//
// With no ACCTADMIN_ACCESS_KEY set it starts the built-in fake API, with
// demo data, inside the process, so it runs anywhere with no setup:
//
//	go run ./examples/quickstart
//
// With ACCTADMIN_ACCESS_KEY and ACCTADMIN_SECRET_KEY set (and
// ACCTADMIN_BASE_URL, optionally) it runs the read-only part of the tour
// against that account: nothing is created, and only an already-read
// document is downloaded, so no unread mail is marked read. The document
// is saved to a temporary folder that the tour removes once it has shown
// it. Ctrl-C stops the tour.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/google/uuid"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	var fake *acctadmintest.Server
	var c *acctadmin.Client
	var err error
	if os.Getenv(acctadmin.EnvAccessKey) == "" {
		fake = acctadmintest.NewServer(acctadmintest.WithDemoData())
		defer fake.Close()
		fmt.Fprintf(out, "No %s set: touring the built-in fake API at %s\n\n", acctadmin.EnvAccessKey, fake.URL)
		c, err = acctadmin.NewClient(fake.AccessKey, fake.SecretKey, acctadmin.WithBaseURL(fake.URL))
	} else {
		fmt.Fprintln(out, "Touring your account (read-only)")
		fmt.Fprintln(out)
		c, err = acctadmin.NewClientFromEnv()
	}
	if err != nil {
		return err
	}

	if err := listServices(ctx, out, c); err != nil {
		return err
	}
	if err := upcomingDueDates(ctx, out, c); err != nil {
		return err
	}
	if err := pageThroughMail(ctx, out, c, fake != nil); err != nil {
		return err
	}
	if fake != nil {
		return receiveEvent(ctx, out, c, fake)
	}
	return nil
}

// listServices prints the first page of services.
func listServices(ctx context.Context, out io.Writer, c *acctadmin.Client) error {
	services, err := c.Services.List(ctx, &acctadmin.ServiceListParams{Limit: 5})
	if err != nil {
		return fmt.Errorf("list services: %w", err)
	}
	fmt.Fprintf(out, "1. Services (first %d):\n", len(services))
	for _, s := range services {
		fmt.Fprintf(out, "   %-28s %-16s %-22s %s\n", s.Company, s.Jurisdiction, s.Status, s.Type)
	}
	fmt.Fprintln(out)
	return nil
}

// upcomingDueDates walks every compliance event of the next 90 days.
func upcomingDueDates(ctx context.Context, out io.Writer, c *acctadmin.Client) error {
	today := acctadmin.DateOf(time.Now())
	params := &acctadmin.ComplianceEventListParams{StartDate: today, EndDate: today.AddDays(90)}
	heading := fmt.Sprintf("2. Compliance due dates, %s to %s:\n", params.StartDate, params.EndDate)
	n := 0
	for e, err := range c.ComplianceEvents.All(ctx, params) {
		if err != nil {
			return fmt.Errorf("compliance events: %w", err)
		}
		// The heading comes with the first row, which is printed as soon
		// as its page arrives, so an error before it comes alone.
		if n == 0 {
			fmt.Fprint(out, heading)
		}
		if n < 5 {
			fmt.Fprintf(out, "   %s  %-28s %-24s %v\n", e.DueDate, e.Company, e.Filing, e.Jurisdictions)
		}
		n++
	}
	if n == 0 {
		fmt.Fprint(out, heading)
	}
	fmt.Fprintf(out, "   %d due in all\n\n", n)
	return nil
}

// pageThroughMail counts the unread documents with All, then downloads
// one document as a PDF into a temporary folder. Against a real account it
// downloads an already-read document, since a download marks mail read.
func pageThroughMail(ctx context.Context, out io.Writer, c *acctadmin.Client, fake bool) error {
	unread := 0
	var first *acctadmin.Document
	for d, err := range c.Documents.All(ctx, nil) {
		if err != nil {
			return fmt.Errorf("documents: %w", err)
		}
		if first == nil {
			first = &d
		}
		unread++
	}
	fmt.Fprintf(out, "3. Mail: %d unread documents\n", unread)
	if !fake || first == nil {
		first = nil
		read, err := c.Documents.List(ctx, &acctadmin.DocumentListParams{Status: acctadmin.DocumentRead, Limit: 1})
		if err != nil {
			return fmt.Errorf("read documents: %w", err)
		}
		if len(read) > 0 {
			first = &read[0]
		}
	}
	if first == nil {
		fmt.Fprintln(out, "   nothing to download")
		fmt.Fprintln(out)
		return nil
	}
	// The tour keeps nothing: the folder goes when the download is shown.
	dir, err := os.MkdirTemp("", "acctadmin-quickstart-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path, size, err := save(ctx, c, first.ID, dir)
	if err != nil {
		return fmt.Errorf("download %s: %w", first.ID, err)
	}
	fmt.Fprintf(out, "   downloaded %q (%d pages, %d bytes) to %s (a temporary folder, removed when the tour moves on)\n\n", first.Title, first.Pages, size, path)
	return nil
}

// save streams a document's PDF into dir without holding it in memory.
func save(ctx context.Context, c *acctadmin.Client, id uuid.UUID, dir string) (string, int64, error) {
	f, err := c.Documents.Download(ctx, id)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	name := f.Filename
	if name == "" {
		name = id.String() + ".pdf"
	}
	path := filepath.Join(dir, name)
	dst, err := os.Create(path)
	if err != nil {
		return "", 0, err
	}
	n, err := io.Copy(dst, f)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	return path, n, err
}

// receiveEvent registers a local callback, makes the fake receive a new
// document, and prints the verified event the fake posts.
func receiveEvent(ctx context.Context, out io.Writer, c *acctadmin.Client, fake *acctadmintest.Server) error {
	verifier, err := webhook.NewVerifier([]byte(fake.SecretKey), webhook.WithAccessKey(fake.AccessKey))
	if err != nil {
		return err
	}
	events := make(chan *webhook.Event, 1)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: verifier.Handler(func(_ context.Context, ev *webhook.Event) error {
		select {
		case events <- ev:
		default:
		}
		return nil
	}), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()

	cb, err := c.Callbacks.Create(ctx, "http://"+ln.Addr().String()+"/callbacks")
	if err != nil {
		return fmt.Errorf("register callback: %w", err)
	}
	fmt.Fprintf(out, "4. Callback registered: %s\n", cb.URL)

	companies := fake.Companies()
	if len(companies) == 0 {
		return errors.New("the fake has no company")
	}
	doc := fake.AddDocument(acctadmintest.DocumentInput{CompanyID: companies[0].ID, Title: "Welcome letter", Pages: 2})
	select {
	case ev := <-events:
		fmt.Fprintf(out, "   verified event %q: document %s of %s\n", ev.Name, ev.DocumentID, ev.CompanyName)
		if ev.DocumentID != doc.ID {
			return fmt.Errorf("event names document %s, want %s", ev.DocumentID, doc.ID)
		}
	case <-time.After(10 * time.Second):
		return errors.New("no event arrived within 10s")
	case <-ctx.Done():
		return ctx.Err()
	}
	return c.Callbacks.Delete(ctx, cb.ID)
}
