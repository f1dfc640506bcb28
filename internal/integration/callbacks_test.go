package acctadmin_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"pgregory.net/rapid"
)

// ensureServer is the fake behind a recording wrapper that can hold back
// every POST /callbacks until a number of GET /callbacks have arrived, so
// that concurrent Ensure calls all list before any of them registers.
type ensureServer struct {
	fake *acctadmintest.Fake
	url  string

	mu       sync.Mutex
	lists    int
	holdFor  int           // POSTs wait until this many GETs arrived
	released chan struct{} // closed when they have
	log      []string      // "METHOD path", in arrival order
	// afterCreate, when set, runs once a POST /callbacks was served: as
	// another process registering between a create and the listing after.
	afterCreate func()
}

func newEnsureServer(t *testing.T, holdFor int, opts ...acctadmintest.Option) *ensureServer {
	t.Helper()
	s := &ensureServer{fake: acctadmintest.NewFake(append([]acctadmintest.Option{acctadmintest.WithStrictSigning()}, opts...)...), holdFor: holdFor, released: make(chan struct{})}
	if holdFor == 0 {
		close(s.released)
	}
	ts := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		ts.Close()
		s.fake.Close()
	})
	s.url = ts.URL
	return s
}

func (s *ensureServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.log = append(s.log, r.Method+" "+r.URL.Path)
	s.mu.Unlock()
	if r.Method == http.MethodGet && r.URL.Path == "/callbacks" {
		// Count a listing once it is answered, so that no create can
		// overtake a listing still being served.
		s.fake.ServeHTTP(w, r)
		s.mu.Lock()
		s.lists++
		if s.lists == s.holdFor {
			close(s.released)
		}
		s.mu.Unlock()
		return
	}
	if r.Method == http.MethodPost {
		select {
		case <-s.released:
		case <-time.After(5 * time.Second):
			// Not every caller lists before creating when the listing
			// already shows the URL; let the request through.
		case <-r.Context().Done():
		}
		s.fake.ServeHTTP(w, r)
		if s.afterCreate != nil {
			s.afterCreate()
		}
		return
	}
	s.fake.ServeHTTP(w, r)
}

