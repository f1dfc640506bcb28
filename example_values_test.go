package acctadmin_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/acctadmin/acctadmin-go"
)

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
