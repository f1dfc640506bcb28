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
// nothing. Blocks of other packages are ignored.
func TestOnPath(t *testing.T) {
	dir := t.TempDir()
	src := `package p

func setup() {}

func (c *Client) get() {
	f := func() {
		_ = 1
	}
	f()
}

func untouched() {}
`
	write(t, filepath.Join(dir, "p.go"), src)
	write(t, filepath.Join(dir, "p_test.go"), "package p\n\nfunc helper() {}\n")
	const pkg = "example.com/p"
	once := "mode: count\n" +
		pkg + "/p.go:3.14,3.16 0 1\n" + // setup, once in both runs
		pkg + "/p.go:5.25,6.15 2 1\n" + // get
		pkg + "/p.go:6.15,8.3 1 1\n" + // the literal
		pkg + "/p.go:12.18,12.20 0 0\n" + // untouched
		"example.com/other/p.go:5.25,6.15 2 1\n"
	twice := "mode: count\n" +
		pkg + "/p.go:3.14,3.16 0 1\n" +
		pkg + "/p.go:5.25,6.15 2 2\n" +
		pkg + "/p.go:6.15,8.3 1 2\n" +
		pkg + "/p.go:12.18,12.20 0 0\n" +
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
	if want := []string{"p.go Client.get", "p.go Client.get.func1"}; !reflect.DeepEqual(names, want) {
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
