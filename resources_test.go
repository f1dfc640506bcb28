package acctadmin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// Helpers shared by the tests of the resource files.

// sendFile answers 200 with a binary body of the given type and name.
func sendFile(contentType, filename string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		if filename != "" {
			w.Header().Set("Content-Disposition", `attachment; filename="`+filename+`"`)
		}
		_, _ = w.Write(body)
	}
}

// Tests of resources.go.

var resourceID = uuid.MustParse("3c1e8a5b-9d7f-4b2a-a6e4-1f0c2d3b4a01")

const resourcesJSON = `[
	{"id":"3c1e8a5b-9d7f-4b2a-a6e4-1f0c2d3b4a01","name":"Articles of Organization","url":"https://corporations.utah.gov/articles.pdf",
	 "kind":"document","jurisdiction":"Utah","agency":"Division of Corporations","entity_types":["LLC","Corporation"],"pages":3,"extra":{"a":1}},
	{"id":"3c1e8a5b-9d7f-4b2a-a6e4-1f0c2d3b4a02","name":"Business search","url":"https://sos.idaho.gov/search",
	 "kind":"portal","jurisdiction":"Idaho","agency":"Secretary of State","entity_types":null}
]`

func TestResourcesListRequest(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv)
	_, err := c.Resources.List(context.Background(), &ResourceListParams{
		Limit: 20, Offset: 40, EntityType: "LLC", Agency: "Division of Corporations", Jurisdiction: "Utah", Name: "Articles & Bylaws",
	})
	if err != nil {
		t.Fatal(err)
	}
	requireSent(t, srv, http.MethodGet, "/resources",
		"limit=20&offset=40&entity_type=LLC&agency=Division+of+Corporations&jurisdiction=Utah&name=Articles+%26+Bylaws")
}

func TestResourcesListNilParamsSendsNoQuery(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv)
	got, err := c.Resources.List(context.Background(), nil)
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("List = %v, %v; want an empty list", got, err)
	}
	requireSent(t, srv, http.MethodGet, "/resources", "")
}

func TestResourcesListDecodes(t *testing.T) {
	srv := newAPIServer(t, okText(resourcesJSON))
	c := newTestClient(t, srv)
	got, err := c.Resources.List(context.Background(), &ResourceListParams{EntityType: "LLC", Jurisdiction: "Utah"})
	if err != nil {
		t.Fatal(err)
	}
	requireSent(t, srv, http.MethodGet, "/resources", "entity_type=LLC&jurisdiction=Utah")
	want := []Resource{
		{
			ID: resourceID, Name: "Articles of Organization", URL: "https://corporations.utah.gov/articles.pdf",
			Kind: ResourceKindDocument, Jurisdiction: "Utah", Agency: "Division of Corporations", EntityTypes: []string{"LLC", "Corporation"},
		},
		{
			ID: uuid.MustParse("3c1e8a5b-9d7f-4b2a-a6e4-1f0c2d3b4a02"), Name: "Business search", URL: "https://sos.idaho.gov/search",
			Kind: ResourceKind("portal"), Jurisdiction: "Idaho", Agency: "Secretary of State",
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("resources\n got %+v\nwant %+v", got, want)
	}
}

func TestResourcesListValidation(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     ResourceListParams
		field string
	}{
		{"limit above 200", ResourceListParams{Limit: 201}, "limit"},
		{"negative limit", ResourceListParams{Limit: -1}, "limit"},
		{"negative offset", ResourceListParams{Offset: -5}, "offset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(`[]`))
			c := newTestClient(t, srv)
			got, err := c.Resources.List(context.Background(), &tc.p)
			if got != nil {
				t.Fatalf("got %v with an error", got)
			}
			requireRefused(t, srv, err, tc.field)
		})
	}
}

func TestResourcesListAcceptsTheMaximumLimit(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv)
	if _, err := c.Resources.List(context.Background(), &ResourceListParams{Limit: 200}); err != nil {
		t.Fatal(err)
	}
	requireSent(t, srv, http.MethodGet, "/resources", "limit=200")
}

func TestResourcesListWrongFieldType(t *testing.T) {
	srv := newAPIServer(t, ok(`[{"id":"3c1e8a5b-9d7f-4b2a-a6e4-1f0c2d3b4a01","name":"A"},{"id":"3c1e8a5b-9d7f-4b2a-a6e4-1f0c2d3b4a02","entity_types":"LLC"}]`))
	c := newTestClient(t, srv)
	got, err := c.Resources.List(context.Background(), nil)
	if got != nil {
		t.Fatalf("got %v with an error", got)
	}
	requireDecodeError(t, err, "GET /resources", "result[1].entity_types")
}

func resourceJSON(i int) string {
	return fmt.Sprintf(`{"id":"%s","name":"Form %d","kind":"document","jurisdiction":"Utah","entity_types":["LLC"]}`, indexID(i), i)
}

