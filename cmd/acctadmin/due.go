package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	ics "github.com/arran4/golang-ical"
	"github.com/spf13/cobra"
)

// defaultWithin is the range of due without --within, --from or --to.
const defaultWithin = 90

// overdueLookback is how far back due --fail-if-overdue looks without
// --from, in days.
const overdueLookback = 365

func (a *app) dueCommand() *cobra.Command {
	var within, from, to, format string
	var failIfOverdue bool
	var now string
	cmd := &cobra.Command{
		Use:   "due [--within 90d | --from YYYY-MM-DD --to YYYY-MM-DD] [--format table|json|csv|ics] [--fail-if-overdue]",
		Short: "List the compliance due dates of a range (the next 90 days by default)",
		Long: `List the compliance due dates of the account's companies in a range of days:
the next 90 days unless --within (days, as 30d, or weeks, as 8w) or --from and
--to (both inclusive) say otherwise. The table groups them by company.

--format ics writes an iCalendar file (RFC 5545): one all-day event per due
date, with a UID that stays the same from one export to the next (so that a
calendar that imports it again updates its events rather than adding copies)
and a reminder a week before. --format csv writes one row per due date, and
--format json (or --json) the records.

--fail-if-overdue exits 5 when an active due date in the range has passed
(a filing that is due, not one that needs none). Without --from the range
then starts a year back, so that the overdue dates are listed too.`,
		Example: `  acctadmin due
  acctadmin due --within 30d --fail-if-overdue
  acctadmin due --from 2026-01-01 --to 2026-12-31 --format ics > due.ics
  acctadmin due --format csv > due.csv`,
		Args: noArgs,
	}
	f := cmd.Flags()
	f.StringVar(&within, "within", "", "how far ahead to look from today, as 90d or 12w (default 90d)")
	f.StringVar(&from, "from", "", "first day of the range, YYYY-MM-DD")
	f.StringVar(&to, "to", "", "last day of the range, YYYY-MM-DD")
	f.StringVar(&format, "format", "table", "table, json, csv or ics")
	f.BoolVar(&failIfOverdue, "fail-if-overdue", false, "exit 5 when an active due date has passed")
	f.StringVar(&now, "today", "", "the day taken as today, YYYY-MM-DD, for the range and what is overdue (default: today's date here)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		today := acctadmin.DateOf(time.Now())
		if now != "" {
			d, err := acctadmin.ParseDate(now)
			if err != nil {
				return usageErrorf("--today %q: want YYYY-MM-DD", now)
			}
			today = d
		}
		start, end, err := dueRange(today, within, from, to, failIfOverdue)
		if err != nil {
			return err
		}
		if a.wantJSON() {
			if format != "table" && format != "json" {
				return usageErrorf("--json and --jq print JSON: leave out --format %s", format)
			}
			format = "json"
		}
		switch format {
		case "table", "json", "csv", "ics":
		default:
			return usageErrorf("--format must be table, json, csv or ics, got %q", format)
		}
		if _, err := a.checkJQ(); err != nil {
			return err
		}
		c, err := a.client()
		if err != nil {
			return err
		}
		var events []acctadmin.ComplianceEvent
		for e, err := range c.ComplianceEvents.All(a.ctx, &acctadmin.ComplianceEventListParams{StartDate: start, EndDate: end}) {
			if err != nil {
				return err
			}
			events = append(events, e)
		}
		switch format {
		case "json":
			l := &listing{}
			for _, e := range events {
				if err := l.add(e); err != nil {
					return err
				}
			}
			a.jsonOut = true
			err = a.printList(l)
		case "csv":
			err = writeDueCSV(a.stdout, events, today)
		case "ics":
			err = writeDueICS(a.stdout, events, time.Now())
		default:
			err = writeDueTable(a.stdout, events, today, start, end)
		}
		if err != nil {
			return err
		}
		if failIfOverdue {
			if n := countOverdue(events, today); n > 0 {
				return exitError{5, fmt.Sprintf("%d due date(s) have passed; file them, or see them with `acctadmin due --from %s --to %s`", n, start, today.AddDays(-1))}
			}
		}
		return nil
	}
	return cmd
}

