// Package atleastonce is a model-based test of webhook.Handler with a
// replay cache, driven by pgregory.net/rapid: an at-least-once sender
// delivers events to a fleet of receivers that share one cache, with
// timeouts shorter than the processing, retries, concurrent redeliveries
// to several receivers, receivers that die in the middle of processing
// and come back, and whatever faults the cache's test adds (a Redis that
// freezes and restarts). After every check it asserts:
//
//   - every event delivered is processed successfully at least once, and
//     every delivery ends with a 2xx answer (nothing lost);
//   - no event is processed by two deliveries at the same time;
//   - no delivery that claims an event once its success is recorded in
//     the cache (a Commit that returned nil) processes it again. A claim
//     sent before the record may still be answered "new" after it: the
//     claim was granted first (the previous mark's lease had ended), and
//     its answer arrived late.
//
// The package holds test code only; it is imported by the tests of
// package webhook (memory cache) and webhook/redisreplay (Redis).
package atleastonce

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"github.com/acctadmin/acctadmin-go/webhook"
)

// Config describes the fleet under test.
type Config struct {
	// Receivers is the number of receivers, at least one.
	Receivers int
	// Lease is the verifier's lease (webhook.WithLease).
	Lease time.Duration
	// NewCache returns the cache of receiver i for one check. The caches
	// of one check share their records (one memory cache, or clients of
	// one Redis).
	NewCache func(t *rapid.T, i int) webhook.ReplayCache
	// Faults are extra actions on the shared store, run on the test's
	// goroutine while deliveries go on: a Redis frozen for a while, or
	// restarted. Each draws what it needs from t.
	Faults map[string]func(t *rapid.T)
	// AfterCheck, when not nil, runs after each check once every request
	// has ended, to wait for what the caches left running.
	AfterCheck func()
}

// Counts are the totals of every check run with one Counts.
type Counts struct {
	mu                                          sync.Mutex
	Checks, Events, Deliveries, Requests        int
	Answers                                     map[int]int // by status; 0 is no answer (timeout or reset)
	FnCalls, FnOK, FnFailed, FnPermanent, FnCut int
	Kills, Faults                               int
	Commits                                     int
	MaxAttempts                                 int
	fnCalls, fnOK, fnFailed, fnPerm, cuts       atomic.Int64
}

// String is the report of the counts, one line.
func (c *Counts) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	codes := make([]int, 0, len(c.Answers))
	for code := range c.Answers {
		codes = append(codes, code)
	}
	sort.Ints(codes)
	var answers []string
	for _, code := range codes {
		name := strconv.Itoa(code)
		if code == 0 {
			name = "none"
		}
		answers = append(answers, fmt.Sprintf("%s: %d", name, c.Answers[code]))
	}
	return fmt.Sprintf("%d checks, %d events, %d deliveries, %d requests (%s), at most %d attempts for one delivery; "+
		"fn called %d times: %d succeeded, %d failed, %d failed permanently, %d cut off by a receiver's death; "+
		"%d successes recorded; %d receivers killed, %d faults of the cache",
		c.Checks, c.Events, c.Deliveries, c.Requests, strings.Join(answers, ", "), c.MaxAttempts,
		c.FnCalls, c.FnOK, c.FnFailed, c.FnPermanent, c.FnCut, c.Commits, c.Kills, c.Faults)
}

// SetBudget sets rapid's number of checks and average steps per check for
// the test, unless the command line set them, and restores them when it
// ends. It returns the numbers in force.
func SetBudget(t testing.TB, checks, steps int) (int, int) {
	t.Helper()
	set := commandLineFlags()
	for name, n := range map[string]int{"rapid.checks": checks, "rapid.steps": steps} {
		f := flag.Lookup(name)
		if f == nil {
			t.Fatalf("no flag %s: is pgregory.net/rapid imported?", name)
		}
		if set[name] {
			continue
		}
		old := f.Value.String()
		if err := flag.Set(name, strconv.Itoa(n)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = flag.Set(name, old) })
	}
	c, _ := strconv.Atoi(flag.Lookup("rapid.checks").Value.String())
	s, _ := strconv.Atoi(flag.Lookup("rapid.steps").Value.String())
	return c, s
}

// commandLineFlags are the flags given on the command line, read at the
// first SetBudget: a budget set by an earlier test of the package counts
// as set for flag.Visit, and must not be taken for the command line's.
var commandLineFlags = sync.OnceValue(func() map[string]bool {
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
})

