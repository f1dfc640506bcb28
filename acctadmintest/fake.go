package acctadmintest

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/acctadmin/acctadmin-go"
)

// Fake is the in-memory Account Administration API. It is an http.Handler:
// serve it with any http.Server (as cmd/acctadmin-fake does) or use
// NewServer, which serves it on loopback with net/http/httptest.
//
// All methods are safe for concurrent use, also while requests are served.
type Fake struct {
	// AccessKey is the access key that every request token must carry in
	// its header field access_key. It also goes into the header of the
	// callback events the fake signs.
	AccessKey string
	// SecretKey is the secret that signs request tokens (HS256) and the
	// callback events the fake sends.
	SecretKey string

	cfg     config
	handler http.Handler    // the layers that serve a request
	ctx     context.Context // cancelled by Close: ends waits, streams and deliveries
	cancel  context.CancelFunc

	latency atomic.Int64 // time.Duration added to every request
	limit   rateBucket   // WithRateLimit's budget
	clock   clockSetting // what SetClock and AdvanceClock made of the clock
	conns   atomic.Int64 // TCP connections accepted, counted by ConnState
	pngs    pngCache
	client  *http.Client // delivers callback events
	wg      sync.WaitGroup

	mu             sync.Mutex // guards everything below
	closed         bool
	rng            *rand.Rand
	st             state
	faults         []*activeFault
	deliveryFaults []*activeDeliveryFault
	faultsFired    int
	requests       []Request
	reqBase        int // requests dropped from the log by ResetRequests
	counts         map[routeKey]int
	writes         []Write
	deliveries     []Delivery
	answers        []*cannedAnswer // canned answers, oldest first (see Answer)
	finished       int             // deliveries that reached their final attempt
	changed        chan struct{}   // closed and replaced whenever deliveries change
}

// Option configures a Fake or a Server. The With functions make the
// options.
type Option interface{ apply(*config) }

// optionFunc is an Option that is a function.
type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	accessKey, secretKey string
	clock                func() time.Time
	loc                  *time.Location
	seed                 uint64
	seeded               bool
	demo                 bool
	quirks               bool
	latency              time.Duration
	deliveryAttempts     int
	deliveryBackoff      time.Duration
	deliveryTimeout      time.Duration
	deliveryClient       *http.Client
	control              bool
	logLimit             int
	contractReport       func(error)
	queryInPath          bool
	strictSigning        SigningForm // 0: every form
	rateLimit            int
	answers              []*cannedAnswer
	clientOpts           []acctadmin.Option // for NewClient
}

// DefaultLocation is the zone in which the fake writes times unless
// WithLocation says otherwise: a fixed offset of -07:00, so that a client
// that ignores offsets is caught.
var DefaultLocation = time.FixedZone("-0700", -7*60*60)

// WithKeys fixes the access key and secret key instead of random ones.
func WithKeys(accessKey, secretKey string) Option {
	return optionFunc(func(c *config) { c.accessKey, c.secretKey = accessKey, secretKey })
}

// WithClock makes the fake read the time from now instead of time.Now: it
// stamps new records, response timestamps and delivery records with it.
// Seeding helpers given no creation time use it too.
func WithClock(now func() time.Time) Option {
	return optionFunc(func(c *config) { c.clock = now })
}

// WithLocation sets the zone in which times are written on the wire
// (DefaultLocation otherwise). Dates (due_date) are written as given,
// without conversion.
func WithLocation(loc *time.Location) Option {
	return optionFunc(func(c *config) { c.loc = loc })
}

// WithSeed seeds the random source of the fake, from which record IDs and
// the Probability of faults are drawn, so that a run can be repeated.
// Without it the seed is random. Keys are random unless WithKeys is given.
func WithSeed(seed int64) Option {
	return optionFunc(func(c *config) { c.seed, c.seeded = uint64(seed), true })
}

// WithDemoData fills the fake with the demo account of SeedDemo when it is
// created.
func WithDemoData() Option {
	return optionFunc(func(c *config) { c.demo = true })
}

// WithoutQuirks turns off the wire inconsistencies of the real API that the
// fake reproduces by default (see the package documentation): success is
// always a JSON boolean, every time uses the documented
// "2006-01-02 15:04:05 -0700" form, documents always carry jurisdiction,
// compliance-event jurisdictions are plain strings, filed_in and docs_in are
// always objects, empty arrays are [] and records carry no undocumented
// fields.
func WithoutQuirks() Option {
	return optionFunc(func(c *config) { c.quirks = false })
}

