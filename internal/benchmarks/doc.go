// Package benchmarks measures the SDK against the client a user would
// write by hand (internal/handwritten), in the same run and against the
// same local servers. It holds only benchmarks: go test ./... compiles
// them and runs none. Run them with .ci/bench, which prints the table of
// BENCHMARKS.md; each benchmark is a pair BenchmarkX/sdk and
// BenchmarkX/handwritten (with, for downloads, a third reference,
// BenchmarkX/handwritten-copy).
package benchmarks
