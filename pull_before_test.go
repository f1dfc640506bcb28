package acctadmin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"pgregory.net/rapid"
)

// PullParams.Before, the step that runs on the worker right before each
// download: hand-picked cases, then the generated family of paging_gen_test.go
// with a Before drawn beside its consumer.

type beforeKey struct{}

func TestPullBeforeDeclinedDocumentsAreNeverDownloaded(t *testing.T) {
	s := newGenServer(25)
	cl := genClient(t, s)
	var mu sync.Mutex
	befores := map[uuid.UUID]int{}
	handed := map[uuid.UUID]int{}
	var last PullProgress
	ctx := context.WithValue(context.Background(), beforeKey{}, "mine")
	err := cl.Documents.Pull(ctx, &PullParams{
		DocumentListParams: DocumentListParams{Limit: 4},
		Workers:            3,
		Before: func(ctx context.Context, d Document) error {
			if ctx.Value(beforeKey{}) != "mine" {
				return errors.New("Before did not get Pull's context")
			}
			mu.Lock()
			befores[d.ID]++
			mu.Unlock()
			if skipOdd(d) {
				return fmt.Errorf("claimed elsewhere: %w", ErrSkipDocument)
			}
			return nil
		},
		OnProgress: func(p PullProgress) { last = p },
	}, func(ctx context.Context, d Document, f *File) error {
		if ctx.Value(beforeKey{}) != "mine" {
			return errors.New("fn did not get Pull's context")
		}
		mu.Lock()
		handed[d.ID]++
		mu.Unlock()
		_, err := io.Copy(io.Discard, f)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	declined := 0
	for _, d := range s.docs {
		if befores[d.id] != 1 {
			t.Fatalf("Before called %d times for %s", befores[d.id], d.id)
		}
		if skipOdd(Document{ID: d.id}) {
			declined++
			if handed[d.id] != 0 || s.gets[d.id] != 0 || d.readAt >= 0 {
				t.Fatalf("declined %s: handed to fn %d times, downloaded %d times", d.id, handed[d.id], s.gets[d.id])
			}
		} else if handed[d.id] != 1 || s.gets[d.id] != 1 {
			t.Fatalf("%s: handed to fn %d times, downloaded %d times", d.id, handed[d.id], s.gets[d.id])
		}
	}
	if declined == 0 || declined == len(s.docs) {
		t.Fatalf("the case declines %d of %d: pick other ids", declined, len(s.docs))
	}
	if last.KeptOut != declined || last.Done != len(s.docs)-declined || last.Failed != 0 {
		t.Fatalf("last progress %+v, want %d kept out", last, declined)
	}
}

func TestPullBeforeErrorStopsPullWithoutTheDocumentUnfinished(t *testing.T) {
	s := newGenServer(30)
	cl := genClient(t, s)
	errClaims := errors.New("claims store down")
	bad := numberedID(9)
	err := cl.Documents.Pull(context.Background(), &PullParams{
		DocumentListParams: DocumentListParams{Limit: 5},
		Workers:            2,
		Before: func(ctx context.Context, d Document) error {
			if d.ID == bad {
				return errClaims
			}
			return nil
		},
	}, func(ctx context.Context, d Document, f *File) error {
		_, err := io.Copy(io.Discard, f)
		return err
	})
	var pe *PullError
	if !errors.As(err, &pe) || !errors.Is(err, errClaims) {
		t.Fatalf("Pull = %v (%T), want a *PullError wrapping Before's error", err, err)
	}
	if pe.Document != bad || slices.Contains(pe.Unfinished, bad) {
		t.Fatalf("PullError names %s, unfinished %v; want %s named and not unfinished", pe.Document, pe.Unfinished, bad)
	}
	if len(pe.Unfinished) != 0 {
		t.Fatalf("unfinished %v, but every download was read whole", pe.Unfinished)
	}
	if s.gets[bad] != 0 || s.byID[bad].readAt >= 0 {
		t.Fatal("the document whose Before failed was downloaded")
	}
	if want := "before downloading document " + bad.String() + ": claims store down"; !strings.Contains(err.Error(), want) {
		t.Fatalf("message %q, want it to contain %q", err, want)
	}
	// Every download that was made was handed to fn and finished.
	if n := len(s.gets); n != pe.Done {
		t.Fatalf("%d downloads, %d done", n, pe.Done)
	}
}

func TestPullBeforePanicAndGoexit(t *testing.T) {
	t.Run("panic", func(t *testing.T) {
		s := newGenServer(10)
		cl := genClient(t, s)
		defer func() {
			if v := recover(); v != "before broke" {
				t.Fatalf("recovered %v, want Before's panic", v)
			}
			if len(s.gets) > 1 {
				t.Fatalf("%d downloads after Before panicked", len(s.gets))
			}
		}()
		_ = cl.Documents.Pull(context.Background(), &PullParams{
			Workers: 1,
			Before: func(ctx context.Context, d Document) error {
				if d.ID == numberedID(1) {
					panic("before broke")
				}
				return nil
			},
		}, func(ctx context.Context, d Document, f *File) error { return nil })
		t.Fatal("Pull returned after a panic in Before")
	})
	t.Run("goexit", func(t *testing.T) {
		s := newGenServer(10)
		cl := genClient(t, s)
		done := make(chan error, 1)
		go func() {
			done <- cl.Documents.Pull(context.Background(), &PullParams{
				Workers: 2,
				Before: func(ctx context.Context, d Document) error {
					if d.ID == numberedID(3) {
						runtime.Goexit()
					}
					return nil
				},
			}, func(ctx context.Context, d Document, f *File) error { return nil })
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(20 * time.Second): // a bound for a hang, not a measure
			t.Fatal("Pull hangs after a Goexit in Before")
		}
		var pe *PullError
		if !errors.As(err, &pe) || !errors.Is(err, errGoexit) || !strings.Contains(err.Error(), "in Before") {
			t.Fatalf("Pull = %v, want a *PullError for a Goexit in Before", err)
		}
		if pe.Document != numberedID(3) || slices.Contains(pe.Unfinished, numberedID(3)) || s.gets[numberedID(3)] != 0 {
			t.Fatalf("PullError %+v; downloads of the document %d", pe, s.gets[numberedID(3)])
		}
	})
}

func TestPullBeforeSeesTheContextEnd(t *testing.T) {
	s := newGenServer(10)
	cl := genClient(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := cl.Documents.Pull(ctx, &PullParams{
		Workers: 1,
		Before: func(ctx context.Context, d Document) error {
			if d.ID == numberedID(2) {
				cancel()
				<-ctx.Done() // the context Before gets ends with Pull's
				return ctx.Err()
			}
			return nil
		},
	}, func(ctx context.Context, d Document, f *File) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Pull = %v, want context.Canceled", err)
	}
	if s.gets[numberedID(2)] != 0 {
		t.Fatal("downloaded after Before failed")
	}
}

// rotatingListing lists three documents, in another order at each
// request, and never shrinks: no two walks over it see the same rows.
type rotatingListing struct{ n int }

func (r *rotatingListing) RoundTrip(req *http.Request) (*http.Response, error) {
	r.n++
	var rows []string
	if req.URL.Query().Get("offset") == "0" || req.URL.Query().Get("offset") == "" {
		for i := range 3 {
			rows = append(rows, fmt.Sprintf(`{"id":%q}`, numberedID((i+r.n)%3)))
		}
	}
	body := `{"success":true,"result":[` + strings.Join(rows, ",") + `]}`
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
}

func TestListingUnsettledIsASentinel(t *testing.T) {
	rl := &rotatingListing{}
	cl := genClient(t, rl)
	var err error
	n := 0
	for _, e := range cl.Documents.All(context.Background(), nil) {
		if e != nil {
			err = e
			break
		}
		n++
	}
	if !errors.Is(err, ErrListingUnsettled) || n != 3 {
		t.Fatalf("All = %v after %d documents, want ErrListingUnsettled after 3", err, n)
	}
	if !strings.Contains(ErrListingUnsettled.Error(), strconv.Itoa(maxPasses)+" passes") {
		t.Fatalf("the message %q does not say maxPasses (%d)", ErrListingUnsettled, maxPasses)
	}
	if rl.n > 2*maxPasses+2 {
		t.Fatalf("%d listing requests for %d passes", rl.n, maxPasses)
	}
}

// beforeConsumer is a Pull whose Before is drawn too: it declines some
// documents, and may fail (an error, a panic, a Goexit) at its k-th call.
type beforeConsumer struct {
	limit, workers int
	declineMod     int // Before declines ids whose last byte is 0 modulo this; 0 none
	failAt         int // Before fails at its failAt-th call; 0 never
	failHow        string
	cancelAt       int // fn cancels the context at its cancelAt-th document; 0 never
}

func drawBeforeConsumer(t *rapid.T) beforeConsumer {
	c := beforeConsumer{
		limit:   rapid.SampledFrom([]int{1, 2, 3, 5, 8, 200}).Draw(t, "limit"),
		workers: rapid.IntRange(1, 32).Draw(t, "workers"),
	}
	if rapid.Bool().Draw(t, "declines") {
		c.declineMod = rapid.IntRange(1, 4).Draw(t, "declineMod")
	}
	if rapid.IntRange(0, 2).Draw(t, "beforeFails") == 0 {
		c.failAt = rapid.IntRange(1, 40).Draw(t, "failAt")
		c.failHow = rapid.SampledFrom([]string{"error", "panic", "goexit"}).Draw(t, "failHow")
	}
	if rapid.IntRange(0, 4).Draw(t, "cancels") == 0 {
		c.cancelAt = rapid.IntRange(1, 40).Draw(t, "cancelAt")
	}
	return c
}

var errBeforeFailed = errors.New("before failed")

type beforeOutcome struct {
	genOutcome
	befores  map[uuid.UUID]int
	declined map[uuid.UUID]bool
	failed   uuid.UUID // the document whose Before failed
	calls    int
}

func (c beforeConsumer) run(s *genServer) *beforeOutcome {
	o := &beforeOutcome{befores: map[uuid.UUID]int{}, declined: map[uuid.UUID]bool{}}
	o.init()
	cl := newGenClient(s)
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), beforeKey{}, "mine"))
	defer cancel()
	p := &PullParams{DocumentListParams: DocumentListParams{Limit: c.limit}, Workers: c.workers,
		Before: func(ctx context.Context, d Document) error {
			if ctx.Value(beforeKey{}) != "mine" {
				panic("Before without Pull's context")
			}
			o.mu.Lock()
			o.befores[d.ID]++
			o.calls++
			n := o.calls
			decline := c.declineMod > 0 && int(d.ID[15])%c.declineMod == 0
			if decline {
				o.declined[d.ID] = true
			}
			if c.failAt > 0 && n == c.failAt {
				o.failed = d.ID
			}
			o.mu.Unlock()
			if c.failAt > 0 && n == c.failAt {
				return breakDown(c.failHow, "before broke at "+d.ID.String(), errBeforeFailed)
			}
			if decline {
				return fmt.Errorf("left alone: %w", ErrSkipDocument)
			}
			return nil
		},
		OnProgress: func(pr PullProgress) {
			if pr.Err == nil && pr.Document.ID != uuid.Nil {
				o.mu.Lock()
				if o.declined[pr.Document.ID] {
					o.kept[pr.Document.ID] = true
				}
				o.mu.Unlock()
			}
		},
	}
	o.pull(ctx, cl, p, func(ctx context.Context, d Document, f *File) error {
		_, err := o.take(d, f, c.cancelAt, cancel)
		return err
	})
	return o
}