// SigningForm is one way of filling a request token's content claim (see
// the package doc, "Signing forms").
type SigningForm int

const (
	// SignBodyOnly is form A: the content claim is the hex SHA-256 of the
	// body alone, whatever the query (the provider's current examples).
	SignBodyOnly SigningForm = iota + 1
	// SignQueryAndBody is form B: the hex SHA-256 of the raw query string
	// exactly as sent, without "?", followed by the body (the provider's
	// documentation). For a request without a query it is SignBodyOnly.
	SignQueryAndBody
)

// DefaultStrictSigning is the one form WithStrictSigning accepts when it is
// given none: the form the SDK in the parent module signs by default, so
// that the SDK's own tests, which run on the strict fake, hold it to that
// form.
const DefaultStrictSigning = SignQueryAndBody

// String names the form as the -strict-signing flag of
// cmd/acctadmin-fake does: "body" or "query".
func (s SigningForm) String() string {
	switch s {
	case SignBodyOnly:
		return "body"
	case SignQueryAndBody:
		return "query"
	}
	return fmt.Sprintf("SigningForm(%d)", int(s))
}

// WithStrictSigning makes the fake accept request tokens in one form
// alone: the path without its query in the path claim, and the content
// claim of form, SignBodyOnly or SignQueryAndBody (DefaultStrictSigning
// when none is given). By default the fake accepts every form that
// clients of the real API use, so that a customer's own client runs on
// it; a client's own tests use this option, so that the client keeps
// signing the one way it is configured to. It panics when given more
// than one form or one that is not a SigningForm: those are mistakes in
// the calling test.
func WithStrictSigning(form ...SigningForm) Option {
	f := DefaultStrictSigning
	switch {
	case len(form) > 1:
		panic("acctadmintest: WithStrictSigning takes at most one form")
	case len(form) == 1:
		f = form[0]
	}
	if f != SignBodyOnly && f != SignQueryAndBody {
		panic("acctadmintest: WithStrictSigning: unknown form " + f.String())
	}
	return optionFunc(func(c *config) { c.strictSigning = f })
}

// WithQueryInPathClaim, with WithStrictSigning, also accepts tokens whose
// path claim carries the query string
// ("/compliance-events?company_id=...&start_date=..."), as the provider's
// C# example client signs them. Without WithStrictSigning that form is
// accepted anyway. The query in the claim must be the request's query
// (its values compared once decoded).
func WithQueryInPathClaim() Option {
	return optionFunc(func(c *config) { c.queryInPath = true })
}

// WithLatency delays every request by d before it is handled. SetLatency
// changes it later.
func WithLatency(d time.Duration) Option {
	return optionFunc(func(c *config) { c.latency = d })
}

// WithRateLimit makes the fake answer as an API that allows n requests a
// second does: a request over the budget is answered 429 Too Many
// Requests, with the API's error body and a Retry-After header in whole
// seconds (at least 1) saying when the next one will be let through, and
// it is not applied. The budget is a bucket of n tokens, refilled at n a
// second from the time the fake is made: bursts of up to n, and n a
// second over time. A refused request takes no token. It counts the
// requests to the API's routes, before their token is checked and before
// injected faults; the control surface and the file links the API hands
// out are not counted. n <= 0 (the default) means no limit.
func WithRateLimit(n int) Option {
	return optionFunc(func(c *config) { c.rateLimit = max(n, 0) })
}

// WithDeliveryRetry sets how callback events are retried: at most attempts
// attempts in all (default 4) for each callback URL, waiting backoff
// (default 50ms) before the second attempt and twice as long before each
// further one.
func WithDeliveryRetry(attempts int, backoff time.Duration) Option {
	return optionFunc(func(c *config) {
		if attempts > 0 {
			c.deliveryAttempts = attempts
		}
		if backoff >= 0 {
			c.deliveryBackoff = backoff
		}
	})
}

