package acctadmintest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// call makes a signed request from any goroutine and returns its status.
func call(srv *acctadmintest.Server, method, path string, body []byte) (int, error) {
	status, _, err := callBody(srv, method, path, body)
	return status, err
}

// callBody is call that also returns the body.
func callBody(srv *acctadmintest.Server, method, path string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(method, srv.URL+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"path": req.URL.Path, "content": sha256Hex(body)})
	tok.Header["access_key"] = srv.AccessKey
	s, err := tok.SignedString([]byte(srv.SecretKey))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+s)
	resp, err := srv.Client().Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
}

func TestConcurrentUse(t *testing.T) {
	srv := newDemo(t)
	rc := newReceiver(t)
	srv.AddCallback(rc.URL)
	docs := srv.Documents()
	company := srv.Companies()[0]

	const workers, rounds = 64, 12
	var (
		wg               sync.WaitGroup
		requests, posted atomic.Int64
		added            atomic.Int64
		downloaded       sync.Map
	)
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				var status int
				var err error
				switch (g + i) % 6 {
				case 0:
					status, err = call(srv, http.MethodGet, "/documents?limit=20", nil)
				case 1:
					d := docs[(g*rounds+i)%len(docs)]
					downloaded.Store(d.ID, true)
					status, err = call(srv, http.MethodGet, "/documents/"+d.ID.String()+"/download", nil)
				case 2:
					// Register a callback and delete it again.
					posted.Add(1)
					var body []byte
					status, body, err = callBody(srv, http.MethodPost, "/callbacks", []byte(fmt.Sprintf(`{"url":"%s/g%d"}`, rc.URL, g)))
					if err == nil && status == http.StatusOK {
						var cb struct {
							Result struct{ ID string } `json:"result"`
						}
						if assert.NoError(t, json.Unmarshal(body, &cb)) {
							requests.Add(1)
							status, err = call(srv, http.MethodDelete, "/callbacks/"+cb.Result.ID, nil)
						}
					}
				case 3:
					srv.AddDocument(acctadmintest.DocumentInput{CompanyID: company.ID, Title: "Concurrent"})
					added.Add(1)
					continue
				case 4:
					status, err = call(srv, http.MethodGet, fmt.Sprintf("/documents/%s/page/0?dpi=72", docs[g].ID), nil)
				case 5:
					_ = srv.Requests()
					_ = srv.Documents()
					status, err = call(srv, http.MethodGet, "/services?limit=5", nil)
				}
				requests.Add(1)
				if assert.NoError(t, err) {
					assert.Equal(t, http.StatusOK, status)
				}
			}
		}(g)
	}
	wg.Wait()

	require.EqualValues(t, requests.Load(), srv.TotalRequests())
	require.Len(t, srv.Callbacks(), 1)
	require.Len(t, srv.Documents(), len(docs)+int(added.Load()))
	downloaded.Range(func(k, _ any) bool {
		for _, d := range srv.Documents() {
			if d.ID == k {
				require.Equal(t, acctadmintest.DocumentRead, d.Status)
			}
		}
		return true
	})
	require.Equal(t, int(posted.Load()), srv.RequestCount(http.MethodPost, "/callbacks"))
	require.Equal(t, int(posted.Load()), srv.RequestCount(http.MethodDelete, "/callbacks/:id"))
	// Every event reached at least the callback that stayed. Deliveries to
	// the callbacks registered and deleted meanwhile end too, in any order,
	// so wait for the ones to the callback that stayed by counting them.
	delivered := func() int {
		n := 0
		for _, d := range srv.Deliveries() {
			if d.URL == rc.URL && d.Delivered {
				n++
			}
		}
		return n
	}
	require.Eventually(t, func() bool { return delivered() >= int(added.Load()) }, 10*time.Second, 5*time.Millisecond)
	require.EqualValues(t, added.Load(), delivered())
}
