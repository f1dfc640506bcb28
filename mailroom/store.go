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

// Dir returns a Store that saves each document into the folder path as
// one file named <id>.pdf, creating the folder when needed.
//
// A document is written under a temporary name starting with ".", synced
// to disk, and then linked to its final name, which fails when that name
// exists: so a document is never overwritten, and never seen half written
// under its final name. The folder is synced after the link, so the file
// survives a power cut once Save returns. Temporary files left by a
// process that was killed while writing (on this machine: their name
// carries the host and process id) are removed when the store is first
// used and each time its journal is read; those of other machines once
// they are an hour old. The folder must be on a file system with hard
// links (any local Linux or macOS file system).
//
// Dir also keeps the room's Journal, as one empty file per download in
// progress under path/.mailroom/pending, so that rooms sharing the folder
// share the journal, and the journal lives exactly as long as the
// documents it protects.
func Dir(path string) Store {
	return &dirStore{path: path, pending: filepath.Join(path, ".mailroom", "pending"), fs: osFS{}}
}

// staleTemp is the age after which a temporary file of another machine is
// taken for abandoned.
const staleTemp = time.Hour

type dirStore struct {
	path, pending string
	fs            fileSystem // the writes of a document

	once    sync.Once
	initErr error
}

var (
	_ Store   = (*dirStore)(nil)
	_ Journal = (*dirStore)(nil)
)

// init creates the folders and removes abandoned temporary files, once.
func (s *dirStore) init() error {
	s.once.Do(func() {
		if err := os.MkdirAll(s.pending, 0o755); err != nil {
			s.initErr = fmt.Errorf("mailroom: %w", err)
			return
		}
		s.removeAbandoned()
	})
	return s.initErr
}

func (s *dirStore) file(id uuid.UUID) string { return filepath.Join(s.path, id.String()+".pdf") }

// Has implements Store.
func (s *dirStore) Has(_ context.Context, id uuid.UUID) (bool, error) {
	if err := s.init(); err != nil {
		return false, err
	}
	_, err := os.Lstat(s.file(id))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, os.ErrNotExist):
		return false, nil
	default:
		return false, fmt.Errorf("mailroom: %w", err)
	}
}

// Save implements Store.
func (s *dirStore) Save(ctx context.Context, d acctadmin.Document, r io.Reader) error {
	if err := s.init(); err != nil {
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
	if err := s.fs.Link(tmp, s.file(d.ID)); err != nil {
		s.fs.Remove(tmp)
		if errors.Is(err, os.ErrExist) {
			return ErrAlreadySaved
		}
		return fmt.Errorf("mailroom: %w", err)
	}
	if err := s.fs.Remove(tmp); err != nil {
		return fmt.Errorf("mailroom: %w", err)
	}
	return s.fs.SyncDir(s.path)
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

// fileSystem is what Dir does to the disk to save a document, in this
// order: create a temporary file, write it, sync it, close it, link it to
// its final name, remove the temporary name, sync the folder. osFS is the
// real one; the tests put one in its place that records the order.
type fileSystem interface {
	CreateTemp(dir, pattern string) (tempFile, error)
	Link(oldname, newname string) error
	Remove(name string) error
	SyncDir(path string) error
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

// Pending implements Journal. It also removes abandoned temporary files.
func (s *dirStore) Pending(context.Context) ([]uuid.UUID, error) {
	if err := s.init(); err != nil {
		return nil, err
	}
	s.removeAbandoned()
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

// removeAbandoned removes the temporary files whose writer is gone: on
// this host, a process that no longer runs; elsewhere, a file older than
// staleTemp. Errors are ignored: a file left is tried again next time.
func (s *dirStore) removeAbandoned() {
	entries, err := os.ReadDir(s.path)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, ".tmp-") || e.IsDir() {
			continue
		}
		if abandoned(name, e) {
			os.Remove(filepath.Join(s.path, name))
		}
	}
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
