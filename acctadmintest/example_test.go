package acctadmintest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// A program in any language drives the fake through the control surface
// with plain JSON: here a company and a document are seeded as curl would
// seed them, and the document's event reaches the registered callback.
func ExampleWithControl() {
	srv := acctadmintest.NewServer(acctadmintest.WithControl())
	defer srv.Close()
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	defer hook.Close()
	srv.AddCallback(hook.URL + "/events")

	post := func(path, body string) {
		resp, err := srv.Client().Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			fmt.Println(err)
			return
		}
		defer resp.Body.Close()
		fmt.Println(path, resp.StatusCode)
	}
	post("/_fake/companies", `{"name":"Curl Co LLC","home_state":"UT"}`)
	post("/_fake/documents", `{"company":"Curl Co LLC","title":"Annual report"}`)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ds, err := srv.WaitDeliveries(ctx, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ds[0].Event, ds[0].Claims["company_name"], ds[0].StatusCode)
	fmt.Println(srv.Companies()[0].HomeState)
	// Output:
	// /_fake/companies 201
	// /_fake/documents 201
	// new-document Curl Co LLC 200
	// Utah
}

// A test that wants exactly one answer from one route sets it with
// Answer; the other routes are served by the fake as always. In a test,
// acctadmintest.NewClient(t) makes the server and the client in one line.
func ExampleFake_Answer() {
	srv := acctadmintest.NewServer(acctadmintest.WithStrictSigning())
	defer srv.Close()
	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL),
		acctadmin.WithRetryWait(acctadmintest.ClientRetryWaitMin, acctadmintest.ClientRetryWaitMax))
	if err != nil {
		fmt.Println(err)
		return
	}
	srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah"})
	remove := srv.Answer(http.MethodGet, "/companies", http.StatusForbidden,
		`{"success":false,"message":"account suspended"}`)

	_, err = c.Companies.List(context.Background())
	fmt.Println(err, errors.Is(err, acctadmin.ErrForbidden))

	remove()
	companies, err := c.Companies.List(context.Background())
	fmt.Println(len(companies), err)
	// Output:
	// acctadmin: GET /companies: 403 account suspended true
	// 1 <nil>
}
