// Command benchtable reads the output of go test -bench for the
// benchmarks of internal/benchmarks (pairs BenchmarkX/sdk and
// BenchmarkX/handwritten) and prints them as markdown: for each
// benchmark, the median of every metric for each variant, the ratio of the
// SDK to each baseline, and whether the SDK meets its targets.
//
// Usage:
//
//	go test -run '^$' -bench . -benchmem -count 5 ./internal/benchmarks | benchtable [-cmd text] [-update BENCHMARKS.md]
//
// With -update, the tables replace what lies between the lines
// "<!-- benchtable -->" and "<!-- /benchtable -->" of the file instead of
// going to standard output. The exit status is 1 when a target is missed,
// 2 on bad input.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A target is what the SDK's figure for one metric of one benchmark must
// reach, alone or against a baseline variant.
type target struct {
	bench, unit string
	base        string  // the baseline variant; "" for an absolute bound
	kind        kind    // how the figure is compared
	bound       float64 // the limit
	why         string  // the target as the issue states it
}

type kind int

const (
	maxRatio   kind = iota // sdk/base <= bound
	minRatio               // sdk/base >= bound
	minSpeedup             // base/sdk >= bound
	maxValue               // sdk <= bound
	minValue               // sdk >= bound
)

// targets are the performance targets of the SDK.
var targets = []target{
	{"BenchmarkCallbacksList", "ns/op", "handwritten", maxRatio, 1.10, "time/op at most 1.10x the hand-written client"},
	{"BenchmarkCallbacksList", "allocs/op", "handwritten", maxRatio, 1.00, "allocs/op no more than the hand-written client"},
	{"BenchmarkDecodeDocumentsPage", "ns/op", "handwritten", maxRatio, 1.25, "decoding at most 1.25x the time of plain encoding/json"},
	{"BenchmarkPagingRead", "ns/op", "handwritten", minSpeedup, 2.0, "wall time at least 2.0x faster than sequential paging"},
	{"BenchmarkPull", "ns/op", "sequential", minSpeedup, 6.0, "Pull with 8 workers at least 6x faster than All + Download one at a time (ideal 8x)"},
	{"BenchmarkUnreadDrain", "visited/op", "", minValue, unreadDocs, "every unread document visited"},
	{"BenchmarkDownload256MiB", "peak-heap-MiB", "", maxValue, 8, "peak heap growth under 8 MiB"},
	{"BenchmarkDownload256MiB", "MB/s", "handwritten-copy", minRatio, 0.90, "throughput at least 90% of a plain io.Copy"},
	{"BenchmarkConnectionReuse", "conns/op", "", maxValue, 2, "at most 2 TCP connections for 1,000 GETs"},
	{"BenchmarkWebhookVerify", "ns/op", "handwritten", maxRatio, 1.2, "time/op at most 1.2x a plain jwt.Parse"},
	{"BenchmarkWebhookVerify", "allocs/op", "handwritten", maxRatio, 1.2, "allocs/op at most 1.2x a plain jwt.Parse"},
}

// unreadDocs is the size of the unread listing of BenchmarkUnreadDrain.
const unreadDocs = 1000

// results holds every sample of every metric: benchmark -> variant ->
// unit -> values, with the order in which names first appeared.
type results struct {
	benches  []string
	variants map[string][]string
	values   map[string]map[string]map[string][]float64
	units    []string
	cpu      string
}

