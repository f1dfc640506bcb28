package acctadmin

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"
)

// CallOption changes one call, or the calls of one context: see
// WithCallOptions. A value it cannot use makes each call made with the
// context fail with a *ValidationError that names the option, before
// anything is sent.
type CallOption interface {
	applyCall(*callOptions)
}

// callOptionFunc is a CallOption that is a function.
type callOptionFunc func(*callOptions)

func (f callOptionFunc) applyCall(o *callOptions) { f(o) }

type callOptionsKey struct{}

// callOptions is what WithCallOptions gathered for a context.
type callOptions struct {
	set           callFields
	maxRetries    int
	waitMin       time.Duration
	waitMax       time.Duration
	timeout       time.Duration
	retryAfterMax time.Duration
	header        http.Header // canonical names; nil for none
	redact        []string    // the values of CallRedact, outer first
	err           error       // the first option that could not be used
}

// callFields says which of the client's settings a context's options
// replace.
type callFields uint8

const (
	setMaxRetries callFields = 1 << iota
	setRetryWait
	setTimeout
	setRetryAfterMax
)

// WithCallOptions returns a context whose calls use opts in place of the
// client's options: every call made with it, or with a context derived
// from it, by any method (List, All and its pages, Pull's listing and
// downloads, Client.Do, the mail room's calls). Options given to an
// outer WithCallOptions hold unless an inner one changes them.
//
//	ctx := acctadmin.WithCallOptions(ctx, acctadmin.CallMaxRetries(0),
//		acctadmin.CallTimeout(5*time.Second), acctadmin.CallHeader("X-Request-Id", id))
//	docs, err := c.Documents.List(ctx, nil)
//
// The options ride on the context, as WithResponseInto does, rather than
// as a variadic argument of each method, for three reasons: every method
// takes them the same way without a change of signature (methods with
// variadic arguments of their own, and iterators, have no room for more);
// All, Pull and the mail room pass them on to the requests they make on
// their own, which a per-method argument would have to be threaded
// through; and a program sets them once for a piece of work (a job's
// deadline and request id) rather than at each call.
//
// No option changes how a route is retried: a call sent at most once (a
// payment, a checkout, any write) is never sent again once it may have
// reached the API, whatever CallMaxRetries says. The client's rate limit
// (WithRateLimit) is not an option of a call: it is one budget for all.
func WithCallOptions(ctx context.Context, opts ...CallOption) context.Context {
	o := &callOptions{}
	if outer, _ := ctx.Value(callOptionsKey{}).(*callOptions); outer != nil {
		*o = *outer
		o.header = outer.header.Clone()
	}
	for _, opt := range opts {
		if opt != nil {
			opt.applyCall(o)
		}
	}
	return context.WithValue(ctx, callOptionsKey{}, o)
}

// refuse keeps the first reason an option could not be used.
func (o *callOptions) refuse(option, format string, args ...any) {
	if o.err == nil {
		o.err = invalid(option, format, args...)
	}
}

// CallMaxRetries replaces WithMaxRetries for a call: how many times a
// read, or the delete of a callback, is tried again (0 to 100). A call
// sent at most once is tried again only when the connection could not
// be made, however high n is.
func CallMaxRetries(n int) CallOption {
	return callOptionFunc(func(o *callOptions) {
		if n < 0 || n > maxRetriesLimit {
			o.refuse("CallMaxRetries", "retry count %d, want 0 to %d", n, maxRetriesLimit)
			return
		}
		o.set |= setMaxRetries
		o.maxRetries = n
	})
}

// CallRetryWait replaces WithRetryWait for a call: the bounds of the wait
// between its retries.
func CallRetryWait(min, max time.Duration) CallOption {
	return callOptionFunc(func(o *callOptions) {
		if min < 0 || max < 0 || max < min {
			o.refuse("CallRetryWait", "invalid bounds %s..%s", min, max)
			return
		}
		o.set |= setRetryWait
		o.waitMin, o.waitMax = min, max
	})
}

// CallTimeout replaces WithTimeout for a call: the bound of each of its
// attempts (for a file, of the wait for its headers). Zero turns it off.
// It bounds each attempt, not the call: bound the call, retries
// included, with the context's deadline.
func CallTimeout(d time.Duration) CallOption {
	return callOptionFunc(func(o *callOptions) {
		if d < 0 {
			o.refuse("CallTimeout", "negative timeout %s", d)
			return
		}
		o.set |= setTimeout
		o.timeout = d
	})
}

