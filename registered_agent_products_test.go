package acctadmin

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"
)

const (
	raProductJSON0 = `{"id":"ab12cd34-0000-4000-8000-00000000aa01","name":"Registered Agent - Utah","jurisdiction":"Utah","price":149.00,
		"url":"https://www.acme-agents.example/utah","renewal":"yearly","features":["mail scanning"]}`
	raProductJSON1 = `{"id":"ab12cd34-0000-4000-8000-00000000aa02","name":"Registered Agent - Idaho","jurisdiction":"Idaho","price":"0.10","url":null}`
)

func TestRegisteredAgentProductsListRequest(t *testing.T) {
	srv := newAPIServer(t, ok(`[]`))
	c := newTestClient(t, srv)
	got, err := c.RegisteredAgentProducts.List(context.Background(), &RegisteredAgentProductListParams{URL: "https://www.acme-agents.example/shop?p=1"})
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("List = %v, %v; want an empty list", got, err)
	}
	requireSent(t, srv, http.MethodGet, "/registered-agent-products", "url=https%3A%2F%2Fwww.acme-agents.example%2Fshop%3Fp%3D1")
}

func TestRegisteredAgentProductsListDecodes(t *testing.T) {
	srv := newAPIServer(t, okText(`[`+raProductJSON0+`,`+raProductJSON1+`]`))
	c := newTestClient(t, srv)
	got, err := c.RegisteredAgentProducts.List(context.Background(), &RegisteredAgentProductListParams{URL: "https://www.acme-agents.example"})
	if err != nil {
		t.Fatal(err)
	}
	requireSent(t, srv, http.MethodGet, "/registered-agent-products", "url=https%3A%2F%2Fwww.acme-agents.example")
	if len(got) != 2 {
		t.Fatalf("got %d products, want 2", len(got))
	}
	p := got[0]
	if p.ID != uuid.MustParse("ab12cd34-0000-4000-8000-00000000aa01") || p.Name != "Registered Agent - Utah" || p.Jurisdiction != "Utah" ||
		p.URL != "https://www.acme-agents.example/utah" {
		t.Fatalf("first product %+v", p)
	}
	requireMoney(t, "price", p.Price, "149.00", 14900)
	requireJSONBody(t, string(p.Raw), raProductJSON0)

	p = got[1]
	if p.ID != uuid.MustParse("ab12cd34-0000-4000-8000-00000000aa02") || p.Name != "Registered Agent - Idaho" || p.Jurisdiction != "Idaho" || p.URL != "" {
		t.Fatalf("second product %+v", p)
	}
	requireMoney(t, "price", p.Price, "0.10", 10)
	requireJSONBody(t, string(p.Raw), raProductJSON1)
}

func TestRegisteredAgentProductsListRequiresURL(t *testing.T) {
	for name, p := range map[string]*RegisteredAgentProductListParams{
		"nil params": nil,
		"empty url":  {},
		"blank url":  {URL: " "},
	} {
		t.Run(name, func(t *testing.T) {
			srv := newAPIServer(t, ok(`[]`))
			c := newTestClient(t, srv)
			got, err := c.RegisteredAgentProducts.List(context.Background(), p)
			if got != nil {
				t.Fatalf("got %v with an error", got)
			}
			requireRefused(t, srv, err, "url")
		})
	}
}

func TestRegisteredAgentProductsWrongFieldTypes(t *testing.T) {
	for _, tc := range []struct {
		name, result, path string
	}{
		{"price", `[` + raProductJSON0 + `,{"name":"B","price":{"amount":1}}]`, "result[1].price"},
		{"jurisdiction", `[{"jurisdiction":["Utah"]}]`, "result[0].jurisdiction"},
		{"a record that is not an object", `[` + raProductJSON0 + `,"Utah"]`, "result[1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, ok(tc.result))
			c := newTestClient(t, srv)
			got, err := c.RegisteredAgentProducts.List(context.Background(), &RegisteredAgentProductListParams{URL: "https://www.acme-agents.example"})
			if got != nil {
				t.Fatalf("got %v with an error", got)
			}
			requireDecodeError(t, err, "GET /registered-agent-products", tc.path)
		})
	}
}