func main() {
	cmd := flag.String("cmd", "", "the command that produced the input, printed above the tables")
	update := flag.String("update", "", "replace the marked block of this file instead of printing")
	flag.Parse()

	in := io.Reader(os.Stdin)
	if flag.NArg() > 0 {
		var files []io.Reader
		for _, name := range flag.Args() {
			b, err := os.ReadFile(name)
			if err != nil {
				fail(err)
			}
			files = append(files, bytes.NewReader(b))
		}
		in = io.MultiReader(files...)
	}
	r, err := parse(in)
	if err != nil {
		fail(err)
	}
	if len(r.benches) == 0 {
		fail(errors.New("no benchmark results in the input"))
	}
	var out bytes.Buffer
	missed := render(&out, r, *cmd)
	if *update != "" {
		if err := splice(*update, out.Bytes()); err != nil {
			fail(err)
		}
	} else {
		os.Stdout.Write(out.Bytes())
	}
	if missed > 0 {
		fmt.Fprintf(os.Stderr, "benchtable: %d target(s) missed\n", missed)
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchtable:", err)
	os.Exit(2)
}

// parse reads go test -bench output. Lines other than results are
// skipped, except "cpu:", which names the processor.
func parse(in io.Reader) (*results, error) {
	r := &results{variants: map[string][]string{}, values: map[string]map[string]map[string][]float64{}}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := sc.Text()
		if cpu, ok := strings.CutPrefix(line, "cpu: "); ok {
			r.cpu = strings.TrimSpace(cpu)
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i] // the GOMAXPROCS suffix
			}
		}
		bench, variant, ok := cutLast(name, "/")
		if !ok {
			continue
		}
		if r.values[bench] == nil {
			r.benches = append(r.benches, bench)
			r.values[bench] = map[string]map[string][]float64{}
		}
		if r.values[bench][variant] == nil {
			r.variants[bench] = append(r.variants[bench], variant)
			r.values[bench][variant] = map[string][]float64{}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", line, err)
			}
			unit := f[i+1]
			if !slices.Contains(r.units, unit) {
				r.units = append(r.units, unit)
			}
			r.values[bench][variant][unit] = append(r.values[bench][variant][unit], v)
		}
	}
	return r, sc.Err()
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// median returns the median of vs, and how many there are.
func median(vs []float64) (float64, int) {
	if len(vs) == 0 {
		return 0, 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2], n
	}
	return (s[n/2-1] + s[n/2]) / 2, n
}

// unitOrder puts the standard metrics first.
func unitOrder(units []string) []string {
	std := []string{"ns/op", "MB/s", "B/op", "allocs/op"}
	var out []string
	for _, u := range std {
		if slices.Contains(units, u) {
			out = append(out, u)
		}
	}
	for _, u := range units {
		if !slices.Contains(std, u) {
			out = append(out, u)
		}
	}
	return out
}