func (s *ensureServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

func (s *ensureServer) client(t *testing.T) *acctadmin.Client {
	t.Helper()
	c, err := acctadmin.NewClient(s.fake.AccessKey, s.fake.SecretKey,
		acctadmin.WithBaseURL(s.url), acctadmin.WithRetryWait(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// registered counts the registrations of each URL.
func registered(f *acctadmintest.Fake) map[string]int {
	n := map[string]int{}
	for _, cb := range f.Callbacks() {
		n[cb.URL]++
	}
	return n
}

const (
	hookURL  = "https://mail.example.com/hooks/acct"
	otherURL = "https://other.example.com/hooks"
)

func TestCallbacksEnsureRegistersOnce(t *testing.T) {
	s := newEnsureServer(t, 0)
	s.fake.AddCallback(otherURL)
	c := s.client(t)
	ctx := context.Background()

	cb, err := c.Callbacks.Ensure(ctx, hookURL)
	if err != nil {
		t.Fatal(err)
	}
	if cb.URL != hookURL {
		t.Fatalf("Ensure returned %+v", cb)
	}
	want := []string{"GET /callbacks", "POST /callbacks", "GET /callbacks"}
	if got := s.requests(); !equalStrings(got, want) {
		t.Fatalf("requests %v, want %v", got, want)
	}
	// Run again, as a restarted program does: nothing is written.
	again, err := c.Callbacks.Ensure(ctx, hookURL)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != cb.ID {
		t.Fatalf("second Ensure kept %s, first registered %s", again.ID, cb.ID)
	}
	if got := s.requests()[3:]; !equalStrings(got, []string{"GET /callbacks", "GET /callbacks"}) {
		t.Fatalf("second Ensure sent %v", got)
	}
	if n := registered(s.fake); n[hookURL] != 1 || n[otherURL] != 1 || len(n) != 2 {
		t.Fatalf("registrations %v", n)
	}
}

func TestCallbacksEnsureRemovesDuplicatesOfItsURLOnly(t *testing.T) {
	s := newEnsureServer(t, 0)
	first := s.fake.AddCallback(hookURL)
	s.fake.AddCallback(otherURL)
	s.fake.AddCallback(hookURL)
	s.fake.AddCallback(otherURL)
	s.fake.AddCallback(hookURL)
	s.fake.AddCallback(hookURL + "/") // a different URL, compared exactly
	c := s.client(t)

	cb, err := c.Callbacks.Ensure(context.Background(), hookURL)
	if err != nil {
		t.Fatal(err)
	}
	n := registered(s.fake)
	if n[hookURL] != 1 || n[otherURL] != 2 || n[hookURL+"/"] != 1 {
		t.Fatalf("registrations %v", n)
	}
	// The fake's times have whole seconds, so the oldest is found by time,
	// then ID; the one kept is the one Ensure returned.
	left := s.fake.Callbacks()
	var keptID string
	for _, l := range left {
		if l.URL == hookURL {
			keptID = l.ID.String()
		}
	}
	if cb.ID.String() != keptID {
		t.Fatalf("Ensure returned %s, kept %s (first added %s)", cb.ID, keptID, first.ID)
	}
	posts, deletes := 0, 0
	for _, r := range s.requests() {
		switch r[:4] {
		case "POST":
			posts++
		case "DELE":
			deletes++
		}
	}
	if posts != 0 || deletes != 2 {
		t.Fatalf("%d creates and %d deletes, want 0 and 2: %v", posts, deletes, s.requests())
	}
}

func TestCallbacksEnsureKeepsACreateWhoseAnswerWasLost(t *testing.T) {
	s := newEnsureServer(t, 0)
	s.fake.InjectFault(acctadmintest.Fault{Method: http.MethodPost, Path: "/callbacks", Count: 1, DropConnection: true, AfterApply: true})
	c := s.client(t)
	cb, err := c.Callbacks.Ensure(context.Background(), hookURL)
	if err != nil {
		t.Fatalf("Ensure: %v", err)
	}
	if n := registered(s.fake); n[hookURL] != 1 || len(n) != 1 {
		t.Fatalf("registrations %v", n)
	}
	if got := s.fake.Callbacks()[0].ID; got != cb.ID {
		t.Fatalf("Ensure returned %s, the registration is %s", cb.ID, got)
	}
	if s.fake.FaultsFired() != 1 {
		t.Fatalf("the create's answer was not lost (%d faults fired)", s.fake.FaultsFired())
	}
}

func TestCallbacksEnsureReturnsTheCreateErrorWhenNothingIsRegistered(t *testing.T) {
	s := newEnsureServer(t, 0)
	s.fake.InjectFault(acctadmintest.Fault{Method: http.MethodPost, Path: "/callbacks", Status: http.StatusBadRequest, Message: "url refused"})
	c := s.client(t)
	_, err := c.Callbacks.Ensure(context.Background(), hookURL)
	var apiErr *acctadmin.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest {
		t.Fatalf("Ensure = %v, want the create's 400", err)
	}
	if n := registered(s.fake); len(n) != 0 {
		t.Fatalf("registrations %v", n)
	}
}

func TestCallbacksEnsureConcurrentCallsLeaveOne(t *testing.T) {
	for _, callers := range []int{2, 5} {
		s := newEnsureServer(t, callers) // every caller lists before any creates
		s.fake.AddCallback(otherURL)
		c := s.client(t)
		var wg sync.WaitGroup
		var failed atomic.Int32
		for range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := c.Callbacks.Ensure(context.Background(), hookURL); err != nil {
					t.Error(err)
					failed.Add(1)
				}
			}()
		}
		wg.Wait()
		if n := registered(s.fake); n[hookURL] != 1 || n[otherURL] != 1 {
			t.Fatalf("%d callers: registrations %v", callers, n)
		}
		posts := 0
		for _, r := range s.requests() {
			if r == "POST /callbacks" {
				posts++
			}
		}
		if posts != callers {
			t.Fatalf("%d callers made %d creates: the race was not forced", callers, posts)
		}
	}
}

func TestCallbacksEnsureRefusesBadURLs(t *testing.T) {
	s := newEnsureServer(t, 0)
	c := s.client(t)
	for _, u := range []string{"", "/relative", "ftp://x.example.com/", "https://"} {
		_, err := c.Callbacks.Ensure(context.Background(), u)
		var ve *acctadmin.ValidationError
		if !errors.As(err, &ve) || ve.Field != "url" {
			t.Errorf("Ensure(%q) = %v, want a validation error on url", u, err)
		}
	}
	if got := s.requests(); len(got) != 0 {
		t.Fatalf("requests sent: %v", got)
	}
}

// TestCallbacksEnsureGenerated checks, over generated starting
// registrations, lost and failed creates and 1 to 4 concurrent callers,
// (rapid's -rapid.checks, 100 by default, sets how many cases run)
// that once every Ensure has returned the URL is registered exactly once
// (when any call succeeded) and no other URL was touched.
func TestCallbacksEnsureGenerated(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		mine := rapid.IntRange(0, 3).Draw(rt, "mine")
		others := rapid.IntRange(0, 2).Draw(rt, "others")
		callers := rapid.IntRange(1, 4).Draw(rt, "callers")
		hold := rapid.Bool().Draw(rt, "hold")
		lost := rapid.IntRange(0, 2).Draw(rt, "lostCreates")
		refused := rapid.IntRange(0, 1).Draw(rt, "refusedCreates")
		hf := 0
		if hold && mine == 0 {
			hf = callers
		}
		s := newEnsureServer(t, hf)
		for range mine {
			s.fake.AddCallback(hookURL)
		}
		for range others {
			s.fake.AddCallback(otherURL)
		}
		if lost > 0 {
			s.fake.InjectFault(acctadmintest.Fault{Method: http.MethodPost, Path: "/callbacks", Count: lost, DropConnection: true, AfterApply: true})
		}
		if refused > 0 {
			s.fake.InjectFault(acctadmintest.Fault{Method: http.MethodPost, Path: "/callbacks", Count: refused, Status: http.StatusServiceUnavailable})
		}
		c := s.client(t)
		var wg sync.WaitGroup
		var succeeded atomic.Int32
		for range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := c.Callbacks.Ensure(context.Background(), hookURL); err == nil {
					succeeded.Add(1)
				}
			}()
		}
		wg.Wait()
		n := registered(s.fake)
		if n[otherURL] != others {
			rt.Fatalf("other URL: %d registrations, started with %d", n[otherURL], others)
		}
		if succeeded.Load() > 0 && n[hookURL] != 1 {
			rt.Fatalf("%d of %d calls succeeded, %d registrations", succeeded.Load(), callers, n[hookURL])
		}
		if n[hookURL] > 1 {
			rt.Fatalf("%d registrations left", n[hookURL])
		}
		// A second round, with no faults, always ends with exactly one.
		s.fake.ClearFaults()
		if _, err := c.Callbacks.Ensure(context.Background(), hookURL); err != nil {
			rt.Fatal(err)
		}
		if n := registered(s.fake); n[hookURL] != 1 {
			rt.Fatalf("after a clean Ensure: %d registrations", n[hookURL])
		}
	})
}