// dueRange reads the range flags of due.
func dueRange(today acctadmin.Date, within, from, to string, overdue bool) (start, end acctadmin.Date, err error) {
	if within != "" && (from != "" || to != "") {
		return start, end, usageErrorf("give --within or --from and --to, not both")
	}
	if (from == "") != (to == "") && within == "" {
		if from == "" {
			return start, end, usageErrorf("--to needs --from")
		}
	}
	days := defaultWithin
	if within != "" {
		n, err := parseDays(within)
		if err != nil {
			return start, end, err
		}
		days = n
	}
	start, end = today, today.AddDays(days)
	if overdue && from == "" {
		start = today.AddDays(-overdueLookback)
	}
	if from != "" {
		if start, err = acctadmin.ParseDate(from); err != nil {
			return start, end, usageErrorf("--from %q: want a date YYYY-MM-DD", from)
		}
	}
	if to != "" {
		if end, err = acctadmin.ParseDate(to); err != nil {
			return start, end, usageErrorf("--to %q: want a date YYYY-MM-DD", to)
		}
	}
	if end.Before(start) {
		return start, end, usageErrorf("the range ends (%s) before it starts (%s)", end, start)
	}
	return start, end, nil
}

// parseDays reads a span such as 90d, 12w or 90 (days).
func parseDays(s string) (int, error) {
	unit := 1
	num := s
	switch {
	case strings.HasSuffix(s, "d"):
		num = strings.TrimSuffix(s, "d")
	case strings.HasSuffix(s, "w"):
		num, unit = strings.TrimSuffix(s, "w"), 7
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || n > 100*366 {
		return 0, usageErrorf("--within %q: want a number of days or weeks, as 90d or 12w", s)
	}
	return n * unit, nil
}

// isOverdue reports whether e is an active due date before today.
func isOverdue(e acctadmin.ComplianceEvent, today acctadmin.Date) bool {
	return e.Status != acctadmin.ComplianceEventNoneRequired && e.DueDate.Before(today)
}

// countOverdue counts the overdue events.
func countOverdue(events []acctadmin.ComplianceEvent, today acctadmin.Date) int {
	n := 0
	for _, e := range events {
		if isOverdue(e, today) {
			n++
		}
	}
	return n
}

// dueNote is what the table and the CSV say of a due date beside its
// status: how far away it is.
func dueNote(e acctadmin.ComplianceEvent, today acctadmin.Date) string {
	if e.Status == acctadmin.ComplianceEventNoneRequired {
		return "no filing required"
	}
	switch n := today.DaysUntil(e.DueDate); {
	case n < 0:
		return fmt.Sprintf("OVERDUE by %d day(s)", -n)
	case n == 0:
		return "due today"
	default:
		return fmt.Sprintf("in %d day(s)", n)
	}
}

// writeDueTable writes the due dates grouped by company, the companies in
// the order of their first due date.
func writeDueTable(w io.Writer, events []acctadmin.ComplianceEvent, today, start, end acctadmin.Date) error {
	if len(events) == 0 {
		_, err := fmt.Fprintf(w, "No due dates from %s to %s.\n", start, end)
		return err
	}
	var order []string
	by := map[string][]acctadmin.ComplianceEvent{}
	for _, e := range events {
		if _, ok := by[e.Company]; !ok {
			order = append(order, e.Company)
		}
		by[e.Company] = append(by[e.Company], e)
	}
	fmt.Fprintf(w, "Due dates from %s to %s\n", start, end)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, company := range order {
		name := company
		if name == "" {
			name = "(no company)"
		}
		fmt.Fprintf(tw, "\n%s\n", oneLine(name))
		fmt.Fprintln(tw, "  DUE\tFILING\tJURISDICTIONS\tWHEN")
		list := by[company]
		slices.SortStableFunc(list, func(x, y acctadmin.ComplianceEvent) int { return x.DueDate.Compare(y.DueDate) })
		for _, e := range list {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", e.DueDate, oneLine(e.Filing), oneLine(strings.Join(e.Jurisdictions, ", ")), dueNote(e, today))
		}
	}
	return tw.Flush()
}

// writeDueCSV writes one row per due date, with a header, every cell
// safe to open in a spreadsheet (csvCell).
func writeDueCSV(w io.Writer, events []acctadmin.ComplianceEvent, today acctadmin.Date) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"due_date", "company", "company_id", "filing", "jurisdictions", "status", "overdue", "id"})
	for _, e := range events {
		row := []string{
			e.DueDate.String(), e.Company, idString(e.CompanyID), e.Filing,
			strings.Join(e.Jurisdictions, "; "), string(e.Status), strconv.FormatBool(isOverdue(e, today)), idString(e.ID),
		}
		for i := range row {
			row[i] = csvCell(row[i])
		}
		_ = cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// csvCell makes a cell that a spreadsheet shows as text, never runs as a
// formula: a cell that starts with =, +, -, @, a tab or a carriage return
// gets a single quote before it (OWASP's rule against CSV injection).
func csvCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// icsUIDDomain ends every event's UID: the UID is the compliance event's
// id, which stays the same from one export to the next.
const icsUIDDomain = "@acctadmin-go"

// writeDueICS writes the due dates as an iCalendar file (RFC 5545): one
// all-day event per due date, with a stable UID and a reminder a week
// before, lines ended with CRLF and folded at 75 octets, text escaped.
func writeDueICS(w io.Writer, events []acctadmin.ComplianceEvent, stamp time.Time) error {
	cal := ics.NewCalendar()
	cal.SetProductId("-//acctadmin-go//acctadmin " + version + "//EN")
	cal.SetMethod(ics.MethodPublish)
	cal.SetCalscale("GREGORIAN")
	cal.SetXWRCalName("Compliance due dates")
	for _, e := range events {
		uid := e.ID.String()
		if e.ID.String() == "00000000-0000-0000-0000-000000000000" {
			// No id: one made of what the event is, so that it too is
			// the same in the next export.
			uid = fmt.Sprintf("%s-%s-%s", e.DueDate, idString(e.CompanyID), strings.Join(strings.Fields(e.Filing), "-"))
		}
		ev := cal.AddEvent(uid + icsUIDDomain)
		ev.SetDtStampTime(stamp)
		day := e.DueDate.In(time.UTC)
		ev.SetAllDayStartAt(day)
		ev.SetAllDayEndAt(day.AddDate(0, 0, 1))
		summary := e.Filing
		if e.Company != "" {
			summary += " due: " + e.Company
		}
		ev.SetSummary(icsText(summary))
		desc := fmt.Sprintf("%s for %s", e.Filing, e.Company)
		if len(e.Jurisdictions) > 0 {
			desc += " in " + strings.Join(e.Jurisdictions, ", ")
		}
		desc += fmt.Sprintf(", due %s (status %s).", e.DueDate, e.Status)
		ev.SetDescription(icsText(desc))
		if len(e.Jurisdictions) > 0 {
			ev.SetLocation(icsText(strings.Join(e.Jurisdictions, ", ")))
		}
		ev.SetProperty(ics.ComponentPropertyCategories, "Compliance")
		ev.SetProperty(ics.ComponentPropertyTransp, "TRANSPARENT")
		if e.Status == acctadmin.ComplianceEventNoneRequired {
			ev.SetStatus(ics.ObjectStatusCancelled)
		} else {
			ev.SetStatus(ics.ObjectStatusConfirmed)
		}
		alarm := ev.AddAlarm()
		alarm.SetAction(ics.ActionDisplay)
		alarm.SetTrigger("-P7D")
		alarm.SetProperty(ics.ComponentPropertyDescription, icsText(summary+" in a week"))
	}
	return cal.SerializeTo(w, ics.WithNewLineWindows)
}

// icsText keeps control characters (a CR, a tab) out of a TEXT value;
// the library escapes backslashes, commas, semicolons and line feeds.
func icsText(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' {
			return r
		}
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
