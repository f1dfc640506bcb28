package acctadmin

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// CallbacksClient manages the callback URLs that the API posts events to
// (see the webhook package to receive them).
type CallbacksClient service

// The routes of callbacks.
var (
	routeCallbacksList   = declare(http.MethodGet, "/callbacks", "Callbacks.List")
	routeCallbacksCreate = declareOnce(http.MethodPost, "/callbacks", "Callbacks.Create",
		"Callbacks.List shows whether the URL was registered")
	routeCallbacksDelete = declareDelete("/callbacks/{id}", "Callbacks.Delete")
)

// Callback is a registered endpoint that receives event notifications.
type Callback struct {
	ID        uuid.UUID `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	URL       string    `json:"url"`
}

// UnmarshalJSON reads a callback in any shape the API writes it.
func (cb *Callback) UnmarshalJSON(data []byte) error { return decodeWire[callbackWire](data, cb) }

// callbackWire is a callback as the API writes it. It embeds the callback
// without its UnmarshalJSON, which would otherwise be its own.
type callbackWire struct {
	plainCallback
	CreatedAt Time `json:"created_at"`
}

type plainCallback Callback

func (w callbackWire) record() Callback {
	cb := Callback(w.plainCallback)
	cb.CreatedAt = w.CreatedAt.Time
	return cb
}

// List returns every registered callback. GET /callbacks.
func (s *CallbacksClient) List(ctx context.Context) ([]Callback, error) {
	return fromWires(call[wireList[callbackWire, Callback]](ctx, s.c, routeCallbacksList.at(), nil, nil))
}

// Create registers callbackURL, an absolute http or https URL, to receive
// events. It is sent at most once: a failure after the request may have
// arrived is ErrOutcomeUnknown, and List shows whether the URL was
// registered (Ensure does that check itself). POST /callbacks.
func (s *CallbacksClient) Create(ctx context.Context, callbackURL string) (*Callback, error) {
	if err := checkCallbackURL(callbackURL); err != nil {
		return nil, err
	}
	body := struct {
		URL string `json:"url"`
	}{callbackURL}
	return fromWire(call[callbackWire](ctx, s.c, routeCallbacksCreate.at(), nil, body))
}

// Delete removes the callback id. It is retried like a read; when a retry
// finds the callback gone (404) after an earlier attempt may have reached
// the API, that attempt deleted it and Delete succeeds. A 404 to the first
// attempt is ErrNotFound. DELETE /callbacks/:id.
func (s *CallbacksClient) Delete(ctx context.Context, id uuid.UUID) error {
	if err := checkID("id", id); err != nil {
		return err
	}
	_, err := call[ignored](ctx, s.c, routeCallbacksDelete.at(id.String()), nil, nil)
	return err
}

// Ensure makes sure that callbackURL is registered exactly once, whatever
// is registered now, and returns its registration. It lists the
// callbacks; when none has callbackURL it registers it, and in every case
// it lists again and deletes every registration of callbackURL but the
// oldest (earliest CreatedAt, then smallest ID). Callbacks of other URLs
// are never touched, and URLs are compared exactly as written.
//
// Listing after the create is what makes Ensure safe to repeat and to run
// at once from several processes: a create whose answer was lost (the
// API registered the URL, the client saw an error) is found by the second
// listing and kept, rather than registered again by the next call; and
// when several calls register the URL at the same time, each keeps the
// oldest registration it sees and deletes the others, so the oldest of
// all is never deleted and, once every call has returned, it is the only
// one left. A registration already deleted by another call (404) counts
// as deleted.
//
// A bad URL gives a *ValidationError and nothing is sent. An error from a
// listing or a deletion is returned as is; an error from the create is
// returned only when the second listing shows the URL unregistered.
func (s *CallbacksClient) Ensure(ctx context.Context, callbackURL string) (*Callback, error) {
	if err := checkCallbackURL(callbackURL); err != nil {
		return nil, err
	}
	before, err := s.List(ctx)
	if err != nil {
		return nil, err
	}
	var createErr error
	if len(registrationsOf(before, callbackURL)) == 0 {
		_, createErr = s.Create(ctx, callbackURL)
	}
	after, err := s.List(ctx)
	if err != nil {
		return nil, err
	}
	mine := registrationsOf(after, callbackURL)
	if len(mine) == 0 {
		if createErr != nil {
			return nil, createErr
		}
		return nil, errCallbackNotListed
	}
	for _, cb := range mine[1:] {
		if err := s.Delete(ctx, cb.ID); err != nil && !errors.Is(err, ErrNotFound) {
			return nil, err
		}
	}
	kept := mine[0]
	return &kept, nil
}

// errCallbackNotListed reports a create that answered without error while
// the listing after it does not show the URL. It does not quote the URL,
// which may carry a secret in its query.
var errCallbackNotListed = errors.New("acctadmin: callback created but not listed")

// registrationsOf returns the callbacks of cbs registered for u, oldest
// first (ties broken by ID, so that every caller orders them alike).
func registrationsOf(cbs []Callback, u string) []Callback {
	var out []Callback
	for _, cb := range cbs {
		if cb.URL == u {
			out = append(out, cb)
		}
	}
	slices.SortFunc(out, func(a, b Callback) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID.String(), b.ID.String())
	})
	return out
}

// ignored decodes any JSON value and keeps nothing: the result of an
// endpoint whose answer shape is not documented.
type ignored struct{}

// UnmarshalJSON accepts any value.
func (*ignored) UnmarshalJSON([]byte) error { return nil }

func checkCallbackURL(s string) error {
	if err := checkRequired("url", s); err != nil {
		return err
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return invalid("url", "want an absolute http or https URL")
	}
	return nil
}
