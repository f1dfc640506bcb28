package mailroom

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/google/uuid"
)

func TestPullSavesTheMailPastADocumentWithAnUnusableID(t *testing.T) {
	// Five unread documents and, third in the listing, one whose id is
	// "legacy-42": it cannot be downloaded, and must not hold up the five.
	var mu sync.Mutex
	var ids []uuid.UUID
	read := map[uuid.UUID]bool{}
	for i := range 5 {
		ids = append(ids, uuid.NewSHA1(uuid.NameSpaceOID, []byte{byte(i)}))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if id, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/documents/"), "/download"); ok {
			read[uuid.MustParse(id)] = true
			w.Header().Set("Content-Type", "application/pdf")
			io.WriteString(w, "%PDF-1.4 "+id)
			return
		}
		if r.URL.Path != "/documents" {
			http.NotFound(w, r)
			return
		}
		var rows []string
		for i, id := range ids {
			if i == 2 {
				rows = append(rows, `{"id":"legacy-42","status":"unread","title":"legacy"}`)
			}
			if !read[id] {
				rows = append(rows, `{"id":"`+id.String()+`","status":"unread","title":"mail"}`)
			}
		}
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		offset = min(offset, len(rows))
		rows = rows[offset:min(offset+limit, len(rows))]
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"success":true,"result":[`+strings.Join(rows, ",")+`]}`)
	}))
	defer srv.Close()
	c, err := acctadmin.NewClient("key", "secret", acctadmin.WithBaseURL(srv.URL), acctadmin.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	v, err := webhook.NewVerifier([]byte("secret"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r, err := New(c, v, Dir(dir), WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	for run := range 3 {
		if err := r.Pull(context.Background()); err != nil {
			t.Fatalf("pull %d: %v", run, err)
		}
	}
	docs, others := savedFiles(t, dir)
	if len(docs) != 5 || len(others) != 0 {
		t.Fatalf("saved %d documents, want the 5 with an id; others %v", len(docs), others)
	}
	for _, id := range ids {
		if string(docs[id]) != "%PDF-1.4 "+id.String() {
			t.Fatalf("document %s saved as %q", id, docs[id])
		}
	}
}
