// Package acctadmin is a typed client for the Account Administration API of
// a registered-agent provider: the services, mail and documents, reference
// resources, filing products, compliance due dates, websites, callbacks,
// companies and invoices of one account, and ordering and paying for
// filings (the shopping cart, payment methods, order items).
//
// The map of the SDK:
//
//   - [NewClient] and [NewClientFromEnv] make a [Client]; its fields
//     ([Client.Services], [Client.Documents], …) are the API's resources, and
//     each of their methods is one endpoint, taking a context.Context first.
//   - Listings have List (one page, as asked) and All (every page, lazily,
//     as an iter.Seq2). All reads ahead of the loop where that is safe, and
//     visits every unread document exactly once even while the loop
//     downloads them (see [DocumentsClient.All]). [DocumentsClient.Pull]
//     downloads them on several workers, each exactly once.
//   - Files (PDF documents, PNG pages) come back as a streamed [File].
//   - Failures are typed: [*APIError] (with [ErrNotFound] and friends for
//     errors.Is), [*UnpaidInvoicesError], [*ValidationError] for a call
//     refused before sending, [*DecodeError], [*TransportError].
//   - The wire's inconsistencies end in [Date], [Money], [Turnaround] and
//     the records' time.Time fields; callers never see them. [Time] reads
//     the API's time shapes for programs that decode its JSON themselves.
//   - Package webhook verifies the events the API posts to callbacks;
//     package acctadmintest is an in-memory fake of the whole API for tests.
//
// # Requests
//
// Every request is signed as the API requires (an HS256 JWT over the path
// and the body's hash, see [NewSigner]). Reads (GET) and the delete of a
// callback are retried on connection errors (not on one no retry mends:
// a certificate that is not trusted) and on 429, 500, 502, 503 and
// 504 answers, with jittered exponential backoff and the API's Retry-After
// (up to 60 s, or what [WithMaxRetryAfter] allows); a longer Retry-After,
// or one that would outlast the context's deadline, ends the call at once
// with [ErrRateLimited]. Every backoff wait lies between the bounds of
// [WithRetryWait], jitter included. They follow up to 5 redirects on the API's own scheme
// and host. A delete of a callback whose retry finds it gone (404), after
// an earlier attempt may have reached the API, succeeds: that attempt
// deleted it.
//
// Calls that move money or change what the account owns (every POST,
// PATCH and PUT, and the deletes of the cart and of payment methods) are
// sent at most once: sent again only when the connection could not be
// made, so that nothing reached the API, and never redirected, since
// following a 307 or 308 sends the write again and a redirect may come
// from a proxy that already passed it on. Such a call fails with
// [ErrOutcomeUnknown], beside its [*APIError], [*DecodeError] or
// [*TransportError], exactly when the API may have applied it:
//
//   - unknown: a 5xx answer, a redirect (3xx, not followed), a 1xx taken
//     for the final answer, a 2xx the SDK cannot read (the write may well
//     have happened), a connection that broke or timed out once the
//     request was sent;
//   - known, not applied: a 4xx answer, a 2xx whose envelope says success
//     false, a connection that could not be made, a signer that failed.
//
// The error's message, like the method's documentation, names the listing
// that shows whether it took effect. An attempt that outlives [WithTimeout] fails
// with an error that is [context.DeadlineExceeded] and a net.Error whose
// Timeout is true. The client is silent unless given a logger
// ([WithLogger]), and no error, log line, hook or header it shows holds a
// key, a token, a query string or a host.
//
// A nil context is refused by every method, All and Pull included, as an
// invalid parameter: a [*ValidationError] for "ctx", and nothing is sent.
// When other parameters are invalid too, the error may name one of those.
//
// [WithRateLimit] makes every request the client sends wait for one
// [RateLimiter] first (*rate.Limiter of golang.org/x/time/rate is one):
// each attempt and retry, each redirect, the pages All reads ahead,
// Pull's listing and its workers' downloads, and the mail room's calls,
// so that one budget keeps the account under the API's rate. A wait the
// context ends sends nothing and ends the call with the context's error.
//
// # Options of one call
//
// [WithCallOptions] returns a context whose calls use other retries
// ([CallMaxRetries], [CallRetryWait]), another attempt timeout
// ([CallTimeout]), another Retry-After cap ([CallMaxRetryAfter]) or extra
// headers ([CallHeader]) than the client's options. They ride on the
// context, as [WithResponseInto] does, rather than as a variadic argument
// of every method: every method takes them alike, All and its iterators
// and the methods with variadic arguments of their own included; All,
// Pull and the mail room hand them on to every request they make on the
// caller's behalf, with no new parameter to thread through; and a program
// sets them once for a piece of work, as it sets a deadline. Nothing is
// lost in type safety: a [CallOption] is its own type, and a value one
// cannot use fails the call with a [*ValidationError] before anything is
// sent. No option changes how a route is retried: a call sent at most
// once (a checkout, a payment, any write) is never sent again once it may
// have reached the API, whatever [CallMaxRetries] says. The rate limit is
// the client's alone: one budget for all its calls.
//
// # Observing calls
//
// [WithHooks] calls a program's functions around every call and every
// attempt, enough to build traces (a span per call, a child per attempt)
// and metrics without the SDK depending on a telemetry library.
// [WithResponseInto] gives one call's status, headers and request id, and
// [APIError] carries the failed answer's headers.
//
// # Choices where the API is silent
//
//   - Zero values in params structs mean "not given" and are not sent.
//   - Times in queries are written as the API writes them
//     ("2006-01-02 15:04:05 -0700"); dates as "YYYY-MM-DD".
//   - A page image's DPI is left to the API unless set.
//   - Records whose shape is undocumented (companies, invoices,
//     registered-agent products, and every record of the routes the
//     provider's example clients call beyond the API description: cart
//     items, payment methods, order items, form schemas, …) keep the whole
//     record in a Raw field; their doc comments say where the typed fields
//     come from.
//   - Card numbers, CVCs, passwords and tokens are [Secret] values, which
//     print, log and marshal as "[redacted]"; the SDK sends them only in
//     the request body that needs them and takes them out of any error an
//     answer echoes them into.
//   - The values of a form (FormData of [OrderItemFormDataParams] and
//     [CartAddParams]: an SSN, a date of birth) are taken out of the
//     call's errors, log lines, hook arguments and Response likewise, and
//     the params print, log and marshal them as "[redacted]". A value of 6
//     bytes or more is taken out wherever it occurs, one of 4 or 5 where
//     it stands alone, a number of 6 digits or more however its digits are
//     grouped ("123-45-6789", "123456789", "123 45 6789"); shorter values
//     ("UT", "no") are left, as they would take words out of every message.
//     Answers are not changed: a record the API returns shows what it says.
//   - Routes whose answer is not documented and may be a list or a single
//     record (adding to the cart, paying invoices, storing a card) read
//     either; a method that returns one record returns nil when the
//     answer holds none.
//   - Calls that find what a write made ([ShoppingCartClient.AddItem],
//     [PaymentMethodsClient.Store], [ShoppingCartClient.CheckoutOrder],
//     and [Client.Order], which runs a whole order) list before and after
//     the write when its answer does not hold the record, and never
//     guess: no fit is [ErrNoMatch], two are [ErrAmbiguous].
//   - DELETE /shopping-cart sends its ids in a signed JSON body, as three
//     of the provider's four example clients do.
//   - A record's times are plain time.Time values, in the offset the API
//     wrote them in, so that Before, Equal, Sub and IsZero work on them and
//     they can be passed to params such as [DocumentListParams.Start]. The
//     tolerant reading of the API's several time shapes happens inside the
//     SDK, through [Time]. Marshalled back to JSON, a record writes its
//     times as time.Time does (RFC 3339; the zero time as
//     "0001-01-01T00:00:00Z", not null).
//   - [Money] keeps the digits the API wrote: compare amounts with
//     [Money.Equal] or [Money.Cmp], not ==. [Money.Add] and [Money.Sub] are
//     exact and never fail (see [Money.Add] for amounts beyond 64 digits).
//   - [InvoiceStatus] has constants for the states the API is known to
//     send; any other state is kept as it comes.
//
// # What the real API was recorded doing
//
// Some choices follow what the real API was recorded answering, and
// changed when it was:
//
//   - Signing: the content claim hashes the raw query as sent followed by
//     the body, the form the provider's documentation gives and the one
//     recorded working on GETs with a query; it hashed the body alone, the
//     form of the provider's GitHub examples, which [WithBodyOnlySigning]
//     keeps for a server that wants it.
//   - Website matching: a URL is matched as registered text, so
//     [WebsitesClient.Get] sends it as given, and an unregistered one
//     (recorded answered success with {"website": null}) is [ErrNotFound],
//     no longer a zero Website.
//   - Error detail: the API puts it inside result ({"success": false,
//     "result": {"request": "Company name already exists"}}), so
//     [APIError.Message] reads result after message, no longer saying only
//     "bad request"; company_errors and jurisdiction_errors go to Fields.
//   - POST /services answers the registered agent and its address at once:
//     [Service.RegisteredAgent]; service info comes under service_info.
//   - A key sent null is refused where it is taken absent (POST
//     /companies): no write sends null of its own; zero values are left
//     out (form data goes as the caller's value encodes).
//
// # Paging
//
// The API pages by limit and offset and gives no totals. Servers cap pages
// below the limit asked, so a page shorter than asked for does not end a
// listing: an empty one does, or one shorter than a page before it (a
// page longer than asked for is the rest of the listing: the API ignored
// the limit). A listing that the loop cannot
// change (services, resources, compliance events, invoices, read
// documents) is read ahead: one page at first, and one more when the
// loop finds the next page not there yet, up to two pages beyond the one
// the loop is on, so at most three pages are held at once and the
// listing costs at most two requests past its last page. A short page
// drops the pages read ahead of it (they assumed a longer one) and reading
// goes on from where it ended. The pages asked for past the end are let
// finish, and breaking out of the loop cancels them. The unread documents
// are not read ahead: they are walked (see [DocumentsClient.All]), at a
// cost of one request a page and one more on a server that pages
// honestly; when an answer shows that someone else changed the listing,
// the walk is confirmed by walking again until two walks agree, and one
// that never settles ends, after 10 walks, with [ErrListingUnsettled].
//
// A record without an id is yielded like any other. When the API answers
// three later offsets running with the same full page (it ignores offset;
// a listing may repeat a row, so twice proves nothing), the loop ends with
// [ErrPagingIgnored] after everything it could read; the same page shorter
// than asked for is taken for the whole listing, and so is a repeated page
// of the invoices, whose paging the API does not document (a short page
// of them is not: a capping server sends one). A page longer than asked
// for is the whole listing, however often it comes back.
//
// [DocumentsClient.Pull] downloads with 4 workers unless told otherwise,
// hands fn the documents in listing order as workers free up, and passes
// over documents without an id, which cannot be downloaded. Its fn gets the
// context Pull was given: the first error stops new downloads but lets
// those in flight finish, so that as few as possible are left unfinished.
// [PullParams.Skip] leaves documents out on their listed record, on Pull's
// own goroutine; [PullParams.Before] runs on the worker, with the context,
// right before each download, for what must happen before the API marks
// a document read (a claim, a journal record): [ErrSkipDocument] leaves
// the document alone, any other error stops Pull.
package acctadmin

// Where each part lives:
//
//	client.go     Client, NewClient, options
//	call_options.go  the options of one call, carried by its context
//	auth.go       the request signer
//	transport.go  one call from first attempt to final answer: retries,
//	              backoff, Retry-After, logging, redaction, the signing
//	              transport, the capped JSON read
//	envelope.go   the response envelope, its decoding and decode errors,
//	              and the decoding of records through their wire tags
//	values.go     Time, Date, Money, Turnaround, the other tolerant value
//	              types, and their parsers
//	files.go      File, PageParams, page images and downloads
//	errors.go     every error type and the sentinels
//	observe.go    hooks and answer metadata
//	routes.go     the declaration of a route: method, path pattern,
//	              operation name, retry class
//	pagination.go the listing engine: read-ahead, the walk over a shrinking
//	              listing (and its exactly-once argument), Pull
//	params.go     query encoding and the checks made before sending
//	order.go      Client.Order, FilingProducts.Find, and the calls that
//	              find by listing what a write made; it declares no route
//	services.go … one file per resource, which only declares
