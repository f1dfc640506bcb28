package main

import (
	"archive/zip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/dirhash"
)

// tree writes a module example.com/m with a package, a nested module
// (example.com/m/sub) and a worktree's .git file, and returns its folder.
func tree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":        "module example.com/m\n\ngo 1.23\n",
		"m.go":          "package m\n\n// Answer is 42.\nconst Answer = 42\n",
		".git":          "gitdir: /somewhere/else\n",
		"sub/go.mod":    "module example.com/m/sub\n\ngo 1.23\n",
		"sub/sub.go":    "package sub\n",
		"data/file.txt": "kept\n",
	}
	for name, body := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func zipNames(t *testing.T, path string) []string {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var names []string
	for _, f := range z.File {
		names = append(names, f.Name)
	}
	slices.Sort(names)
	return names
}

func TestPublishWritesTheProxyLayout(t *testing.T) {
	src, out := tree(t), t.TempDir()
	sum, path, err := publish(src, "v0.4.0", out)
	if err != nil {
		t.Fatal(err)
	}
	if path != "example.com/m" {
		t.Fatalf("module path %q", path)
	}
	at := filepath.Join(out, "example.com", "m", "@v")
	want := []string{
		"example.com/m@v0.4.0/data/file.txt",
		"example.com/m@v0.4.0/go.mod",
		"example.com/m@v0.4.0/m.go",
	}
	if got := zipNames(t, filepath.Join(at, "v0.4.0.zip")); !slices.Equal(got, want) {
		t.Fatalf("zip holds %q, want %q (no nested module, no .git)", got, want)
	}
	if h, err := dirhash.HashZip(filepath.Join(at, "v0.4.0.zip"), dirhash.Hash1); err != nil || h != sum {
		t.Fatalf("checksum %q, the zip's is %q (%v)", sum, h, err)
	}
	if mod, _ := os.ReadFile(filepath.Join(at, "v0.4.0.mod")); string(mod) != "module example.com/m\n\ngo 1.23\n" {
		t.Fatalf(".mod = %q", mod)
	}
	var info struct{ Version string }
	b, _ := os.ReadFile(filepath.Join(at, "v0.4.0.info"))
	if err := json.Unmarshal(b, &info); err != nil || info.Version != "v0.4.0" {
		t.Fatalf(".info = %s (%v)", b, err)
	}
	// Published again, and at another version: the list names each once.
	if _, _, err := publish(src, "v0.4.0", out); err != nil {
		t.Fatal(err)
	}
	if _, _, err := publish(src, "v0.5.0", out); err != nil {
		t.Fatal(err)
	}
	if list, _ := os.ReadFile(filepath.Join(at, "list")); string(list) != "v0.4.0\nv0.5.0\n" {
		t.Fatalf("list = %q", list)
	}
}

// The go command fetches the published module from the directory as from
// any proxy, and finds the checksum publish printed.
func TestTheGoCommandReadsThePublishedModule(t *testing.T) {
	src, out := tree(t), t.TempDir()
	sum, _, err := publish(src, "v0.4.0", out)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "mod", "download", "-json", "example.com/m@v0.4.0")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-modcacherw", "GOMODCACHE="+t.TempDir(),
		"GOPROXY=file://"+filepath.ToSlash(out), "GONOSUMDB=example.com", "GOTOOLCHAIN=local")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go mod download: %v\n%s", err, b)
	}
	var got struct{ Version, Sum string }
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if got.Version != "v0.4.0" || got.Sum != sum {
		t.Fatalf("go mod download = %+v, want v0.4.0 with %s", got, sum)
	}
}

func TestBadArgumentsWriteNothing(t *testing.T) {
	src := tree(t)
	for _, c := range []struct {
		name, version, out string
		dirs               []string
		want               string
	}{
		{"no v", "0.4.0", "OUT", []string{src}, "not a canonical semantic version"},
		{"not canonical", "v0.4", "OUT", []string{src}, "not a canonical semantic version"},
		{"no output", "v0.4.0", "", []string{src}, "-o is required"},
		{"no module", "v0.4.0", "OUT", nil, "at least one module directory"},
		{"no go.mod", "v0.4.0", "OUT", []string{t.TempDir()}, "go.mod"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := c.out
			if out == "OUT" {
				out = filepath.Join(t.TempDir(), "proxy")
			}
			err := run(c.version, out, c.dirs)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("run = %v, want an error saying %q", err, c.want)
			}
			if out != "" {
				if _, err := os.Stat(filepath.Join(out, "example.com")); !os.IsNotExist(err) {
					t.Fatalf("something was written: %v", err)
				}
			}
		})
	}
}
