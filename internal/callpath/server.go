package main

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/google/uuid"
)

// The records the server holds.
var (
	invoiceID = uuid.MustParse("c0ffee00-1111-4222-8333-444455556601")
	cardID    = uuid.MustParse("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d")
	documents = []string{document(0), document(1), document(2)}
)

// requests counts the requests the server answered.
var requests atomic.Int64

func docID(i int) uuid.UUID {
	return uuid.MustParse(fmt.Sprintf("7d4a1f3e-8b2c-4e5f-9a6b-1c2d3e4f5a%02d", i))
}

func document(i int) string {
	return fmt.Sprintf(`{"id":%q,"created_at":"2024-05-01 10:00:00 -0600","updated_at":"2024-05-02T09:30:00Z",`+
		`"title":"Annual report %d","status":"unread","type":"Annual Report","source":"mail","pages":2,`+
		`"payment_locked":false,"jurisdiction":"Utah","company_name":"Acme Widgets LLC",`+
		`"company_id":"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c01"}`, docID(i), i)
}

const invoice = `{"id":"c0ffee00-1111-4222-8333-444455556601","status":"paid","company":"Acme Widgets LLC",` +
	`"company_id":"5e0b7c1d-3a2f-4d6e-8b9c-0a1f2e3d4c01","created_at":"2024-05-01 10:00:00 -0600",` +
	`"updated_at":"2024-05-02 10:00:00 -0600","due_date":"2024-05-31",` +
	`"items":[{"price":"149.00","description":"Registered agent, 1 year","quantity":1}]}`

// serve answers the three routes the tool calls, as the API would, and
// refuses anything without a token.
func serve(w http.ResponseWriter, r *http.Request) {
	requests.Add(1)
	if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		answer(w, http.StatusUnauthorized, `{"success":false,"message":"no token"}`)
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/documents":
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		offset = min(max(offset, 0), len(documents))
		end := min(offset+max(limit, 1), len(documents))
		answer(w, http.StatusOK, `{"success":true,"result":[`+strings.Join(documents[offset:end], ",")+`]}`)
	case r.Method == http.MethodGet && r.URL.Path == "/documents/"+docID(0).String():
		answer(w, http.StatusOK, `{"success":true,"result":`+documents[0]+`}`)
	case r.Method == http.MethodPost && r.URL.Path == "/invoices/pay":
		answer(w, http.StatusOK, `{"success":true,"result":[`+invoice+`]}`)
	default:
		answer(w, http.StatusNotFound, `{"success":false,"message":"no such route"}`)
	}
}

func answer(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}
