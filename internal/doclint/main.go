// Command doclint reports exported names that have no doc comment, and
// packages without a package comment. In the public packages (not main,
// not under internal/) it also reports an exported name whose declaration
// shows an unexported type of its package (type Option func(*settings)),
// which godoc prints but no user can name, and a doc comment of an
// exported name that names an unexported identifier of its package in
// camel case (maxGone), which the reader cannot look up. It takes package
// patterns, as "./...", and exits 1 when it reports anything.
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
)

func main() {
	args := os.Args[1:]
	if len(args) == 0 {
		args = []string{"./..."}
	}
	var problems []string
	for _, arg := range args {
		for _, dir := range dirs(arg) {
			problems = append(problems, lintDir(dir)...)
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		fmt.Println(p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "doclint: %d problem(s) of the exported names' docs\n", len(problems))
		os.Exit(1)
	}
}

// dirs expands a pattern ("dir" or "dir/...") into directories.
func dirs(pattern string) []string {
	root, recursive := strings.CutSuffix(pattern, "/...")
	if !recursive {
		return []string{pattern}
	}
	var out []string
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
			return filepath.SkipDir
		}
		out = append(out, path)
		return nil
	})
	return out
}

func lintDir(dir string) []string {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", dir, err)}
	}
	var out []string
	report := func(pos token.Pos, what string) {
		out = append(out, fmt.Sprintf("%s: %s has no doc comment", fset.Position(pos), what))
	}
	for _, pkg := range pkgs {
		hasPkgDoc := false
		for _, f := range pkg.Files {
			if f.Doc != nil {
				hasPkgDoc = true
			}
		}
		if !hasPkgDoc {
			out = append(out, fmt.Sprintf("%s: package %s has no package comment", dir, pkg.Name))
		}
		if pkg.Name == "main" {
			continue
		}
		if !isInternal(dir) {
			out = append(out, lintPublic(fset, pkg.Files)...)
		}
		for _, f := range pkg.Files {
			for _, decl := range f.Decls {
				switch d := decl.(type) {
				case *ast.FuncDecl:
					if !d.Name.IsExported() || d.Doc != nil {
						continue
					}
					if d.Recv != nil {
						if recv := receiverType(d.Recv); recv == "" || !ast.IsExported(recv) {
							continue
						}
					}
					report(d.Pos(), "func "+d.Name.Name)
				case *ast.GenDecl:
					for _, spec := range d.Specs {
						switch s := spec.(type) {
						case *ast.TypeSpec:
							if s.Name.IsExported() && s.Doc == nil && d.Doc == nil {
								report(s.Pos(), "type "+s.Name.Name)
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() && s.Doc == nil && d.Doc == nil && s.Comment == nil {
									report(n.Pos(), n.Name)
								}
							}
						}
					}
				}
			}
		}
	}
	return out
}

func receiverType(fl *ast.FieldList) string {
	if fl == nil || len(fl.List) == 0 {
		return ""
	}
	t := fl.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// isInternal reports whether dir is an internal package, which no user
// imports.
func isInternal(dir string) bool {
	for _, part := range strings.Split(filepath.ToSlash(filepath.Clean(dir)), "/") {
		if part == "internal" {
			return true
		}
	}
	return false
}

// camelWord matches an identifier that no English word spells: one with
// an upper-case letter, a digit or an underscore after its first letter.
var camelWord = regexp.MustCompile(`^[a-z][a-z]*[A-Z0-9_][A-Za-z0-9_]*$`)

// lintPublic reports the exported names of a package, given its files,
// whose declaration shows an unexported type of the package, or whose doc
// names an unexported identifier of the package in camel case.
func lintPublic(fset *token.FileSet, files map[string]*ast.File) []string {
	types := map[string]bool{}  // the unexported types of the package
	hidden := map[string]bool{} // every unexported name of its top level
	for _, f := range files {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && !d.Name.IsExported() {
					hidden[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							types[s.Name.Name], hidden[s.Name.Name] = true, true
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if !n.IsExported() && n.Name != "_" {
								hidden[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	var out []string
	shows := func(pos token.Pos, what string, exprs ...ast.Node) {
		exprs = nonNil(exprs)
		seen := map[string]bool{}
		var inspect func(n ast.Node) bool
		inspect = func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				return false // a type of another package
			case *ast.Field:
				// An unexported field or method of a struct or an
				// interface is not shown; names are not types.
				if len(x.Names) == 0 || x.Names[0].IsExported() || !isMember(exprs, x) {
					ast.Inspect(x.Type, inspect)
				}
				return false
			case *ast.Ident:
				if types[x.Name] && !seen[x.Name] {
					seen[x.Name] = true
					out = append(out, fmt.Sprintf("%s: %s shows the unexported type %s", fset.Position(pos), what, x.Name))
				}
			}
			return true
		}
		for _, e := range exprs {
			ast.Inspect(e, inspect)
		}
	}
	names := func(pos token.Pos, what string, doc *ast.CommentGroup) {
		if doc == nil {
			return
		}
		seen := map[string]bool{}
		for _, w := range strings.FieldsFunc(doc.Text(), func(r rune) bool {
			return !(r == '_' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
		}) {
			if hidden[w] && camelWord.MatchString(w) && !seen[w] {
				seen[w] = true
				out = append(out, fmt.Sprintf("%s: the doc of %s names the unexported %s", fset.Position(pos), what, w))
			}
		}
	}
	for _, f := range files {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv != nil {
					if recv := receiverType(d.Recv); recv == "" || !ast.IsExported(recv) {
						continue
					}
				}
				shows(d.Pos(), "func "+d.Name.Name, d.Type.TypeParams, d.Type.Params, d.Type.Results)
				names(d.Pos(), "func "+d.Name.Name, d.Doc)
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							// type XClient service, as go-github declares
							// its services, shows a type of no fields and
							// the methods of XClient: only an alias, or a
							// type built of the unexported one, shows it.
							if id, ok := s.Type.(*ast.Ident); !ok || s.Assign != 0 || !types[id.Name] {
								shows(s.Pos(), "type "+s.Name.Name, s.TypeParams, s.Type)
							}
							names(s.Pos(), "type "+s.Name.Name, s.Doc)
							if len(d.Specs) == 1 {
								names(s.Pos(), "type "+s.Name.Name, d.Doc)
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								shows(n.Pos(), n.Name, s.Type)
								names(n.Pos(), n.Name, s.Doc)
								names(n.Pos(), n.Name, s.Comment)
							}
						}
					}
				}
			}
		}
	}
	return out
}

// isMember reports whether field is a field of a struct type or a method
// of an interface type inside exprs (not a parameter or a result).
func isMember(exprs []ast.Node, field *ast.Field) bool {
	member := false
	for _, e := range exprs {
		ast.Inspect(e, func(n ast.Node) bool {
			var list *ast.FieldList
			switch x := n.(type) {
			case *ast.StructType:
				list = x.Fields
			case *ast.InterfaceType:
				list = x.Methods
			}
			if list != nil {
				for _, f := range list.List {
					if f == field {
						member = true
					}
				}
			}
			return !member
		})
	}
	return member
}

// nonNil drops the nil nodes (a nil *ast.FieldList too) of nodes.
func nonNil(nodes []ast.Node) []ast.Node {
	var out []ast.Node
	for _, n := range nodes {
		if n != nil && !reflect.ValueOf(n).IsNil() {
			out = append(out, n)
		}
	}
	return out
}