// WithLogLimit bounds the memory of the logs of a long-running fake: the
// request log (Requests), the write log (Writes) and the delivery log
// (Deliveries) each keep at most n entries; when one is over, its oldest
// quarter of n is dropped. The request counts (RequestCount,
// RequestCounts, TotalRequests), FaultsFired and what WaitDeliveries
// counts stay exact. Without it (or with n <= 0) the logs keep
// everything, which is what a test wants.
func WithLogLimit(n int) Option {
	return optionFunc(func(c *config) { c.logLimit = max(n, 0) })
}

// WithDeliveryTimeout bounds each delivery attempt of a callback event
// (default 5s).
func WithDeliveryTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) {
		if d > 0 {
			c.deliveryTimeout = d
		}
	})
}

// NewFake returns a Fake that is not served anywhere yet. Call Close when
// done with it, to stop event deliveries.
func NewFake(opts ...Option) *Fake {
	cfg := config{
		clock:            time.Now,
		loc:              DefaultLocation,
		quirks:           true,
		deliveryAttempts: 4,
		deliveryBackoff:  50 * time.Millisecond,
		deliveryTimeout:  5 * time.Second,
	}
	for _, o := range opts {
		o.apply(&cfg)
	}
	if cfg.accessKey == "" {
		cfg.accessKey = uuid.NewString()
	}
	if cfg.secretKey == "" {
		cfg.secretKey = randomHex(32)
	}
	if !cfg.seeded {
		cfg.seed = binary.LittleEndian.Uint64(randomBytes(8))
	}
	if cfg.loc == nil {
		cfg.loc = DefaultLocation
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := &Fake{
		AccessKey: cfg.accessKey,
		SecretKey: cfg.secretKey,
		cfg:       cfg,
		ctx:       ctx,
		cancel:    cancel,
		rng:       rand.New(rand.NewPCG(cfg.seed, cfg.seed^0x9e3779b97f4a7c15)),
		counts:    make(map[routeKey]int),
		changed:   make(chan struct{}),
		client:    cfg.deliveryClient,
		answers:   cfg.answers,
	}
	if f.client == nil {
		f.client = newDeliveryClient(cfg.deliveryTimeout)
	}
	f.st = newState(f)
	f.handler = newHandler(f)
	f.latency.Store(int64(cfg.latency))
	f.limit.init(cfg.rateLimit, time.Now())
	if cfg.demo {
		f.SeedDemo()
	}
	return f
}

// Close stops the fake's background work: deliveries in progress are
// cancelled and waited for, and no new ones start. Requests are still
// served afterwards, except that a request that would wait on latency is
// answered 503 at once, and file downloads stop. Close is idempotent.
func (f *Fake) Close() {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	f.cancel()
	f.wg.Wait()
	f.client.CloseIdleConnections()
}

// SetLatency changes the delay added to every request (see WithLatency).
func (f *Fake) SetLatency(d time.Duration) { f.latency.Store(int64(d)) }

// ConnState counts the TCP connections the serving http.Server accepts; set
// it as that server's ConnState hook (NewServer does) to make
// ConnectionsOpened meaningful.
func (f *Fake) ConnState(_ net.Conn, s http.ConnState) {
	if s == http.StateNew {
		f.conns.Add(1)
	}
}

// ConnectionsOpened reports how many TCP connections the server has
// accepted so far.
func (f *Fake) ConnectionsOpened() int { return int(f.conns.Load()) }

// clockSetting is the time SetClock and AdvanceClock gave the clock. It
// keeps the time itself, not an offset from the underlying clock: a
// time.Duration spans only about 292 years either way.
type clockSetting struct {
	mu   sync.Mutex
	set  bool      // whether SetClock or AdvanceClock was called
	at   time.Time // the time the clock was set to
	base time.Time // what the underlying clock read then
}

// now reads the configured clock, moved by SetClock and AdvanceClock.
func (f *Fake) now() time.Time {
	f.clock.mu.Lock()
	defer f.clock.mu.Unlock()
	if !f.clock.set {
		return f.cfg.clock()
	}
	return f.clock.at.Add(f.cfg.clock().Sub(f.clock.base))
}

// Now returns the fake's current time: its clock (time.Now, or the one
// WithClock gives) moved by SetClock and AdvanceClock.
func (f *Fake) Now() time.Time { return f.now() }

// SetClock moves the fake's clock so that it reads t now; it runs on from
// there as its underlying clock does. New records, answers' timestamps,
// due dates "from today", the expiry of file URLs and card expiry are
// all read from it. Any t is kept as given, however far from the
// underlying clock; but the API writes times with four-digit years, so
// its answers are only well formed from 0001-01-01T00:00:00Z to
// 9999-12-31T00:00:00Z, the range the control surface keeps the clock in.
func (f *Fake) SetClock(t time.Time) {
	f.moveClock(func(time.Time) time.Time { return t }, nil)
}

// AdvanceClock moves the fake's clock forward by d (back when d is
// negative), from wherever it reads now.
func (f *Fake) AdvanceClock(d time.Duration) {
	f.moveClock(func(now time.Time) time.Time { return now.Add(d) }, nil)
}

// minClock and maxClock bound the times the control surface sets the
// clock to: every time between them is written with a four-digit year
// in any time zone.
var (
	minClock = time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)
	maxClock = time.Date(9999, time.December, 31, 0, 0, 0, 0, time.UTC)
)

