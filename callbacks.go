package acctadmin

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// CallbacksClient manages the URLs the API posts events to (see webhook).
type CallbacksClient service

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

// jsonCallback is a Callback as the API writes it, without UnmarshalJSON,
// so that a list of them is read in one pass.
type jsonCallback struct {
	ID        uuid.UUID `json:"id"`
	CreatedAt Time      `json:"created_at"`
	URL       string    `json:"url"`
}

func (w *jsonCallback) callback() Callback {
	return Callback{ID: w.ID, CreatedAt: w.CreatedAt.Time, URL: w.URL}
}

// UnmarshalJSON reads a callback in every shape the API writes it.
func (cb *Callback) UnmarshalJSON(data []byte) error {
	var w jsonCallback
	err := readRecord(data, &w)
	*cb = w.callback()
	return err
}

// List returns every registered callback. GET /callbacks.
func (s *CallbacksClient) List(ctx context.Context) ([]Callback, error) {
	var list []jsonCallback
	if err := s.c.json(ctx, routeCallbacksList.at(), nil, nil, &list); err != nil {
		return nil, err
	}
	return records(list, (*jsonCallback).callback), nil
}

// Create registers callbackURL, an absolute http or https URL. Sent at most
// once (see the package doc). POST /callbacks.
func (s *CallbacksClient) Create(ctx context.Context, callbackURL string) (*Callback, error) {
	if err := checkCallbackURL(callbackURL); err != nil {
		return nil, err
	}
	var cb Callback
	if err := s.c.json(ctx, routeCallbacksCreate.at(), nil, map[string]string{"url": callbackURL}, &cb); err != nil {
		return nil, err
	}
	return &cb, nil
}

// Delete removes the callback id. DELETE /callbacks/:id.
func (s *CallbacksClient) Delete(ctx context.Context, id uuid.UUID) error {
	if err := checkID("id", id); err != nil {
		return err
	}
	return s.c.json(ctx, routeCallbacksDelete.at(id.String()), nil, nil, nil)
}

// Ensure makes sure callbackURL (compared as written) is registered exactly
// once and returns that registration: it lists, registers the URL if none
// has it, lists again and deletes its registrations but the oldest (by
// CreatedAt, then ID) that concurrent calls keep. GET/POST/DELETE /callbacks.
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
	if len(mine) == 0 { // the URL is not quoted: it may hold a secret
		return nil, cmp.Or(createErr, errors.New("acctadmin: callback created but not listed"))
	}
	for _, cb := range mine[1:] {
		if err := s.Delete(ctx, cb.ID); err != nil && !errors.Is(err, ErrNotFound) {
			return nil, err
		}
	}
	return &mine[0], nil
}

// registrationsOf returns the callbacks of cbs registered for u, oldest first.
func registrationsOf(cbs []Callback, u string) []Callback {
	out := slices.DeleteFunc(slices.Clone(cbs), func(cb Callback) bool { return cb.URL != u })
	slices.SortFunc(out, func(a, b Callback) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID.String(), b.ID.String()))
	})
	return out
}

func checkCallbackURL(s string) error {
	u, err := url.Parse(s)
	return firstErr(checkRequired("url", s),
		checkThat(err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "", "url", "want an absolute http or https URL"))
}