func TestResourcesAllPages(t *testing.T) {
	srv := newAPIServer(t, offsetPager(450, resourceJSON))
	c := newTestClient(t, srv)
	got, errs := collectSeq(c.Resources.All(context.Background(), &ResourceListParams{Jurisdiction: "Utah"}))
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if len(got) != 450 {
		t.Fatalf("got %d resources, want 450", len(got))
	}
	for i, r := range got {
		if r.ID != indexID(i) || r.Name != "Form "+strconv.Itoa(i) {
			t.Fatalf("resource %d is %s %q", i, r.ID, r.Name)
		}
	}
	for _, r := range srv.requests() {
		if !r.AuthOK {
			t.Fatalf("request %s did not verify: %s", r.RawQuery, r.AuthErr)
		}
	}
	checkPagesAsked(t, srv, "limit=200&jurisdiction=Utah", "limit=200&offset=200&jurisdiction=Utah", "limit=200&offset=400&jurisdiction=Utah")
}

func TestResourcesAllWithLimitAndOffset(t *testing.T) {
	srv := newAPIServer(t, offsetPager(10, resourceJSON))
	c := newTestClient(t, srv)
	got, errs := collectSeq(c.Resources.All(context.Background(), &ResourceListParams{Limit: 3, Offset: 2}))
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	var ids []uuid.UUID
	for _, r := range got {
		ids = append(ids, r.ID)
	}
	wantIDs := []uuid.UUID{indexID(2), indexID(3), indexID(4), indexID(5), indexID(6), indexID(7), indexID(8), indexID(9)}
	if !reflect.DeepEqual(ids, wantIDs) {
		t.Fatalf("ids %v, want %v", ids, wantIDs)
	}
	checkPagesAsked(t, srv, "limit=3&offset=2", "limit=3&offset=5", "limit=3&offset=8")
}

func TestResourcesAllValidation(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv)
	got, errs := collectSeq(c.Resources.All(context.Background(), &ResourceListParams{Limit: 500}))
	if len(got) != 0 || len(errs) != 1 {
		t.Fatalf("got %d items and errors %v, want one error", len(got), errs)
	}
	requireRefused(t, srv, errs[0], "limit")
}

func TestResourcesGet(t *testing.T) {
	srv := newAPIServer(t, ok(`{"id":"3c1e8a5b-9d7f-4b2a-a6e4-1f0c2d3b4a01","name":"Articles of Organization","url":"https://corporations.utah.gov/articles.pdf",
		"kind":"url","jurisdiction":"Utah","agency":"Division of Corporations","entity_types":["LLC"],"unknown":[1,2]}`))
	c := newTestClient(t, srv)
	got, err := c.Resources.Get(context.Background(), resourceID)
	if err != nil {
		t.Fatal(err)
	}
	requireSent(t, srv, http.MethodGet, "/resources/"+resourceID.String(), "")
	want := &Resource{
		ID: resourceID, Name: "Articles of Organization", URL: "https://corporations.utah.gov/articles.pdf",
		Kind: ResourceKindURL, Jurisdiction: "Utah", Agency: "Division of Corporations", EntityTypes: []string{"LLC"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("resource\n got %+v\nwant %+v", got, want)
	}
}

func TestResourcesGetNotFound(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, `{"success":false,"message":"resource not found"}`)
	})
	c := newTestClient(t, srv)
	got, err := c.Resources.Get(context.Background(), resourceID)
	var apiErr *APIError
	if got != nil || !errors.As(err, &apiErr) || !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get = %v, %v; want a 404 *APIError", got, err)
	}
	if apiErr.Path != "/resources/"+resourceID.String() || apiErr.Message != "resource not found" {
		t.Fatalf("API error %+v", apiErr)
	}
}

func TestResourcesRefuseTheNilID(t *testing.T) {
	srv := newAPIServer(t, ok(`{}`))
	c := newTestClient(t, srv)
	ctx := context.Background()
	r, err := c.Resources.Get(ctx, uuid.Nil)
	if r != nil {
		t.Fatal("Get returned a resource with an error")
	}
	requireRefused(t, srv, err, "id")
	f, err := c.Resources.Page(ctx, uuid.Nil, 0, nil)
	if f != nil {
		t.Fatal("Page returned a file with an error")
	}
	requireRefused(t, srv, err, "id")
	f, err = c.Resources.Download(ctx, uuid.Nil)
	if f != nil {
		t.Fatal("Download returned a file with an error")
	}
	requireRefused(t, srv, err, "id")
}

var pngBytes = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0, 1, 2, 3}, 64)...)

func TestResourcesPage(t *testing.T) {
	srv := newAPIServer(t, sendFile("image/png", "page-2.png", pngBytes))
	c := newTestClient(t, srv)
	f, err := c.Resources.Page(context.Background(), resourceID, 2, &PageParams{DPI: 150})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	requireSent(t, srv, http.MethodGet, "/resources/"+resourceID.String()+"/page/2", "dpi=150")
	if f.ContentType != "image/png" || f.ContentLength != int64(len(pngBytes)) || f.Filename != "page-2.png" {
		t.Fatalf("file %q %d %q", f.ContentType, f.ContentLength, f.Filename)
	}
	body, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(body, pngBytes) {
		t.Fatalf("body %d bytes (%v), want the %d bytes sent", len(body), err, len(pngBytes))
	}
}

