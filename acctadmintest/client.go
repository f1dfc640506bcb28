package acctadmintest

import (
	"testing"
	"time"

	"github.com/acctadmin/acctadmin-go"
)

// Retry waits of the clients NewClient makes: short, so that a test of
// retries does not wait the SDK's default quarter of a second and more.
const (
	ClientRetryWaitMin = time.Millisecond
	ClientRetryWaitMax = 10 * time.Millisecond
)

// WithClientOptions adds options to the client NewClient makes, after its
// own (a later option wins). A Fake and a Server ignore them.
func WithClientOptions(opts ...acctadmin.Option) Option {
	return optionFunc(func(c *config) { c.clientOpts = append(c.clientOpts, opts...) })
}

// NewClient starts a Server with opts and returns it with an SDK client
// of it, ready for a test: the client has the server's keys, base URL and
// http.Client, and waits ClientRetryWaitMin to ClientRetryWaitMax between
// retries; the server checks tokens strictly (WithStrictSigning), as the
// SDK signs them. The client options of WithClientOptions come last. t's
// Cleanup closes the client's idle connections and the server; a client
// that cannot be made fails the test.
func NewClient(t testing.TB, opts ...Option) (*acctadmin.Client, *Server) {
	t.Helper()
	srv := NewServer(append([]Option{WithStrictSigning()}, opts...)...)
	t.Cleanup(srv.Close)
	copts := append([]acctadmin.Option{
		acctadmin.WithBaseURL(srv.URL),
		acctadmin.WithHTTPClient(srv.Client()),
		acctadmin.WithRetryWait(ClientRetryWaitMin, ClientRetryWaitMax),
	}, srv.cfg.clientOpts...)
	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, copts...)
	if err != nil {
		t.Fatalf("acctadmintest: NewClient: %v", err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c, srv
}
