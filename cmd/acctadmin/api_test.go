package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	acctadmin "github.com/acctadmin/acctadmin-go"
)

// listingServer is a server of one listing of n records, answering
// GET /things by limit and offset as its kind says, with a field that
// changes from one answer to the next in every record.
type listingServer struct {
	n int
	// kind: "honest" honours limit and offset; "capped" honours them but
	// answers at most pageCap records; "ignores" answers the first page
	// whatever the offset; "overlap" starts each page back records before
	// the offset asked for.
	kind     string
	pageCap  int
	back     int
	requests atomic.Int64
}

func (s *listingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.requests.Add(1)
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
	switch s.kind {
	case "capped":
		limit = min(limit, s.pageCap)
	case "ignores":
		offset = 0
	case "overlap":
		offset = max(0, offset-s.back)
	}
	page := []map[string]any{}
	for i := offset; i < s.n && i < offset+limit; i++ {
		page = append(page, map[string]any{"id": fmt.Sprintf("rec-%d", i), "served": n})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"success": true, "result": page})
}

// paginateAgainst runs acctadmin api GET /things --paginate -F limit=N
// against srv.
func paginateAgainst(t *testing.T, srv *listingServer, limit int) (code int, stdout, stderr string) {
	t.Helper()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	t.Setenv(acctadmin.EnvAccessKey, "access")
	t.Setenv(acctadmin.EnvSecretKey, "secret")
	t.Setenv(acctadmin.EnvBaseURL, hs.URL)
	var out, errOut bytes.Buffer
	code = run(context.Background(), []string{"api", "GET", "/things", "--paginate", "-F", "limit=" + strconv.Itoa(limit), "--retries", "0"}, nil, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestPaginateStopsWhenOffsetIsIgnored: a server that answers the first
// page whatever the offset, each record with a field that changes per
// answer, stops --paginate after its second request, exit 1, nothing
// printed.
func TestPaginateStopsWhenOffsetIsIgnored(t *testing.T) {
	srv := &listingServer{n: 200, kind: "ignores"}
	code, stdout, stderr := paginateAgainst(t, srv, 20)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if stdout != "" {
		t.Errorf("printed %d bytes, want nothing", len(stdout))
	}
	want := "acctadmin: GET /things: the page at offset 20 holds only records already read: the API ignores offset here"
	if !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	if n := srv.requests.Load(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// TestPaginateFamily runs --paginate against generated listings: honest
// servers, servers that cap their pages, that start pages back, or that
// ignore offset. It never prints a record twice; when it succeeds it
// prints every record once, in order; on a server that ignores offset it
// fails after at most 2 requests; and it never sends more than the pages
// of the listing plus 2.
func TestPaginateFamily(t *testing.T) {
	kinds := []string{"honest", "capped", "ignores", "overlap"}
	for seed := range 200 {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		srv := &listingServer{n: r.IntN(40), kind: kinds[r.IntN(len(kinds))], pageCap: 1 + r.IntN(8)}
		limit := 1 + r.IntN(12)
		// Back by fewer records than the first page holds: back by as
		// many is the first page again, a server that ignores offset.
		srv.back = r.IntN(max(1, min(limit, srv.n)))
		name := fmt.Sprintf("seed %d: %d records, limit %d, %s (cap %d, back %d)", seed, srv.n, limit, srv.kind, srv.pageCap, srv.back)
		code, stdout, stderr := paginateAgainst(t, srv, limit)
		requests := int(srv.requests.Load())
		step := limit
		switch srv.kind {
		case "capped":
			step = min(limit, srv.pageCap)
		case "overlap":
			step = limit - srv.back
		}
		if bound := srv.n/step + 2; requests > bound {
			t.Errorf("%s: %d requests, want at most %d", name, requests, bound)
		}
		if srv.kind == "ignores" && srv.n > 0 {
			if code != 1 || requests > 2 || !strings.Contains(stderr, "ignores offset") {
				t.Errorf("%s: exit %d after %d requests, stderr %q; want exit 1 after at most 2 requests", name, code, requests, stderr)
			}
			continue
		}
		if code != 0 {
			t.Errorf("%s: exit %d, stderr %q", name, code, stderr)
			continue
		}
		var got []struct{ ID string }
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatalf("%s: output %q: %v", name, stdout, err)
		}
		if len(got) != srv.n {
			t.Errorf("%s: %d records printed, want %d", name, len(got), srv.n)
		}
		for i, rec := range got {
			if rec.ID != fmt.Sprintf("rec-%d", i) {
				t.Errorf("%s: record %d is %s, want rec-%d", name, i, rec.ID, i)
				break
			}
		}
	}
}