// The sender's and the function's shape. Times are short so that a check
// takes a fraction of a second; what matters is how they compare: sender
// timeouts below and above processing times, processing times below and
// above the lease.
const (
	secret        = "atleastonce-model-secret-0123456789"
	maxEvents     = 4
	giveUpAfter   = 15 * time.Second // a sender that gets no 2xx for this long has lost the event
	firstBackoff  = 5 * time.Millisecond
	maxBackoff    = 60 * time.Millisecond
	minTimeoutMS  = 5
	maxTimeoutMS  = 120
	maxFnMS       = 450
	maxWaitMS     = 80
	maxBehaviours = 3
)

// outcome is what one call of fn does once its time is up.
type outcome int

const (
	succeed outcome = iota
	fail
	failPermanently
)

// behaviour is one call of fn: how long it takes, and how it ends.
type behaviour struct {
	dur     time.Duration
	outcome outcome
}

// event is one event of a check and what happened to it.
type event struct {
	token      string
	behaviours []behaviour // of fn's successive calls; then quick successes
	calls      atomic.Int32
	running    atomic.Int32
	succeeded  atomic.Int32 // fn returned nil or a permanent error
	committed  atomic.Bool  // a Commit returned nil
	deliveries atomic.Int32
}

// model is one check's world.
type model struct {
	cfg       Config
	counts    *Counts
	events    []*event
	receivers []*receiver
	senders   sync.WaitGroup
	client    *http.Client

	mu         sync.Mutex
	violations []string
	answers    map[int]int
	lost       []string
	maxAttempt int
}

func (m *model) violate(format string, args ...any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.violations) < 20 {
		m.violations = append(m.violations, fmt.Sprintf(format, args...))
	}
}

// receiver is one receiver: a server whose handler is that of its current
// incarnation.
type receiver struct {
	m       *model
	i       int
	srv     *httptest.Server
	current atomic.Pointer[incarnation]
}

// incarnation is one life of a receiver, from its start to its death.
type incarnation struct {
	handler http.Handler
	cache   *mortalCache
	dead    chan struct{} // closed when it dies

	mu      sync.Mutex
	died    sync.Cond // signalled when running falls to zero after death
	isDead  bool
	running int // calls of fn in progress
}

// enter counts a call of fn in, unless the incarnation is dead.
func (inc *incarnation) enter() bool {
	inc.mu.Lock()
	defer inc.mu.Unlock()
	if inc.isDead {
		return false
	}
	inc.running++
	return true
}

// leave counts a call of fn out.
func (inc *incarnation) leave() {
	inc.mu.Lock()
	defer inc.mu.Unlock()
	inc.running--
	if inc.running == 0 {
		inc.died.Broadcast()
	}
}

// die marks the incarnation dead, stops its calls of fn and waits until
// none runs.
func (inc *incarnation) die() {
	inc.mu.Lock()
	defer inc.mu.Unlock()
	inc.cache.dead.Store(true)
	inc.isDead = true
	close(inc.dead)
	for inc.running > 0 {
		inc.died.Wait()
	}
}

// errDead is what a dead receiver's function returns: it stops at once.
var errDead = errors.New("the receiver died")

// mortalCache passes calls to the receiver's cache while the receiver
// lives, and records the Commits that succeed. Once the receiver is dead,
// a call ends the request's goroutine (runtime.Goexit), as the death of
// its process would: nothing more reaches the cache, the sender gets no
// answer, and the marks it held are left to their lease.
type mortalCache struct {
	inner webhook.ReplayCache
	dead  atomic.Bool
	m     *model
}

// exitIfDead ends the calling goroutine when the receiver is dead.
func (c *mortalCache) exitIfDead() {
	if c.dead.Load() {
		runtime.Goexit()
	}
}

func (c *mortalCache) Claim(ctx context.Context, key, owner string, lease time.Duration) (webhook.ClaimState, error) {
	c.exitIfDead()
	if ri, ok := ctx.Value(requestKey{}).(*requestInfo); ok {
		if ev, ok := webhook.FromContext(ctx); ok {
			ri.committedBeforeClaim = c.m.event(ev).committed.Load()
		} else {
			c.m.violate("Claim was given no event in its context")
		}
	}
	return c.inner.Claim(ctx, key, owner, lease)
}

// requestKey is the context key of a request's requestInfo.
type requestKey struct{}

// requestInfo is what the model notes about one request.
type requestInfo struct {
	// committedBeforeClaim says that the event's success was recorded
	// before the request's claim was sent.
	committedBeforeClaim bool
}

func (c *mortalCache) Commit(ctx context.Context, key string) error {
	c.exitIfDead()
	if err := c.inner.Commit(ctx, key); err != nil {
		return err
	}
	ev, ok := webhook.FromContext(ctx)
	if !ok {
		c.m.violate("Commit was given no event in its context")
		return nil
	}
	c.m.event(ev).committed.Store(true)
	return nil
}

