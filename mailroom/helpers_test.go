package mailroom

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/mailroom/internal/redislease"
	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// The tests of this package see the room from inside and need no API:
// those that need one (the fake, acctadmintest) are in
// internal/integration/mailroom, so that this module does not require
// the fake.

// bareRoom is a room on a client and a verifier of an API that is never
// called (127.0.0.1:1 refuses connections): for the tests that drive the
// room's claims and journal directly.
func bareRoom(t testing.TB, store Store, opts ...Option) *Room {
	t.Helper()
	c, err := acctadmin.NewClient("access-key", "secret-key", acctadmin.WithBaseURL("http://127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := webhook.NewVerifier([]byte("secret-key"), webhook.WithAccessKey("access-key"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(c, v, store, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// savedFiles lists the folder: the documents saved (by the id that ends
// their name) and any other file at the top (temporary files). A document
// saved in two files fails the test.
func savedFiles(t testing.TB, dir string) (docs map[uuid.UUID][]byte, others []string) {
	t.Helper()
	docs = map[uuid.UUID][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() && name == ".mailroom" {
			continue
		}
		id, ok := fileID(name)
		if !ok {
			others = append(others, name)
			continue
		}
		if _, twice := docs[id]; twice {
			t.Fatalf("document %s saved in two files", id)
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		docs[id] = b
	}
	return docs, others
}

// fakeTicker is a room's clock of the claim renewals that ticks when the
// test says: set it as Room.ticker.
type fakeTicker struct {
	mu      sync.Mutex
	periods []time.Duration // asked for, in order
	c       chan time.Time
	stopped int
}

func newFakeTicker() *fakeTicker { return &fakeTicker{c: make(chan time.Time)} }

func (f *fakeTicker) ticker(d time.Duration) (<-chan time.Time, func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.periods = append(f.periods, d)
	return f.c, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.stopped++
	}
}

// tick ticks once, and returns once the room has taken the tick.
func (f *fakeTicker) tick() { f.c <- time.Now() }

func (f *fakeTicker) state() (periods []time.Duration, stopped int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.periods...), f.stopped
}

// claimLog is a go-redis hook that records the answered calls of the
// lease script that takes or renews a claim (redislease's Acquire: a
// script run with one key, the owner and the TTL; a release passes no
// TTL), in order.
type claimLog struct {
	mu    sync.Mutex
	takes []claimTake
}

// claimTake is one answered call of the claim script.
type claimTake struct {
	key, owner string
	ttlMillis  int64
	held       bool
}

func (l *claimLog) DialHook(next redis.DialHook) redis.DialHook { return next }

func (l *claimLog) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (l *claimLog) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		args := cmd.Args()
		name := strings.ToLower(cmd.Name())
		isTake := len(args) == 6 && (name == "evalsha" || name == "eval") &&
			strings.HasPrefix(fmt.Sprint(args[3]), keyPrefix+"claim:")
		c, ok := cmd.(*redis.Cmd)
		if err != nil || !isTake || !ok {
			return err
		}
		n, _ := c.Int64()
		ttl, _ := strconv.ParseInt(fmt.Sprint(args[5]), 10, 64)
		l.mu.Lock()
		defer l.mu.Unlock()
		l.takes = append(l.takes, claimTake{key: fmt.Sprint(args[3]), owner: fmt.Sprint(args[4]), ttlMillis: ttl, held: n == 1})
		return err
	}
}

// of returns the calls recorded for the claim of id.
func (l *claimLog) of(id uuid.UUID) []claimTake {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []claimTake
	for _, c := range l.takes {
		if c.key == claimKey(id) {
			out = append(out, c)
		}
	}
	return out
}

// waitFor polls cond, every millisecond, until it holds or 10 seconds
// have passed (a bound for a failure, not a measure); it reports whether
// it held.
func waitFor(cond func() bool) bool {
	for range 10_000 {
		if cond() {
			return true
		}
		time.Sleep(time.Millisecond)
	}
	return cond()
}

// claimsOf returns the claims of a room with owner token owner on rdb.
func claimsOf(rdb redis.UniversalClient, owner string, ttl time.Duration) *redisClaims {
	return &redisClaims{leases: redislease.New(rdb, maxRedisTimeout), prefix: keyPrefix, owner: owner, ttl: ttl}
}

// claimKey is the Redis key of the claim on id.
func claimKey(id uuid.UUID) string { return keyPrefix + "claim:" + id.String() }

// fsLog is a Dir's fileSystem that does what next does and records each
// call, in order ("write" once for consecutive writes); fail makes the
// call it names (as "sync", "link") fail instead, with errInjected.
type fsLog struct {
	next fileSystem
	fail string

	mu    sync.Mutex
	calls []string
}

var errInjected = errors.New("injected failure")

// logFS puts an fsLog in the place of the file system of the Dir store s.
func logFS(t testing.TB, s Store, fail string) *fsLog {
	t.Helper()
	d, ok := s.(*dirStore)
	if !ok {
		t.Fatalf("store is %T, not Dir's", s)
	}
	l := &fsLog{next: d.fs, fail: fail}
	d.fs = l
	return l
}

func (l *fsLog) record(op string, names ...string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	call := strings.Join(append([]string{op}, names...), " ")
	if n := len(l.calls); op != "write" || n == 0 || l.calls[n-1] != call {
		l.calls = append(l.calls, call)
	}
	if op == l.fail {
		return errInjected
	}
	return nil
}

func (l *fsLog) log() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.calls...)
}

func (l *fsLog) CreateTemp(dir, pattern string) (tempFile, error) {
	if err := l.record("create", dir); err != nil {
		return nil, err
	}
	f, err := l.next.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return &loggedFile{f: f, l: l}, nil
}

func (l *fsLog) Link(oldname, newname string) error {
	if err := l.record("link", oldname, newname); err != nil {
		return err
	}
	return l.next.Link(oldname, newname)
}

func (l *fsLog) Remove(name string) error {
	if err := l.record("remove", name); err != nil {
		return err
	}
	return l.next.Remove(name)
}

func (l *fsLog) Mark(name string) error {
	if err := l.record("mark", name); err != nil {
		return err
	}
	return l.next.Mark(name)
}

func (l *fsLog) SyncDir(path string) error {
	if err := l.record("syncdir", path); err != nil {
		return err
	}
	return l.next.SyncDir(path)
}

// loggedFile is a temporary file whose calls an fsLog records.
type loggedFile struct {
	f tempFile
	l *fsLog
}

func (f *loggedFile) Write(p []byte) (int, error) {
	if err := f.l.record("write", f.f.Name()); err != nil {
		return 0, err
	}
	return f.f.Write(p)
}

func (f *loggedFile) Sync() error {
	if err := f.l.record("sync", f.f.Name()); err != nil {
		return err
	}
	return f.f.Sync()
}

func (f *loggedFile) Close() error {
	err := f.l.record("close", f.f.Name())
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (f *loggedFile) Name() string { return f.f.Name() }

func redisClient(t testing.TB, addr string) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: 300 * time.Millisecond,
		ReadTimeout: 300 * time.Millisecond, WriteTimeout: 300 * time.Millisecond, MaxRetries: 1})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}
