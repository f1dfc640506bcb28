package acctadmintest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/acctadmin/acctadmin-go/webhook"
)

// Delivery is one attempt to deliver an event to a callback URL, as
// Deliveries reports it.
type Delivery struct {
	// URL is the callback URL the event was posted to.
	URL string
	// Event is the event name: new-invoice or new-document.
	Event string
	// Claims are the claims of the token sent.
	Claims map[string]any
	// Token is the signed token sent as {"data": token}.
	Token string
	// Attempt counts the attempts for this event and URL, from 1.
	Attempt int
	// StatusCode is the receiver's status code, 0 when there was no
	// answer.
	StatusCode int
	// Err says why the attempt failed to get an answer, "" when it got
	// one.
	Err string
	// Delivered says the receiver answered 2xx.
	Delivered bool
	// Final says no attempt follows for this event and URL: it was
	// delivered, or this was the last attempt.
	Final bool
	Time  time.Time
}

// WithDeliveryClient makes the fake deliver events with client, for
// receivers that need more than the default client (a TLS test server's
// certificate, say). Redirects should not be followed.
func WithDeliveryClient(client *http.Client) Option {
	return optionFunc(func(c *config) { c.deliveryClient = client })
}

func newDeliveryClient(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			// Events go only to the registered URLs, never through a proxy.
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: timeout}).DialContext,
			TLSHandshakeTimeout: timeout,
			DisableKeepAlives:   true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// emit signs an event and delivers it to every registered callback, each
// in its own goroutine, which Close waits for.
func (f *Fake) emit(claims map[string]any) {
	token, err := webhook.Sign(claims, []byte(f.SecretKey), webhook.WithSignAccessKey(f.AccessKey))
	if err != nil {
		panic("acctadmintest: signing an event: " + err.Error())
	}
	event, _ := claims["event"].(string)
	f.dispatch(event, claims, token, nil, 1)
}

// dispatch delivers a signed event to urls (every registered callback
// when nil), copies times each, each delivery in its own goroutine, which
// Close waits for.
func (f *Fake) dispatch(event string, claims map[string]any, token string, urls []string, copies int) {
	body, _ := json.Marshal(map[string]string{"data": token})
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return
	}
	if urls == nil {
		urls = mapRows(f.st.callbacks.rows, func(cb *Callback) string { return cb.URL })
	}
	f.wg.Add(len(urls) * copies)
	f.mu.Unlock()

	for _, u := range urls {
		for range copies {
			go f.deliver(u, event, claims, token, body)
		}
	}
}

// deliver posts one event to one URL, retrying a failure with backoff.
func (f *Fake) deliver(url, event string, claims map[string]any, token string, body []byte) {
	defer f.wg.Done()
	wait := f.cfg.deliveryBackoff
	for attempt := 1; ; attempt++ {
		status, err := f.post(url, body)
		d := Delivery{
			URL:        url,
			Event:      event,
			Claims:     maps.Clone(claims),
			Token:      token,
			Attempt:    attempt,
			StatusCode: status,
			Delivered:  err == nil && status >= 200 && status < 300,
			Time:       f.now(),
		}
		if err != nil {
			d.Err = err.Error()
		}
		d.Final = d.Delivered || attempt >= f.cfg.deliveryAttempts || f.ctx.Err() != nil
		f.recordDelivery(d)
		if d.Final {
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-f.ctx.Done():
			t.Stop()
			return
		}
		wait *= 2
	}
}

// post makes one delivery attempt and returns the receiver's status code.
func (f *Fake) post(url string, body []byte) (int, error) {
	if df, ok := f.deliveryFault(url); ok {
		if df.Latency > 0 {
			t := time.NewTimer(df.Latency)
			select {
			case <-t.C:
			case <-f.ctx.Done():
				t.Stop()
				return 0, f.ctx.Err()
			}
		}
		if df.Drop {
			return 0, errDropped
		}
	}
	req, err := http.NewRequestWithContext(f.ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "acctadmintest")
	resp, err := f.client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

func (f *Fake) recordDelivery(d Delivery) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deliveries = append(f.deliveries, d)
	if n := trimmed(len(f.deliveries), f.cfg.logLimit); n > 0 {
		f.deliveries = slices.Clone(f.deliveries[n:])
	}
	if d.Final {
		f.finished++
	}
	close(f.changed)
	f.changed = make(chan struct{})
}

// Deliveries returns every delivery attempt so far, in the order they
// ended.
func (f *Fake) Deliveries() []Delivery {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.deliveriesCopy()
}

func (f *Fake) deliveriesCopy() []Delivery {
	out := make([]Delivery, len(f.deliveries))
	for i, d := range f.deliveries {
		d.Claims = maps.Clone(d.Claims)
		out[i] = d
	}
	return out
}

// WaitDeliveries waits until n deliveries have ended, and returns every
// attempt so far. A delivery is one event for one callback URL; it ends
// when it is delivered or its last attempt failed. It returns ctx's error
// (with the attempts so far) if ctx ends first.
func (f *Fake) WaitDeliveries(ctx context.Context, n int) ([]Delivery, error) {
	for {
		f.mu.Lock()
		if f.finished >= n {
			out := f.deliveriesCopy()
			f.mu.Unlock()
			return out, nil
		}
		changed := f.changed
		f.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return f.Deliveries(), ctx.Err()
		}
	}
}
