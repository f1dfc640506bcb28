package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/google/uuid"
	"github.com/spf13/cobra"
)

func (a *app) triggerCommand() *cobra.Command {
	var company, title, price string
	cmd := &cobra.Command{
		Use:   "trigger new-document|new-invoice [--company ID]",
		Short: "Make an event happen on the fake API (a new document or invoice)",
		Long: `Make an event happen on the fake API (acctadmin fake) through its control
surface: add a document or an unpaid invoice for a company, which the fake
announces to every registered callback, as the API would. --company takes a
company's id or name; without it the account's first company is used.

This works against the fake only: the real API has no control surface.`,
		Example: `  acctadmin trigger new-document
  acctadmin trigger new-invoice --company 'Acme Widgets LLC' --price 200.10
  acctadmin trigger new-document --title 'Service of Process' --json`,
		Args:      exactArgs(1),
		ValidArgs: []string{"new-document", "new-invoice"},
	}
	cmd.Flags().StringVar(&company, "company", "", "the company's `id` or name (default: the first company)")
	cmd.Flags().StringVar(&title, "title", "Notice from the Secretary of State", "the document's title (new-document)")
	cmd.Flags().StringVar(&price, "price", "149.00", "the invoice's amount (new-invoice)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var path string
		body := map[string]any{}
		switch args[0] {
		case "new-document":
			path = "documents"
			body["title"] = title
		case "new-invoice":
			path = "invoices"
			if !json.Valid([]byte(price)) || strings.ContainsAny(price, "eE") || strings.HasPrefix(price, "-") {
				return usageErrorf("--price %q: want an amount such as 149.00", price)
			}
			body["items"] = []map[string]any{{"price": json.Number(price), "description": "Registered agent service", "quantity": 1}}
		default:
			return usageErrorf("trigger makes new-document or new-invoice, not %q", args[0])
		}
		if _, err := a.checkJQ(); err != nil {
			return err
		}
		switch {
		case company == "":
			c, err := a.client()
			if err != nil {
				return err
			}
			companies, err := c.Companies.List(a.ctx)
			if err != nil {
				return err
			}
			if len(companies) == 0 {
				return usageErrorf("the account has no company; add one with `acctadmin companies create --name NAME`")
			}
			body["company_id"] = companies[0].ID.String()
		default:
			if id, err := uuid.Parse(company); err == nil {
				body["company_id"] = id.String()
			} else {
				body["company"] = company
			}
		}
		b, _ := json.Marshal(body)
		endpoint := strings.TrimRight(a.base(), "/") + acctadmintest.ControlPrefix + path
		if a.dryRun {
			fmt.Fprintf(a.stdout, "POST %s\nContent-Type: application/json\n\n%s\n", endpoint, b)
			return nil
		}
		record, err := a.control(http.MethodPost, endpoint, b)
		if err != nil {
			return err
		}
		if a.wantJSON() {
			return a.printJSON(record)
		}
		var r struct {
			ID          string `json:"id"`
			Company     string `json:"company"`
			CompanyName string `json:"company_name"`
		}
		_ = json.Unmarshal(record, &r)
		name := r.CompanyName
		if name == "" {
			name = r.Company
		}
		fmt.Fprintf(a.stdout, "%s %s  %s  (sent to every registered callback)\n", args[0], r.ID, name)
		return nil
	}
	return a.addDryRun(cmd)
}

// control sends a request to the fake's control surface and returns its
// answer's body.
func (a *app) control(method, endpoint string, body []byte) (json.RawMessage, error) {
	ctx := a.ctx
	req, err := http.NewRequestWithContext(ctx, method, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, usageErrorf("%s: %v", acctadminBaseHint, err)
	}
	req.Header.Set("Content-Type", "application/json")
	hc := &http.Client{Timeout: 30 * time.Second}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, exitError{1, fmt.Sprintf("trigger: the fake did not answer: %s; %s", connError(err), acctadminBaseHint)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(b, &e)
		msg := e.Error
		if msg == "" {
			msg = resp.Status
		}
		code := 1
		switch resp.StatusCode {
		case http.StatusNotFound:
			code = 3
			if strings.Contains(msg, "control endpoint") || e.Error == "" {
				msg += "; " + acctadminBaseHint
			}
		case http.StatusBadRequest:
			code = 2
		}
		return nil, exitError{code, "trigger: the fake refused: " + msg}
	}
	return b, nil
}

// acctadminBaseHint says where trigger sends its request.
const acctadminBaseHint = "trigger works against the fake (acctadmin fake): point ACCTADMIN_BASE_URL at it"
