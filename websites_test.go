package acctadmin

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

const websiteJSON = `{
	"id":"2a4c6e80-1b3d-4f5a-9c7e-0d2f4a6c8e01","name":"Acme Registered Agents","url":"https://www.acme-agents.example",
	"billing_name":"Acme Agents LLC","login_url":"https://www.acme-agents.example/login",
	"created_at":"2024-05-01 10:00:00 -0600","updated_at":"2024-05-01T10:00:00.123-06:00",
	"emails":["help@acme-agents.example","billing@acme-agents.example"],"phone_numbers":null,
	"addresses":[
		{"line_1":"123 Main St","line_2":"Suite 4","city":"Salt Lake City","state":"UT","zip_code":"84101","country":"USA","kind":"mailing"},
		{"line_1":"PO Box 9","line_2":null,"city":"Boise","state":"ID","zip_code":"83701","country":"USA"}
	],
	"theme":{"color":"blue"}
}`

func TestWebsitesGetRequest(t *testing.T) {
	srv := newAPIServer(t, ok(websiteJSON))
	c := newTestClient(t, srv)
	if _, err := c.Websites.Get(context.Background(), "https://www.acme-agents.example/?ref=a&b=c d"); err != nil {
		t.Fatal(err)
	}
	requireSent(t, srv, http.MethodGet, "/websites", "url=https%3A%2F%2Fwww.acme-agents.example%2F%3Fref%3Da%26b%3Dc+d")
}

func TestWebsitesGetDecodes(t *testing.T) {
	srv := newAPIServer(t, okText(websiteJSON))
	c := newTestClient(t, srv)
	got, err := c.Websites.Get(context.Background(), "https://www.acme-agents.example")
	if err != nil {
		t.Fatal(err)
	}
	requireSent(t, srv, http.MethodGet, "/websites", "url=https%3A%2F%2Fwww.acme-agents.example")
	if !got.CreatedAt.Equal(time.Date(2024, 5, 1, 16, 0, 0, 0, time.UTC)) || !got.UpdatedAt.Equal(time.Date(2024, 5, 1, 16, 0, 0, 123e6, time.UTC)) {
		t.Fatalf("times %v %v", got.CreatedAt, got.UpdatedAt)
	}
	w := *got
	w.CreatedAt, w.UpdatedAt = time.Time{}, time.Time{}
	want := Website{
		ID: uuid.MustParse("2a4c6e80-1b3d-4f5a-9c7e-0d2f4a6c8e01"), Name: "Acme Registered Agents", URL: "https://www.acme-agents.example",
		BillingName: "Acme Agents LLC", LoginURL: "https://www.acme-agents.example/login",
		Emails: []string{"help@acme-agents.example", "billing@acme-agents.example"},
		Addresses: []Address{
			{Line1: "123 Main St", Line2: "Suite 4", City: "Salt Lake City", State: "UT", ZipCode: "84101", Country: "USA"},
			{Line1: "PO Box 9", City: "Boise", State: "ID", ZipCode: "83701", Country: "USA"},
		},
	}
	if !reflect.DeepEqual(w, want) {
		t.Fatalf("website\n got %+v\nwant %+v", w, want)
	}
}

func TestWebsitesGetRequiresURL(t *testing.T) {
	for _, u := range []string{"", " "} {
		srv := newAPIServer(t, ok(websiteJSON))
		c := newTestClient(t, srv)
		got, err := c.Websites.Get(context.Background(), u)
		if got != nil {
			t.Fatalf("got %v with an error", got)
		}
		requireRefused(t, srv, err, "url")
	}
}

func TestWebsitesGetWrongFieldType(t *testing.T) {
	for _, tc := range []struct {
		name, result, path string
	}{
		{"zip code", `{"name":"A","addresses":[{"zip_code":"84101"},{"zip_code":84101}]}`, "result.addresses[1].zip_code"},
		{"updated at", `{"name":"A","updated_at":"yesterday"}`, "result.updated_at"},
		{"an array", `[` + websiteJSON + `]`, "result"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(tc.result))
			c := newTestClient(t, srv)
			got, err := c.Websites.Get(context.Background(), "https://www.acme-agents.example")
			if got != nil {
				t.Fatalf("got %v with an error", got)
			}
			requireDecodeError(t, err, "GET /websites", tc.path)
		})
	}
}

