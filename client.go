package acctadmin

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Version is the version of this SDK, sent in the User-Agent header.
const Version = "0.4.0"

// DefaultBaseURL is the production API.
const DefaultBaseURL = "https://api.corporatetools.com"

const (
	maxRetriesLimit     = 100 // the most retries WithMaxRetries takes
	defaultMaxRetries   = 3
	defaultRetryWaitMin = 250 * time.Millisecond
	defaultRetryWaitMax = 8 * time.Second
	defaultTimeout      = 30 * time.Second
)

// Environment variables read by NewClientFromEnv.
const (
	EnvAccessKey = "ACCTADMIN_ACCESS_KEY"
	EnvSecretKey = "ACCTADMIN_SECRET_KEY"
	EnvBaseURL   = "ACCTADMIN_BASE_URL"
)

// Client talks to the Account Administration API. Its fields are the
// API's resources; each method of theirs is one route. A Client is safe
// for concurrent use and should be reused: it keeps its connections.
type Client struct {
	Services                *ServicesClient
	Documents               *DocumentsClient
	Resources               *ResourcesClient
	FilingProducts          *FilingProductsClient
	ComplianceEvents        *ComplianceEventsClient
	Websites                *WebsitesClient
	Callbacks               *CallbacksClient
	Companies               *CompaniesClient
	Invoices                *InvoicesClient
	RegisteredAgentProducts *RegisteredAgentProductsClient
	Account                 *AccountClient
	Auth                    *AuthClient
	FilingMethods           *FilingMethodsClient
	SimpleProducts          *SimpleProductsClient
	SignedForms             *SignedFormsClient
	ShoppingCart            *ShoppingCartClient
	PaymentMethods          *PaymentMethodsClient
	OrderItems              *OrderItemsClient

	baseURL       *url.URL
	httpClient    *http.Client      // for JSON answers: the timeout bounds their body
	fileClient    *http.Client      // for files: the timeout ends at their headers
	transport     http.RoundTripper // the one under the signer, for CloseIdleConnections
	logger        *slog.Logger
	userAgent     []string
	maxRetries    int
	retryWaitMin  time.Duration
	retryWaitMax  time.Duration
	retryAfterMax time.Duration
	limiter       RateLimiter // nil when none is set
	hooks         *Hooks      // nil when none is set
	// Functions, so that fmt printing a Client by reflection shows no key.
	auth func() Authenticator
	keys func() *redactor
	// downloads tells the walks over the unread listing which documents
	// this client downloaded while they run.
	downloads *downloadWatch
}

// Format prints the client as acctadmin.Client(base URL) under every verb
// (%q quotes it), for a Client and a *Client alike, so that no key shows.
func (c Client) Format(f fmt.State, verb rune) {
	text := "acctadmin.Client(<nil>)"
	if c.baseURL != nil {
		text = "acctadmin.Client(" + c.baseURL.String() + ")"
	}
	if verb == 'q' {
		text = strconv.Quote(text)
	}
	_, _ = io.WriteString(f, text)
}

// service is the shape every resource client shares.
type service struct{ c *Client }

// Option configures a Client; NewClient returns the error of an option
// given a value it cannot use, and skips a nil one.
type Option interface{ apply(*settings) error }

type optionFunc func(*settings) error

func (f optionFunc) apply(s *settings) error { return f(s) }

// settings are what the options set; NewClient builds the client from them.
type settings struct {
	Client
	baseURL    string
	httpClient *http.Client
	auth       Authenticator
	timeout    time.Duration
	bodyOnly   bool
}

// set is an option that cannot fail.
func set(f func(*settings)) Option {
	return optionFunc(func(s *settings) error { f(s); return nil })
}

// setIf is an option that sets with f or, when bad, fails naming opt.
func setIf(bad bool, opt string, f func(*settings), format string, args ...any) Option {
	return optionFunc(func(s *settings) error {
		if bad {
			return fmt.Errorf("acctadmin: "+opt+": "+format, args...)
		}
		f(s)
		return nil
	})
}

// WithBaseURL sends requests to u instead of DefaultBaseURL: an absolute
// http or https URL, possibly with a path prefix.
func WithBaseURL(u string) Option { return set(func(s *settings) { s.baseURL = u }) }

