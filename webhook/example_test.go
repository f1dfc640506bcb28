package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/acctadmin/acctadmin-go/webhook"
)

// A receiver needs one line once it has a Verifier: the handler verifies
// each callback and calls the function only for authentic events.
func ExampleVerifier_Handler() {
	v, err := webhook.NewVerifier([]byte(os.Getenv("ACCTADMIN_SECRET_KEY")),
		webhook.WithReplayCache(webhook.NewMemoryReplayCache(10000, 24*time.Hour)))
	if err != nil {
		log.Fatal(err)
	}

	http.Handle("/callbacks", v.Handler(func(ctx context.Context, ev *webhook.Event) error {
		switch ev.Name {
		case webhook.EventNewInvoice:
			log.Printf("invoice %s for %s", ev.InvoiceID, ev.CompanyName)
		case webhook.EventNewDocument:
			log.Printf("document %s for %s", ev.DocumentID, ev.CompanyName)
		}
		return nil // an error answers 500, so that the API delivers again
	}))
	log.Fatal(http.ListenAndServe(":8080", nil))
}

// Sign makes the tokens the API would send, so a receiver can test its own
// handler with httptest and no network.
func ExampleSign() {
	secret := []byte("test-secret-key")
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		log.Fatal(err)
	}
	var got []*webhook.Event
	h := v.Handler(func(ctx context.Context, ev *webhook.Event) error {
		got = append(got, ev)
		return nil
	})

	token, err := webhook.Sign(map[string]any{
		"event":        webhook.EventNewInvoice,
		"invoice_id":   "6f1c2f0e-6a43-4bb4-9d55-0c0d7d1f2a01",
		"company_id":   "9a7e5c3b-2d1f-4e0a-b8c6-d4e2f0a1b303",
		"company_name": "Acme Widgets LLC",
	}, secret)
	if err != nil {
		log.Fatal(err)
	}
	body, err := json.Marshal(map[string]string{"data": token})
	if err != nil {
		log.Fatal(err)
	}

	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/callbacks", bytes.NewReader(body)))
	fmt.Println(w.Code)
	fmt.Println(got[0].Name, got[0].InvoiceID, got[0].CompanyName)

	forged, err := webhook.Sign(map[string]any{"event": webhook.EventNewInvoice}, []byte("not-the-secret"))
	if err != nil {
		log.Fatal(err)
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/callbacks", bytes.NewReader([]byte(forged))))
	fmt.Println(w.Code, len(got))
	// Output:
	// 200
	// new-invoice 6f1c2f0e-6a43-4bb4-9d55-0c0d7d1f2a01 Acme Widgets LLC
	// 401 1
}

// Verify returns errors that tell the reasons apart with errors.Is.
func ExampleVerifier_Verify() {
	secret := []byte("test-secret-key")
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		log.Fatal(err)
	}
	token, err := webhook.Sign(map[string]any{"event": webhook.EventNewDocument}, []byte("another-key"))
	if err != nil {
		log.Fatal(err)
	}

	_, err = v.Verify(token)
	fmt.Println(errors.Is(err, webhook.ErrInvalidSignature))
	fmt.Println(err)

	_, err = v.Verify("not a token")
	fmt.Println(errors.Is(err, webhook.ErrMalformed))
	// Output:
	// true
	// webhook: invalid signature
	// true
}
