package main

// The call path's own loop (Client.do): how many attempts it makes, what
// it does with a discarded answer and a replayed body, when it notices a
// cancelled context, which transport errors it leaves alone, and when a
// file's call ends for the hooks.
func init() {
	mutants = append(mutants,
		mutant{id: `callpath-cert-retried`, file: `transport.go`, pkg: `.`, run: `TestUntrustedCertificateIsNotRetried`,
			what: `a certificate no retry mends is tried again`,
			from: `		if retry, _ := retryablehttp.DefaultRetryPolicy(context.Background(), nil, err); !retry {`,
			to:   `		if retry := true; !retry {`},
		mutant{id: `callpath-retries-one-more`, file: `transport.go`, pkg: `.`,
			what: `one attempt more than WithMaxRetries allows`,
			from: `		if !retry || st.attempt > c.maxRetries {`,
			to:   `		if !retry || st.attempt > c.maxRetries+1 {`},
		mutant{id: `callpath-discarded-not-drained`, file: `transport.go`, pkg: `.`, run: `TestTransportDrainsDiscardedBodies`,
			what: `a discarded answer is closed unread, which costs its connection`,
			from: `			drainAndClose(resp.Body) // a longer answer costs its connection`,
			to:   `			resp.Body.Close()`},
		mutant{id: `callpath-wait-ignores-ctx`, file: `transport.go`, pkg: `.`,
			what: `a context cancelled during the wait before a retry is noticed only after it`,
			from: `		case <-ctx.Done():
			timer.Stop()`,
			to: `		case <-make(chan struct{}):
			timer.Stop()`},
		mutant{id: `callpath-body-once`, file: `transport.go`, pkg: `.`,
			what: `only the first attempt carries the body`,
			from: `		if raw != nil {
			r.Body, _ = r.GetBody()`,
			to: `		if raw != nil && st.attempt == 1 {
			r.Body, _ = r.GetBody()`},
		mutant{id: `callpath-file-ends-at-headers`, file: `transport.go`, pkg: `.`,
			what: `a file's call ends for the hooks as its headers arrive, not as it is closed`,
			from: `			st.answered() // the hooks end as the file is closed`,
			to:   `			st.finish(nil)`},
		mutant{id: `callpath-page-error-unnamed`, file: `envelope.go`, pkg: `.`,
			what: `a page with a record at fault fails without the path of the field at fault`,
			from: `			return locateIn(item, t.Elem(), names[i], err, depth+1)`,
			to:   `			return names[i], err`},
	)
}
