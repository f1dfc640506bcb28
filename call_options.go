package acctadmin

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"
)

// CallOption changes the calls of one context (WithCallOptions); given a
// value it cannot use, it fails each call, unsent, with a *ValidationError.
type CallOption interface {
	applyCall(*callOptions)
}

type callOptionFunc func(*callOptions)

func (f callOptionFunc) applyCall(o *callOptions) { f(o) }

type callOptionsKey struct{}

// callOptions is what WithCallOptions gathered for a context.
type callOptions struct {
	edits  []func(*Client) // the client's settings the options replace, outer first
	header http.Header     // canonical names; nil for none
	redact []string        // the values of CallRedact, outer first
	err    error           // the first option that could not be used
}

// WithCallOptions returns a context whose calls (see the package doc) use
// opts in place of the client's options; an inner WithCallOptions
// overrides an outer one. No option changes which calls are retried, nor
// the client's rate limit.
//
//	ctx := acctadmin.WithCallOptions(ctx, acctadmin.CallMaxRetries(0),
//		acctadmin.CallTimeout(5*time.Second), acctadmin.CallHeader("X-Request-Id", id))
//	docs, err := c.Documents.List(ctx, nil)
func WithCallOptions(ctx context.Context, opts ...CallOption) context.Context {
	o := &callOptions{}
	if outer, _ := ctx.Value(callOptionsKey{}).(*callOptions); outer != nil {
		*o = *outer
		o.edits = slices.Clip(o.edits)
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

// callEdit is a CallOption that edits the client or, when bad, fails.
func callEdit(bad bool, option string, edit func(*Client), format string, args ...any) CallOption {
	return callOptionFunc(func(o *callOptions) {
		if bad {
			o.refuse(option, format, args...)
			return
		}
		o.edits = append(o.edits, edit)
	})
}

// CallMaxRetries replaces WithMaxRetries for a call (0 to 100).
func CallMaxRetries(n int) CallOption {
	return callEdit(n < 0 || n > maxRetriesLimit, "CallMaxRetries", func(c *Client) { c.maxRetries = n },
		"retry count %d, want 0 to %d", n, maxRetriesLimit)
}

// CallRetryWait replaces WithRetryWait for a call.
func CallRetryWait(min, max time.Duration) CallOption {
	return callEdit(min < 0 || max < 0 || max < min, "CallRetryWait", func(c *Client) { c.retryWaitMin, c.retryWaitMax = min, max },
		"invalid bounds %s..%s", min, max)
}

// CallTimeout replaces WithTimeout for a call: it bounds each attempt;
// bound the call, retries included, with the context's deadline.
func CallTimeout(d time.Duration) CallOption {
	return callEdit(d < 0, "CallTimeout", func(c *Client) {
		c.httpClient = withAttemptTimeout(c.httpClient, d)
		c.fileClient = withAttemptTimeout(c.fileClient, d)
	}, "negative timeout %s", d)
}

// CallMaxRetryAfter replaces WithMaxRetryAfter for a call.
func CallMaxRetryAfter(d time.Duration) CallOption {
	return callEdit(d < 0, "CallMaxRetryAfter", func(c *Client) { c.retryAfterMax = d }, "negative wait %s", d)
}

// CallHeader sends the header key: value with every attempt of a call, in
// place of an outer CallHeader's value. The headers the SDK sets
// (Authorization, Content-Type, User-Agent, …), an invalid name and a
// control character are refused. The value is sent, and may be echoed,
// as it is: put no secret in it.
func CallHeader(key, value string) CallOption {
	name := http.CanonicalHeaderKey(key)
	return callOptionFunc(func(o *callOptions) {
		switch {
		case !validHeaderName(key):
			o.refuse("CallHeader", "%q is not a header name", key)
		case sdkHeaders[name]:
			o.refuse("CallHeader", "%s is set by the client", name)
		case strings.ContainsFunc(value, isControl):
			o.refuse("CallHeader", "control character in the value of %s", name)
		case o.header == nil:
			o.header = http.Header{name: {value}}
		default:
			o.header[name] = []string{value}
		}
	})
}

// CallRedact makes the calls of the context redact values as a form's
// values are (see Redaction in the package doc): a card stored earlier, a
// customer's name a later answer may echo. Inner values add to outer ones.
func CallRedact(values ...string) CallOption {
	values = slices.Clone(values)
	return callOptionFunc(func(o *callOptions) {
		o.redact = append(slices.Clip(o.redact), values...)
	})
}

// sdkHeaders are the headers the client, its signer or transport sets.
var sdkHeaders = map[string]bool{
	"Authorization": true, "Content-Type": true, "Content-Length": true,
	"User-Agent": true, "Host": true, "Accept-Encoding": true,
	"Connection": true, "Keep-Alive": true, "Proxy-Authorization": true,
	"Proxy-Connection": true, "Te": true, "Trailer": true,
	"Transfer-Encoding": true, "Upgrade": true, "Expect": true,
}

// isControl reports whether r is a control character other than a tab.
func isControl(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }

// validHeaderName reports whether s is a token of RFC 9110.
func validHeaderName(s string) bool {
	return s != "" && strings.Trim(s, "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
}

// client returns the copy of c that a call made with o sees.
func (o *callOptions) client(c *Client) *Client {
	cc := *c
	for _, edit := range o.edits {
		edit(&cc)
	}
	return &cc
}

// withAttemptTimeout returns hc with each attempt bounded by d instead.
func withAttemptTimeout(hc *http.Client, d time.Duration) *http.Client {
	t := *hc.Transport.(*authTransport)
	t.timeout = d
	h := *hc
	h.Transport = &t
	return &h
}