// CallMaxRetryAfter replaces WithMaxRetryAfter for a call: the longest
// Retry-After it waits before trying again. A longer one, or one that
// would outlast the context's deadline, ends it at once with
// ErrRateLimited.
func CallMaxRetryAfter(d time.Duration) CallOption {
	return callOptionFunc(func(o *callOptions) {
		if d < 0 {
			o.refuse("CallMaxRetryAfter", "negative wait %s", d)
			return
		}
		o.set |= setRetryAfterMax
		o.retryAfterMax = d
	})
}

// CallHeader sends the header key: value with every attempt of a call,
// in place of any value an outer CallHeader gave key. The headers the
// SDK owns are refused (Authorization, which carries the signature,
// Content-Type, Content-Length, User-Agent, Host, Accept-Encoding and the
// hop-by-hop headers), as are a name that is not a valid header name and
// a value with a line break or another control character: the call fails
// with a *ValidationError and nothing is sent. The value is sent as it
// is: put no secret in it that the server might echo.
func CallHeader(key, value string) CallOption {
	return callOptionFunc(func(o *callOptions) {
		name := http.CanonicalHeaderKey(key)
		switch {
		case !validHeaderName(key):
			o.refuse("CallHeader", "%q is not a header name", key)
			return
		case sdkHeaders[name]:
			o.refuse("CallHeader", "%s is set by the client", name)
			return
		case strings.ContainsFunc(value, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }):
			o.refuse("CallHeader", "control character in the value of %s", name)
			return
		}
		if o.header == nil {
			o.header = make(http.Header)
		}
		o.header[name] = []string{value}
	})
}

// CallRedact makes the calls made with the context take values out of
// every error, log line and hook they show, beside the secrets the SDK
// knows: a card number stored by an earlier call, the answers of a form,
// a customer's name, that a later call's answer may echo. A value is
// taken out wherever it occurs when it is 6 bytes long or more, and only
// where it stands alone when it is shorter (a 3-digit CVC; shorter
// values are not looked for); a value written as a number ("4111 1111
// 1111 1111", "123-45-6789") is taken out however its digits are
// grouped. An inner WithCallOptions adds its values to the outer ones.
// Client.Order puts the card's number and CVC and the form's values here
// for all its calls.
func CallRedact(values ...string) CallOption {
	values = slices.Clone(values)
	return callOptionFunc(func(o *callOptions) {
		o.redact = append(slices.Clip(o.redact), values...)
	})
}

// sdkHeaders are the headers a call may not set: the client, its signer
// or its transport sets them, and another value would break the call.
var sdkHeaders = map[string]bool{
	"Authorization": true, "Content-Type": true, "Content-Length": true,
	"User-Agent": true, "Host": true, "Accept-Encoding": true,
	"Connection": true, "Keep-Alive": true, "Proxy-Authorization": true,
	"Proxy-Connection": true, "Te": true, "Trailer": true,
	"Transfer-Encoding": true, "Upgrade": true, "Expect": true,
}

// validHeaderName reports whether s is a token of RFC 9110, as a header
// name must be.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// client returns c as a call made with o sees it: c itself when o
// changes none of its settings, or a copy with o's retries, waits,
// Retry-After cap and attempt timeout.
func (o *callOptions) client(c *Client) *Client {
	if o.set == 0 {
		return c
	}
	cc := *c
	if o.set&setMaxRetries != 0 {
		cc.maxRetries = o.maxRetries
	}
	if o.set&setRetryWait != 0 {
		cc.retryWaitMin, cc.retryWaitMax = o.waitMin, o.waitMax
	}
	if o.set&setRetryAfterMax != 0 {
		cc.retryAfterMax = o.retryAfterMax
	}
	if o.set&setTimeout != 0 {
		cc.httpClient = withAttemptTimeout(c.httpClient, o.timeout)
		cc.fileClient = withAttemptTimeout(c.fileClient, o.timeout)
	}
	return &cc
}

// withAttemptTimeout returns hc with its signing transport bounding each
// attempt by d instead.
func withAttemptTimeout(hc *http.Client, d time.Duration) *http.Client {
	t := *hc.Transport.(*authTransport)
	t.timeout = d
	h := *hc
	h.Transport = &t
	return &h
}
