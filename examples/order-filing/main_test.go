package main

import (
	"bytes"
	"context"
	"regexp"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/acctadmin/acctadmin-go/internal/exampletest"
	"go.uber.org/goleak"
)

// TestMain checks that the program leaves no goroutine behind. Started by
// a test as the program itself, it runs main instead.
func TestMain(m *testing.M) {
	exampletest.RunMainIfChild(main)
	goleak.VerifyTestMain(m)
}

// The order runs on the fake from offerings to form data, and the card's
// number is never printed.
func TestOrderOnTheFake(t *testing.T) {
	fake := acctadmintest.NewServer(acctadmintest.WithDemoData())
	defer fake.Close()
	c, err := acctadmin.NewClient(fake.AccessKey, fake.SecretKey, acctadmin.WithBaseURL(fake.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out, c, acctadmintest.DemoID("company", 3)); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		`1\. product: +Tax id filing service, 79\.00`,
		`2\. method: +Standard \(online\)`,
		`3\. card: +visa ending 4242, 05/2029 \(printed: \[redacted\]\)`,
		`4\. cart item: +Tax id filing service - Standard`,
		`5\. invoices: +1`,
		`6\. order item: +Standard Federal EIN - Tax Id filing, new`,
	} {
		if !regexp.MustCompile(want).Match(out.Bytes()) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if bytes.Contains(out.Bytes(), []byte("4242424242424242")) {
		t.Errorf("the card number was printed:\n%s", out.String())
	}
	if n := fake.RequestCount("POST", "/shopping-cart/checkout"); n != 1 {
		t.Errorf("checkout sent %d times", n)
	}
	// The fake answers the card's POST without the card, as the real
	// server does: the card printed was found by listing after storing.
	if lists, posts := fake.RequestCount("GET", "/payment-methods"), fake.RequestCount("POST", "/payment-methods"); lists != 2 || posts != 1 {
		t.Errorf("%d listings of the cards and %d cards stored; want 2 and 1", lists, posts)
	}
}

// The program itself runs with the README's command and ends well.
func TestMainRuns(t *testing.T) {
	child := exampletest.StartMain(t, nil)
	code, stdout, stderr, ok := child.Wait(time.Minute)
	if !ok || code != 0 {
		t.Fatalf("exit %d (finished %v)\nstdout:\n%s\nstderr:\n%s", code, ok, stdout, stderr)
	}
	if !regexp.MustCompile(`6\. order item: +Standard Federal EIN - Tax Id filing, new`).MatchString(stdout) {
		t.Errorf("stdout:\n%s", stdout)
	}
}
