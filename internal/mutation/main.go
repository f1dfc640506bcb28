// Command mutation measures whether the tests of the files that carry the
// SDK's guarantees can fail: it applies a listed set of realistic mutants
// (mutants.go), one at a time, to a copy of the repository (every module,
// with go.work), runs the tests that cover the mutated file, and reports
// each mutant killed (a test failed), survived (every test passed),
// invalid (it did not compile) or stale (its source text is no longer in
// the file). It prints the score, killed / (killed + survived), and every
// survivor.
//
// It is run by .ci/mutation, not by .ci/run: it takes a while.
//
// Usage: go run ./internal/mutation [-only regexp] [-skip regexp] [-run regexp] [-min percent] [-timeout d] [-v] [-list]
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

func main() {
	only := flag.String("only", "", "run only the mutants whose id matches this regexp")
	skip := flag.String("skip", "", "leave out the mutants whose id matches this regexp")
	minScore := flag.Float64("min", 95, "exit 1 when the score (percent) is below this")
	timeout := flag.Duration("timeout", 2*time.Minute, "the longest one mutant's tests may run (a hang counts as killed)")
	verbose := flag.Bool("v", false, "print the test output of every survivor")
	list := flag.Bool("list", false, "list the mutants and exit")
	runTests := flag.String("run", "", "run only these tests against each mutant (go test -run), to check a new test quickly")
	flag.Parse()
	if *runTests != "" {
		for i := range mutants {
			mutants[i].run = *runTests
		}
	}
	if err := run(*only, *skip, *minScore, *timeout, *verbose, *list); err != nil {
		fmt.Fprintln(os.Stderr, "mutation:", err)
		os.Exit(1)
	}
}

// outcome is what became of one mutant.
type outcome string

const (
	killed   outcome = "killed"
	survived outcome = "SURVIVED"
	invalid  outcome = "invalid"
	stale    outcome = "stale"
)

func run(only, skip string, minScore float64, timeout time.Duration, verbose, list bool) error {
	var sel, unsel *regexp.Regexp
	if only != "" {
		var err error
		if sel, err = regexp.Compile(only); err != nil {
			return err
		}
	}
	if skip != "" {
		var err error
		if unsel, err = regexp.Compile(skip); err != nil {
			return err
		}
	}
	var ms []mutant
	seen := map[string]bool{}
	for _, m := range mutants {
		if seen[m.id] {
			return fmt.Errorf("two mutants are named %s", m.id)
		}
		seen[m.id] = true
		if (sel == nil || sel.MatchString(m.id)) && (unsel == nil || !unsel.MatchString(m.id)) {
			ms = append(ms, m)
		}
	}
	if list {
		for _, m := range ms {
			fmt.Printf("%-28s %-34s %s\n", m.id, m.file, m.what)
		}
		return nil
	}

	root, err := moduleRoot()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "mutation-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if err := copyModule(root, work); err != nil {
		return err
	}

	counts := map[outcome]int{}
	var survivors []mutant
	start := time.Now()
	for i, m := range ms {
		t0 := time.Now()
		o, out, err := try(work, m, timeout)
		if err != nil {
			return fmt.Errorf("%s: %w", m.id, err)
		}
		counts[o]++
		fmt.Printf("[%2d/%d] %-8s %-32s %s (%s)\n", i+1, len(ms), o, m.id, m.what, time.Since(t0).Round(time.Second))
		if o == survived {
			survivors = append(survivors, m)
			if verbose {
				fmt.Println(indent(out))
			}
		}
		if o == invalid {
			fmt.Println(indent(lastLines(out, 5)))
		}
	}

	scored := counts[killed] + counts[survived]
	score := 100.0
	if scored > 0 {
		score = 100 * float64(counts[killed]) / float64(scored)
	}
	fmt.Printf("\nmutants: %d; killed %d, survived %d, invalid %d, stale %d (%s)\n",
		len(ms), counts[killed], counts[survived], counts[invalid], counts[stale], time.Since(start).Round(time.Second))
	fmt.Printf("score: %.1f%% (%d of %d)\n", score, counts[killed], scored)
	if len(survivors) > 0 {
		fmt.Println("survivors:")
		for _, m := range survivors {
			fmt.Printf("  %s  %s: %s\n    %q\n    -> %q\n", m.id, m.file, m.what, m.from, m.to)
		}
	}
	if score < minScore {
		return fmt.Errorf("score %.1f%% is below %.0f%%", score, minScore)
	}
	return nil
}

