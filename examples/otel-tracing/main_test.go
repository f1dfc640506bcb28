package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Each call is one span named by its operation, with its path pattern,
// and one child span an attempt: the retried call has two.
func TestSpansOfTheCalls(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	want := "Companies.List GET /companies 200 [attempt 1=503 attempt 2=200]\n" +
		"Documents.Get GET /documents/{id} 200 [attempt 1=200]\n"
	if got := out.String(); got != want {
		t.Errorf("spans:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(out.String(), "-") {
		t.Errorf("a span shows an id rather than a pattern:\n%s", out.String())
	}
}