// stoppedClock is a clock that stands still, so that registrations are
// exactly as far apart as a test moves the fake's clock.
func stoppedClock() time.Time { return time.Date(2025, time.March, 14, 15, 9, 26, 0, time.UTC) }

// addOlder registers hookURL n times, each one step older than the one
// before, so that the listing (in the order added) runs from newest to
// oldest. It goes on, up to 20 registrations, until the oldest has a
// larger ID than the first: then neither the listing's order nor the IDs
// point at the oldest, only the times do. It returns the oldest.
func addOlder(t *testing.T, f *acctadmintest.Fake, n int, step time.Duration) acctadmintest.Callback {
	t.Helper()
	first := f.AddCallback(hookURL)
	oldest := first
	for i := 1; i < 20 && (i < n || oldest.ID.String() < first.ID.String()); i++ {
		f.AdvanceClock(-step)
		oldest = f.AddCallback(hookURL)
	}
	if oldest.ID.String() < first.ID.String() {
		t.Fatal("no registration with a larger ID than the first in 20")
	}
	return oldest
}

// TestCallbacksEnsureKeepsTheOldest: of several registrations of its URL,
// Ensure keeps the one created first, deletes the others, and returns it.
// With registrations seconds or days apart, that is the oldest by time,
// whatever its place in the listing or its ID (the IDs come from a seeded
// source, so that the oldest has a larger ID than the first on every
// run). When another process registers the URL, a day later, between
// Ensure's create and its listing, both keep the older, Ensure's own, and
// the later one is deleted.
func TestCallbacksEnsureKeepsTheOldest(t *testing.T) {
	type setup struct {
		opts []acctadmintest.Option
		// arrange registers what is there before Ensure runs, and returns
		// what checks Ensure's result.
		arrange func(t *testing.T, s *ensureServer) (check func(t *testing.T, cb *acctadmin.Callback))
	}
	oldestByTime := func(step time.Duration) setup {
		return setup{
			opts: []acctadmintest.Option{acctadmintest.WithClock(stoppedClock), acctadmintest.WithSeed(int64(step))},
			arrange: func(t *testing.T, s *ensureServer) func(t *testing.T, cb *acctadmin.Callback) {
				s.fake.AddCallback(otherURL)
				oldest := addOlder(t, s.fake, 3, step)
				return func(t *testing.T, cb *acctadmin.Callback) {
					if cb.ID != oldest.ID || !cb.CreatedAt.Equal(oldest.CreatedAt) {
						t.Fatalf("Ensure returned %s created %s, want the oldest %s created %s", cb.ID, cb.CreatedAt, oldest.ID, oldest.CreatedAt)
					}
					if n := registered(s.fake); n[hookURL] != 1 || n[otherURL] != 1 || len(n) != 2 {
						t.Fatalf("registrations %v", n)
					}
					for _, l := range s.fake.Callbacks() {
						if l.URL == hookURL && l.ID != oldest.ID {
							t.Fatalf("%s left, want the oldest %s", l.ID, oldest.ID)
						}
					}
				}
			},
		}
	}
	for _, tc := range []struct {
		name string
		setup
	}{
		{"1s apart", oldestByTime(time.Second)},
		{"3s apart", oldestByTime(3 * time.Second)},
		{"a day apart", oldestByTime(24 * time.Hour)},
		{"400 days apart", oldestByTime(400 * 24 * time.Hour)},
		{"its own over a later one", setup{
			opts: []acctadmintest.Option{acctadmintest.WithClock(stoppedClock)},
			arrange: func(t *testing.T, s *ensureServer) func(t *testing.T, cb *acctadmin.Callback) {
				var later acctadmintest.Callback
				var once sync.Once
				s.afterCreate = func() {
					once.Do(func() {
						s.fake.AdvanceClock(24 * time.Hour)
						later = s.fake.AddCallback(hookURL)
					})
				}
				return func(t *testing.T, cb *acctadmin.Callback) {
					left := s.fake.Callbacks()
					if len(left) != 1 || left[0].ID != cb.ID || cb.ID == later.ID {
						t.Fatalf("Ensure returned %s; left %+v (the later one is %s)", cb.ID, left, later.ID)
					}
					want := []string{"GET /callbacks", "POST /callbacks", "GET /callbacks", "DELETE /callbacks/" + later.ID.String()}
					if got := s.requests(); !equalStrings(got, want) {
						t.Fatalf("requests %v, want %v", got, want)
					}
				}
			},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newEnsureServer(t, 0, tc.opts...)
			check := tc.arrange(t, s)
			cb, err := s.client(t).Callbacks.Ensure(context.Background(), hookURL)
			if err != nil {
				t.Fatal(err)
			}
			check(t, cb)
		})
	}
}

