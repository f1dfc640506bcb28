package acctadmin_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/mailroom"
)

// pullDemo starts the fake API with 250 unread letters, and returns it, a
// client for it and an empty folder.
func pullDemo() (*acctadmintest.Server, *acctadmin.Client, string) {
	srv := acctadmintest.NewServer()
	acme := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})
	for i := range 250 {
		srv.AddDocument(acctadmintest.DocumentInput{
			CompanyID: acme.ID,
			Title:     fmt.Sprintf("Letter %03d", i+1),
			CreatedAt: time.Date(2026, time.January, 5, 9, i, 0, 0, time.UTC),
		})
	}
	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "mail-")
	if err != nil {
		log.Fatal(err)
	}
	return srv, c, dir
}

// Pull downloads the unread mail on several workers and hands each open
// file to the function, which saves it. Every document comes exactly once,
// although each download takes one out of the unread listing.
func ExampleDocumentsClient_Pull() {
	srv, c, dir := pullDemo()
	defer srv.Close()
	defer os.RemoveAll(dir)
	ctx := context.Background()
	store := mailroom.Dir(dir) // <id>.pdf, written whole or not at all
	var progress acctadmin.PullProgress

	err := c.Documents.Pull(ctx, &acctadmin.PullParams{
		Workers: 8,
		OnProgress: func(p acctadmin.PullProgress) { // one call at a time
			progress = p
			fmt.Fprintf(os.Stderr, "\r%d done, %d failed, %d bytes", p.Done, p.Failed, p.Bytes)
		},
	}, func(ctx context.Context, d acctadmin.Document, f *acctadmin.File) error {
		// Runs on 8 goroutines at once; Pull closes f when it returns.
		return store.Save(ctx, d, f) // a download cut short leaves no file
	})
	var pe *acctadmin.PullError
	if errors.As(err, &pe) {
		// The first error stopped the pull. These documents were downloaded
		// (so probably marked read) but not saved: fetch them again by id.
		for _, id := range pe.Unfinished {
			fmt.Println("fetch again with Documents.Download:", id)
		}
		log.Fatal(pe.Err) // errors.Is(err, context.Canceled) and the sentinels work too
	}

	files, err := filepath.Glob(filepath.Join(dir, "*.pdf"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintln(os.Stderr)
	fmt.Println(len(files), "files,", progress.Done, "done,", progress.Failed, "failed")
	fmt.Println(srv.RequestCount("GET", "/documents/:id/download"), "downloads")
	// Output:
	// 250 files, 250 done, 0 failed
	// 250 downloads
}
