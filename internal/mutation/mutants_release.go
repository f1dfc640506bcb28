package main

// One release version in every module, the command line's --version, and
// the Redis lease that lives in two modules byte for byte.
func init() {
	mutants = append(mutants,
		mutant{id: `release-version-not-required`, file: `client.go`, pkg: `.`,
			what: `the SDK's Version names a release the modules do not require one another at`,
			from: `const Version = "0.4.0"`,
			to:   `const Version = "0.4.1"`,
			run:  `^TestOneReleaseVersion$`},
		mutant{id: `release-cli-version-tag`, file: `cmd/acctadmin/version.go`, pkg: `./cmd/acctadmin`,
			what: `acctadmin --version says the tag (v0.4.0), not the SDK's Version`,
			from: `var version = acctadmin.Version`,
			to:   `var version = "v" + acctadmin.Version`,
			run:  `^TestVersionIsTheSDKs$`},
		mutant{id: `release-lease-copy-drift`, file: `mailroom/internal/redislease/redislease.go`, pkg: `./internal/integration`,
			what: `the mail room's copy of the lease changes and the replay cache's does not`,
			from: `// DefaultTimeout bounds each call`,
			to:   `// DefaultTimeout limits each call`,
			run:  `^TestTheLeaseCopiesAreOne$`},
	)
}
