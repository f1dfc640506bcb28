package mailroom

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/google/uuid"
)

// Store keeps the documents a room saves. It is the final word on what is
// saved: the room asks Has before it downloads a document and saves it
// with Save, and a store must refuse a second Save of one id, so that a
// document downloaded twice (by two rooms that could not tell, say) is
// still saved once. Implementations must be safe for concurrent use, also
// by several processes when rooms share the store.
//
// A store may also implement Journal, to keep the room's journal beside
// the documents (Dir does), and a method Check(ctx context.Context) error
// that tells, without a document, whether Save can write again: the room
// calls it while the store refuses writes, to know when to start
// downloading again.
type Store interface {
	// Has reports whether the document id is saved. An error means that
	// the store cannot tell; the room then downloads nothing.
	Has(ctx context.Context, id uuid.UUID) (bool, error)

	// Save saves the document d, read from r, and returns nil only once
	// it is saved whole and durably. When a document with d's id is
	// saved already, it keeps that one and returns ErrAlreadySaved. Any
	// other error means that nothing was saved.
	Save(ctx context.Context, d acctadmin.Document, r io.Reader) error
}

// ErrAlreadySaved is returned by Store.Save for a document that the store
// holds already.
var ErrAlreadySaved = errors.New("mailroom: document already saved")

// Journal records the downloads a room starts, before it starts them, and
// ends each record once the document is saved (or known gone). A record
// left behind names a document that may have been marked read without
// being saved, because a room died or failed after the download began; a
// room fetches those again by id. Implementations must be safe for
// concurrent use, also by several processes when rooms share it.
type Journal interface {
	// Begin records that the download of id is about to start, durably:
	// once it returns nil the record survives a crash. It reports whether
	// a record of id was there already: a download of it may have been
	// made before.
	Begin(ctx context.Context, id uuid.UUID) (again bool, err error)
	// End removes the record of id; ending an id not recorded is not an
	// error.
	End(ctx context.Context, id uuid.UUID) error
	// Pending returns the ids recorded and not ended.
	Pending(ctx context.Context) ([]uuid.UUID, error)
}

// Dir returns a Store that saves each document into the folder path,
// creating it when needed, as one file named for a person and ending with
// the document's id: FileName's name, or WithNames's.
//
// A document is written under a temporary name starting with ".", synced
// to disk, and then linked to its final name, which fails when that name
// exists: so a document is never overwritten, and never seen half written
// under its final name. The folder is synced after the link, so the file
// survives a power cut once Save returns; then the id is recorded as an
// empty file path/.mailroom/saved/<id>, and that folder synced. Has looks
// for that record, or for a file <id>.pdf (the name older versions gave),
// so it answers by id alone, in one or two lookups, and a file renamed or
// removed by a person stays saved. A Save that finds its name taken (a
// crash between the link and the record, or another process saving the
// same document) completes the record and returns ErrAlreadySaved; and
// when the store is first used, and each time its journal is read, it
// records every file whose name ends with "<id>.pdf" and has none.
// Temporary files left by a process that was killed while writing (on
// this machine: their name carries the host and process id) are removed
// then too; those of other machines once they are an hour old. The folder
// must be on a file system with hard links (any local Linux or macOS file
// system).
//
// Dir also keeps the room's Journal, as one empty file per download in
// progress under path/.mailroom/pending, so that rooms sharing the folder
// share the journal, and the journal lives exactly as long as the
// documents it protects.
func Dir(path string, opts ...DirOption) Store {
	s := &dirStore{
		path:    path,
		pending: filepath.Join(path, ".mailroom", "pending"),
		saved:   filepath.Join(path, ".mailroom", "saved"),
		names:   FileName,
		fs:      osFS{},
	}
	for _, o := range opts {
		o.applyDir(s)
	}
	return s
}

// DirOption configures Dir. WithNames makes one.
type DirOption interface{ applyDir(*dirStore) }

// dirOptionFunc is a DirOption that is a function.
type dirOptionFunc func(*dirStore)

func (f dirOptionFunc) applyDir(s *dirStore) { f(s) }

