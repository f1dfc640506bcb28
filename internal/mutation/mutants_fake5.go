package main

// The fake held to what the real server was recorded doing: the signing
// form its strict mode accepts, the exact match of a website's URL and
// its null answer, the detail of an error in result, the registered agent
// and invoice of a new service, service_info, and the refusal of null and
// unknown entity types in company writes.
func init() {
	mutants = append(mutants,
		mutant{id: `fake5-strict-body-takes-query`, file: `acctadmintest/auth.go`, pkg: `./acctadmintest`,
			what: `strict body-only signing accepts the query-and-body form too`,
			from: `	case strict == SignBodyOnly:
		if bodyOnly {`,
			to: `	case strict == SignBodyOnly:
		if bodyOnly || queryAndBody {`},
		mutant{id: `fake5-strict-query-takes-body`, file: `acctadmintest/auth.go`, pkg: `./acctadmintest`,
			what: `strict query-and-body signing accepts the body-only form too`,
			from: `	default: // SignQueryAndBody
		if queryAndBody {`,
			to: `	default: // SignQueryAndBody
		if queryAndBody || bodyOnly {`},
		mutant{id: `fake5-query-hash-normalised`, file: `acctadmintest/auth.go`, pkg: `./acctadmintest`,
			what: `the query-and-body hash covers the query re-encoded, not as received`,
			from: `	query := r.URL.RawQuery
`,
			to: `	query := r.URL.Query().Encode()
`},
		mutant{id: `fake5-no-query-strict-query`, file: `acctadmintest/auth.go`, pkg: `./acctadmintest`,
			what: `strict query-and-body signing refuses a request without a query signed over its body`,
			from: `	case !bare || query == "":`,
			to:   `	case !bare:`},
		mutant{id: `fake5-strict-default-form`, file: `acctadmintest/fake.go`, pkg: `./acctadmintest`,
			what: `WithStrictSigning() accepts the examples' body-only form rather than the SDK's`,
			from: `const DefaultStrictSigning = SignQueryAndBody`,
			to:   `const DefaultStrictSigning = SignBodyOnly`},
		mutant{id: `fake5-website-loose-match`, file: `acctadmintest/websites.go`, pkg: `./acctadmintest`,
			what: `a website URL matches ignoring case and a trailing slash`,
			from: `return f.st.websites.find(func(w *Website) bool { return w.URL == u })`,
			to:   `return f.st.websites.find(func(w *Website) bool { return strings.EqualFold(strings.TrimRight(w.URL, "/"), strings.TrimRight(u, "/")) })`},
		mutant{id: `fake5-website-unmatched-404`, file: `acctadmintest/websites.go`, pkg: `./acctadmintest`,
			what: `an unmatched website URL is a 404 rather than website null`,
			from: `			return map[string]any{"website": nil}, nil`,
			to:   `			return nil, notFound("website")`},
		mutant{id: `fake5-error-no-result`, file: `acctadmintest/wire.go`, pkg: `./acctadmintest`,
			what: `error answers carry their message without the detail in result`,
			from: `Result: errorDetail{Request: msg}}`,
			to:   `}`},
		mutant{id: `fake5-service-no-agent-address`, file: `acctadmintest/services.go`, pkg: `./acctadmintest`,
			what: `the Florida registered agent's address loses its second line`,
			from: `Line1: "7901 4th St N", Line2: "STE 300",`,
			to:   `Line1: "7901 4th St N",`},
		mutant{id: `fake5-wyoming-active`, file: `acctadmintest/services.go`, pkg: `./acctadmintest`,
			what: `a new Wyoming service is active at once, before its information`,
			from: `return j.Name == "Wyoming" || co.HomeState == ""`,
			to:   `return co.HomeState == ""`},
		mutant{id: `fake5-service-no-invoice`, file: `acctadmintest/services.go`, pkg: `./acctadmintest`,
			what: `a new service makes no invoice`,
			from: `			f.st.invoices.get(inv.ID).serviceID = s.ID
`,
			to: `			f.st.invoices.get(inv.ID).Status = InvoiceCancelled
`},
		mutant{id: `fake5-own-invoice-blocks-cancel`, file: `acctadmintest/services.go`, pkg: `./acctadmintest`,
			what: `a new service's own invoice holds back its cancel-request`,
			from: `inv.Status == InvoiceUnpaid && inv.serviceID != s.ID`,
			to:   `inv.Status == InvoiceUnpaid`},
		mutant{id: `fake5-invoices-one-company-ignored`, file: `acctadmintest/invoices.go`, pkg: `./acctadmintest`,
			what: `GET /invoices?company_id= lists every company's invoices`,
			from: `		ids = append(ids, one)`,
			to:   `		_ = one`},
		mutant{id: `fake5-service-info-key`, file: `acctadmintest/account.go`, pkg: `./acctadmintest`,
			what: `service information answered under info rather than service_info`,
			from: "ServiceInfo json.RawMessage `json:\"service_info\"`",
			to:   "ServiceInfo json.RawMessage `json:\"info\"`"},
		mutant{id: `fake5-company-null-accepted`, file: `acctadmintest/openapi.yaml`, pkg: `./acctadmintest`,
			what: `an explicit null home_state is accepted on POST /companies`,
			from: `                      home_state: {type: string, description: "A jurisdiction by full name or abbreviation (C3); another value is a 400 (C2)."}`,
			to:   `                      home_state: {type: string, nullable: true, description: "A jurisdiction by full name or abbreviation (C3); another value is a 400 (C2)."}`},
		mutant{id: `fake5-entity-type-any`, file: `acctadmintest/companies.go`, pkg: `./acctadmintest`,
			what: `any entity_type is accepted`,
			from: `	if !slices.ContainsFunc(entityTypes, func(t string) bool { return strings.EqualFold(t, v) }) {`,
			to:   `	if false {`},
		mutant{id: `fake5-account-type`, file: `acctadmintest/account.go`, pkg: `./acctadmintest`,
			what: `the account's type is not the wholesale one`,
			from: `const AccountType = "wholesale-registered-agent"`,
			to:   `const AccountType = "business"`},
		mutant{id: `fake5-agent-product-duration`, file: `acctadmintest/products.go`, pkg: `./acctadmintest`,
			what: `registered-agent products lose their duration`,
			from: `Price: json.Number(p.Price), Duration: p.Duration, URL: p.URL}`,
			to:   `Price: json.Number(p.Price), URL: p.URL}`},
		mutant{id: `fake5-flag-query-is-body`, file: `cmd/acctadmin-fake/main.go`, pkg: `./cmd/acctadmin-fake`,
			what: `-strict-signing=query sets the body-only form`,
			from: `	case "query":
		s.form = acctadmintest.SignQueryAndBody`,
			to: `	case "query":
		s.form = acctadmintest.SignBodyOnly`},
	)
}
