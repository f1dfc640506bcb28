package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/google/uuid"
	"github.com/spf13/cobra"
)

// maxForwardAttempts bounds the attempts to forward one event.
const maxForwardAttempts = 5

func (a *app) listenCommand() *cobra.Command {
	var forwardTo string
	var interval time.Duration
	cmd := &cobra.Command{
		Use:   "listen --forward-to URL",
		Short: "Relay the account's new documents and invoices to a local handler, signed as the API signs callbacks",
		Long: `Watch the account and post each new event to a local handler, signed exactly
as the API signs its callbacks, so that a handler can be developed on a laptop
that the API cannot reach.

listen reads the unread documents and the invoices every --interval; a
document or an invoice it had not seen (or one created since listen started)
is an event, new-document or new-invoice. Each is posted to URL as the API
posts it: {"data": "<jwt>"}, the token signed HS256 with the account's secret
key (package webhook's Sign), the access key in its header, and the claims
event, document_id or invoice_id, company_id and company_name. Each event is
printed with the handler's answer; a handler that fails is tried again at the
next polls, up to 5 times in all. Ctrl-C stops listen.`,
		Example: `  acctadmin listen --forward-to http://localhost:8080/callbacks
  acctadmin listen --forward-to http://localhost:8080/callbacks --interval 2s`,
		Args: noArgs,
	}
	cmd.Flags().StringVar(&forwardTo, "forward-to", "", "the handler's `URL` (required)")
	cmd.Flags().DurationVar(&interval, "interval", 5*time.Second, "time between two polls of the account")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if forwardTo == "" {
			return usageErrorf("listen needs --forward-to URL, the handler to post the events to")
		}
		u, err := url.Parse(forwardTo)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usageErrorf("--forward-to %q: want an absolute http or https URL", redactURL(forwardTo))
		}
		if interval < 10*time.Millisecond {
			return usageErrorf("--interval must be at least 10ms, got %s", interval)
		}
		c, err := a.client()
		if err != nil {
			return err
		}
		access, secret, _ := a.keys()
		l := &listener{a: a, c: c, url: forwardTo, access: access, secret: []byte(secret),
			seen: map[uuid.UUID]bool{}, hc: &http.Client{Timeout: 10 * time.Second}}
		return l.run(interval)
	}
	return cmd
}

// event is an event that listen forwards.
type event struct {
	name        string
	id          uuid.UUID
	company     uuid.UUID
	companyName string
	attempts    int
}

// listener is a run of listen.
type listener struct {
	a      *app
	c      *acctadmin.Client
	url    string
	access string
	secret []byte
	hc     *http.Client

	seen    map[uuid.UUID]bool
	retry   []*event
	started time.Time
	sent    int
}

// run polls until the context ends.
func (l *listener) run(interval time.Duration) error {
	// Records carry whole seconds: anything created in the second listen
	// started, or later, is new.
	l.started = time.Now().Truncate(time.Second)
	fmt.Fprintf(l.a.stderr, "listening to the account every %s; forwarding to %s (Ctrl-C stops)\n", interval, redactURL(l.url))
	first := true
	for {
		if err := l.poll(first); err != nil {
			if l.a.ctx.Err() != nil {
				break
			}
			// A failed poll is tried again at the next interval.
			code, msg := describe(err)
			fmt.Fprintf(l.a.stderr, "poll failed: %s\n", oneLine(msg))
			if code == 4 {
				return err
			}
		}
		first = false
		select {
		case <-l.a.ctx.Done():
		case <-time.After(interval):
			continue
		}
		break
	}
	fmt.Fprintf(l.a.stderr, "stopped after forwarding %d event(s)\n", l.sent)
	return nil
}

// poll reads the unread documents and the invoices, and forwards what is
// new. The first poll takes what is there as seen, except what was made
// since listen started.
func (l *listener) poll(first bool) error {
	var fresh []*event
	for d, err := range l.c.Documents.All(l.a.ctx, nil) {
		if err != nil {
			return err
		}
		if l.seen[d.ID] || d.ID == uuid.Nil {
			continue
		}
		l.seen[d.ID] = true
		if !first || !d.CreatedAt.Before(l.started) {
			fresh = append(fresh, &event{name: webhook.EventNewDocument, id: d.ID, company: d.CompanyID, companyName: d.CompanyName})
		}
	}
	for inv, err := range l.c.Invoices.All(l.a.ctx, nil) {
		if err != nil {
			return err
		}
		if l.seen[inv.ID] || inv.ID == uuid.Nil {
			continue
		}
		l.seen[inv.ID] = true
		if !first || !inv.CreatedAt.Before(l.started) {
			fresh = append(fresh, &event{name: webhook.EventNewInvoice, id: inv.ID, company: inv.CompanyID, companyName: inv.Company})
		}
	}
	pending := append(l.retry, fresh...)
	l.retry = nil
	for _, ev := range pending {
		if l.a.ctx.Err() != nil {
			return nil
		}
		if !l.forward(ev) && ev.attempts < maxForwardAttempts {
			l.retry = append(l.retry, ev)
		}
	}
	return nil
}

// claims are the claims of an event, as the API signs them.
func (ev *event) claims() map[string]any {
	idClaim := "document_id"
	if ev.name == webhook.EventNewInvoice {
		idClaim = "invoice_id"
	}
	return map[string]any{
		"event":        ev.name,
		idClaim:        ev.id.String(),
		"company_id":   ev.company.String(),
		"company_name": ev.companyName,
	}
}

// forward posts one event to the handler and prints its answer; it
// reports whether the handler took it (2xx).
func (l *listener) forward(ev *event) bool {
	ev.attempts++
	token, err := webhook.Sign(ev.claims(), l.secret, webhook.WithSignAccessKey(l.access))
	if err != nil {
		fmt.Fprintf(l.a.stdout, "%s %s  %s  -> not sent: %v\n", ev.name, ev.id, ev.companyName, err)
		return false
	}
	body, _ := json.Marshal(map[string]string{"data": token})
	ctx, cancel := context.WithTimeout(l.a.ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.url, bytes.NewReader(body))
	if err != nil {
		fmt.Fprintf(l.a.stdout, "%s %s  %s  -> not sent: %s\n", ev.name, ev.id, ev.companyName, connError(err))
		return false
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "acctadmin-cli/"+version+" (listen)")
	resp, err := l.hc.Do(req)
	again := ""
	if ev.attempts > 1 {
		again = fmt.Sprintf(" (attempt %d)", ev.attempts)
	}
	if err != nil {
		fmt.Fprintf(l.a.stdout, "%s %s  %s  -> no answer%s: %s\n", ev.name, ev.id, ev.companyName, again, connError(err))
		return false
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	fmt.Fprintf(l.a.stdout, "%s %s  %s  -> %s%s\n", ev.name, ev.id, ev.companyName, resp.Status, again)
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	if ok {
		l.sent++
	}
	return ok
}

// connError says why a post got no answer, without the URL that
// url.Error repeats.
func connError(err error) string {
	if ue, ok := err.(*url.Error); ok {
		err = ue.Err
	}
	return oneLine(err.Error())
}