// WithNames makes Dir name each file name(d) instead of FileName(d). Dir
// makes the name safe as FileName does its parts (bounded to 150 bytes),
// adds " - <id>" unless it ends with the id already, and ".pdf"; a name
// that is empty once made safe becomes "<id>.pdf".
func WithNames(name func(d acctadmin.Document) string) DirOption {
	return dirOptionFunc(func(s *dirStore) {
		if name != nil {
			s.names = func(d acctadmin.Document) string {
				return withID(clean(strings.TrimSuffix(name(d), ".pdf"), maxCustomName), d.ID)
			}
		}
	})
}

// maxPart and maxCustomName bound, in bytes, each part of FileName's
// names and the name WithNames gives, so that a name with its id stays
// under the 255 bytes file systems allow.
const (
	maxPart       = 60
	maxCustomName = 150
)

// FileName is the name Dir gives the file of d by default: the date of
// the document (its CreatedAt, YYYY-MM-DD), its company, its type, its
// title when it says more than the type, and its id, as
//
//	2026-05-30 Acme Widgets LLC - Annual Report - <id>.pdf
//
// Each part is made safe for any file system: path separators and the
// characters Windows refuses (<>:"|?*) become "_", control and format
// characters and invalid UTF-8 are dropped, runs of spaces (tabs and line
// breaks too) become one space, leading dots
// and spaces and trailing dots and spaces are trimmed, and the part is
// cut to 60 bytes on a rune boundary. Parts left empty are left out: a
// document with no date, company, type or title is "<id>.pdf".
func FileName(d acctadmin.Document) string {
	var parts []string
	if c := clean(d.CompanyName, maxPart); c != "" {
		parts = append(parts, c)
	}
	typ := clean(d.Type, maxPart)
	if typ != "" {
		parts = append(parts, typ)
	}
	if t := clean(d.Title, maxPart); t != "" && !strings.EqualFold(t, typ) {
		parts = append(parts, t)
	}
	name := strings.Join(parts, " - ")
	if !d.CreatedAt.IsZero() {
		name = strings.TrimSpace(d.CreatedAt.Format("2006-01-02") + " " + name)
	}
	return withID(name, d.ID)
}

// withID ends name with the id and ".pdf".
func withID(name string, id uuid.UUID) string {
	switch {
	case name == "":
		return id.String() + ".pdf"
	case strings.HasSuffix(name, id.String()):
		return name + ".pdf"
	}
	return name + " - " + id.String() + ".pdf"
}

// clean makes s safe as part of a file name, at most max bytes long.
func clean(s string, max int) string {
	var b strings.Builder
	space := false
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !validRuneAt(s, i):
			continue
		case unicode.IsSpace(r):
			space = true
			continue
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			continue
		case strings.ContainsRune(`/\<>:"|?*`, r):
			r = '_'
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	out := strings.TrimLeft(b.String(), ". ")
	if len(out) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = out[:cut]
	}
	return strings.TrimRight(out, ". ")
}

// validRuneAt tells whether s holds a valid encoding at i.
func validRuneAt(s string, i int) bool {
	r, size := utf8.DecodeRuneInString(s[i:])
	return r != utf8.RuneError || size > 1
}

// staleTemp is the age after which a temporary file of another machine is
// taken for abandoned.
const staleTemp = time.Hour

type dirStore struct {
	path, pending, saved string
	names                func(acctadmin.Document) string
	fs                   fileSystem // the writes of a document

	once    sync.Once
	initErr error
}

var (
	_ Store   = (*dirStore)(nil)
	_ Journal = (*dirStore)(nil)
)

// init creates the folders, removes abandoned temporary files and records
// the files saved without a record, once.
func (s *dirStore) init() error {
	s.once.Do(func() {
		for _, dir := range []string{s.pending, s.saved} {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				s.initErr = fmt.Errorf("mailroom: %w", err)
				return
			}
		}
		s.tidy()
	})
	return s.initErr
}

// record is the file that records that id is saved.
func (s *dirStore) record(id uuid.UUID) string { return filepath.Join(s.saved, id.String()) }