// WithHTTPClient sends requests through hc, keeping its transport,
// timeout, cookie jar and CheckRedirect; the client signs in front of the
// transport and follows no redirect the package doc rules out.
func WithHTTPClient(hc *http.Client) Option {
	return setIf(hc == nil, "WithHTTPClient", func(s *settings) { s.httpClient = hc }, "nil *http.Client")
}

// WithMaxRetries sets how many times a call that may be repeated is tried
// again (default 3, 0 to 100); see the package doc.
func WithMaxRetries(n int) Option {
	return setIf(n < 0 || n > maxRetriesLimit, "WithMaxRetries", func(s *settings) { s.maxRetries = n },
		"retry count %d, want 0 to %d", n, maxRetriesLimit)
}

// WithRetryWait sets the bounds of the wait between retries (default
// 250ms to 8s), jitter included: the wait before retry n is a random
// point between min·2ⁿ⁻¹ and twice that, both capped at max.
func WithRetryWait(min, max time.Duration) Option {
	return setIf(min < 0 || max < 0 || max < min, "WithRetryWait", func(s *settings) { s.retryWaitMin, s.retryWaitMax = min, max },
		"invalid bounds %s..%s", min, max)
}

// WithTimeout bounds each attempt (default 30s; zero turns it off): its
// connecting, its wait for the answer and, for JSON, its reading; for a
// file only the wait for its headers (bound the reading with the context).
func WithTimeout(d time.Duration) Option {
	return setIf(d < 0, "WithTimeout", func(s *settings) { s.timeout = d }, "negative timeout %s", d)
}

// WithMaxRetryAfter sets the longest Retry-After a call waits (default
// 60s); see the package doc.
func WithMaxRetryAfter(d time.Duration) Option {
	return setIf(d < 0, "WithMaxRetryAfter", func(s *settings) { s.retryAfterMax = d }, "negative wait %s", d)
}

// RateLimiter spaces out a client's requests: Wait blocks until the next
// request may go, or returns an error when it may not. *rate.Limiter of
// golang.org/x/time/rate is one.
type RateLimiter interface {
	Wait(ctx context.Context) error
}

// WithRateLimit makes every request wait for l first (see the package doc);
// a wait l refuses ends the call, unsent, with a *TransportError.
func WithRateLimit(l RateLimiter) Option {
	v := reflect.ValueOf(l)
	return setIf(l == nil || v.Kind() == reflect.Pointer && v.IsNil(), "WithRateLimit", func(s *settings) { s.limiter = l },
		"nil RateLimiter")
}

// WithLogger logs every attempt at Debug level and every retry at Warn
// level: the method, the path (never the query), status, attempt and wait.
func WithLogger(l *slog.Logger) Option { return set(func(s *settings) { s.logger = l }) }

// WithUserAgent puts ua in front of the client's own User-Agent. A
// control character (a tab is allowed) is an error.
func WithUserAgent(ua string) Option {
	return setIf(strings.ContainsFunc(ua, isControl), "WithUserAgent", func(s *settings) {
		if ua != "" {
			s.userAgent = []string{ua + " acctadmin-go/" + Version}
		}
	}, "line break or control character in user agent")
}

// WithAuthenticator replaces the request signer made from the keys.
func WithAuthenticator(a Authenticator) Option {
	return setIf(a == nil, "WithAuthenticator", func(s *settings) { s.auth = a }, "nil Authenticator")
}

// WithBodyOnlySigning makes the signer hash the body alone (see Signing in
// the package doc); it has no effect with WithAuthenticator.
func WithBodyOnlySigning() Option { return set(func(s *settings) { s.bodyOnly = true }) }