func (c *mortalCache) Release(ctx context.Context, key, owner string) error {
	c.exitIfDead()
	return c.inner.Release(ctx, key, owner)
}

// event returns the model's event of a verified event.
func (m *model) event(ev *webhook.Event) *event {
	n, err := ev.Claims["seq"].(json.Number).Int64()
	if err != nil || n < 0 || int(n) >= len(m.events) {
		panic(fmt.Sprintf("atleastonce: event without a valid seq: %v", ev.Claims["seq"]))
	}
	return m.events[n]
}

// start gives receiver r a new life.
func (r *receiver) start(t *rapid.T) {
	inc := &incarnation{dead: make(chan struct{})}
	inc.died.L = &inc.mu
	inc.cache = &mortalCache{inner: r.m.cfg.NewCache(t, r.i), m: r.m}
	v, err := webhook.NewVerifier([]byte(secret), webhook.WithReplayCache(inc.cache), webhook.WithLease(r.m.cfg.Lease))
	if err != nil {
		t.Fatal(err)
	}
	inc.handler = v.Handler(func(ctx context.Context, wev *webhook.Event) error {
		return r.m.process(ctx, inc, r.m.event(wev))
	})
	r.current.Store(inc)
}

// kill ends r's current life: its cache calls fail from now on, its
// functions in progress stop at once (as a process that dies), and a new
// life starts.
func (r *receiver) kill(t *rapid.T) {
	r.current.Load().die()
	r.start(t)
}

// process is fn: it checks the invariants at its start, then behaves as
// the event's next behaviour says.
func (m *model) process(ctx context.Context, inc *incarnation, e *event) error {
	if !inc.enter() {
		return errDead // a dead process runs nothing
	}
	defer inc.leave()
	m.counts.fnCalls.Add(1)
	if e.running.Add(1) > 1 {
		m.violate("event %d processed by two deliveries at the same time", m.index(e))
	}
	if ri, ok := ctx.Value(requestKey{}).(*requestInfo); !ok {
		m.violate("fn's context does not derive from the request's")
	} else if ri.committedBeforeClaim {
		m.violate("event %d processed again by a delivery that claimed it after its success was recorded", m.index(e))
	}
	call := int(e.calls.Add(1)) - 1
	b := behaviour{dur: time.Duration(call%3) * time.Millisecond, outcome: succeed}
	if call < len(e.behaviours) {
		b = e.behaviours[call]
	}
	timer := time.NewTimer(b.dur)
	defer timer.Stop()
	var err error
	select {
	case <-timer.C:
		switch b.outcome {
		case succeed:
			e.succeeded.Add(1)
			m.counts.fnOK.Add(1)
		case fail:
			err = errors.New("processing failed")
			m.counts.fnFailed.Add(1)
		case failPermanently:
			e.succeeded.Add(1)
			m.counts.fnPerm.Add(1)
			err = webhook.Permanent(errors.New("the document no longer exists"))
		}
	case <-ctx.Done():
		err = ctx.Err()
		m.counts.fnFailed.Add(1)
	case <-inc.dead:
		err = errDead
		m.counts.cuts.Add(1)
	}
	e.running.Add(-1)
	return err
}

func (m *model) index(e *event) int {
	for i, x := range m.events {
		if x == e {
			return i
		}
	}
	return -1
}

// deliver is the at-least-once sender of one delivery: it posts the event
// with the given timeout, starting at receiver first and going round the
// fleet, until an answer is 2xx, waiting after every other answer.
func (m *model) deliver(e *event, first int, timeout time.Duration) {
	defer m.senders.Done()
	e.deliveries.Add(1)
	body := `{"data":"` + e.token + `"}`
	wait := firstBackoff
	start := time.Now()
	for attempt := 0; ; attempt++ {
		r := m.receivers[(first+attempt)%len(m.receivers)]
		code := m.post(r.srv.URL, body, timeout)
		m.mu.Lock()
		m.answers[code]++
		m.maxAttempt = max(m.maxAttempt, attempt+1)
		m.mu.Unlock()
		if code/100 == 2 {
			return
		}
		if time.Since(start) > giveUpAfter {
			m.mu.Lock()
			m.lost = append(m.lost, fmt.Sprintf("event %d: no 2xx after %d attempts in %v", m.index(e), attempt+1, giveUpAfter))
			m.mu.Unlock()
			return
		}
		time.Sleep(wait + time.Duration(rand.Int64N(int64(wait))))
		wait = min(2*wait, maxBackoff)
	}
}

