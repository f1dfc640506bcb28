package mailroom_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/mailroom"
	"github.com/acctadmin/acctadmin-go/webhook"
)

// A room saves each document a callback announces before it answers the
// callback, and pulls the unread mail the callbacks missed.
func Example() {
	api := acctadmintest.NewServer() // the fake API; use your account's client and secret
	defer api.Close()
	acme := api.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})
	// Mail that came before the room: only a pull finds it.
	api.AddDocument(acctadmintest.DocumentInput{CompanyID: acme.ID, Type: "Annual Report"})

	c, err := acctadmin.NewClient(api.AccessKey, api.SecretKey, acctadmin.WithBaseURL(api.URL))
	if err != nil {
		log.Fatal(err)
	}
	v, err := webhook.NewVerifier([]byte(api.SecretKey), webhook.WithAccessKey(api.AccessKey))
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "mail-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	room, err := mailroom.New(c, v, mailroom.Dir(dir),
		mailroom.WithOnSaved(func(_ context.Context, d acctadmin.Document) {
			if d.Type == "Delivered Service of Process" {
				fmt.Println("alert:", d.Type)
			}
		}))
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(room.Handler()) // your server, at the URL registered with the API
	defer srv.Close()
	if _, err := c.Callbacks.Ensure(context.Background(), srv.URL); err != nil { // Run does this with WithCallbackURL
		log.Fatal(err)
	}

	// The API posts new-document; the room has saved it when it answers.
	api.AddDocument(acctadmintest.DocumentInput{CompanyID: acme.ID, Type: "Delivered Service of Process"})
	if _, err := api.WaitDeliveries(context.Background(), 1); err != nil {
		log.Fatal(err)
	}
	// One pull (Run pulls every interval) saves what came before.
	if err := room.Pull(context.Background()); err != nil {
		log.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.pdf"))
	st := room.Stats()
	fmt.Println(len(files), "files,", st.Saved, "saved,", st.Redownloads, "downloaded twice")
	// Output:
	// alert: Delivered Service of Process
	// 2 files, 2 saved, 0 downloaded twice
}

// One callback URL serves every event: the room saves the new documents
// and hands the others, such as new-invoice, to the function of
// WithEvents.
func ExampleWithEvents() {
	api := acctadmintest.NewServer() // the fake API; use your account's client and secret
	defer api.Close()
	acme := api.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})
	c, err := acctadmin.NewClient(api.AccessKey, api.SecretKey, acctadmin.WithBaseURL(api.URL))
	if err != nil {
		log.Fatal(err)
	}
	v, err := webhook.NewVerifier([]byte(api.SecretKey), webhook.WithAccessKey(api.AccessKey))
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "mail-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	room, err := mailroom.New(c, v, mailroom.Dir(dir),
		mailroom.WithEvents(func(ctx context.Context, ev *webhook.Event) error {
			if ev.Name == webhook.EventNewInvoice {
				fmt.Println("invoice for", ev.CompanyName)
			}
			return nil // an error answers 500, so that the API delivers again
		}))
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/callbacks", room.Handler())
	srv := httptest.NewServer(mux)
	defer srv.Close()
	if _, err := c.Callbacks.Ensure(context.Background(), srv.URL+"/callbacks"); err != nil {
		log.Fatal(err)
	}

	api.AddDocument(acctadmintest.DocumentInput{CompanyID: acme.ID, Type: "Annual Report"})
	api.AddInvoice(acctadmintest.InvoiceInput{CompanyID: acme.ID, Items: []acctadmintest.InvoiceItem{{Price: "149.00", Description: "Annual report filing"}}})
	if _, err := api.WaitDeliveries(context.Background(), 2); err != nil {
		log.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.pdf"))
	fmt.Println(len(files), "file")
	// Output:
	// invoice for Acme Widgets LLC
	// 1 file
}
