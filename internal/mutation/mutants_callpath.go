package main

// The call path (Client.send and the hooks it gives go-retryablehttp):
// how many attempts it makes, what it does with a discarded answer and a
// request's body, when it notices a cancelled context, which transport
// errors it leaves alone, and when a file's call ends for the hooks.
func init() {
	mutants = append(mutants,
		mutant{id: `callpath-cert-retried`, file: `transport.go`, pkg: `.`, run: `TestUntrustedCertificateIsNotRetried`,
			what: `a certificate no retry mends is tried again`,
			from: `	retry, _ := retryablehttp.DefaultRetryPolicy(context.Background(), nil, err)`,
			to:   `	retry := true`},
		mutant{id: `callpath-retries-one-more`, file: `transport.go`, pkg: `.`,
			what: `one attempt more than WithMaxRetries allows`,
			from: `RetryMax: c.maxRetries,`,
			to:   `RetryMax: c.maxRetries + 1,`},
		mutant{id: `callpath-discarded-not-drained`, file: `transport.go`, pkg: `.`, run: `TestTransportDrainsDiscardedBodies`,
			what: `a discarded answer is closed unread, which costs its connection`,
			from: `			drainAndClose(resp.Body) // a longer answer costs its connection`,
			to:   `			resp.Body.Close()`},
		mutant{id: `callpath-wait-ignores-ctx`, file: `transport.go`, pkg: `.`,
			what: `an observed call's attempts, and the waits between them, do not see the caller's cancel`,
			from: `		r := st.obs.attemptStarted(req.WithContext(st.obs.ctx), i+1)`,
			to:   `		r := st.obs.attemptStarted(req.WithContext(context.WithoutCancel(st.obs.ctx)), i+1)`},
		mutant{id: `callpath-body-once`, file: `transport.go`, pkg: `.`,
			what: `the signer reads the attempt's own body, and the request goes without it`,
			from: `		r.Body = io.NopCloser(bytes.NewReader(body)) // the bytes signed are the bytes sent`,
			to:   `		r.Body = http.NoBody`},
		mutant{id: `callpath-file-ends-at-headers`, file: `files.go`, pkg: `.`,
			what: `a file's call ends for the hooks as its headers arrive, not as it is closed`,
			from: `	st.answered() // the hooks end as the file is closed`,
			to:   `	st.finish(nil)`},
		mutant{id: `callpath-page-error-unnamed`, file: `envelope.go`, pkg: `.`,
			what: `a page with a record at fault fails without the path of the field at fault`,
			from: `				return locateIn(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i), ierr, depth+1)`,
			to:   `				return fmt.Sprintf("%s[%d]", path, i), ierr`},
	)
}
