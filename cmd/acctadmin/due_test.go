package main

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	ics "github.com/arran4/golang-ical"
	"github.com/google/uuid"
)

// TestDueICSRoundTrip writes due dates whose text needs escaping and
// folding (commas, semicolons, backslashes, line breaks, long multi-byte
// text) and reads the file back with an independent parser: every value
// comes back as written, every line is CRLF-ended and at most 75 octets.
func TestDueICSRoundTrip(t *testing.T) {
	long := strings.Repeat("Société Générale; Zürich, ", 12)
	events := []acctadmin.ComplianceEvent{
		{
			ID: uuid.MustParse("11111111-2222-4333-8444-555555555555"), Status: acctadmin.ComplianceEventActive,
			DueDate: acctadmin.Date{Year: 2027, Month: time.March, Day: 15}, Jurisdictions: []string{"Utah", "Idaho"},
			Company: `Acme, Widgets; "LLC" \ Co`, Filing: "Annual Report\nsecond line",
		},
		{
			ID: uuid.MustParse("66666666-7777-4888-8999-000000000000"), Status: acctadmin.ComplianceEventNoneRequired,
			DueDate: acctadmin.Date{Year: 2027, Month: time.December, Day: 31}, Company: long, Filing: "Franchise Tax\r",
		},
		// An event without an id still gets a UID of its own.
		{DueDate: acctadmin.Date{Year: 2028, Month: time.February, Day: 29}, Company: "No Id Inc", Filing: "Report"},
	}
	var b bytes.Buffer
	stamp := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	if err := writeDueICS(&b, events, stamp); err != nil {
		t.Fatal(err)
	}
	if err := checkICS(b.Bytes(), len(events)); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	cal, err := ics.ParseCalendar(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	got := cal.Events()
	for i, e := range events {
		ev := got[i]
		if i < 2 && ev.Id() != e.ID.String()+icsUIDDomain {
			t.Errorf("UID %q, want the event's id", ev.Id())
		}
		start, err := ev.GetAllDayStartAt()
		if err != nil || acctadmin.DateOf(start) != e.DueDate {
			t.Errorf("event %d starts %v (%v), want %s", i, start, err, e.DueDate)
		}
		end, err := ev.GetAllDayEndAt()
		if err != nil || acctadmin.DateOf(end) != e.DueDate.AddDays(1) {
			t.Errorf("event %d ends %v (%v), want the day after %s", i, end, err, e.DueDate)
		}
		wantSummary := icsText(e.Filing + " due: " + e.Company)
		if s := ics.FromText(ev.GetProperty(ics.ComponentPropertySummary).Value); s != wantSummary {
			t.Errorf("event %d: SUMMARY read back %q, want %q", i, s, wantSummary)
		}
	}
	if s := got[1].GetProperty(ics.ComponentPropertyStatus).Value; s != string(ics.ObjectStatusCancelled) {
		t.Errorf("a due date that needs no filing has STATUS %q, want CANCELLED", s)
	}
	// The UID of the event without an id is the same in a second export.
	var again bytes.Buffer
	if err := writeDueICS(&again, events, stamp.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	cal2, _ := ics.ParseCalendar(bytes.NewReader(again.Bytes()))
	if cal2.Events()[2].Id() != got[2].Id() {
		t.Errorf("UID of an event without id changed: %q then %q", got[2].Id(), cal2.Events()[2].Id())
	}
}

// TestDueRange reads --within, --from and --to.
func TestDueRange(t *testing.T) {
	today := acctadmin.Date{Year: 2026, Month: time.November, Day: 27}
	cases := []struct {
		within, from, to string
		overdue          bool
		start, end       string
		bad              bool
	}{
		{start: "2026-11-27", end: "2027-02-25"},
		{within: "30d", start: "2026-11-27", end: "2026-12-27"},
		{within: "2w", start: "2026-11-27", end: "2026-12-11"},
		{within: "7", start: "2026-11-27", end: "2026-12-04"},
		{overdue: true, start: "2025-11-27", end: "2027-02-25"},
		{from: "2026-01-01", to: "2026-12-31", start: "2026-01-01", end: "2026-12-31"},
		{from: "2026-01-01", to: "2026-12-31", overdue: true, start: "2026-01-01", end: "2026-12-31"},
		{within: "30d", from: "2026-01-01", bad: true},
		{to: "2026-12-31", bad: true},
		{within: "-3d", bad: true},
		{within: "soon", bad: true},
		{from: "2026-12-31", to: "2026-01-01", bad: true},
		{from: "2026-02-30", to: "2026-03-01", bad: true},
	}
	for _, c := range cases {
		start, end, err := dueRange(today, c.within, c.from, c.to, c.overdue)
		if c.bad {
			if err == nil {
				t.Errorf("%+v: no error, want one", c)
			}
			continue
		}
		if err != nil || start.String() != c.start || end.String() != c.end {
			t.Errorf("%+v: %s to %s (%v), want %s to %s", c, start, end, err, c.start, c.end)
		}
	}
}

// TestDueCSVCellsAreNotFormulas: every cell that a spreadsheet would run
// as a formula (=, +, -, @, tab, carriage return first) reads back from
// the CSV with a single quote before it; other cells read back as they are.
func TestDueCSVCellsAreNotFormulas(t *testing.T) {
	names := map[string]string{
		`=HYPERLINK("http://x.example","click")`: `'=HYPERLINK("http://x.example","click")`,
		"+1+2":                                   "'+1+2",
		"-2+3":                                   "'-2+3",
		"@SUM(A1)":                               "'@SUM(A1)",
		"\t=1":                                   "'\t=1",
		"\r=1":                                   "'\r=1",
		"Acme = Widgets":                         "Acme = Widgets",
		"'quoted":                                "'quoted",
	}
	var events []acctadmin.ComplianceEvent
	for name := range names {
		events = append(events, acctadmin.ComplianceEvent{Company: name, Filing: "=cmd|' /C calc'!A0", DueDate: acctadmin.Date{Year: 2030, Month: time.January, Day: 2}})
	}
	var b bytes.Buffer
	if err := writeDueCSV(&b, events, acctadmin.Date{Year: 2030, Month: time.January, Day: 1}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatalf("reading the CSV back: %v", err)
	}
	if len(rows) != len(events)+1 {
		t.Fatalf("%d rows, want %d", len(rows), len(events)+1)
	}
	for i, row := range rows[1:] {
		if want := names[events[i].Company]; row[1] != want {
			t.Errorf("company %q written as %q, want %q", events[i].Company, row[1], want)
		}
		if row[3] != "'=cmd|' /C calc'!A0" {
			t.Errorf("filing written as %q", row[3])
		}
	}
}
