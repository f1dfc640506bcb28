// Package webhook verifies the callback events that the Account
// Administration API posts to registered callback URLs, and signs events
// the same way for tests.
//
// The API delivers each event as an HTTP POST whose content is a JWT signed
// with HMAC-SHA256 and the account's secret key; its header may carry the
// account's access key as the field access_key. A receiver needs a
// Verifier and one line:
//
//	v, err := webhook.NewVerifier(secretKey)
//	if err != nil {
//		return err
//	}
//	http.Handle("/callbacks", v.Handler(func(ctx context.Context, ev *webhook.Event) error {
//		// ev.Name, ev.InvoiceID, ev.CompanyID, ...
//		return nil
//	}))
//
// Verify and VerifyContext check a token given as a string, and
// VerifyRequest finds the token in a request first; Handler wraps
// VerifyRequest for net/http. The context (the request's, for
// VerifyRequest and Handler) reaches the replay cache, the only part that
// may wait on the network.
//
// # Where the token is found
//
// VerifyRequest reads the body through a size cap (WithMaxBodySize, 1 MiB
// by default; a larger body is ErrBodyTooLarge) and trims surrounding
// whitespace. Then:
//
//   - a body starting with '{' is a JSON object that must hold exactly one
//     string field named data (the API's own carriage), token, jwt or
//     payload, compared without regard to case; its other fields are
//     ignored, since only the signed token is trusted, and duplicate keys
//     are refused;
//   - a body containing '=' is a URL-encoded form with exactly one such
//     field (a compact JWT never contains '=');
//   - any other non-empty body is the token itself, so a trailing newline
//     does no harm;
//   - an empty body makes VerifyRequest take the token from an
//     "Authorization: Bearer" header. The header is not read when the body
//     holds a token.
//
// The Content-Type header is not consulted. Verify, by contrast, takes the
// token exactly as given and trims nothing.
//
// # What a token must be
//
// Checks happen before any key is used, and refuse with ErrMalformed unless
// said otherwise:
//
//   - at most 64 KiB long, made only of the base64url alphabet and exactly
//     two dots: whitespace, CR, LF, '+', '/' and '=' padding anywhere are
//     refused;
//   - each segment in canonical base64url: a lenient decoder ignores the
//     unused low bits of the last character, which would give a token
//     several spellings; they must be zero (for the signature segment this
//     is ErrInvalidSignature, like any signature of the wrong length);
//   - header and payload each exactly one JSON object, nested at most 32
//     deep, with no key repeated in any object: parsers disagree on which
//     of two equal keys wins, so such a token could mean two events;
//   - an alg of exactly HS256, HS384 or HS512 (ErrAlgorithm otherwise: none
//     in any case spelling, RS256, ES256, PS256, EdDSA, hs256);
//   - no crit, jku, jwk, x5u or x5c header (ErrAlgorithm): the key is never
//     taken from, or fetched for, the token. kid, x5t and x5t#S256 are
//     ignored, so they cannot choose a key either; typ and cty are not
//     checked;
//   - exp, nbf and iat, when present, numbers of seconds no further from
//     the Unix epoch than the end of the year 9999, and jti, when present,
//     a string.
//
// The signature is then checked by github.com/golang-jwt/jwt/v5 against
// the secret given to NewVerifier and each secret of WithSecrets, in that
// order, which lets the secret key be rotated (ErrInvalidSignature when
// none matches). The API's tokens carry no exp, iat or jti, so none is
// required; when present they are enforced with a leeway (WithLeeway, 60
// seconds by default): an exp further in the past is ErrExpired, an nbf or
// iat further in the future is ErrNotYetValid. With WithAccessKey, a token
// whose header carries an access_key that differs is ErrAccessKey; a token
// without the field is accepted, since the field is optional.
//
// # Events
//
// Event holds the event name and attributes as typed fields and every claim
// in Claims, numbers as json.Number. The claim names are not published, so
// each attribute is looked up under several spellings, compared after
// folding case and dropping '_' and '-' (invoice_id, invoiceId, invoiceID,
// invoice-id and InvoiceId are all one name):
//
//   - Name: event, event_name, event_type, type, name, in that order of
//     preference. Names other than EventNewInvoice and EventNewDocument are
//     passed through.
//   - InvoiceID, DocumentID, CompanyID: invoice_id, document_id,
//     company_id, or the id field of an invoice, document or company
//     object.
//   - CompanyName: company_name, or company when it is a string, or the
//     name field of a company object.
//
// The top-level claims are searched first, then an object claim named data,
// then one named payload. An attribute spelled twice at one level with
// different values is ambiguous and left at its zero value, as is an id
// that is not a UUID (uuid.Parse decides): such a token is still accepted,
// and the claim stays in Claims. IssuedAt comes from iat and ID from jti.
//
// # Replays, and events in progress
//
// Without a replay cache every authentic delivery is accepted. With
// WithReplayCache, each event is claimed before it is processed, and the
// cache tells three cases apart: new (now marked in progress for this
// delivery), in progress (another delivery holds the mark: ErrInProgress),
// and done (ErrReplayed). The cache keys on jti when the token has one;
// otherwise on the event's name and its invoice, document and company ids;
// for an event with no id at all, on its claims in canonical JSON. It
// never keys on the token text, since the same event can be re-encoded or
// re-signed. An event is claimed only after every other check passed.
//
// An in-progress mark is held for a lease (WithLease, 30 seconds by
// default). When processing succeeds, Commit replaces it with a done
// record, kept for the cache's retention; when it fails, Forget releases
// it so that the sender's retry is processed at once; Handler does both
// itself. A mark whose receiver died (or lost the cache) before either is
// neither committed nor released: it ends with its lease, and the event is
// then accepted again. So, with an at-least-once sender, each event is
// processed until it succeeds (never lost), by one delivery at a time, and
// not again by a delivery that arrives once its success is recorded,
// provided processing ends within the lease: Handler's function gets a
// context that ends before it.
// MemoryReplayCache serves a single process; a fleet of receivers needs a
// shared ReplayCache, such as the one of package webhook/redisreplay.
//
// A shared cache can fail. When it cannot say what it holds for an event,
// the event is neither accepted nor refused: Verify returns the cache's
// error and Handler answers 503 without calling its function, so the
// sender delivers again later. When recording the outcome keeps failing
// (Handler tries for up to 10 seconds), the mark stays until its lease
// ends: a failed event waits that long for its redelivery, and a
// succeeded one not recorded as done is processed again after it.
//
// # The handler's answers
//
// Handler answers 200 when the function returns nil or a permanent error
// (Permanent, for a failure no redelivery can cure, such as a document
// that no longer exists), 200 rather than 204, which some senders do not
// count as delivered; 200 too to an authentic event that is done, without
// calling the function, so that an at-least-once sender stops delivering
// it; 503 with Retry-After (5 seconds, or the lease when shorter) to an
// event in progress, so that the sender delivers again and then finds it
// done or released, and likewise when the function returns an error
// wrapping ErrInProgress (another delivery does its work); 405 to a method other than POST, 400 to a malformed
// request, 408 to a body not received within the read timeout
// (WithReadTimeout, 10 seconds by default), 413 to a body over the cap,
// 401 to a token that does not verify, 500 when the function fails
// otherwise and 503 when the replay cache fails, so that the sender
// retries. An error answer's body is only the status text: it never says
// why a token was refused. The function is not called for a request that
// does not verify.
//
// The function's context is derived from the request's but is not
// cancelled when the sender hangs up: an event accepted is processed to
// its end, so that a sender whose timeout is shorter than the processing
// finds the event done on its next delivery, rather than cancelling it
// each time. It ends a little before the lease does (a fifth of the lease
// before, at most 5 seconds), so that the function has stopped by the time
// another delivery may take the event over.
//
// # Errors
//
// Every error from Verify and VerifyRequest matches one of ErrMalformed,
// ErrInvalidSignature, ErrAlgorithm, ErrExpired, ErrNotYetValid,
// ErrReplayed, ErrInProgress, ErrBodyTooLarge, ErrReadTimeout and ErrAccessKey with
// errors.Is, except an error from the replay cache itself, which is
// wrapped, and the error for a nil context. No error contains
// the token or a secret.
//
// # Testing a receiver
//
// Sign makes tokens the way the API does, so that a handler can be tested
// with net/http/httptest and no network; see the example of Sign.
package webhook