// check is the invariant of the family with Before: each document meets
// Before at most once; a declined document, or one whose Before failed, is
// never downloaded and never handed to fn, and is not unfinished; what fn
// was handed, it was handed once; a nil result means every document unread
// from the start that nobody else read was handed to fn or declined.
func (c beforeConsumer) check(t *rapid.T, s *genServer, o *beforeOutcome) {
	for id, n := range o.befores {
		if n != 1 {
			t.Fatalf("Before called %d times for %s", n, id)
		}
	}
	for id, n := range o.handed {
		if n != 1 {
			t.Fatalf("document %s handed to fn %d times", id, n)
		}
		if o.befores[id] != 1 {
			t.Fatalf("document %s handed to fn without Before", id)
		}
	}
	for id := range o.declined {
		if o.handed[id] != 0 || s.gets[id] != 0 {
			t.Fatalf("declined document %s handed to fn %d times, downloaded %d times", id, o.handed[id], s.gets[id])
		}
	}
	if o.failed != uuid.Nil && (o.handed[o.failed] != 0 || s.gets[o.failed] != 0) {
		t.Fatalf("document %s whose Before failed was downloaded", o.failed)
	}
	if o.panic != nil {
		if c.failHow != "panic" || !strings.HasPrefix(fmt.Sprint(o.panic), "before broke at ") {
			t.Fatalf("Pull panicked with %v", o.panic)
		}
		return
	}
	if o.failed != uuid.Nil && c.failHow == "panic" {
		t.Fatal("Before panicked, and Pull did not raise it")
	}
	if errors.Is(o.err, ErrPagingIgnored) && !s.ignoreOffset {
		t.Fatalf("ErrPagingIgnored from a server that honours the offset (%s)", s.describe())
	}
	if errors.Is(o.err, ErrSkipDocument) {
		t.Fatalf("a document left alone stopped Pull: %v", o.err)
	}
	if o.err == nil {
		if o.failed != uuid.Nil {
			t.Fatalf("Before failed for %s, and Pull returned nil", o.failed)
		}
		for _, id := range s.required() {
			if o.handed[id] != 1 && !o.kept[id] {
				t.Fatalf("nil error, but document %s was neither handed over nor declined (%s)", id, s.describe())
			}
		}
		for id := range o.declined {
			if !o.kept[id] {
				t.Fatalf("declined document %s not reported kept out", id)
			}
		}
		return
	}
	var pe *PullError
	if !errors.As(o.err, &pe) {
		t.Fatalf("Pull returned %v (%T), want a *PullError", o.err, o.err)
	}
	if o.failed != uuid.Nil && pe.Document == o.failed {
		if c.failHow == "error" && !errors.Is(o.err, errBeforeFailed) || c.failHow == "goexit" && !errors.Is(o.err, errGoexit) {
			t.Fatalf("Pull stopped at %s with %v, not Before's failure", o.failed, o.err)
		}
	}
	for _, id := range pe.Unfinished {
		if o.ok[id] || o.declined[id] || id == o.failed {
			t.Fatalf("document %s in Unfinished: finished %v, declined %v, Before failed %v", id, o.ok[id], o.declined[id], id == o.failed)
		}
	}
	var want []uuid.UUID
	for id := range o.handed {
		if !o.ok[id] {
			want = append(want, id)
		}
	}
	got := slices.DeleteFunc(slices.Clone(pe.Unfinished), func(id uuid.UUID) bool { return o.handed[id] == 0 })
	sortIDs(got)
	sortIDs(want)
	if !slices.Equal(got, want) {
		t.Fatalf("Unfinished (of those fn had) %v, want %v; err %v", got, want, o.err)
	}
	if pe.Done != len(o.ok) {
		t.Fatalf("PullError.Done %d, fn returned nil %d times", pe.Done, len(o.ok))
	}
}

// beforeChecks is how many cases TestPullBeforeOnGeneratedServers runs
// when -rapid.checks is not given (about a millisecond each).
const beforeChecks = 400

func TestPullBeforeOnGeneratedServers(t *testing.T) {
	if !flagGiven("rapid.checks") {
		defer setFlag(t, "rapid.checks", strconv.Itoa(beforeChecks))()
	}
	rapid.Check(t, func(t *rapid.T) {
		s := drawServer(t)
		c := drawBeforeConsumer(t)
		c.check(t, s, runCase(t, s.describe, c, func() *beforeOutcome { return c.run(s) }))
	})
}