// oldFile is the name Dir gave a document's file before readable names.
func (s *dirStore) oldFile(id uuid.UUID) string {
	return filepath.Join(s.path, id.String()+".pdf")
}

// Has implements Store: the record of id, or a file named <id>.pdf.
func (s *dirStore) Has(_ context.Context, id uuid.UUID) (bool, error) {
	if err := s.init(); err != nil {
		return false, err
	}
	return s.has(id)
}

func (s *dirStore) has(id uuid.UUID) (bool, error) {
	for _, name := range []string{s.record(id), s.oldFile(id)} {
		_, err := os.Lstat(name)
		switch {
		case err == nil:
			return true, nil
		case !errors.Is(err, os.ErrNotExist):
			return false, fmt.Errorf("mailroom: %w", err)
		}
	}
	return false, nil
}

// Save implements Store. In this order: write the document to a temporary
// file, sync and close it, link it to its readable name, remove the
// temporary name, sync the folder, create the record of its id, sync the
// folder of the records. Once the link is made, the document is saved
// exactly once whatever happens next: the record is completed by the next
// Save of the id or by the next store to start.
func (s *dirStore) Save(ctx context.Context, d acctadmin.Document, r io.Reader) error {
	if err := s.init(); err != nil {
		return err
	}
	if has, err := s.has(d.ID); err != nil || has {
		if err == nil {
			err = ErrAlreadySaved
		}
		return err
	}
	tmp, err := s.writeTemp(r)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		s.fs.Remove(tmp)
		return err
	}
	if err := s.fs.Link(tmp, filepath.Join(s.path, s.names(d))); err != nil {
		s.fs.Remove(tmp)
		if !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("mailroom: %w", err)
		}
		// Saved by another Save, which may not have made its record yet.
		if err := s.fs.SyncDir(s.path); err != nil {
			return err
		}
		if err := s.markSaved(d.ID); err != nil {
			return err
		}
		return ErrAlreadySaved
	}
	if err := s.fs.Remove(tmp); err != nil {
		return fmt.Errorf("mailroom: %w", err)
	}
	if err := s.fs.SyncDir(s.path); err != nil {
		return err
	}
	return s.markSaved(d.ID)
}

// markSaved records that id is saved, once its file's name is on disk.
func (s *dirStore) markSaved(ids ...uuid.UUID) error {
	for _, id := range ids {
		if err := s.fs.Mark(s.record(id)); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("mailroom: recording a saved document: %w", err)
		}
	}
	return s.fs.SyncDir(s.saved)
}

// Check tells whether the folder takes a write, by writing, syncing and
// removing a temporary file.
func (s *dirStore) Check(context.Context) error {
	if err := s.init(); err != nil {
		return err
	}
	tmp, err := s.writeTemp(strings.NewReader("check"))
	if err != nil {
		return err
	}
	return s.fs.Remove(tmp)
}

// writeTemp writes r to a new temporary file in the folder, synced and
// closed, and returns its name; on error it leaves nothing behind.
func (s *dirStore) writeTemp(r io.Reader) (string, error) {
	f, err := s.fs.CreateTemp(s.path, tempPrefix()+"*")
	if err != nil {
		return "", fmt.Errorf("mailroom: %w", err)
	}
	_, err = io.Copy(f, r)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		s.fs.Remove(f.Name())
		return "", fmt.Errorf("mailroom: writing a document: %w", err)
	}
	return f.Name(), nil
}

// fileSystem is what Dir does to the disk to save a document, in the
// order Save's doc gives. osFS is the real one; the tests put one in its
// place that records the order.
type fileSystem interface {
	CreateTemp(dir, pattern string) (tempFile, error)
	Link(oldname, newname string) error
	Remove(name string) error
	SyncDir(path string) error
	// Mark creates the empty file name; it fails with an error matching
	// os.ErrExist when name exists.
	Mark(name string) error
}

// tempFile is a temporary file being written.
type tempFile interface {
	io.Writer
	Sync() error
	Close() error
	Name() string
}

// osFS is the fileSystem of the os package.
type osFS struct{}

