package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// function is one function of the package, or one function literal.
type function struct {
	File       string // the file's path from the root package's directory
	Name       string // "Client.do", "call", "call.func1" for a literal
	start, end token.Position
}

// block is one block of a count-mode cover profile.
type block struct {
	file            string // path from the root package's directory
	line, col       int    // where the block starts
	endLine, endCol int
}

// readProfile reads a count-mode cover profile: the count of each block
// of the package pkg (its import path) and of its packages subs (paths
// from pkg, as "internal/paging"); a block's file is named by its path
// from pkg's directory.
func readProfile(name, pkg string, subs ...string) (map[block]int, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	counts := map[block]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "mode:") || line == "" {
			continue
		}
		// file.go:12.5,14.2 3 7
		colon := strings.LastIndexByte(line, ':')
		fields := strings.Fields(line[colon+1:])
		if colon < 0 || len(fields) != 3 {
			return nil, fmt.Errorf("%s: bad line %q", name, line)
		}
		rel, ok := strings.CutPrefix(path.Dir(line[:colon]), pkg)
		if rel, _ = strings.CutPrefix(rel, "/"); ok && rel != "" && !slices.Contains(subs, rel) {
			ok = false
		}
		if !ok {
			continue
		}
		var b block
		b.file = path.Join(rel, path.Base(line[:colon]))
		if _, err := fmt.Sscanf(fields[0], "%d.%d,%d.%d", &b.line, &b.col, &b.endLine, &b.endCol); err != nil {
			return nil, fmt.Errorf("%s: bad block %q", name, fields[0])
		}
		n, err := strconv.Atoi(fields[2])
		if err != nil {
			return nil, fmt.Errorf("%s: bad count %q", name, fields[2])
		}
		counts[b] += n
	}
	return counts, sc.Err()
}

// functions lists the functions and function literals of the non-test
// Go files in dir and in its packages subs (paths from dir), by the
// file's path from dir.
func functions(dir string, subs ...string) (map[string][]function, error) {
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	for _, sub := range subs {
		more, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(sub), "*.go"))
		if err != nil {
			return nil, err
		}
		names = append(names, more...)
	}
	byFile := map[string][]function{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		base, err := filepath.Rel(dir, name)
		if err != nil {
			return nil, err
		}
		base = filepath.ToSlash(base)
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			outer := funcName(fd)
			byFile[base] = append(byFile[base], function{File: base, Name: outer, start: fset.Position(fd.Pos()), end: fset.Position(fd.End())})
			lits := 0
			ast.Inspect(fd, func(n ast.Node) bool {
				if fl, ok := n.(*ast.FuncLit); ok {
					lits++
					byFile[base] = append(byFile[base], function{File: base, Name: outer + ".func" + strconv.Itoa(lits),
						start: fset.Position(fl.Pos()), end: fset.Position(fl.End())})
				}
				return true
			})
		}
		// Function literals outside any function (in var blocks).
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			lits := 0
			ast.Inspect(gd, func(n ast.Node) bool {
				if fl, ok := n.(*ast.FuncLit); ok {
					lits++
					byFile[base] = append(byFile[base], function{File: base, Name: "var.func" + strconv.Itoa(lits),
						start: fset.Position(fl.Pos()), end: fset.Position(fl.End())})
				}
				return true
			})
		}
	}
	return byFile, nil
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fd.Name.Name
		}
		return fd.Name.Name
	}
}

// innermost returns the function of fns that most closely holds the
// position line:col, or nil.
func innermost(fns []function, line, col int) *function {
	var best *function
	for i := range fns {
		f := &fns[i]
		if before(line, col, f.start.Line, f.start.Column) || before(f.end.Line, f.end.Column, line, col) {
			continue
		}
		if best == nil || !before(f.start.Line, f.start.Column, best.start.Line, best.start.Column) {
			best = f
		}
	}
	return best
}

func before(l1, c1, l2, c2 int) bool { return l1 < l2 || l1 == l2 && c1 < c2 }

// internalImports lists the module's internal packages that the package
// pkg in dir imports, as paths from pkg ("internal/paging").
func internalImports(dir, pkg string) ([]string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var subs []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			return nil, err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if sub, ok := strings.CutPrefix(p, pkg+"/"); ok && strings.HasPrefix(sub, "internal/") && !slices.Contains(subs, sub) {
				subs = append(subs, sub)
			}
		}
	}
	sort.Strings(subs)
	return subs, nil
}

// onPath returns the functions of dir, and of the module's internal
// packages the package pkg in dir imports, with a block that ran more
// often in the profile twice than in the profile once, in file and line
// order.
func onPath(dir, pkg, once, twice string) ([]function, error) {
	subs, err := internalImports(dir, pkg)
	if err != nil {
		return nil, err
	}
	a, err := readProfile(once, pkg, subs...)
	if err != nil {
		return nil, err
	}
	b, err := readProfile(twice, pkg, subs...)
	if err != nil {
		return nil, err
	}
	fns, err := functions(dir, subs...)
	if err != nil {
		return nil, err
	}
	seen := map[*function]bool{}
	var path []function
	for blk, n := range b {
		if n <= a[blk] {
			continue
		}
		f := innermost(fns[blk.file], blk.line, blk.col)
		if f == nil {
			return nil, fmt.Errorf("no function holds %s:%d.%d", blk.file, blk.line, blk.col)
		}
		if !seen[f] {
			seen[f] = true
			path = append(path, *f)
		}
	}
	sort.Slice(path, func(i, j int) bool {
		if path[i].File != path[j].File {
			return path[i].File < path[j].File
		}
		return before(path[i].start.Line, path[i].start.Column, path[j].start.Line, path[j].start.Column)
	})
	return path, nil
}