// clockInRange reports whether t is from minClock to maxClock.
func clockInRange(t time.Time) bool { return !t.Before(minClock) && !t.After(maxClock) }

// moveClock sets the clock to what move makes of its reading, unless
// allow is given and refuses the new time; it reports whether the clock
// was set.
func (f *Fake) moveClock(move func(now time.Time) time.Time, allow func(time.Time) bool) bool {
	f.clock.mu.Lock()
	defer f.clock.mu.Unlock()
	base := f.cfg.clock()
	now := base
	if f.clock.set {
		now = f.clock.at.Add(base.Sub(f.clock.base))
	}
	t := move(now)
	if allow != nil && !allow(t) {
		return false
	}
	f.clock.set, f.clock.at, f.clock.base = true, t, base
	return true
}

// newID draws a version 4 UUID from the seeded random source. f.mu must be
// held.
func (f *Fake) newID() uuid.UUID {
	var id uuid.UUID
	for i := 0; i < len(id); i += 8 {
		v := f.rng.Uint64()
		for j := 0; j < 8; j++ {
			id[i+j] = byte(v >> (8 * j))
		}
	}
	id[6] = id[6]&0x0f | 0x40
	id[8] = id[8]&0x3f | 0x80
	return id
}

// idOr returns id, or a new one when id is zero. f.mu must be held.
func (f *Fake) idOr(id uuid.UUID) uuid.UUID {
	if id == uuid.Nil {
		return f.newID()
	}
	return id
}

// timeOr returns t, or the current time when t is zero.
func (f *Fake) timeOr(t time.Time) time.Time {
	if t.IsZero() {
		return f.now()
	}
	return t
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := crand.Read(b); err != nil {
		panic("acctadmintest: no randomness: " + err.Error())
	}
	return b
}

func randomHex(n int) string { return hex.EncodeToString(randomBytes(n)) }

// Server is a Fake served on a loopback address by an httptest.Server.
type Server struct {
	*Fake
	// URL is the base URL of the server, http://127.0.0.1:port, with no
	// trailing slash. Paths of the API go right after it.
	URL string

	ts *httptest.Server
}

// NewServer starts a Fake on a loopback port and returns it. Call Close
// when done.
func NewServer(opts ...Option) *Server {
	f := NewFake(opts...)
	ts := httptest.NewUnstartedServer(f)
	ts.Config.ConnState = f.ConnState
	ts.Start()
	return &Server{Fake: f, URL: ts.URL, ts: ts}
}

// Client returns an *http.Client that connects to the server; it is the
// httptest server's client and is cleaned up by Close.
func (s *Server) Client() *http.Client { return s.ts.Client() }

// CloseClientConnections closes every open connection to the server, the
// way a restarting server or a load balancer would.
func (s *Server) CloseClientConnections() { s.ts.CloseClientConnections() }

// Close shuts the server down: requests waiting on latency and file
// downloads in progress are ended, the server waits for its handlers, and
// then the Fake is closed. No goroutine of the server outlives Close.
func (s *Server) Close() {
	s.Fake.cancel()
	// A handler blocked writing to a client that does not read would hold
	// httptest's Close forever; cut such connections after a grace period.
	t := time.AfterFunc(time.Second, s.ts.CloseClientConnections)
	s.ts.Close()
	t.Stop()
	s.Fake.Close()
}
