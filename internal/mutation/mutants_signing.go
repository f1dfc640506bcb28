package main

// The slips of the documented signing form: the query left out of the
// content claim, and the option that leaves it out ignored.
func init() {
	const run = `TestSign|TestAuth`
	mutants = append(mutants,
		mutant{id: `signing-query-not-hashed`, file: `auth.go`, pkg: `.`, run: run,
			what: `the content claim of a request with a query hashes the body alone`,
			from: `		content = append([]byte(q), body...)`,
			to:   `		content = body`},
		mutant{id: `signing-body-only-ignored`, file: `auth.go`, pkg: `.`, run: run,
			what: `WithBodyOnlySigning still hashes the query`,
			from: `q != "" && !s.bodyOnly {`,
			to:   `q != "" {`},
		mutant{id: `signing-body-only-option-lost`, file: `client.go`, pkg: `.`, run: run,
			what: `the client's signer made without WithBodyOnlySigning's setting`,
			from: `		a.(*signer).bodyOnly = s.bodyOnly`,
			to:   `		_ = s.bodyOnly`},
	)
}