// try applies m to the copy in work, runs its tests, and puts the file
// back.
func try(work string, m mutant, timeout time.Duration) (outcome, string, error) {
	path := filepath.Join(work, filepath.FromSlash(m.file))
	orig, err := os.ReadFile(path)
	if err != nil {
		return "", "", err
	}
	if n := bytes.Count(orig, []byte(m.from)); n != 1 {
		return stale, fmt.Sprintf("the text to mutate occurs %d times", n), nil
	}
	mutated := bytes.Replace(orig, []byte(m.from), []byte(m.to), 1)
	if err := os.WriteFile(path, mutated, 0o644); err != nil {
		return "", "", err
	}
	defer os.WriteFile(path, orig, 0o644)

	// Compile first, so that a mutant that does not build is told from
	// one a test kills.
	pkgs := append([]string{m.pkg}, alsoTesting[m.pkg]...)
	vet := exec.Command("go", append([]string{"test", "-count=1", "-run", "^$"}, pkgs...)...)
	vet.Dir = work
	if out, err := vet.CombinedOutput(); err != nil {
		return invalid, string(out), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args := []string{"test", "-count=1", "-failfast"}
	if m.run != "" {
		args = append(args, "-run", m.run)
	}
	if m.pkg == "." && m.file != "pagination.go" && !strings.HasPrefix(m.file, "internal/paging/") && m.run == "" {
		// The longest tests drive Pull and the soak; only the paging
		// mutants need them.
		args = append(args, "-skip", slowRootTests)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, pkgs...)...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "CI=true")
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err == nil {
		if !bytes.Contains(out, []byte("ok ")) && !bytes.Contains(out, []byte("ok\t")) {
			return "", string(out), errors.New("go test passed without running a package")
		}
		if bytes.Count(out, []byte("[no tests to run]")) == len(pkgs) {
			return "", string(out), fmt.Errorf("-run %q selects no test", m.run)
		}
		return survived, string(out), nil
	}
	return killed, string(out), nil
}

// alsoTesting lists, for a package, the packages of other modules of the
// repository whose tests also cover it: the tests that run the SDK and
// package webhook on the fake live in internal/integration, a module of its
// own, so that the SDK's go.mod does not need the fake's dependencies; the
// mail room's tests on the fake live in internal/integration/mailroom, so
// that the mail room's go.mod does not need the fake. The copy holds
// go.work, so one go test reaches them all.
var alsoTesting = map[string][]string{
	".":          {"./internal/integration"},
	"./webhook":  {"./internal/integration/webhook"},
	"./mailroom": {"./internal/integration/mailroom"},
}

// slowRootTests are the root package's tests, and those of
// internal/integration, that take seconds each.
const slowRootTests = `^(TestPullHandsEachDocumentOnceForEveryWorkerCount|TestFaultSoak|TestPullOnTheFakeForEveryWorkerCount)$`

// moduleRoot is the directory of the go.mod of the working directory.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside a module")
	}
	return filepath.Dir(mod), nil
}

// copyModule copies the files git tracks (and those it would track) from
// root into dst.
func copyModule(root, dst string) error {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git ls-files: %w", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		src := filepath.Join(root, name)
		info, err := os.Lstat(src)
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the work tree, or not a file
		}
		to := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := copyFile(src, to, info.Mode()); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode.Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n    ")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
