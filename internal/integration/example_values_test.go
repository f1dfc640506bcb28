package acctadmin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"time"

	"github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// A record's times are time.Time: they compare, subtract, and go straight
// into params.
func ExampleDocument_times() {
	srv := acctadmintest.NewServer()
	defer srv.Close()
	acme := srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC"})
	day := time.Date(2026, time.March, 2, 9, 0, 0, 0, time.UTC)
	for i, title := range []string{"Annual report notice", "Service of process", "Tax notice"} {
		srv.AddDocument(acctadmintest.DocumentInput{CompanyID: acme.ID, Title: title, CreatedAt: day.Add(time.Duration(i) * 48 * time.Hour)})
	}
	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	docs, err := c.Documents.List(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	first, last := docs[0], docs[len(docs)-1]
	fmt.Println(first.CreatedAt.Before(last.CreatedAt), last.CreatedAt.Sub(first.CreatedAt))

	// Everything received since the second document came in.
	since, err := c.Documents.List(ctx, &acctadmin.DocumentListParams{Start: docs[1].CreatedAt})
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range since {
		fmt.Println(d.CreatedAt.UTC().Format(time.DateOnly), d.Title)
	}
	// Output:
	// true 96h0m0s
	// 2026-03-04 Service of process
	// 2026-03-06 Tax notice
}

// Amounts compare and add exactly, whatever number of decimals the API
// wrote them with.
func ExampleMoney_Add() {
	a, _ := acctadmin.ParseMoney("1.0")
	b, _ := acctadmin.ParseMoney("1.00")
	fmt.Println(a.Equal(b), a.Cmp(b), a == b)

	fee, _ := acctadmin.ParseMoney("149.00")
	credit, _ := acctadmin.ParseMoney("0.5")
	fmt.Println(fee.Add(credit), fee.Sub(credit))
	// Output:
	// true 0 false
	// 149.50 148.50
}

// An invoice totals its items, each its price times its quantity.
func ExampleInvoice_Total() {
	var inv acctadmin.Invoice
	_ = json.Unmarshal([]byte(`{"status":"unpaid","items":[
		{"price":"19.99","quantity":3,"description":"annual report filing"},
		{"price":149.00,"quantity":1,"description":"registered agent, one year"}]}`), &inv)
	total := inv.Total()
	cents, _ := total.Cents()
	fmt.Println(inv.Status == acctadmin.InvoiceUnpaid, total, cents)
	// Output: true 208.97 20897
}

// Dates compare, count the days between them and key JSON maps.
func ExampleDate_DaysUntil() {
	today := acctadmin.Date{Year: 2025, Month: time.February, Day: 20}
	due, _ := acctadmin.ParseDate("2025-03-01")
	fmt.Println(today.DaysUntil(due), today.Compare(due))

	perDay, _ := json.Marshal(map[acctadmin.Date]int{due: 2})
	fmt.Println(string(perDay))
	// Output:
	// 9 -1
	// {"2025-03-01":2}
}
