package acctadmin_test

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestREADMESnippets keeps the README's code honest: every Go snippet in
// README.md must appear, line for line (indentation aside), in one of the
// files that the tests compile and run (the example files and programs).
func TestREADMESnippets(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, pattern := range []string{"example*_test.go", "../../webhook/example*_test.go", "../../examples/*/*.go"} {
		more, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, more...)
	}
	var corpus [][]string
	for _, name := range sources {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		corpus = append(corpus, codeLines(string(b)))
	}

	snippets := goSnippets(string(readme))
	if len(snippets) == 0 {
		t.Fatal("README.md has no Go snippet")
	}
	for _, s := range snippets {
		lines := codeLines(s.text)
		found := false
		for _, src := range corpus {
			if containsRun(src, lines) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("README.md:%d: this snippet appears in none of %v:\n%s", s.line, sources, s.text)
		}
	}
}

type snippet struct {
	line int // where its code starts in README.md
	text string
}

// goSnippets returns the fenced ```go blocks of a Markdown text.
func goSnippets(md string) []snippet {
	var out []snippet
	var cur *snippet
	var b strings.Builder
	sc := bufio.NewScanner(strings.NewReader(md))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur = &snippet{line: n + 1}
			b.Reset()
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.text = b.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return out
}

// codeLines returns the non-blank lines of src with surrounding space
// trimmed.
func codeLines(src string) []string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// containsRun reports whether want appears in src as consecutive lines.
func containsRun(src, want []string) bool {
	if len(want) == 0 {
		return true
	}
	for i := 0; i+len(want) <= len(src); i++ {
		match := true
		for j, w := range want {
			if src[i+j] != w {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// TestREADMECommands checks the shell commands the README gives: each
// "go test" line of its first sh block is run by .ci/run as written, none
// of them needs the race detector (which needs cgo and a C compiler), and
// .ci/run keeps a race-detector run of its own.
func TestREADMECommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "```sh\n")
	if !ok {
		t.Fatal("README.md has no sh block")
	}
	block, _, _ = strings.Cut(block, "```")
	ciLines := codeLines(string(ci))
	var tests []string
	for _, line := range codeLines(block) {
		cmd, _, _ := strings.Cut(line, "#")
		cmd = strings.TrimSpace(cmd)
		if !strings.HasPrefix(cmd, "go test") {
			continue
		}
		tests = append(tests, cmd)
		if strings.Contains(cmd, "-race") {
			t.Errorf("README.md's test command %q needs cgo and a C compiler", cmd)
		}
		if !slices.Contains(ciLines, cmd) {
			t.Errorf(".ci/run does not run the README's test command %q", cmd)
		}
	}
	if len(tests) != 1 || tests[0] != "go test github.com/acctadmin/acctadmin-go/..." {
		t.Errorf("README.md's test commands = %q, want [go test github.com/acctadmin/acctadmin-go/...]", tests)
	}
	if !slices.Contains(ciLines, "go test -race github.com/acctadmin/acctadmin-go/...") {
		t.Error(".ci/run no longer runs the tests with the race detector")
	}
}

// TestLicense checks that the module carries the MIT license and that the
// README names it.
func TestLicense(t *testing.T) {
	license, err := os.ReadFile("../../LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"MIT License", "Copyright (c) 2026 The acctadmin-go authors", "THE SOFTWARE IS PROVIDED \"AS IS\""} {
		if !strings.Contains(string(license), want) {
			t.Errorf("LICENSE lacks %q", want)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "MIT: see [LICENSE](LICENSE)") {
		t.Error("README.md does not name the license")
	}
}
