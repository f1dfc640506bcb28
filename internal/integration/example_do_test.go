package acctadmin_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/url"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

// Do reaches a route the SDK does not type yet: the request is signed,
// retried by its method (a GET may be sent again, a POST never), seen by
// the hooks and redacted like any other, and the result of the answer's
// envelope is decoded into any value.
func ExampleClient_Do() {
	srv := acctadmintest.NewServer()
	defer srv.Close()
	srv.AddCompany(acctadmintest.CompanyInput{Name: "Acme Widgets LLC", HomeState: "Utah", EntityType: "LLC"})

	c, err := acctadmin.NewClient(srv.AccessKey, srv.SecretKey, acctadmin.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	var companies []struct {
		Name      string `json:"name"`
		HomeState string `json:"home_state"`
	}
	err = c.Do(context.Background(), &acctadmin.RawRequest{
		Method: http.MethodGet,
		Path:   "/companies",
		Query:  url.Values{"names[]": {"Acme Widgets LLC"}},
	}, &companies)
	if err != nil {
		log.Fatal(err)
	}
	for _, co := range companies {
		fmt.Println(co.Name, co.HomeState)
	}
	// Output:
	// Acme Widgets LLC Utah
}
