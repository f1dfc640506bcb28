package acctadmin_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// Pull downloads the unread mail on several workers and hands each open
// file to the function, which saves it. Every document comes exactly once,
// although each download takes one out of the unread listing.
func ExampleDocumentsClient_Pull() {
	srv := acctadmintest.NewServer()
	defer srv.Close()
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
	defer os.RemoveAll(dir)

	var last acctadmin.PullProgress
	err = c.Documents.Pull(context.Background(), &acctadmin.PullParams{
		Workers:    8,
		OnProgress: func(p acctadmin.PullProgress) { last = p }, // one call at a time
	}, func(ctx context.Context, d acctadmin.Document, f *acctadmin.File) error {
		// Runs on 8 goroutines at once; Pull closes f when it returns.
		dst, err := os.Create(filepath.Join(dir, d.ID.String()+".pdf"))
		if err != nil {
			return err
		}
		_, err = io.Copy(dst, f)
		if cerr := dst.Close(); err == nil {
			err = cerr
		}
		return err
	})
	var pe *acctadmin.PullError
	if errors.As(err, &pe) {
		// Downloaded (so marked read) but not saved: fetch these again
		// with Documents.Download.
		log.Fatalf("%v; unfinished: %v", pe.Err, pe.Unfinished)
	}

	files, err := os.ReadDir(dir)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(files), "files,", last.Done, "done,", last.Failed, "failed")
	fmt.Println(srv.RequestCount("GET", "/documents/:id/download"), "downloads")
	// Output:
	// 250 files, 250 done, 0 failed
	// 250 downloads
}
