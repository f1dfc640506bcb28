// Package acctadmin is a typed client for the Account Administration API of
// a registered-agent provider: the services, mail and documents, reference
// resources, filing products, compliance due dates, websites, callbacks,
// companies and invoices of one account, and ordering and paying for
// filings (the shopping cart, payment methods, order items).
//
// [NewClient] and [NewClientFromEnv] make a [Client]; its fields
// ([Client.Services], [Client.Documents], …) are the API's resources, and
// each of their methods is one route, taking a context.Context first.
// Listings have List (one page) and All (every page, as an iter.Seq2);
// files come back as a streamed [File]. Failures are typed: [*APIError]
// (with [ErrNotFound] and friends for errors.Is), [*DecodeError],
// [*TransportError], and [*ValidationError] for a nil context or invalid
// parameters, refused before anything is sent. Package webhook verifies the
// events the API posts to callbacks; package acctadmintest is an in-memory
// fake of the whole API. The programs in examples/ show the main jobs end
// to end; examples/quickstart runs against the fake with no setup.
//
// # Signing
//
// Every request carries an HS256 JWT made from the keys ([NewSigner]):
// its content claim hashes the raw query as sent followed by the body, the
// form the provider documents and the one the real API was recorded
// accepting. [WithBodyOnlySigning] hashes the body alone (the form of the
// provider's GitHub examples); [WithAuthenticator] replaces the signer.
//
// # Sent at most once
//
// Calls that move money or change what the account owns (every POST,
// PATCH and PUT, and the deletes of the cart and of payment methods) are
// sent at most once: sent again only when the connection could not be
// made, so that nothing reached the API, and never redirected (a 307 or
// 308 would send the write again). No option changes this. Such a call
// fails with [ErrOutcomeUnknown], beside its [*APIError], [*DecodeError]
// or [*TransportError], exactly when the API may have applied it:
//
//   - unknown: a 5xx answer, a redirect, a 1xx taken for the final answer,
//     a 2xx the SDK cannot read, a connection that broke or timed out once
//     the request was sent;
//   - known, not applied: a 4xx answer, a 2xx whose envelope says success
//     false, a connection that could not be made, a signer that failed.
//
// The API takes no idempotency key, so the SDK never guesses: the error's
// message names the listing that shows whether the call took effect; read
// it before trying again. [Client.Order] does this for a checkout and says
// what it found ([ChargeVerdict]).
//
// # Retries and Retry-After
//
// Reads (GET) and the delete of a callback are retried ([WithMaxRetries],
// default 3) on connection errors (not on one no retry mends, such as an
// untrusted certificate) and on 429, 500, 502, 503 and 504 answers, with
// jittered exponential backoff ([WithRetryWait]). A Retry-After from the
// API replaces the backoff when it is at most 60 s ([WithMaxRetryAfter]);
// a longer one, or one the context's deadline would cut short, ends the
// call at once with [ErrRateLimited]. A delete of a callback whose retry
// finds it gone (404) succeeds: an earlier attempt deleted it. Redirects
// are followed up to 5 times on the API's own scheme and host.
// [WithTimeout] bounds each attempt: one that outlives it fails with
// [context.DeadlineExceeded]. [WithRateLimit] makes every request the
// client sends (attempts, retries, redirects, pages read ahead, downloads)
// wait for one [RateLimiter] first; a wait the context ends sends nothing.
// [WithCallOptions] changes these settings for the calls of one context,
// All's pages, Pull's downloads and the mail room's requests included.
//
// # Redaction
//
// No error, log line, hook argument or [Response] shows a key, a token
// (whole or any of its parts), a query string, or a value a request body
// carried as a secret: card numbers, CVCs and passwords, which are
// [Secret] values printing as "[redacted]", and the values of a form
// (FormData of [OrderItemFormDataParams] and [CartAddParams]; [CallRedact]
// adds more). A value of 6 bytes or more is taken out wherever it occurs,
// a shorter one (a CVC; 4 or 5 bytes for a form's value) only where it
// stands alone, and a card number or a number of 6 digits or more however
// its digits are grouped ("123-45-6789", "4111 1111 1111 1111"); shorter
// values are not looked for. Credentials headers are dropped from the
// headers shown, and every text an answer controls is cut to a bound.
// Params and requests that carry a form print and marshal it redacted.
// Answers are not changed: a record shows what the API says. The client
// logs only when given a logger ([WithLogger]).
//
// # Paging
//
// The API pages by limit and offset and gives no totals. A page shorter
// than asked for does not end a listing (servers cap pages): an empty
// page does, or one shorter than a page before it; a page longer than
// asked for is the whole listing. All reads a listing the loop cannot
// change ahead of the loop, at most two pages beyond the one the loop is
// on, at a cost of at most two requests past its last page; breaking out
// of the loop cancels them. The unread documents are walked instead (see
// [DocumentsClient.All]): every unread document is visited exactly once
// even while the loop downloads them; when an answer shows that someone
// else changed the listing, it is walked again until two walks agree, and
// one that never settles ends after 10 walks with [ErrListingUnsettled].
// When the API answers three later offsets running with the same full
// page (it ignores offset), All ends with [ErrPagingIgnored] after
// everything it could read. [DocumentsClient.Pull] downloads the unread
// documents on several workers, each exactly once.
//
// # Choices where the API is silent
//
// Zero values in params mean "not given" and are not sent. Times in queries
// are written as the API writes them ("2006-01-02 15:04:05 -0700"); a
// record's times are plain time.Time values ([Time] reads the API's
// shapes). [Money] keeps the digits the API wrote: compare with
// [Money.Equal], not ==. Records of undocumented shape keep it whole in a
// Raw field, and an answer that may be a list or one record is read either
// way. Calls that find what a write made ([ShoppingCartClient.AddItem],
// [PaymentMethodsClient.Store], [Client.Order]) list before and after the
// write when the answer does not hold the record, and never guess: no fit
// is [ErrNoMatch], two are [ErrAmbiguous].
//
// # Observing calls
//
// [WithHooks] calls a program's functions around every call and every
// attempt, enough for traces and metrics without a telemetry dependency
// (examples/otel-tracing wires one); [WithResponseInto] gives one call's
// status, headers and request id.
package acctadmin