// render writes the summary and one table per benchmark, and returns the
// number of targets missed.
func render(w io.Writer, r *results, cmd string) int {
	fmt.Fprintf(w, "Machine: %s, %d cores (nproc), %s %s/%s.\n", orUnknown(r.cpu), runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if cmd != "" {
		fmt.Fprintf(w, "\nCommand:\n\n```\n%s\n```\n", cmd)
	}
	runs := 0
	for _, b := range r.benches {
		for _, v := range r.variants[b] {
			for _, vs := range r.values[b][v] {
				runs = max(runs, len(vs))
			}
		}
	}
	fmt.Fprintf(w, "\nEach figure is the median of %d run(s). Generated %s.\n", runs, time.Now().UTC().Format("2006-01-02 15:04 MST"))

	missed := 0
	fmt.Fprintf(w, "\n### Targets\n\n| benchmark | target | measured | met |\n|---|---|--:|:-:|\n")
	for _, t := range targets {
		got, ok := r.measure(t)
		if !ok {
			fmt.Fprintf(w, "| %s | %s | not run | – |\n", strings.TrimPrefix(t.bench, "Benchmark"), t.why)
			continue
		}
		met := "yes"
		if !t.met(got) {
			met, missed = "**no**", missed+1
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", strings.TrimPrefix(t.bench, "Benchmark"), t.why, t.format(got), met)
	}

	for _, b := range r.benches {
		vars := slices.Clone(r.variants[b])
		if i := slices.Index(vars, "sdk"); i > 0 {
			vars = append([]string{"sdk"}, slices.Delete(vars, i, i+1)...)
		}
		var bases []string
		if vars[0] == "sdk" {
			bases = vars[1:]
		}
		fmt.Fprintf(w, "\n### %s\n\n| metric |", b)
		for _, v := range vars {
			fmt.Fprintf(w, " %s |", v)
		}
		for _, base := range bases {
			fmt.Fprintf(w, " sdk/%s |", base)
		}
		fmt.Fprintf(w, "\n|---|%s%s\n", strings.Repeat("--:|", len(vars)), strings.Repeat("--:|", len(bases)))
		var units []string
		for _, u := range unitOrder(r.units) {
			for _, v := range vars {
				if len(r.values[b][v][u]) > 0 {
					units = append(units, u)
					break
				}
			}
		}
		for _, u := range units {
			fmt.Fprintf(w, "| %s |", u)
			meds := map[string]float64{}
			for _, v := range vars {
				m, n := median(r.values[b][v][u])
				if n == 0 {
					fmt.Fprintf(w, " – |")
					continue
				}
				meds[v] = m
				fmt.Fprintf(w, " %s |", formatValue(u, m))
			}
			for _, base := range bases {
				s, okS := meds["sdk"]
				bv, okB := meds[base]
				if !okS || !okB || bv == 0 {
					fmt.Fprintf(w, " – |")
					continue
				}
				fmt.Fprintf(w, " %s |", formatRatio(s/bv))
			}
			fmt.Fprintln(w)
		}
	}
	return missed
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown CPU"
	}
	return s
}

// measure returns the figure that t is judged on.
func (r *results) measure(t target) (float64, bool) {
	sdk, n := median(r.values[t.bench]["sdk"][t.unit])
	if n == 0 {
		return 0, false
	}
	switch t.kind {
	case maxValue, minValue:
		return sdk, true
	}
	base, n := median(r.values[t.bench][t.base][t.unit])
	if n == 0 || base == 0 || sdk == 0 {
		return 0, false
	}
	if t.kind == minSpeedup {
		return base / sdk, true
	}
	return sdk / base, true
}

func (t target) met(got float64) bool {
	switch t.kind {
	case maxRatio, maxValue:
		return got <= t.bound
	default:
		return got >= t.bound
	}
}

func (t target) format(got float64) string {
	switch t.kind {
	case maxRatio, minRatio:
		return formatRatio(got) + " " + t.base
	case minSpeedup:
		return formatRatio(got) + " faster than " + t.base
	default:
		return formatValue(t.unit, got) + " " + t.unit
	}
}

// formatRatio prints a ratio with two decimals, or two significant digits
// when it is that small.
func formatRatio(r float64) string {
	if r < 0.01 {
		return strconv.FormatFloat(r, 'g', 2, 64) + "x"
	}
	return fmt.Sprintf("%.2fx", r)
}

// formatValue prints a median in the unit's natural form.
func formatValue(unit string, v float64) string {
	switch unit {
	case "ns/op":
		return time.Duration(v).Round(roundTo(v)).String()
	case "B/op":
		switch {
		case v >= 1<<20:
			return fmt.Sprintf("%.1f MiB", v/(1<<20))
		case v >= 1<<10:
			return fmt.Sprintf("%.1f KiB", v/(1<<10))
		}
		return fmt.Sprintf("%.0f B", v)
	case "allocs/op":
		return fmt.Sprintf("%.0f", v)
	}
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// roundTo keeps about three significant digits of a duration.
func roundTo(ns float64) time.Duration {
	d := time.Duration(1)
	for float64(d)*1000 <= ns {
		d *= 10
	}
	return d
}

// The markers of the block that -update replaces.
const (
	beginMarker = "<!-- benchtable -->"
	endMarker   = "<!-- /benchtable -->"
)

// splice replaces the marked block of file with block.
func splice(file string, block []byte) error {
	old, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	i := bytes.Index(old, []byte(beginMarker))
	j := bytes.Index(old, []byte(endMarker))
	if i < 0 || j < i {
		return fmt.Errorf("%s: no %s ... %s block", file, beginMarker, endMarker)
	}
	var out bytes.Buffer
	out.Write(old[:i+len(beginMarker)])
	out.WriteString("\n")
	out.Write(block)
	out.WriteString("\n")
	out.Write(old[j:])
	return os.WriteFile(file, out.Bytes(), 0o644)
}