func TestWebsitesGetNotFound(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, `{"success":false,"message":"website not found"}`)
	})
	c := newTestClient(t, srv)
	got, err := c.Websites.Get(context.Background(), "https://unknown.example")
	var apiErr *APIError
	if got != nil || !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound || apiErr.Path != "/websites" || apiErr.Message != "website not found" {
		t.Fatalf("Get = %v, %v; want a 404 *APIError", got, err)
	}
}

// The real API answers a URL no website is registered as with success
// and {"website": null} (spec/recorded-behaviour.md, W1): Get makes that
// ErrNotFound, an *APIError that says the URL is not registered.
func TestWebsitesGetUnregisteredURLIsNotFound(t *testing.T) {
	for name, body := range map[string]string{
		"recorded":    `{"success":true,"timestamp":"2024-05-01 10:00:00 -0600","result":{"website":null}}`,
		"null result": `{"success":true,"result":null}`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusOK, body) })
			c := newTestClient(t, srv)
			got, err := c.Websites.Get(context.Background(), "https://www.registeredagentsinc.com/")
			var apiErr *APIError
			if got != nil || !errors.Is(err, ErrNotFound) || !errors.As(err, &apiErr) {
				t.Fatalf("Get = %+v, %v; want ErrNotFound as an *APIError", got, err)
			}
			if apiErr.StatusCode != http.StatusNotFound || apiErr.Method != http.MethodGet || apiErr.Path != "/websites" ||
				!strings.Contains(apiErr.Message, "no website is registered as this url") || string(apiErr.Body) != body {
				t.Fatalf("error %+v", apiErr)
			}
			if strings.Contains(err.Error(), "registeredagentsinc") {
				t.Fatalf("the error shows the query: %v", err)
			}
			requireSent(t, srv, http.MethodGet, "/websites", "url=https%3A%2F%2Fwww.registeredagentsinc.com%2F")
			if srv.count() != 1 {
				t.Fatalf("%d requests, want 1", srv.count())
			}
		})
	}
}

// The URL goes as given, scheme-less as the website was registered, and
// the record is read flat or nested under "website".
func TestWebsitesGetFlatOrNested(t *testing.T) {
	for name, result := range map[string]string{"flat": websiteJSON, "nested": `{"website":` + websiteJSON + `}`} {
		t.Run(name, func(t *testing.T) {
			srv := newAPIServer(t, ok(result))
			c := newTestClient(t, srv)
			got, err := c.Websites.Get(context.Background(), "www.acme-agents.example")
			if err != nil || got.ID != uuid.MustParse("2a4c6e80-1b3d-4f5a-9c7e-0d2f4a6c8e01") || got.URL != "https://www.acme-agents.example" ||
				len(got.Addresses) != 2 || got.Addresses[1].City != "Boise" || len(got.Emails) != 2 {
				t.Fatalf("Get = %+v, %v", got, err)
			}
			requireSent(t, srv, http.MethodGet, "/websites", "url=www.acme-agents.example")
		})
	}
}

// A website's address is read in the registered agent's shape too.
func TestAddressShapes(t *testing.T) {
	want := Address{Line1: "7901 4th St N", Line2: "STE 300", City: "St. Petersburg", State: "FL", ZipCode: "33702"}
	for _, data := range []string{
		`{"line1":"7901 4th St N","line2":"STE 300","city":"St. Petersburg","state_province_region":"FL","zip_postal_code":"33702"}`,
		`{"line_1":"7901 4th St N","line_2":"STE 300","city":"St. Petersburg","state":"FL","zip_code":"33702"}`,
	} {
		var got Address
		if err := json.Unmarshal([]byte(data), &got); err != nil || got != want {
			t.Errorf("%s: %+v, %v; want %+v", data, got, err, want)
		}
	}
	// The website's own names win over the agent's when both are given.
	var both Address
	if err := json.Unmarshal([]byte(`{"state":"Utah","state_province_region":"UT"}`), &both); err != nil || both.State != "Utah" {
		t.Errorf("both names: %+v, %v", both, err)
	}
}