// TestCallbacksEnsureComparesURLsExactly: registrations whose URLs differ
// from the one ensured only in case (in the path, or in scheme and host),
// older than it, are other URLs: Ensure neither keeps nor deletes them,
// and registers its own when it has none.
func TestCallbacksEnsureComparesURLsExactly(t *testing.T) {
	variants := []string{
		"https://mail.example.com/hooks/ACCT",
		"https://mail.example.com/Hooks/acct",
		"HTTPS://MAIL.EXAMPLE.COM/hooks/acct",
	}
	for _, registeredToo := range []bool{false, true} {
		s := newEnsureServer(t, 0, acctadmintest.WithClock(stoppedClock))
		for _, v := range variants {
			s.fake.AddCallback(v)
			s.fake.AdvanceClock(24 * time.Hour)
		}
		var own acctadmintest.Callback
		if registeredToo {
			own = s.fake.AddCallback(hookURL)
		}
		c := s.client(t)
		cb, err := c.Callbacks.Ensure(context.Background(), hookURL)
		if err != nil {
			t.Fatal(err)
		}
		if cb.URL != hookURL || registeredToo && cb.ID != own.ID {
			t.Fatalf("registered %v: Ensure returned %+v", registeredToo, cb)
		}
		n := registered(s.fake)
		for _, v := range variants {
			if n[v] != 1 {
				t.Fatalf("registered %v: %s has %d registrations, want 1 (untouched)", registeredToo, v, n[v])
			}
		}
		if n[hookURL] != 1 || len(n) != len(variants)+1 {
			t.Fatalf("registered %v: registrations %v", registeredToo, n)
		}
		for _, r := range s.requests() {
			if strings.HasPrefix(r, "DELETE") {
				t.Fatalf("registered %v: %s sent", registeredToo, r)
			}
		}
	}
}