// NewClient returns a client that signs its requests with the account's
// access key and secret key. Empty keys, a base URL that is not an
// absolute http(s) URL, or an option out of range are an error here.
func NewClient(accessKey, secretKey string, opts ...Option) (*Client, error) {
	s := settings{baseURL: DefaultBaseURL, httpClient: &http.Client{}, timeout: defaultTimeout, Client: Client{maxRetries: defaultMaxRetries,
		retryWaitMin: defaultRetryWaitMin, retryWaitMax: defaultRetryWaitMax, retryAfterMax: maxRetryAfter,
		userAgent: []string{"acctadmin-go/" + Version}}}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.apply(&s); err != nil {
			return nil, err
		}
	}
	if s.auth == nil {
		a, err := NewSigner(accessKey, secretKey)
		if err != nil {
			return nil, err
		}
		a.(*signer).bodyOnly = s.bodyOnly
		s.auth = a
	}
	base, err := parseBaseURL(s.baseURL)
	if err != nil {
		return nil, err
	}

	keys := &redactor{}
	keys.add(accessKey, "[redacted]")
	keys.add(secretKey, "[redacted]")
	auth := s.auth
	c := &s.Client
	c.auth = func() Authenticator { return auth }
	c.keys = func() *redactor { return keys }
	c.downloads = &downloadWatch{}
	c.baseURL = base

	hc := *s.httpClient
	c.transport = hc.Transport
	if c.transport == nil {
		c.transport = newTransport()
	}
	hc.CheckRedirect = redirectPolicy(hc.CheckRedirect, c.waitTurn)
	signed := authTransport{base: c.transport, auth: s.auth, scheme: base.Scheme, host: base.Host, timeout: s.timeout}
	fc := hc
	hc.Transport = &signed
	files := signed
	files.headersOnly = true
	fc.Transport = &files
	c.httpClient, c.fileClient = &hc, &fc

	svc := service{c: c}
	c.Services = (*ServicesClient)(&svc)
	c.Documents = (*DocumentsClient)(&svc)
	c.Resources = (*ResourcesClient)(&svc)
	c.FilingProducts = (*FilingProductsClient)(&svc)
	c.ComplianceEvents = (*ComplianceEventsClient)(&svc)
	c.Websites = (*WebsitesClient)(&svc)
	c.Callbacks = (*CallbacksClient)(&svc)
	c.Companies = (*CompaniesClient)(&svc)
	c.Invoices = (*InvoicesClient)(&svc)
	c.RegisteredAgentProducts = (*RegisteredAgentProductsClient)(&svc)
	c.Account = (*AccountClient)(&svc)
	c.Auth = (*AuthClient)(&svc)
	c.FilingMethods = (*FilingMethodsClient)(&svc)
	c.SimpleProducts = (*SimpleProductsClient)(&svc)
	c.SignedForms = (*SignedFormsClient)(&svc)
	c.ShoppingCart = (*ShoppingCartClient)(&svc)
	c.PaymentMethods = (*PaymentMethodsClient)(&svc)
	c.OrderItems = (*OrderItemsClient)(&svc)
	return c, nil
}

// NewClientFromEnv is NewClient with the keys read from
// ACCTADMIN_ACCESS_KEY and ACCTADMIN_SECRET_KEY, and the base URL from
// ACCTADMIN_BASE_URL when it is set; opts apply after the environment.
func NewClientFromEnv(opts ...Option) (*Client, error) {
	for _, k := range []string{EnvAccessKey, EnvSecretKey} {
		if strings.TrimSpace(os.Getenv(k)) == "" {
			return nil, fmt.Errorf("acctadmin: %s is not set", k)
		}
	}
	if base := os.Getenv(EnvBaseURL); base != "" {
		opts = append([]Option{WithBaseURL(base)}, opts...)
	}
	return NewClient(os.Getenv(EnvAccessKey), os.Getenv(EnvSecretKey), opts...)
}

