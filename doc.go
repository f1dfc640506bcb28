// Package acctadmin is a typed client for the Account Administration API of
// a registered-agent provider: the services, mail and documents, reference
// resources, filing products, compliance due dates, websites, callbacks,
// companies and invoices of one account.
//
// The map of the SDK:
//
//   - [NewClient] and [NewClientFromEnv] make a [Client]; its fields
//     ([Client.Services], [Client.Documents], …) are the API's resources, and
//     each of their methods is one endpoint, taking a context.Context first.
//   - Listings have List (one page, as asked) and All (every page, lazily,
//     as an iter.Seq2). All reads ahead of the loop where that is safe, and
//     visits every unread document exactly once even while the loop
//     downloads them (see [DocumentsClient.All]).
//   - Files (PDF documents, PNG pages) come back as a streamed [File].
//   - Failures are typed: [*APIError] (with [ErrNotFound] and friends for
//     errors.Is), [*UnpaidInvoicesError], [*ValidationError] for a call
//     refused before sending, [*DecodeError], [*TransportError].
//   - The wire's inconsistencies end in [Time], [Date], [Money] and
//     [Turnaround]; callers never see them.
//   - Package webhook verifies the events the API posts to callbacks;
//     package acctadmintest is an in-memory fake of the whole API for tests.
//
// # Requests
//
// Every request is signed as the API requires (an HS256 JWT over the path
// and the body's hash, see [NewSigner]). GET and DELETE are retried on
// connection errors and on 429, 500, 502, 503 and 504 answers, with
// jittered exponential backoff and the API's Retry-After (up to 60 s); a
// longer Retry-After ends the call at once with [ErrRateLimited]. POST and
// PATCH are retried only
// when the connection could not be made, so a write is never sent twice.
// The client is silent unless given a logger ([WithLogger]), and no error
// or log line holds a key, a token or a query string.
//
// # Choices where the API is silent
//
//   - Zero values in params structs mean "not given" and are not sent.
//   - Times in queries are written as the API writes them
//     ("2006-01-02 15:04:05 -0700"); dates as "YYYY-MM-DD".
//   - A page image's DPI is left to the API unless set.
//   - Records whose shape is undocumented (companies, invoices,
//     registered-agent products) keep the whole record in a Raw field.
package acctadmin
