package acctadmin

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/google/uuid"
)

// CallbacksClient manages the callback URLs that the API posts events to
// (see the webhook package to receive them).
type CallbacksClient service

// Callback is a registered endpoint that receives event notifications.
type Callback struct {
	ID        uuid.UUID `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	URL       string    `json:"url"`
}

// callbackWire is a callback as the API writes it.
type callbackWire struct {
	Callback
	CreatedAt Time `json:"created_at"`
}

func (w callbackWire) record() Callback {
	cb := w.Callback
	cb.CreatedAt = w.CreatedAt.Time
	return cb
}

// List returns every registered callback. GET /callbacks.
func (s *CallbacksClient) List(ctx context.Context) ([]Callback, error) {
	return requestRecords[callbackWire](ctx, s.c, http.MethodGet, "/callbacks", nil, nil)
}

// Create registers callbackURL, an absolute http or https URL, to receive
// events. POST /callbacks.
func (s *CallbacksClient) Create(ctx context.Context, callbackURL string) (*Callback, error) {
	if err := checkCallbackURL(callbackURL); err != nil {
		return nil, err
	}
	body := struct {
		URL string `json:"url"`
	}{callbackURL}
	return requestRecord[callbackWire](ctx, s.c, http.MethodPost, "/callbacks", nil, body)
}

// Delete removes the callback id. DELETE /callbacks/:id.
func (s *CallbacksClient) Delete(ctx context.Context, id uuid.UUID) error {
	if err := checkID("id", id); err != nil {
		return err
	}
	_, err := request[ignored](ctx, s.c, http.MethodDelete, "/callbacks/"+id.String(), nil, nil)
	return err
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
