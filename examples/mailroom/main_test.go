package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
)

func TestDemoSavesTheFakesMail(t *testing.T) {
	t.Setenv(acctadmin.EnvAccessKey, "")
	t.Setenv(acctadmin.EnvSecretKey, "")
	dir := filepath.Join(t.TempDir(), "mail")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, []string{"-dir", dir}, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	docs, others := listFolder(t, dir)
	if len(docs) != 3 || len(others) != 0 {
		t.Fatalf("saved %d documents, others %v\n%s", len(docs), others, out.String())
	}
	for _, want := range []string{"saved 3 documents in " + dir, "ALERT: urgent mail saved", "new invoice", "stopped: saved=3 downloads=3 redownloads=0"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, b := range docs {
		if !bytes.HasPrefix(b, []byte("%PDF-")) {
			t.Fatalf("a saved file is not a PDF: %q", b[:min(len(b), 16)])
		}
	}
}

func TestFlagsAreChecked(t *testing.T) {
	var out bytes.Buffer
	for _, args := range [][]string{{"extra"}, {"-workers", "0", "-dir", t.TempDir()}, {"-redis", "not a url", "-dir", t.TempDir()}} {
		t.Setenv(acctadmin.EnvAccessKey, "k")
		t.Setenv(acctadmin.EnvSecretKey, "s")
		if err := run(context.Background(), args, &out); err == nil {
			t.Errorf("run(%q) succeeded", args)
		}
	}
	if _, err := os.Stat("mail"); err == nil {
		t.Error("a mail folder was created in the working directory")
	}
}