func (osFS) CreateTemp(dir, pattern string) (tempFile, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (osFS) Link(oldname, newname string) error { return os.Link(oldname, newname) }
func (osFS) Remove(name string) error           { return os.Remove(name) }
func (osFS) SyncDir(path string) error          { return syncDir(path) }

func (osFS) Mark(name string) error {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

// Begin implements Journal.
func (s *dirStore) Begin(_ context.Context, id uuid.UUID) (bool, error) {
	if err := s.init(); err != nil {
		return false, err
	}
	f, err := os.OpenFile(filepath.Join(s.pending, id.String()), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, os.ErrExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("mailroom: journal: %w", err)
	}
	if err := f.Close(); err != nil {
		return false, fmt.Errorf("mailroom: journal: %w", err)
	}
	return false, syncDir(s.pending)
}

// End implements Journal.
func (s *dirStore) End(_ context.Context, id uuid.UUID) error {
	err := os.Remove(filepath.Join(s.pending, id.String()))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("mailroom: journal: %w", err)
	}
	return nil
}

// Pending implements Journal. It also tidies the folder, as init does.
func (s *dirStore) Pending(context.Context) ([]uuid.UUID, error) {
	if err := s.init(); err != nil {
		return nil, err
	}
	s.tidy()
	entries, err := os.ReadDir(s.pending)
	if err != nil {
		return nil, fmt.Errorf("mailroom: journal: %w", err)
	}
	var ids []uuid.UUID
	for _, e := range entries {
		if id, err := uuid.Parse(e.Name()); err == nil && e.Name() == id.String() {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// tempPrefix names the temporary files of this process: ".tmp-" followed
// by the host name and the process id, so that another process can tell
// whether their writer is still alive.
func tempPrefix() string {
	return ".tmp-" + hostname + "-" + strconv.Itoa(os.Getpid()) + "-"
}

var hostname = func() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "unknown"
	}
	return strings.NewReplacer("-", "_", "/", "_", string(filepath.Separator), "_").Replace(h)
}()

// tidy removes the temporary files whose writer is gone (on this host, a
// process that no longer runs; elsewhere, a file older than staleTemp),
// and records the files whose name ends with "<id>.pdf" and whose id has
// no record (a Save stopped between the link and the record). Errors are
// ignored: what is left is tried again next time.
func (s *dirStore) tidy() {
	entries, err := os.ReadDir(s.path)
	if err != nil {
		return
	}
	var unrecorded []uuid.UUID
	recorded := map[string]bool{}
	if saved, err := os.ReadDir(s.saved); err == nil {
		for _, e := range saved {
			recorded[e.Name()] = true
		}
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			continue
		}
		if strings.HasPrefix(name, ".tmp-") {
			if abandoned(name, e) {
				os.Remove(filepath.Join(s.path, name))
			}
			continue
		}
		if id, ok := fileID(name); ok && !recorded[id.String()] {
			unrecorded = append(unrecorded, id)
		}
	}
	if len(unrecorded) > 0 && syncDir(s.path) == nil {
		_ = s.markSaved(unrecorded...)
	}
}

// fileID returns the id that ends the file name name, before ".pdf".
func fileID(name string) (uuid.UUID, bool) {
	base, ok := strings.CutSuffix(name, ".pdf")
	if !ok || len(base) < 36 {
		return uuid.Nil, false
	}
	id, err := uuid.Parse(base[len(base)-36:])
	return id, err == nil && id.String() == base[len(base)-36:]
}

// abandoned tells whether the temporary file name was left by a process
// that is gone.
func abandoned(name string, e os.DirEntry) bool {
	parts := strings.Split(strings.TrimPrefix(name, ".tmp-"), "-")
	if len(parts) >= 3 && parts[0] == hostname {
		pid, err := strconv.Atoi(parts[1])
		if err == nil && pid > 0 {
			return !processAlive(pid)
		}
	}
	info, err := e.Info()
	return err == nil && time.Since(info.ModTime()) > staleTemp
}

// syncDir syncs the folder path, so that the names created or removed in
// it survive a power cut.
func syncDir(path string) error {
	d, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("mailroom: %w", err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("mailroom: syncing the folder: %w", err)
	}
	return nil
}
