// Package acctadmintest is a stateful, in-memory fake of the Account
// Administration API, for tests of clients of that API.
//
// NewServer starts it on a loopback port:
//
//	srv := acctadmintest.NewServer(acctadmintest.WithDemoData())
//	defer srv.Close()
//	// point the client at srv.URL with srv.AccessKey and srv.SecretKey
//
// In a Go test, NewClient does that and makes the SDK's client, with
// retry waits of milliseconds; the test's cleanup closes both:
//
//	c, srv := acctadmintest.NewClient(t, acctadmintest.WithDemoData())
//
// Answer (or WithAnswer) makes one route give exactly the answer a test
// wants, while the fake serves the rest.
//
// A Fake is also a plain http.Handler (NewFake), so it can be served by
// any http.Server; set (*Fake).ConnState as that server's ConnState hook
// to count connections. The command cmd/acctadmin-fake does exactly that.
//
// The fake reads the API from its published description and the facts
// known about the real service, and writes the wire with its own code,
// independently of the SDK in the parent module.
//
// # Authentication
//
// Every request must carry "Authorization: Bearer <JWT>". The token must
// be HS256 (alg none, other HMAC sizes and asymmetric algorithms are
// refused), signed with SecretKey, carry AccessKey in its header field
// access_key, and have exactly two claims: path, the request path without
// the query string, and content, the lowercase hex SHA-256 of the raw
// query string followed by the exact request body, or of the body alone
// (of the empty string when there is none; see "Signing forms"). A request of any
// method whose body is {} may sign the empty content, as the provider's
// JavaScript clients do (they send {} with every request that has no body,
// and the axios variant with GET too); any other body must match its
// hash. Anything else is answered 401 with a message that says what was
// wrong. Authentication comes before routing, so an unknown path without
// a token is a 401, not a 404.
//
// # Signing forms
//
// Clients of the real API sign in three forms, and the fake accepts all
// three by default, so that a customer's own client in any language runs
// on it:
//
//   - A (SignBodyOnly): the path claim is the path without its query, the
//     content claim the hex SHA-256 of the body (the provider's current
//     examples);
//   - B (SignQueryAndBody): the path without its query, and the SHA-256 of
//     the raw query string exactly as received (without "?"), followed by
//     the body: the form the provider's documentation gives, and the one
//     recorded working on GETs with a query (spec/recorded-behaviour.md,
//     S1 to S3). Any spelling of the query passes (+ or %20, unencoded
//     URLs, repeated keys with or without [], comma-joined lists) as long
//     as the hash covers the bytes sent; a request without a query signs
//     the same bytes in A and B;
//   - C: the path with its query ("/documents?status=read"), and the
//     SHA-256 of the body (the C# example, a TypeScript client).
//
// The token's header may carry "typ": "JWT" or not (S4). A token that
// matches no accepted form is a 401 (S5).
//
// WithStrictSigning accepts one form alone: WithStrictSigning(SignQueryAndBody)
// or WithStrictSigning(SignBodyOnly), and DefaultStrictSigning, the form
// the SDK signs, when none is given (C too with WithQueryInPathClaim).
// The SDK's own tests use it (NewClient does), so that the SDK keeps
// signing the one way it is configured to.
//
// # The contract
//
// OpenAPI returns the OpenAPI 3 document of the API as this project knows
// it (acctadmintest/openapi.yaml): the 50 routes the provider describes or
// its example clients call, and POST /documents/unlock/:id, which
// independent clients call, with the wire quirks below. Every request is
// validated by it with kin-openapi before its handler runs; a refusal is a
// 400 whose errors name each field at fault ("companies[0].name", "body")
// and what it must be. The document is also where each route is declared:
// the fake builds its routes from the document's operations, and a
// handler reads each parameter through it, as the type the document
// gives it, with the document's bounds and default (limit and offset,
// dpi); it never parses or checks a parameter the document types.
// WithContractChecks holds every answer against it too. A fake with the control surface serves the document at OpenAPIPath
// and the control surface's own document (ControlOpenAPI) at
// ControlOpenAPIPath.
//
// # Routing
//
// Requests pass through layers in this order: the request log, the
// latency of WithLatency, injected faults, authentication (which reads
// the body), and then an http.ServeMux of method-and-wildcard patterns
// ("GET /documents/{id}"). A path no route has, including one under a
// known prefix, is 404 "no such endpoint"; a path
// that is not clean (dot segments, doubled slashes) is too, never a
// redirect. A known path with another method is 405 with Allow.
//
// # The wire
//
// GET parameters are read from the query string only; arrays are repeated
// with a [] suffix (jurisdictions[]=Utah&jurisdictions[]=Idaho) or without
// it. POST and PATCH bodies are JSON objects; unknown fields are ignored,
// a field of the wrong JSON type is a 400. Empty parameters count as not
// given, unknown ones are ignored, and the Content-Type of requests is not
// checked. Every JSON answer has Content-Type application/json and a
// Content-Length.
//
// Success is {"success": true, "timestamp": "...", "result": ...}, the
// result an array for listings and an object otherwise. Every error is
// {"success": false, "timestamp": "...", "message": "...", "result":
// {"request": "..."}, "errors": [{"field": ..., "message": ...}]}: the
// detail is in result as well as in message, since the real server
// answers it inside result and its clients read result.request first
// (spec/recorded-behaviour.md, E1); the errors array is present when
// parameters are at fault: 400 for invalid parameters, 401 for
// authentication, 404 for unknown ids and paths, 405 (with Allow) for a
// known path with another method, 413 for a body over 1 MiB, and whatever
// an injected Fault says. The 400 of POST /services/:id/cancel-request
// has the unpaid invoices as its result instead.
//
// Times are written as "2006-01-02 15:04:05 -0700" in DefaultLocation, a
// fixed -07:00 offset, unless WithLocation says otherwise; dates
// (due_date) as "2006-01-02", without zone conversion. Amounts (price,
// cost) are JSON numbers written from decimal text exactly as given, so
// "149.00" goes out as 149.00.
//
// # Quirks
//
// The real API is not consistent, and by default neither is the fake, so
// that clients are tested against what they will meet:
//
//   - success is the string "true" in the listings of documents, resources
//     and compliance events;
//   - the cancel-request answer (both outcomes) writes its timestamp and
//     every time in it as ISO 8601 with milliseconds and a colon offset
//     ("2006-01-02T15:04:05.000-07:00");
//   - document listings name the jurisdiction state, GET /documents/:id
//     names it jurisdiction;
//   - compliance-event jurisdictions are objects [{"jurisdiction": "Utah"}];
//   - filed_in and docs_in are an object on online filing methods and an
//     array holding one object on mail and fax methods;
//   - records carry undocumented fields: legacy_id on services, _links on
//     documents;
//   - empty lists are null: a website's emails, phone_numbers and
//     addresses, a resource's entity_types.
//   - order items' created_at and updated_at are epoch seconds (a
//     TypeScript client of the real API types them as numbers).
//
// WithoutQuirks turns all of them off: JSON booleans, the documented time
// form everywhere, jurisdiction on documents, plain strings in
// compliance-event jurisdictions, objects for filed_in and docs_in, no
// undocumented fields, [] for empty lists and order items' times as
// time text. Amounts stay JSON numbers
// in both modes.
//
// # Choices where the API description is silent
//
// Paging: limit must be an integer from 1 to the endpoint's maximum
// (services and compliance events 100, documents and resources 200) and
// defaults to 50; offset is an integer from 0. GET /companies and
// GET /invoices also take limit (at most 100) and offset, and answer
// everything from offset on when no limit is given. Listings are ordered
// by created_at, then id (documents, services, companies, invoices,
// callbacks), by due date, then created_at and id (compliance events), or
// in the order the records were added (resources, products).
//
// Names: company names and jurisdiction names match regardless of case;
// jurisdictions are the 50 states and the District of Columbia, given by
// full name ("Utah") or two-letter abbreviation ("UT", "ut") wherever a
// jurisdiction is accepted (the provider's README tells users to pass
// abbreviations), with the fixed IDs of Jurisdictions; answers always
// write the full name. A company
// or company_id that names no company is a 404, also in listing filters;
// an unknown jurisdiction is a 400 (the description asks for valid ones).
// An id in a path that is not a UUID names nothing and is a 404; a UUID
// parameter that is not one is a 400.
//
// Websites: a website's URL is the text it was registered with, seeded
// scheme-less ("www.example-agent.com") as the real server registers an
// account's website, and the url of GET /websites, /filing-products,
// /registered-agent-products and /simple-products matches it exactly.
// This follows what the real server was recorded doing
// (spec/recorded-behaviour.md, W1: https://www.x.com/ finds nothing for
// a website registered as www.x.com); the fake used to match loosely,
// ignoring the case of scheme and host and a trailing slash. A URL no
// website is registered as is success, not 404, on GET /websites:
// {"website": null} (W1); the product listings answer it 404 with a
// message that says how URLs are matched (nothing is recorded there, and
// an empty list would hide the mistake).
//
// Services: POST /services creates a service of type "registered-agent"
// in each jurisdiction where the company has none that is still open (not
// cancelled) and answers only those it created, [] when there were none,
// each with its registered_agent, {name, address: {line1, line2, city,
// state_province_region, zip_postal_code}} (spec/recorded-behaviour.md,
// V1; in Florida the recorded address, elsewhere one of the same shape).
// New services are active at once, before any invoice is paid, unless
// information is needed first: in Wyoming (V4, as the provider's
// documentation says) and for a company without a home_state they are
// awaiting-client-input until POST /services/:id/info. Each new service
// gets an unpaid invoice of ServicePrice, the wholesale price (V2), found
// with GET /invoices?company_id=<id>, and new-invoice is sent. A
// cancel-request is refused while the service's company has any unpaid
// invoice other than the service's own (invoices belong to companies,
// and the fake's choice is that a service's own first invoice is what a
// cancel drops: nothing recorded says otherwise); otherwise the service,
// in any state, becomes cancel-requested and its own unpaid invoice
// cancelled.
//
// Documents: status defaults to unread and must be read or unread; start
// and stop bound created_at inclusively and take the API's time form or
// RFC 3339 (a stop before start is a 400). Downloading marks the document
// read before the file is sent. Reading a record or a page image changes
// nothing.
//
// Files: page images are PNGs of a US-letter page at 72, 150 (the
// default) or 300 dpi; a page number that is not an integer is a 400, one
// outside the file a 404, another dpi a 400. Downloads are PDF 1.4 files
// with one page per page of the record and a valid cross-reference table,
// sent with Content-Length and Content-Disposition: attachment;
// filename="<title>.pdf" (with an RFC 8187 filename* when the title is not
// ASCII). DocumentInput.PDFSize and ResourceInput.PDFSize pad a file to a
// given size inside a stream object generated while it is written, so
// files of any size cost no memory. A resource of kind url is a link and
// has no file (404).
//
// Resources: name matches a part of the name, agency and entity_type match
// whole values, jurisdiction must be valid; all ignore case and combine.
//
// Filing products: url is required (400); a URL no website is registered
// as is a 404. With a valid jurisdiction every product carries filing_methods,
// the methods of that jurisdiction, possibly []; without one the field is
// absent.
//
// Compliance events: start_date and end_date are required dates, both
// inclusive, end not before start; an event matches the jurisdictions
// filter when any of its jurisdictions is one of those asked for.
//
// Companies: POST /companies adds the companies whose names are new and
// answers only those; PATCH /companies names each company by company or
// company_id (exactly one) and may set name, entity_type and home_state.
// Both check the whole batch before changing anything. As the real server
// was recorded doing (spec/recorded-behaviour.md, C1 to C3), an explicit
// null for any key of either is a 400 naming the key (leave it out
// instead), and so are an unknown entity_type and an unknown
// jurisdiction; entity types are taken by full name ("Limited Liability
// Company", "Corporation") or short form ("LLC", "PLLC"), regardless of
// case, and kept as sent. home_state is null
// for a company without one. Records of a company follow its renames.
//
// Account and auth: GET /account is the account the keys belong to, with
// one user, DemoUserEmail with DemoUserPassword, in every fake. POST
// /auth/login and GET /auth/refresh answer a session token valid for an
// hour; a wrong e-mail or password is a 401 that does not say which. POST
// /auth/forgot-password answers the same for any address and, for the
// user's, makes a reset token (ResetToken, GET /_fake/auth/reset-token);
// POST /auth/reset-password uses it up. GET /account/dashpanel counts
// companies, active services, unread documents, unpaid invoices (and
// their total), order items requiring attention, and lists active
// compliance events due within 30 days.
//
// Catalogue: GET /filing-products/offerings lists, for a company and a
// jurisdiction (name or abbreviation), the federal products (offered
// everywhere) and the website products with a method in that
// jurisdiction; GET /filing-methods lists those methods; GET
// /filing-methods/schemas answers, in a list, the JSON Schema (draft
// 2020-12) that the method's form data must pass, empty when it needs
// none. Simple products belong to a website, signed forms to a method.
//
// Cart and checkout: POST /shopping-cart adds a filing product with one
// of its methods (product_option_id), or a simple product; its title is
// "product - method", its total (price + cost) x quantity, and form_data,
// when given, must pass the schema. DELETE /shopping-cart takes item_ids
// and company_ids in a JSON body or in the query. Checkout charges the
// payment method, creates one paid invoice per company (their ids in
// invoice_ids beside result, the invoices in result), an order item per
// cart item (requiring-client-attention when its method needs form data
// that was not given, new otherwise), empties those items from the cart
// and sends new-invoice. POST /invoices/pay pays unpaid invoices only.
// The card DeclinedCardNumber is declined when charged: 402, nothing
// changes. POST /order-items/requiring-attention validates form_data by
// the schema (400 naming each field otherwise) and makes the item new.
//
// Payment methods: a card must pass the Luhn check and not be expired;
// exp_month and exp_year are taken as numbers or digits and answered as
// numbers. Only the brand, last four digits, expiry, names and billing
// address are kept; the number and CVC never reach a record, an answer or
// a log (the logs write secret fields as Redacted). POST, PATCH and DELETE
// /payment-methods answer result {"status_code": 200, "success": true},
// as the real server does (with or without quirks: it is the shape, not
// an inconsistency): the card is not in the answer, and a client finds it
// with GET /payment-methods, by its last four digits and expiry, as the
// provider's example clients do.
//
// Payment-locked documents (DocumentInput.PaymentLocked, payment_locked
// of POST /_fake/documents, and the demo's documents of its company
// without a home state) are held until paid for: their download, pages,
// page URLs and a bulk download naming them answer 402 "payment
// required: the document ... is locked until it is paid for", and leave
// them unread. POST /documents/unlock/:id {"payment_token"} charges the
// card the document's unlock price (unlock_price in its record;
// DefaultUnlockPrice unless set), makes a paid invoice (new-invoice is
// sent) and releases it, answering action "capture", amount and
// invoice_ids beside result; a declined card changes nothing (402), a
// document that is not locked is a 400.
//
// File URLs: GET /documents/:id/page/:n/url and GET
// /documents/bulk-download (ids[], at most 50) answer a URL under
// FilesPrefix that needs no token and expires after LinkLifetime on the
// fake's clock (then 410); the bulk one serves a ZIP of the PDFs and
// marks them read when fetched.
//
// Services: POST /services/:id/info stores the JSON object (keys such as
// "official.director" included) and makes a service awaiting client input
// active; GET answers it under service_info, {"service_info": {}} before,
// as the real server does (V3).
//
// Callbacks: url must be an absolute http or https URL; registering a URL
// twice makes two callbacks. DELETE answers {"id": "<id>"}.
//
// # Events
//
// AddInvoice and AddDocument send the events new-invoice and new-document
// to every registered callback: a POST of {"data": "<jwt>"} with
// Content-Type application/json, the token signed like the API's with
// webhook.Sign (HS256 with SecretKey, access_key in the header) and
// claims exactly event, invoice_id or document_id, company_id and
// company_name, without exp, iat or jti. Each delivery runs in its own
// goroutine; an answer other than 2xx or a failure to connect is retried
// (see WithDeliveryRetry). Deliveries records every attempt and
// WaitDeliveries waits for them; Close cancels those in progress. Events
// go only to the URLs registered with the fake, never through a proxy.
//
// # The control surface
//
// WithControl (on by default in cmd/acctadmin-fake) serves, under
// ControlPrefix on the API's own address, what a Go test does with the
// Fake's methods, for programs in any language: plain JSON in and out,
// no token. It is a path prefix rather than a second listener so that a
// test driver needs one address, the one it already has; the API cannot
// collide with it, since none of its paths starts with an underscore. As
// it asks for no token, it answers only requests from a loopback peer
// that name a loopback host (against DNS rebinding) and carry no Origin
// header (against web pages posting to localhost) and no header a proxy
// adds (Forwarded, X-Forwarded-For, X-Real-IP, X-Forwarded-Host, Via: a
// local proxy or tunnel would open it to the network); anything else is
// 403. Its own OpenAPI document (ControlOpenAPI, served at
// ControlOpenAPIPath) lists every endpoint and field; requests are
// validated by it, so a wrong field or type is a 400 whose errors name the
// field and its type.
//
//	GET    /_fake/               the API's routes and the control endpoints
//	POST   /_fake/companies      {"name", "home_state", "entity_type", "id", "created_at"}
//	POST   /_fake/services       {"company_id" or "company", "jurisdiction", "type", "status", ...}
//	POST   /_fake/documents      {"company_id" or "company", "title", "pages", "status", "jurisdiction", ...}
//	                             and sends new-document to every callback
//	POST   /_fake/invoices       {"company_id" or "company", "status", "due_date", "items":
//	                             [{"price", "description", "quantity"}]} and sends new-invoice
//	POST   /_fake/callbacks      {"url"}
//	POST   /_fake/compliance-events {"company_id" or "company", "filing", "due_date", "status", "jurisdictions"}
//	POST   /_fake/resources      {"name", "url", "kind", "jurisdiction", "agency", "entity_types", "pages"}
//	POST   /_fake/order-items    {"company_id" or "company", "filing_method_id", "name", "status", "quantity"}
//	PATCH  /_fake/documents/{id} {"status"}; also /_fake/invoices/{id}, /_fake/services/{id}
//	GET    /_fake/clock          {"now"}; POST sets it ({"now": RFC 3339}) or moves it ({"advance": "36h"}),
//	                             within 0001-01-01T00:00:00Z to 9999-12-31T00:00:00Z
//	GET    /_fake/auth/reset-token  the user's password-reset token
//	GET    /_fake/requests       the request log, with headers (the token redacted); DELETE empties it
//	GET    /_fake/deliveries     every event delivery attempt
//	POST   /_fake/deliveries/resend {"index", "copies"}: the same token again
//	POST   /_fake/events         {"event", "record_id", "url", "forge", "copies"}; forge is
//	                             bad-signature, expired or unknown-record
//	POST   /_fake/delivery-faults {"url", "count", "drop", "latency"}; DELETE clears
//	GET    /_fake/faults         {"active", "fired"}; POST adds one ({"method", "path", "count",
//	                             "probability", "status", "retry_after", "message", "latency",
//	                             "drop_connection", "truncate_body", "after_apply"}); status is
//	                             from 200 to 599; DELETE clears
//	POST   /_fake/reset          empties the account (Reset); ?demo=true seeds the demo again
//
// Seeding answers 201 with the record as the API writes it. Unknown
// fields, bad values and unknown companies are 400 or 404 with
// {"error": "...", "errors": [{"field", "message"}]}, and nothing is
// changed; a taken company name is 409.
//
// # Faults, inspection and determinism
//
// InjectFault makes matching requests slow, fail with a status (with
// Retry-After), lose their connection before or after they are applied,
// or get a truncated body; see Fault. Requests, RequestCount, Writes and
// ConnectionsOpened tell tests what a client did: how many attempts, how
// many writes were applied (to catch duplicates), how many connections.
//
// WithSeed fixes the random source of record IDs and fault probabilities;
// WithClock fixes the time, and SetClock and AdvanceClock move it, to any
// time however far (the clock keeps the time it was set to, not an
// offset). The demo account of SeedDemo has fixed IDs
// (DemoID) and content; its times are relative to the clock.
package acctadmintest