// CloseIdleConnections closes idle connections; a client needs no closing.
func (c *Client) CloseIdleConnections() {
	if ci, ok := c.transport.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

// parseBaseURL checks a base URL; no error of it shows a password.
func parseBaseURL(s string) (*url.URL, error) {
	shown, changed := redactURLText(s)
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		var ue *url.Error
		if !changed && errors.As(err, &ue) {
			return nil, fmt.Errorf("acctadmin: base URL %q does not parse: %v", shown, ue.Err)
		}
		return nil, fmt.Errorf("acctadmin: base URL %q does not parse", shown)
	}
	if u.User != nil {
		shown = u.Redacted()
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("acctadmin: base URL %q: want an http or https URL", shown)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("acctadmin: base URL %q has no host", shown)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("acctadmin: base URL %q: want no user, query or fragment", shown)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// redactURLText hides the password of a URL that may not parse, as
// url.URL.Redacted does (or more), and reports whether it changed s.
func redactURLText(s string) (string, bool) {
	prefix, rest := "", s
	if i := strings.Index(s, "://"); i >= 0 {
		prefix, rest = s[:i+3], s[i+3:]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return s, false
	}
	user, _, ok := strings.Cut(rest[:at], ":")
	if !ok {
		return s, false
	}
	return prefix + user + ":xxxxx" + rest[at:], true
}

// newTransport is the default transport.
func newTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   32,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// RawRequest is a request to a route the SDK does not type.
type RawRequest struct {
	// Method is GET, POST, PATCH, PUT or DELETE.
	Method string
	// Path starts with "/" and has no query; Pattern is the path as hooks
	// see it ("/order-items/{id}"), Path when empty.
	Path    string
	Pattern string
	// Query is sent in the order of its sorted keys; a key ending in "[]"
	// keeps its brackets unescaped ("company_ids[]").
	Query url.Values
	// Body, when not nil, is sent as JSON (a json.RawMessage or []byte as
	// it is), with plain strings, not Secrets, which marshal redacted;
	// Secrets are its values that no error may show.
	Body    any
	Secrets []string
	// AtMostOnce sends a GET or DELETE at most once, as writes always are.
	AtMostOnce bool
}

// rawBody is the body of a RawRequest with the secrets it names.
type rawBody struct {
	v       any
	secrets []string
}

func (b rawBody) MarshalJSON() ([]byte, error) {
	switch v := b.v.(type) {
	case json.RawMessage:
		return v, nil
	case []byte:
		return v, nil
	}
	return json.Marshal(b.v)
}

func (b rawBody) secretValues() []string { return b.secrets }

// endpoint checks r and declares it as a route of its own.
func (r *RawRequest) endpoint(operation string) (endpoint, *query, any, error) {
	if r == nil {
		return endpoint{}, nil, nil, invalid("request", "is required")
	}
	rt := &route{method: r.Method, pattern: cmp.Or(r.Pattern, r.Path), operation: operation}
	once := r.AtMostOnce
	switch r.Method {
	case http.MethodGet, http.MethodDelete:
	case http.MethodPost, http.MethodPatch, http.MethodPut:
		once = true
	default:
		return endpoint{}, nil, nil, invalid("method", "want GET, POST, PATCH, PUT or DELETE, got %q", r.Method)
	}
	if once {
		rt.class, rt.verify = atMostOnce, "read what it would have changed before trying again"
	}
	if !strings.HasPrefix(r.Path, "/") || strings.ContainsAny(r.Path, "?#") || strings.Contains(r.Path, "..") {
		return endpoint{}, nil, nil, invalid("path", "want a path starting with / without a query, a fragment or ..")
	}
	q := &query{}
	for _, k := range sortedKeys(r.Query) {
		for _, v := range r.Query[k] {
			q.add(k, v)
		}
	}
	var body any
	if r.Body != nil {
		body = rawBody{r.Body, r.Secrets}
	}
	return endpoint{route: rt, path: r.Path}, q, body, nil
}

// Do sends a request to a route the SDK does not type as the typed
// methods send theirs (hooks see "Client.Do"), and decodes the result of
// the API's envelope into out (a non-nil pointer; nil discards it). A
// write is sent at most once (see the package doc).
func (c *Client) Do(ctx context.Context, req *RawRequest, out any) error {
	ep, q, body, err := req.endpoint("Client.Do")
	if v := reflect.ValueOf(out); err == nil && out != nil && (v.Kind() != reflect.Pointer || v.IsNil()) {
		err = invalid("out", "want a non-nil pointer, got %T", out)
	}
	if err != nil {
		return err
	}
	return c.json(ctx, ep, q, body, out)
}

// DoFile is Do for a route whose answer is a file, streamed; the caller
// closes it. A JSON answer is the API's error. Hooks see "Client.DoFile".
func (c *Client) DoFile(ctx context.Context, req *RawRequest) (*File, error) {
	ep, q, body, err := req.endpoint("Client.DoFile")
	if err != nil {
		return nil, err
	}
	return c.file(ctx, ep, q, body, "")
}
