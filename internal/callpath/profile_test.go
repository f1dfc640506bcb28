package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// A function is on the path when any of its blocks ran more often in the
// second run; a function literal counts apart from the function holding
// it, and a block that ran as often in both runs (setup) counts for
// nothing. The module's internal packages that the package imports count
// too, named by their path; blocks of other packages, and of internal
// packages it does not import, are ignored.
func TestOnPath(t *testing.T) {
	dir := t.TempDir()
	src := `package p

import "example.com/p/internal/q"

func setup() { q.Walk() }

func (c *Client) get() {
	f := func() {
		_ = 1
	}
	f()
}

func untouched() {}
`
	write(t, filepath.Join(dir, "p.go"), src)
	write(t, filepath.Join(dir, "p_test.go"), "package p\n\nimport \"example.com/p/internal/r\"\n\nfunc helper() { r.X() }\n")
	if err := os.MkdirAll(filepath.Join(dir, "internal", "q"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "internal", "q", "walk.go"), "package q\n\nfunc Walk() {}\n\nfunc step() {}\n")
	const pkg = "example.com/p"
	once := "mode: count\n" +
		pkg + "/p.go:5.14,5.26 0 1\n" + // setup, once in both runs
		pkg + "/p.go:7.25,8.15 2 1\n" + // get
		pkg + "/p.go:8.15,10.3 1 1\n" + // the literal
		pkg + "/p.go:14.18,14.20 0 0\n" + // untouched
		pkg + "/internal/q/walk.go:3.13,3.15 0 1\n" + // Walk
		pkg + "/internal/q/walk.go:5.13,5.15 0 1\n" + // step
		pkg + "/internal/r/r.go:3.10,3.12 0 1\n" + // imported by a test only
		"example.com/other/p.go:5.25,6.15 2 1\n"
	twice := "mode: count\n" +
		pkg + "/p.go:5.14,5.26 0 1\n" +
		pkg + "/p.go:7.25,8.15 2 2\n" +
		pkg + "/p.go:8.15,10.3 1 2\n" +
		pkg + "/p.go:14.18,14.20 0 0\n" +
		pkg + "/internal/q/walk.go:3.13,3.15 0 1\n" +
		pkg + "/internal/q/walk.go:5.13,5.15 0 2\n" +
		pkg + "/internal/r/r.go:3.10,3.12 0 2\n" +
		"example.com/other/p.go:5.25,6.15 2 9\n"
	write(t, filepath.Join(dir, "once.txt"), once)
	write(t, filepath.Join(dir, "twice.txt"), twice)

	path, err := onPath(dir, pkg, filepath.Join(dir, "once.txt"), filepath.Join(dir, "twice.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range path {
		names = append(names, f.File+" "+f.Name)
	}
	want := []string{"internal/q/walk.go step", "p.go Client.get", "p.go Client.get.func1"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("on the path: %q, want %q", names, want)
	}
}

// A profile line that does not parse is an error, not a silent skip.
func TestReadProfileRefusesBadLines(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "bad.txt")
	write(t, name, "mode: count\nexample.com/p/p.go:3.14,3.16 0 many\n")
	if _, err := readProfile(name, "example.com/p"); err == nil {
		t.Error("a count that is not a number read without an error")
	}
}

func write(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