// post makes one attempt and returns the status, 0 for no answer.
func (m *model) post(url, body string, timeout time.Duration) int {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := m.client.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Run runs one check: it builds the fleet and the events, runs the actions
// rapid draws, waits for every sender and request, and checks the
// invariants. counts gathers what happened.
func Run(t *rapid.T, cfg Config, counts *Counts) {
	m := &model{cfg: cfg, counts: counts, answers: map[int]int{}}
	transport := &http.Transport{DisableKeepAlives: true}
	m.client = &http.Client{Transport: transport}

	n := rapid.IntRange(1, maxEvents).Draw(t, "events")
	for i := range n {
		claims := map[string]any{
			"event":        webhook.EventNewDocument,
			"document_id":  uuid.NewString(),
			"company_id":   uuid.NewString(),
			"company_name": "Acme Widgets LLC",
			"seq":          i,
		}
		tok, err := webhook.Sign(claims, []byte(secret))
		if err != nil {
			t.Fatal(err)
		}
		e := &event{token: tok}
		for range rapid.IntRange(0, maxBehaviours).Draw(t, fmt.Sprintf("calls of event %d", i)) {
			e.behaviours = append(e.behaviours, behaviour{
				dur:     time.Duration(rapid.IntRange(0, maxFnMS).Draw(t, "fn ms")) * time.Millisecond,
				outcome: outcome(rapid.IntRange(0, 2).Draw(t, "fn outcome")),
			})
		}
		m.events = append(m.events, e)
	}
	for i := range cfg.Receivers {
		r := &receiver{m: m, i: i}
		r.start(t)
		r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			req = req.WithContext(context.WithValue(req.Context(), requestKey{}, &requestInfo{}))
			r.current.Load().handler.ServeHTTP(w, req)
		}))
		m.receivers = append(m.receivers, r)
	}
	kills, faults := 0, 0

	actions := map[string]func(*rapid.T){
		"deliver": func(t *rapid.T) {
			e := rapid.IntRange(0, n-1).Draw(t, "event")
			first := rapid.IntRange(0, cfg.Receivers-1).Draw(t, "receiver")
			timeout := time.Duration(rapid.IntRange(minTimeoutMS, maxTimeoutMS).Draw(t, "sender timeout ms")) * time.Millisecond
			m.senders.Add(1)
			go m.deliver(m.events[e], first, timeout)
		},
		"deliver to every receiver at once": func(t *rapid.T) {
			e := rapid.IntRange(0, n-1).Draw(t, "event")
			timeout := time.Duration(rapid.IntRange(minTimeoutMS, maxTimeoutMS).Draw(t, "sender timeout ms")) * time.Millisecond
			for i := range cfg.Receivers {
				m.senders.Add(1)
				go m.deliver(m.events[e], i, timeout)
			}
		},
		"kill a receiver": func(t *rapid.T) {
			m.receivers[rapid.IntRange(0, cfg.Receivers-1).Draw(t, "receiver")].kill(t)
			kills++
		},
		"wait": func(t *rapid.T) {
			time.Sleep(time.Duration(rapid.IntRange(1, maxWaitMS).Draw(t, "wait ms")) * time.Millisecond)
		},
	}
	for name, f := range cfg.Faults {
		actions[name] = func(t *rapid.T) {
			f(t)
			faults++
		}
	}
	// One delivery at least, so that no check is empty.
	actions["deliver"](t)
	t.Repeat(actions)

	m.senders.Wait()
	for _, r := range m.receivers {
		r.srv.Close() // waits for the requests in progress
	}
	transport.CloseIdleConnections()
	if cfg.AfterCheck != nil {
		cfg.AfterCheck()
	}

	counts.mu.Lock()
	counts.Checks++
	counts.Events += n
	for _, e := range m.events {
		counts.Deliveries += int(e.deliveries.Load())
		if e.committed.Load() {
			counts.Commits++
		}
	}
	if counts.Answers == nil {
		counts.Answers = map[int]int{}
	}
	for code, k := range m.answers {
		counts.Answers[code] += k
		counts.Requests += k
	}
	counts.MaxAttempts = max(counts.MaxAttempts, m.maxAttempt)
	counts.FnCalls = int(counts.fnCalls.Load())
	counts.FnOK = int(counts.fnOK.Load())
	counts.FnFailed = int(counts.fnFailed.Load())
	counts.FnPermanent = int(counts.fnPerm.Load())
	counts.FnCut = int(counts.cuts.Load())
	counts.Kills += kills
	counts.Faults += faults
	counts.mu.Unlock()

	for _, v := range m.violations {
		t.Error(v)
	}
	for _, l := range m.lost {
		t.Error(l)
	}
	for i, e := range m.events {
		if e.deliveries.Load() > 0 && e.succeeded.Load() == 0 {
			t.Errorf("event %d was delivered %d times and never processed successfully", i, e.deliveries.Load())
		}
	}
}
