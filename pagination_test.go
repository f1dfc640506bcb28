package acctadmin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/goleak"
)

// numbered returns n services whose ids are derived from their index, so a
// test can tell them apart and check their order.
func numberedID(i int) uuid.UUID {
	return uuid.NewSHA1(uuid.NameSpaceOID, []byte(strconv.Itoa(i)))
}

func serviceJSON(i int) string {
	return fmt.Sprintf(`{"id":"%s","created_at":"2024-05-01 10:00:00 -0600","status":"active","type":"registered-agent","jurisdiction":"Utah","company":"Co %d"}`, numberedID(i), i)
}

// pagedServices answers GET /services from a list of total services,
// honouring limit and offset like the API, after an optional delay.
func pagedServices(total int, delay time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		if limit == 0 {
			limit = 50
		}
		items := make([]string, 0, limit)
		for i := offset; i < total && i < offset+limit; i++ {
			items = append(items, serviceJSON(i))
		}
		ok("["+strings.Join(items, ",")+"]")(w, r)
	}
}

func TestAllReadsEveryPageInOrder(t *testing.T) {
	srv := newAPIServer(t, pagedServices(250, 0))
	c := newTestClient(t, srv)
	var got []uuid.UUID
	for s, err := range c.Services.All(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s.ID)
	}
	if len(got) != 250 {
		t.Fatalf("got %d services, want 250", len(got))
	}
	for i, id := range got {
		if id != numberedID(i) {
			t.Fatalf("item %d is %s, want %s", i, id, numberedID(i))
		}
	}
	var queries []string
	for _, r := range srv.requests() {
		queries = append(queries, r.RawQuery)
	}
	// The endpoint's maximum page size, and a short page ends the listing.
	want := []string{"limit=100", "limit=100&offset=100", "limit=100&offset=200"}
	if strings.Join(queries, " ") != strings.Join(want, " ") {
		t.Fatalf("queries %q, want %q", queries, want)
	}
}

