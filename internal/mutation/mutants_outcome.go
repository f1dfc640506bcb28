package main

// The slips of money-once: a write sent twice, or its outcome said known
// when the server may have applied it (or unknown when nothing was sent).
func init() {
	mutants = append(mutants,
		mutant{id: `outcome-500-known`, file: `transport.go`, pkg: `.`,
			what: `a 500 to a write taken for a known outcome`,
			from: `if e.StatusCode >= 500 || e.StatusCode < 200`,
			to:   `if e.StatusCode > 500 || e.StatusCode < 200`},
		mutant{id: `outcome-3xx-known`, file: `transport.go`, pkg: `.`,
			what: `a redirect to a write taken for a known outcome`,
			from: ` || e.StatusCode >= 300 && e.StatusCode < 400 {`,
			to:   ` {`},
		mutant{id: `outcome-card-delete-repeatable`, file: `payment_methods.go`, pkg: `.`,
			what: `PaymentMethods.Delete declared repeatable, so retried after it may have arrived`,
			from: `declareOnce(http.MethodDelete, "/payment-methods/{id}", "PaymentMethods.Delete",
		"PaymentMethods.List shows whether the card is still there")`,
			to: `declare(http.MethodDelete, "/payment-methods/{id}", "PaymentMethods.Delete")`},
		mutant{id: `outcome-do-put-repeatable`, file: `client.go`, pkg: `.`,
			what: `a PUT through Client.Do retried as idempotent`,
			from: `	case http.MethodGet, http.MethodDelete:
	case http.MethodPost, http.MethodPatch, http.MethodPut:`,
			to: `	case http.MethodGet, http.MethodDelete, http.MethodPut:
	case http.MethodPost, http.MethodPatch:`},
		mutant{id: `outcome-addinfo-hint`, file: `services.go`, pkg: `.`,
			what: `the hint of Services.AddInfo copied from Services.Create`,
			from: `"Services.Info shows what the service holds")`,
			to:   `"Services.List shows whether the services were ordered")`},
		mutant{id: `outcome-sign-failure-unknown`, file: `transport.go`, pkg: `.`,
			what: `a signing failure (nothing sent) taken for a request that may have arrived`,
			from: `	if err == nil || !neverSent(err) {`,
			to:   `	if err == nil || !connectFailed(err) {`},
		mutant{id: `outcome-query-map-order`, file: `client.go`, pkg: `.`,
			what: `RawRequest.Query sent in map order`,
			from: `	for _, k := range sortedKeys(r.Query) {`,
			to:   `	for k := range r.Query {`},
		mutant{id: `outcome-write-follows-redirect`, file: `transport.go`, pkg: `.`,
			what: `a write follows a same-host redirect (a 307 or 308 resends it)`,
			from: `	if st.route.class == atMostOnce {
		// A write follows no redirect`,
			to: `	if false {
		// A write follows no redirect`},
		mutant{id: `outcome-decode-known`, file: `transport.go`, pkg: `.`,
			what: `an unreadable 2xx after a write is a plain DecodeError`,
			from: `	case *DecodeError:
		e.unknown = st.route.verify // an answer came, so the request arrived
`,
			to: ``},
		mutant{id: `outcome-do-decode-known`, file: `transport.go`, pkg: `.`, run: `TestDoWriteUndecodableResultIsUnknown`,
			what: `a write through Do whose result cannot be decoded into out is a plain DecodeError`,
			from: `		e.unknown = st.route.verify // an answer came, so the request arrived`,
			to:   `		_ = st.route.verify // an answer came, so the request arrived`},
		mutant{id: `outcome-file-cut-known`, file: `files.go`, pkg: `.`,
			what: `a write's file cut off halfway is a TransportError of known outcome`,
			from: `err = b.st.outcome(b.st.redact(err))`,
			to:   `err = b.st.redact(err)`},
		mutant{id: `outcome-callback-delete-plain`, file: `callbacks.go`, pkg: `.`,
			what: `a callback delete whose retry finds it gone reports ErrNotFound`,
			from: `declareDelete("/callbacks/{id}", "Callbacks.Delete")`,
			to:   `declare(http.MethodDelete, "/callbacks/{id}", "Callbacks.Delete")`},
		mutant{id: `outcome-first-404-done`, file: `transport.go`, pkg: `.`,
			what: `a callback delete's first 404 taken as done`,
			from: `st.route.goneIsDone && st.resent:`,
			to:   `st.route.goneIsDone:`},
		mutant{id: `outcome-resent-after-dial`, file: `transport.go`, pkg: `.`,
			what: `a retry after a connection that could not be made taken as a resend`,
			from: `		st.resent, st.lastErr = st.sent, err
`,
			to: `		st.resent, st.lastErr = true, err
`},
	)
}
