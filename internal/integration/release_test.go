package acctadmin_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	acctadmin "github.com/acctadmin/acctadmin-go"
)

// repoFiles returns the files of the repository named name (go.mod,
// go.sum), by path from its root, leaving out testdata and .git.
func repoFiles(t *testing.T, name string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Name() != name {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("../..", path)
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no %s found", name)
	}
	return files
}

// A requirement of a module of this repository, in a require line or
// block: its path and version.
var siblingRequire = regexp.MustCompile(`(?m)^\s*(?:require\s+)?(github\.com/acctadmin/acctadmin-go\S*)\s+(v\S+)`)

// TestOneReleaseVersion: every go.mod requires the modules of this
// repository at the release the SDK's Version names, and nothing else.
func TestOneReleaseVersion(t *testing.T) {
	release := "v" + acctadmin.Version
	n := 0
	for path, b := range repoFiles(t, "go.mod") {
		for _, m := range siblingRequire.FindAllSubmatch(b, -1) {
			n++
			if string(m[2]) != release {
				t.Errorf("%s requires %s %s, want %s (the SDK's Version)", path, m[1], m[2], release)
			}
		}
	}
	if n == 0 {
		t.Fatal("no go.mod requires a module of this repository")
	}
}

// TestNothingThatOnlyWorksHere: what a user fetches needs no replace line
// and nothing of this repository's internals or its fake.
func TestNothingThatOnlyWorksHere(t *testing.T) {
	mods := repoFiles(t, "go.mod")
	// go install ...@v0.4.0 refuses a module with a replace directive.
	for _, path := range []string{"cmd/acctadmin/go.mod", "cmd/acctadmin-fake/go.mod"} {
		if b, ok := mods[path]; !ok || regexp.MustCompile(`(?m)^replace\b`).Match(b) {
			t.Errorf("%s holds a replace directive (or is missing)", path)
		}
	}
	// A user of the mail room or the replay cache fetches neither the fake
	// nor a module under internal/.
	for _, path := range []string{"mailroom/go.mod", "webhook/redisreplay/go.mod"} {
		for _, m := range siblingRequire.FindAllSubmatch(mods[path], -1) {
			if p := string(m[1]); strings.HasSuffix(p, "/acctadmintest") || strings.Contains(p, "/internal/") {
				t.Errorf("%s requires %s", path, p)
			}
		}
	}
	unpublished := map[string]bool{"internal/integration/go.mod": true, "internal/benchmarks/go.mod": true, "internal/publish/go.mod": true}
	for path := range mods {
		if (strings.HasPrefix(path, "internal/") || strings.Contains(path, "/internal/")) && !unpublished[path] {
			t.Errorf("%s: a module under internal/ that a user would need", path)
		}
	}
	// Until the tag, the checksums of this repository's modules change with
	// every commit: no go.sum of the tree records them.
	for path, b := range repoFiles(t, "go.sum") {
		if bytes.Contains(b, []byte("\ngithub.com/acctadmin/acctadmin-go")) || bytes.HasPrefix(b, []byte("github.com/acctadmin/acctadmin-go")) {
			t.Errorf("%s records a module of this repository", path)
		}
	}
}

// TestTheLeaseCopiesAreOne: the Redis lease package lives in the mail
// room and in the replay cache, byte for byte.
func TestTheLeaseCopiesAreOne(t *testing.T) {
	for _, name := range []string{"redislease.go", "redislease_test.go"} {
		a, errA := os.ReadFile("../../mailroom/internal/redislease/" + name)
		b, errB := os.ReadFile("../../webhook/redisreplay/internal/redislease/" + name)
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("mailroom/internal/redislease/%s and webhook/redisreplay/internal/redislease/%s differ", name, name)
		}
	}
}
