package main

import (
	"bytes"
	"context"
	"regexp"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"go.uber.org/goleak"
)

// TestMain checks that the program leaves no goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestTourOnTheFake(t *testing.T) {
	t.Setenv(acctadmin.EnvAccessKey, "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		`touring the built-in fake API at http://127\.0\.0\.1:\d+`,
		`1\. Services \(first 5\):`,
		`2\. Compliance due dates, \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d:`,
		`\d+ due in all`,
		`3\. Mail: [1-9]\d* unread documents`,
		`downloaded ".+" \(\d+ pages, [1-9]\d* bytes\)`,
		`4\. Callback registered: http://127\.0\.0\.1:\d+/callbacks`,
		`verified event "new-document": document [0-9a-f-]{36} of .+`,
	} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("output lacks %s:\n%s", want, out.String())
		}
	}
}
