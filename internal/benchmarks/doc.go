// Package benchmarks measures the SDK against the client a user would
// write by hand (internal/handwritten), in the same run and against the
// same local servers. It is a module of its own, as it runs the SDK on
// the fake, and holds only benchmarks: the tests (go test
// github.com/acctadmin/acctadmin-go/...) compile them and run none. Run
// them with .ci/bench, which prints the table of
// BENCHMARKS.md; each benchmark is a pair BenchmarkX/sdk and
// BenchmarkX/handwritten (with, for downloads, a third reference,
// BenchmarkX/handwritten-copy).
package benchmarks
