package acctadmin

import (
	"context"
	"net/url"
	"testing"
)

// The strings a caller passes travel as values: none can add a parameter,
// change the path, or split a header.
func TestStringsCannotInject(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv)
	for _, name := range []string{
		"Acme & Sons", "a&company_id=00000000-0000-0000-0000-000000000001", "x#fragment", "../../callbacks",
		"%2F..%2Fcallbacks", "line\r\nX-Injected: 1", "Ütah Ünïcode ☃", "a=b;c=d", "+plus+", "",
	} {
		if _, err := c.Services.List(context.Background(), &ServiceListParams{Company: name}); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		r := srv.last(t)
		q, err := url.ParseQuery(r.RawQuery)
		if err != nil {
			t.Fatalf("%q: the query does not parse: %v", name, err)
		}
		if r.Path != "/services" || r.Header.Get("X-Injected") != "" {
			t.Errorf("%q: path %q, headers %v", name, r.Path, r.Header)
		}
		if name == "" {
			if q.Has("company") {
				t.Errorf("an empty company was sent")
			}
			continue
		}
		if got := q["company"]; len(got) != 1 || got[0] != name || q.Has("company_id") {
			t.Errorf("%q arrived as %v", name, q)
		}
	}
	// A website URL is a value too, whatever it holds.
	for _, u := range []string{"https://example.com/a b?x=1&y=2#z", "https://例え.jp/パス"} {
		_, _ = c.Websites.Get(context.Background(), u)
		q, _ := url.ParseQuery(srv.last(t).RawQuery)
		if q.Get("url") != u || len(q) != 1 {
			t.Errorf("url %q arrived as %v", u, q)
		}
	}
}