func TestAllHonoursLimitOffsetAndFilters(t *testing.T) {
	srv := newAPIServer(t, pagedServices(30, 0))
	c := newTestClient(t, srv)
	n := 0
	for _, err := range c.Services.All(context.Background(), &ServiceListParams{Limit: 10, Offset: 5, Company: "Acme"}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 25 {
		t.Fatalf("got %d services, want 25", n)
	}
	var queries []string
	for _, r := range srv.requests() {
		queries = append(queries, r.RawQuery)
	}
	want := "limit=10&offset=5&company=Acme limit=10&offset=15&company=Acme limit=10&offset=25&company=Acme"
	if strings.Join(queries, " ") != want {
		t.Fatalf("queries %q", queries)
	}
}

func TestAllEmptyListingAndExactMultiple(t *testing.T) {
	for _, total := range []int{0, 200} {
		srv := newAPIServer(t, pagedServices(total, 0))
		c := newTestClient(t, srv)
		n := 0
		for _, err := range c.Services.All(context.Background(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		// An exact multiple of the page size costs one more (empty) page.
		if n != total || srv.count() != total/100+1 {
			t.Fatalf("total %d: got %d items in %d requests", total, n, srv.count())
		}
	}
}

func TestAllYieldsValidationErrorOnceWithoutRequests(t *testing.T) {
	srv := newAPIServer(t, pagedServices(10, 0))
	c := newTestClient(t, srv)
	calls := 0
	for _, err := range c.Services.All(context.Background(), &ServiceListParams{Limit: 101}) {
		calls++
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != "limit" {
			t.Fatalf("got %v", err)
		}
	}
	if calls != 1 || srv.count() != 0 {
		t.Fatalf("yielded %d times, %d requests", calls, srv.count())
	}
}

func TestAllYieldsAPIErrorOnceAndStops(t *testing.T) {
	var n atomic.Int32
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 2 {
			writeJSON(w, http.StatusForbidden, `{"message":"no access to page two"}`)
			return
		}
		pagedServices(1000, 0)(w, r)
	})
	c := newTestClient(t, srv)
	items, errs := 0, 0
	for _, err := range c.Services.All(context.Background(), nil) {
		if err != nil {
			errs++
			if !errors.Is(err, ErrForbidden) {
				t.Fatalf("got %v", err)
			}
			continue
		}
		items++
	}
	if items != 100 || errs != 1 || srv.count() != 2 {
		t.Fatalf("items %d, errors %d, requests %d", items, errs, srv.count())
	}
}

func TestAllPrefetchesTheNextPage(t *testing.T) {
	// While the loop works on page one, page two is already requested: the
	// server sees the second request before the loop has finished the
	// first page.
	var mu sync.Mutex
	var secondAt time.Time
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.RawQuery, "offset=100") {
			mu.Lock()
			secondAt = time.Now()
			mu.Unlock()
		}
		pagedServices(150, 0)(w, r)
	})
	c := newTestClient(t, srv)
	var firstPageDone time.Time
	i := 0
	for _, err := range c.Services.All(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		i++
		if i <= 100 {
			time.Sleep(200 * time.Microsecond)
		}
		if i == 100 {
			firstPageDone = time.Now()
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if secondAt.IsZero() || !secondAt.Before(firstPageDone) {
		t.Fatalf("page two was requested at %v, after the loop finished page one at %v", secondAt, firstPageDone)
	}
}

func TestAllBreakStopsTheFetcher(t *testing.T) {
	before := goleak.IgnoreCurrent()
	srv := newAPIServer(t, pagedServices(10000, 20*time.Millisecond))
	c := newTestClient(t, srv)
	n := 0
	for _, err := range c.Services.All(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n == 150 {
			break // in the middle of page two, page three is in flight
		}
	}
	// Only pages one to three were ever asked for, and nothing runs on.
	if srv.count() > 3 {
		t.Fatalf("%d requests after breaking on page two", srv.count())
	}
	noLeaks(t, before, srv, c)
}

func TestAllStopsWhenTheContextIsCancelled(t *testing.T) {
	before := goleak.IgnoreCurrent()
	srv := newAPIServer(t, pagedServices(10000, 5*time.Millisecond))
	c := newTestClient(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n, errs := 0, 0
	for _, err := range c.Services.All(ctx, nil) {
		if err != nil {
			errs++
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("got %v", err)
			}
			continue
		}
		n++
		if n == 120 {
			cancel()
		}
	}
	if errs != 1 || n < 120 || n > 300 {
		t.Fatalf("items %d, errors %d", n, errs)
	}
	noLeaks(t, before, srv, c)
}

func TestShrinkingListingCostsWhenNothingIsRemoved(t *testing.T) {
	// A listing the loop may shrink, over which the loop removes nothing:
	// every item once, at one extra request per page.
	srv := newAPIServer(t, pagedServices(120, 0))
	c := newTestClient(t, srv)
	l := listing[Service]{
		max: 50,
		fetch: func(ctx context.Context, limit, offset int) ([]Service, error) {
			return c.Services.List(ctx, &ServiceListParams{Limit: limit, Offset: offset})
		},
		id:      func(s Service) uuid.UUID { return s.ID },
		shrinks: true,
	}
	seen := map[uuid.UUID]int{}
	for s, err := range paginate(context.Background(), l) {
		if err != nil {
			t.Fatal(err)
		}
		seen[s.ID]++
	}
	if len(seen) != 120 {
		t.Fatalf("saw %d distinct items", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("%s seen %d times", id, n)
		}
	}
	// Pages at offsets 0, 0, 50, 50, 100 (short): five requests for three pages.
	if srv.count() != 5 {
		t.Fatalf("%d requests, want 5", srv.count())
	}
}

func TestAllStopsWhenTheAPIIgnoresPaging(t *testing.T) {
	cases := map[string]int{
		"ignores limit and offset": 150, // longer than the page asked for
		"ignores offset only":      100, // the same full page again and again
	}
	for name, total := range cases {
		t.Run(name, func(t *testing.T) {
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				items := make([]string, total)
				for i := range items {
					items[i] = serviceJSON(i)
				}
				ok("["+strings.Join(items, ",")+"]")(w, r)
			})
			c := newTestClient(t, srv)
			seen := map[uuid.UUID]int{}
			for s, err := range c.Services.All(context.Background(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				seen[s.ID]++
			}
			if len(seen) != total || srv.count() > 2 {
				t.Fatalf("saw %d distinct services in %d requests, want %d", len(seen), srv.count(), total)
			}
			for id, n := range seen {
				if n != 1 {
					t.Fatalf("%s yielded %d times", id, n)
				}
			}
		})
	}
}
