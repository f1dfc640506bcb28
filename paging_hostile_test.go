package acctadmin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// Hostile paging: APIs that ignore limit or offset, and records without an
// id. Every loop must end within a few requests and yield what List would.

// unreadJSON is an unread document numbered i.
func unreadJSON(i int) string {
	return fmt.Sprintf(`{"id":"%s","status":"unread","title":"letter %d"}`, numberedID(i), i)
}

// fixedPage answers every request with the same n items, whatever limit
// and offset ask for.
func fixedPage(n int, item func(i int) string) http.HandlerFunc {
	items := make([]string, n)
	for i := range items {
		items[i] = item(i)
	}
	return ok("[" + strings.Join(items, ",") + "]")
}

func TestUnreadAllEndsWhenTheAPIIgnoresPaging(t *testing.T) {
	cases := []struct {
		name    string
		answer  int   // documents in every answer; the loop asks for 50
		wantErr error // what the loop is told at its end
	}{
		// The same full page again and again: the rest of the listing is
		// out of reach, and the caller must hear of it.
		{"ignores offset", 50, ErrPagingIgnored},
		// More than asked for: the API sent the whole listing at once.
		{"ignores limit and offset", 70, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, fixedPage(tc.answer, unreadJSON))
			c := newTestClient(t, srv)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			seen := map[uuid.UUID]int{}
			var errs []error
			// The loop downloads nothing, so the listing never shrinks.
			for d, err := range c.Documents.All(ctx, &DocumentListParams{Limit: 50}) {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				seen[d.ID]++
			}
			if len(seen) != tc.answer {
				t.Fatalf("yielded %d distinct documents, want %d", len(seen), tc.answer)
			}
			for id, n := range seen {
				if n != 1 {
					t.Fatalf("%s yielded %d times", id, n)
				}
			}
			// The page, again to pass over it, and at two later offsets.
			if n := srv.count(); n > 4 {
				t.Fatalf("%d listing requests, want at most 4", n)
			}
			switch {
			case tc.wantErr == nil && len(errs) != 0:
				t.Fatalf("errors %v, want none", errs)
			case tc.wantErr != nil && (len(errs) != 1 || !errors.Is(errs[0], tc.wantErr)):
				t.Fatalf("errors %v, want %v once", errs, tc.wantErr)
			}
		})
	}
}

func TestStableAllTellsWhenTheAPIIgnoresOffset(t *testing.T) {
	srv := newAPIServer(t, fixedPage(100, serviceJSON))
	c := newTestClient(t, srv)
	got, errs := collectSeq(c.Services.All(context.Background(), nil))
	if len(got) != 100 || len(errs) != 1 || !errors.Is(errs[0], ErrPagingIgnored) {
		t.Fatalf("got %d services and errors %v, want 100 and ErrPagingIgnored once", len(got), errs)
	}
	for i, s := range got {
		if s.ID != numberedID(i) {
			t.Fatalf("service %d is %s", i, s.ID)
		}
	}
	if n := srv.count(); n > 5 {
		t.Fatalf("%d requests", n)
	}
}

func TestAllYieldsRecordsWithoutAnID(t *testing.T) {
	t.Run("resources", func(t *testing.T) {
		// A first record whose id is null and a second without one.
		srv := newAPIServer(t, ok(`[{"id":null,"name":"Form A","kind":"url"},{"name":"Form B","kind":"url"}]`))
		c := newTestClient(t, srv)
		list, err := c.Resources.List(context.Background(), nil)
		if err != nil || len(list) != 2 {
			t.Fatalf("List: %d records, %v", len(list), err)
		}
		got, errs := collectSeq(c.Resources.All(context.Background(), nil))
		if len(errs) != 0 || len(got) != 2 || got[0].Name != "Form A" || got[1].Name != "Form B" {
			t.Fatalf("All yielded %+v, errors %v", got, errs)
		}
	})
	t.Run("resources over several pages", func(t *testing.T) {
		srv := newAPIServer(t, offsetPager(7, func(i int) string {
			if i%2 == 0 {
				return fmt.Sprintf(`{"name":"Form %d","kind":"url"}`, i)
			}
			return fmt.Sprintf(`{"id":"%s","name":"Form %d","kind":"url"}`, indexID(i), i)
		}))
		c := newTestClient(t, srv)
		got, errs := collectSeq(c.Resources.All(context.Background(), &ResourceListParams{Limit: 2}))
		if len(errs) != 0 || len(got) != 7 {
			t.Fatalf("All yielded %d records, errors %v", len(got), errs)
		}
		for i, r := range got {
			if r.Name != fmt.Sprintf("Form %d", i) {
				t.Fatalf("record %d is %q", i, r.Name)
			}
		}
	})
	t.Run("unread documents", func(t *testing.T) {
		srv := newAPIServer(t, ok(`[{"id":null,"title":"a"},{"title":"b"},{"id":null,"title":"c"}]`))
		c := newTestClient(t, srv)
		got, errs := collectSeq(c.Documents.All(context.Background(), nil))
		if len(errs) != 0 || len(got) != 3 || got[0].Title != "a" || got[1].Title != "b" || got[2].Title != "c" {
			t.Fatalf("All yielded %+v, errors %v", got, errs)
		}
	})
	t.Run("unread documents over several pages", func(t *testing.T) {
		// Five documents, those at even places without an id, in pages of
		// two; the loop downloads nothing.
		srv := newAPIServer(t, offsetPager(5, func(i int) string {
			if i%2 == 0 {
				return fmt.Sprintf(`{"title":"doc %d"}`, i)
			}
			return fmt.Sprintf(`{"id":"%s","title":"doc %d"}`, indexID(i), i)
		}))
		c := newTestClient(t, srv)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		got, errs := collectSeq(c.Documents.All(ctx, &DocumentListParams{Limit: 2}))
		if len(errs) != 0 || len(got) != 5 {
			t.Fatalf("All yielded %d documents, errors %v", len(got), errs)
		}
		for i, d := range got {
			if d.Title != fmt.Sprintf("doc %d", i) {
				t.Fatalf("document %d is %q", i, d.Title)
			}
		}
	})
}
