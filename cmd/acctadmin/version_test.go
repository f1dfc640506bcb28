package main

import (
	"bytes"
	"context"
	"testing"

	acctadmin "github.com/acctadmin/acctadmin-go"
)

// TestVersionIsTheSDKs: --version says the SDK's Version, the release's,
// and sends nothing (no keys are set).
func TestVersionIsTheSDKs(t *testing.T) {
	t.Setenv(acctadmin.EnvAccessKey, "")
	t.Setenv(acctadmin.EnvSecretKey, "")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--version"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d; stderr %q", code, stderr.String())
	}
	if want := "acctadmin version " + acctadmin.Version + "\n"; stdout.String() != want {
		t.Fatalf("--version said %q, want %q", stdout.String(), want)
	}
}
