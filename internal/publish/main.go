// Command publish writes the modules of this repository into a module
// proxy on disk, at one version, in the layout the go command reads from
// a file:// GOPROXY: <module>/@v/list, <version>.info, <version>.mod and
// <version>.zip. The zips are made as the go command makes them
// (golang.org/x/mod/zip), so a module fetched from the directory has the
// content and checksum it will have once its tag is public.
//
// Usage:
//
//	go run ./internal/publish -version v0.4.0 -o DIR MODULEDIR...
//
// Each MODULEDIR is a directory holding a go.mod; its zip holds the
// directory's files less the nested modules and version control's, as a
// tag would publish them.
// It prints one line per module: its path, version and checksum.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/sumdb/dirhash"
	"golang.org/x/mod/zip"
)

func main() {
	version := flag.String("version", "", "the version to publish every module at (v0.4.0)")
	out := flag.String("o", "", "the proxy directory to write into")
	flag.Parse()
	if err := run(*version, *out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "publish:", err)
		os.Exit(1)
	}
}

func run(version, out string, dirs []string) error {
	if !semver.IsValid(version) || semver.Canonical(version) != version {
		return fmt.Errorf("-version %q is not a canonical semantic version (v0.4.0)", version)
	}
	if out == "" {
		return errors.New("-o is required: the proxy directory to write into")
	}
	if len(dirs) == 0 {
		return errors.New("name at least one module directory")
	}
	for _, dir := range dirs {
		sum, path, err := publish(dir, version, out)
		if err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		fmt.Printf("%s %s %s\n", path, version, sum)
	}
	return nil
}

// publish writes one module's .info, .mod and .zip and adds the version
// to its list. It returns the zip's checksum (the h1: line of a go.sum)
// and the module path.
func publish(dir, version, out string) (sum, path string, err error) {
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", "", err
	}
	path = modfile.ModulePath(gomod)
	if path == "" {
		return "", "", errors.New("go.mod names no module")
	}
	mv := module.Version{Path: path, Version: version}
	if err := module.Check(path, version); err != nil {
		return "", "", err
	}
	escaped, err := module.EscapePath(path)
	if err != nil {
		return "", "", err
	}
	at := filepath.Join(out, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return "", "", err
	}

	zipPath := filepath.Join(at, version+".zip")
	f, err := os.Create(zipPath)
	if err != nil {
		return "", "", err
	}
	files, err := moduleFiles(dir)
	if err != nil {
		f.Close()
		return "", "", err
	}
	if err := zip.Create(f, mv, files); err != nil {
		f.Close()
		return "", "", err
	}
	if err := f.Close(); err != nil {
		return "", "", err
	}
	sum, err = dirhash.HashZip(zipPath, dirhash.Hash1)
	if err != nil {
		return "", "", err
	}

	if err := os.WriteFile(filepath.Join(at, version+".mod"), gomod, 0o644); err != nil {
		return "", "", err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return "", "", err
	}
	if err := os.WriteFile(filepath.Join(at, version+".info"), info, 0o644); err != nil {
		return "", "", err
	}
	return sum, path, addToList(filepath.Join(at, "list"), version)
}

// moduleFiles lists the files under dir less those of version control
// (.git, a directory in a clone and a file in a worktree, and its kin),
// which a tag does not publish. zip.Create leaves out the rest that does
// not belong in a module zip: nested modules, vendored packages,
// symbolic links.
func moduleFiles(dir string) ([]zip.File, error) {
	var files []zip.File
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch d.Name() {
		case ".git", ".hg", ".svn", ".bzr":
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		files = append(files, diskFile{path: path, rel: filepath.ToSlash(rel)})
		return nil
	})
	return files, err
}

// diskFile is a file of the module directory, as zip.Create reads it.
type diskFile struct{ path, rel string }

func (f diskFile) Path() string                 { return f.rel }
func (f diskFile) Lstat() (fs.FileInfo, error)  { return os.Lstat(f.path) }
func (f diskFile) Open() (io.ReadCloser, error) { return os.Open(f.path) }

// addToList appends version to a list file unless it is there already.
func addToList(list, version string) error {
	old, err := os.ReadFile(list)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, line := range strings.Fields(string(old)) {
		if line == version {
			return nil
		}
	}
	f, err := os.OpenFile(list, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(f, version); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