func TestResourcesPageZeroAndNoDPI(t *testing.T) {
	srv := newAPIServer(t, sendFile("image/png", "", pngBytes))
	c := newTestClient(t, srv)
	f, err := c.Resources.Page(context.Background(), resourceID, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	requireSent(t, srv, http.MethodGet, "/resources/"+resourceID.String()+"/page/0", "")
	if f.Filename != "" || f.ContentLength != int64(len(pngBytes)) {
		t.Fatalf("file %q %d", f.Filename, f.ContentLength)
	}
}

func TestResourcesPageValidation(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n     int
		p     *PageParams
		field string
	}{
		{"dpi not offered", 0, &PageParams{DPI: 100}, "dpi"},
		{"negative page", -1, nil, "page_number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, sendFile("image/png", "", pngBytes))
			c := newTestClient(t, srv)
			f, err := c.Resources.Page(context.Background(), resourceID, tc.n, tc.p)
			if f != nil {
				t.Fatal("Page returned a file with an error")
			}
			requireRefused(t, srv, err, tc.field)
		})
	}
}

func TestResourcesDownload(t *testing.T) {
	pdf := []byte("%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n")
	srv := newAPIServer(t, sendFile("application/pdf", "articles.pdf", pdf))
	c := newTestClient(t, srv)
	f, err := c.Resources.Download(context.Background(), resourceID)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	requireSent(t, srv, http.MethodGet, "/resources/"+resourceID.String()+"/download", "")
	if f.ContentType != "application/pdf" || f.ContentLength != int64(len(pdf)) || f.Filename != "articles.pdf" {
		t.Fatalf("file %q %d %q", f.ContentType, f.ContentLength, f.Filename)
	}
	body, err := io.ReadAll(f.Body)
	if err != nil || !bytes.Equal(body, pdf) {
		t.Fatalf("body %q (%v), want %q", body, err, pdf)
	}
}

// fileCalls are the two binary endpoints of resources, for the tests that
// both must pass.
var fileCalls = []struct {
	name     string
	endpoint string
	call     func(*Client) (*File, error)
}{
	{"Page", "GET /resources/" + resourceID.String() + "/page/1", func(c *Client) (*File, error) {
		return c.Resources.Page(context.Background(), resourceID, 1, nil)
	}},
	{"Download", "GET /resources/" + resourceID.String() + "/download", func(c *Client) (*File, error) {
		return c.Resources.Download(context.Background(), resourceID)
	}},
}

func TestResourcesFileJSONErrorIsAnAPIError(t *testing.T) {
	for _, fc := range fileCalls {
		t.Run(fc.name+" 404", func(t *testing.T) {
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, http.StatusNotFound, `{"success":false,"error":"no such resource"}`)
			})
			f, err := fc.call(newTestClient(t, srv))
			var apiErr *APIError
			if f != nil || !errors.As(err, &apiErr) || !errors.Is(err, ErrNotFound) {
				t.Fatalf("got %v, %v; want a 404 *APIError", f, err)
			}
			if apiErr.Method+" "+apiErr.Path != fc.endpoint || apiErr.Message != "no such resource" {
				t.Fatalf("API error %+v", apiErr)
			}
		})
		t.Run(fc.name+" 200 success false", func(t *testing.T) {
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, http.StatusOK, `{"success":"false","message":"resource has no file"}`)
			})
			f, err := fc.call(newTestClient(t, srv))
			var apiErr *APIError
			if f != nil || !errors.As(err, &apiErr) {
				t.Fatalf("got %v, %v; want an *APIError", f, err)
			}
			if apiErr.StatusCode != http.StatusOK || apiErr.Message != "resource has no file" {
				t.Fatalf("API error %+v", apiErr)
			}
		})
	}
}

func TestResourcesFileOfUnexpectedTypeIsADecodeError(t *testing.T) {
	for _, fc := range fileCalls {
		t.Run(fc.name, func(t *testing.T) {
			srv := newAPIServer(t, sendFile("text/html; charset=utf-8", "", []byte("<html>maintenance</html>")))
			f, err := fc.call(newTestClient(t, srv))
			if f != nil {
				t.Fatal("a file came with the error")
			}
			de := requireDecodeError(t, err, fc.endpoint, "")
			if !strings.Contains(de.Error(), `"text/html"`) {
				t.Fatalf("error %q does not name the content type", de)
			}
		})
	}
}

func TestResourcesAllStopsWhenTheLoopBreaks(t *testing.T) {
	srv := newAPIServer(t, offsetPager(1000, resourceJSON))
	c := newTestClient(t, srv)
	n := 0
	for r, err := range c.Resources.All(context.Background(), &ResourceListParams{Limit: 10}) {
		if err != nil {
			t.Fatal(err)
		}
		if r.ID != indexID(n) {
			t.Fatalf("item %d is %s", n, r.ID)
		}
		n++
		if n == 15 {
			break
		}
	}
	// The first two pages, and at most the third one read ahead.
	if got := srv.count(); got < 2 || got > 3 {
		t.Fatalf("the server received %d requests, want 2 or 3", got)
	}
}
