package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// An exported name whose declaration shows an unexported type of its
// package, or whose doc names an unexported camel-case identifier, is
// reported; an unexported field, method or parameter name, a type
// declared as an unexported one (go-github's services) and a doc that
// uses an ordinary word are not.
func TestLintPublicReportsUnexportedNames(t *testing.T) {
	var got []string
	for _, p := range lintDir(filepath.Join("testdata", "shows")) {
		got = append(got, p[strings.Index(p, ": ")+2:])
	}
	want := []string{
		"type Option shows the unexported type settings",
		"type Options shows the unexported type settings",
		"type Alias shows the unexported type settings",
		"func Run names the unexported maxTries",
		"func Make shows the unexported type settings",
		"type Thing shows the unexported type settings",
	}
	for i, w := range want {
		want[i] = strings.Replace(w, "func Run names", "the doc of func Run names", 1)
	}
	if !sameSet(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := lintDir(filepath.Join("testdata", "clean")); len(got) != 0 {
		t.Errorf("clean package: %q", got)
	}
}

// The repository's public packages show no unexported name in their
// exported declarations and docs (nor lack a doc comment).
func TestRepositoryDocsShowNoUnexportedNames(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.work")); err != nil {
		t.Fatalf("%s is not the repository's root: %v", root, err)
	}
	var problems []string
	for _, dir := range dirs(root + "/...") {
		problems = append(problems, lintDir(dir)...)
	}
	if len(problems) > 0 {
		t.Errorf("%d problem(s):\n%s", len(problems), strings.Join(problems, "\n"))
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
