package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// benchBin is gobench built once for the whole test run; the tests exec it as the
// harness does.
var benchBin string

func TestMain(m *testing.M) {
	if os.Getenv(panicChildEnv) == "1" {
		os.Exit(m.Run()) // TestTaskPanicExitsWithStatus1's child needs no binary
	}
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "gobench-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	benchBin = filepath.Join(dir, programName)
	if runtime.GOOS == "windows" {
		benchBin += ".exe"
	}
	if out, err := exec.Command("go", "build", "-tags", buildTags, "-o", benchBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building gobench: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

type benchRun struct {
	stdout, stderr string
	code           int
}

// runBench execs gobench with args and extra environment variables (KEY=value).
func runBench(t *testing.T, env []string, args ...string) benchRun {
	t.Helper()
	cmd := exec.Command(benchBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := benchRun{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running gobench %v: %v", args, err)
	}
	return r
}

// benchRecord runs a scenario that must succeed and returns its validated record.
func benchRecord(t *testing.T, env []string, args ...string) map[string]any {
	t.Helper()
	r := runBench(t, env, args...)
	if r.code != 0 {
		t.Fatalf("gobench %s: exit %d, stderr: %s", strings.Join(args, " "), r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	rec := validateRecord(t, lines[len(lines)-1])
	if rec["scenario"] != args[0] {
		t.Fatalf("record scenario = %v, want %s", rec["scenario"], args[0])
	}
	return rec
}

// validateRecord checks a record line against record.schema.json by hand: every
// field present with its type, nothing else at the top level.
func validateRecord(t *testing.T, line string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	var rec map[string]any
	if err := dec.Decode(&rec); err != nil {
		t.Fatalf("record is not JSON: %v\n%s", err, line)
	}
	fail := func(format string, a ...any) {
		t.Helper()
		t.Fatalf("record: "+format+"\n%s", append(a, line)...)
	}
	str := func(m map[string]any, k string) string {
		s, ok := m[k].(string)
		if !ok || s == "" {
			fail("%s = %#v, want a non-empty string", k, m[k])
		}
		return s
	}
	num := func(m map[string]any, k string, integer bool) float64 {
		n, ok := m[k].(json.Number)
		if !ok {
			fail("%s = %#v, want a number", k, m[k])
		}
		if integer {
			if _, err := n.Int64(); err != nil {
				if _, err := fmt.Sscan(n.String(), new(uint64)); err != nil {
					fail("%s = %s, want an integer", k, n)
				}
			}
		}
		f, _ := n.Float64()
		if f < 0 {
			fail("%s = %s, want >= 0", k, n)
		}
		return f
	}
	obj := func(m map[string]any, k string) map[string]any {
		o, ok := m[k].(map[string]any)
		if !ok {
			fail("%s = %#v, want an object", k, m[k])
		}
		return o
	}

	allowed := map[string]bool{}
	for _, k := range []string{"schema", "lang", "program", "build", "toolchain", "scenario", "variant",
		"params", "checksum", "elapsed_s", "window_cpu_s", "latency_us", "peak_rss_bytes", "baseline_rss_bytes", "cpu_user_s", "cpu_sys_s",
		"runtime", "metrics"} {
		allowed[k] = true
		if _, ok := rec[k]; !ok {
			fail("missing field %s", k)
		}
	}
	allowed["repeat"] = true  // only a run with --repeat K > 1 has it (TestRepeat)
	allowed["stretch"] = true // only a run with --stretch F > 1 has it (TestStretch)
	// Only where /proc/stat can be read (Linux): the whole machine's busy time in the window.
	allowed["window_machine"] = true
	if _, ok := rec["window_machine"]; ok {
		wm := obj(rec, "window_machine")
		num(wm, "busy_s", false)
		num(wm, "steal_s", false)
		if num(wm, "cpus", true) < 1 {
			fail("window_machine.cpus < 1")
		}
	} else if runtime.GOOS == "linux" {
		fail("a Linux record has window_machine")
	}
	for k := range rec {
		if !allowed[k] {
			fail("unexpected field %s", k)
		}
	}
	for k, want := range map[string]string{"schema": recordSchema, "lang": "go", "program": programName, "build": "go"} {
		if got := str(rec, k); got != want {
			fail("%s = %q, want %q", k, got, want)
		}
	}
	if tc := str(rec, "toolchain"); !regexp.MustCompile(`^go[0-9]`).MatchString(tc) {
		fail("toolchain %q does not match ^go[0-9]", tc)
	}
	sc := findScenario(str(rec, "scenario"))
	if sc == nil {
		fail("unknown scenario")
	}
	str(rec, "variant")
	ps := obj(rec, "params")
	for _, p := range sc.params {
		switch v := ps[p.name].(type) {
		case json.Number:
			if p.typ != typeInt && p.typ != typeFloat {
				fail("params.%s = %v, want a string", p.name, v)
			}
		case string:
			if p.typ == typeInt || p.typ == typeFloat {
				fail("params.%s = %q, want a number (\"cpus\" resolved)", p.name, v)
			}
		default:
			fail("params.%s = %#v, want a number or string", p.name, v)
		}
	}
	if len(ps) != len(sc.params) {
		fail("params has %d entries, the scenario %d", len(ps), len(sc.params))
	}
	num(rec, "checksum", true)
	num(rec, "elapsed_s", false)
	if rec["latency_us"] != nil {
		l := obj(rec, "latency_us")
		if len(l) != 2 {
			fail("latency_us has %d fields, want sojourn and service", len(l))
		}
		for _, kind := range []string{"sojourn", "service"} {
			s := obj(l, kind)
			if len(s) != 5 {
				fail("latency_us.%s has %d fields, want n, mean, p50, p99, max", kind, len(s))
			}
			if num(s, "n", true) < 1 {
				fail("latency_us.%s.n < 1", kind)
			}
			p50, p99, mx := num(s, "p50", false), num(s, "p99", false), num(s, "max", false)
			num(s, "mean", false)
			if p50 > p99 || p99 > mx {
				fail("latency_us.%s: p50 %v <= p99 %v <= max %v does not hold", kind, p50, p99, mx)
			}
		}
	}
	if num(rec, "peak_rss_bytes", true) == 0 {
		fail("peak_rss_bytes is 0")
	}
	num(rec, "cpu_user_s", false)
	num(rec, "cpu_sys_s", false)
	rt := obj(rec, "runtime")
	str(rt, "os")
	str(rt, "arch")
	if num(rt, "num_cpu", true) < 1 {
		fail("runtime.num_cpu < 1")
	}
	for _, k := range []string{"gomaxprocs", "gogc", "go_version"} {
		if _, ok := rt[k]; !ok {
			fail("runtime.%s missing", k)
		}
	}
	obj(rec, "metrics")
	return rec
}

// uintField reads an integer field of a record (or of a nested object).
func uintField(t *testing.T, m map[string]any, path ...string) uint64 {
	t.Helper()
	var v any = m
	for _, k := range path {
		o, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%v: %v is not an object", path, v)
		}
		v = o[k]
	}
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%v = %#v, want a number", path, v)
	}
	var u uint64
	if _, err := fmt.Sscan(n.String(), &u); err != nil {
		t.Fatalf("%v = %s, want an unsigned integer", path, n)
	}
	return u
}

func floatField(t *testing.T, m map[string]any, path ...string) float64 {
	t.Helper()
	var v any = m
	for _, k := range path {
		v = v.(map[string]any)[k]
	}
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%v = %#v, want a number", path, v)
	}
	f, err := n.Float64()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// minstd returns the first n MINSTD draws from 42, computed here independently of
// lcg.go.
func minstd(n int) []uint64 {
	d := make([]uint64, n)
	s := uint64(42)
	for i := range d {
		s = s * 48271 % 2147483647
		d[i] = s
	}
	return d
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{nil, "missing scenario"},
		{[]string{"nosuch"}, `unknown scenario "nosuch"`},
		{[]string{"hashmap", "--variant", "threads"}, `unknown variant "threads"`},
		{[]string{"hashmap"}, "needs --variant"},
		{[]string{"cpu", "--foo", "1"}, "unknown parameter --foo"},
		{[]string{"cpu", "--tasks", "abc"}, `--tasks: "abc" is not a positive integer`},
		{[]string{"cpu", "--tasks=0"}, "--tasks must be >= 1"},
		{[]string{"cpu", "--items", "-3"}, "--items must be >= 1"},
		{[]string{"hashmap", "--variant", "spawn", "--rate", "0"}, "--rate must be >= 0.001"},
		{[]string{"hashmap", "--variant", "spawn", "--rate", "fast"}, `--rate: "fast" is not a number`},
		{[]string{"hashmap", "--variant", "spawn", "--shape", "wave"}, `--shape: "wave" is not one of burst, rate`},
		{[]string{"cpu", "--tasks"}, "--tasks needs a value"},
		{[]string{"cpu", "--tasks", "1", "--tasks", "2"}, "--tasks given twice"},
		{[]string{"cpu", "stray"}, `unexpected argument "stray"`},
		{[]string{"setup", "files-read", "--tasks", "0"}, "--tasks must be >= 1"},
		{[]string{"list", "extra"}, "list takes no arguments"},
		{[]string{"cpu", "--repeat", "0"}, `--repeat: "0" is not a whole number from 1 to 100`},
		{[]string{"cpu", "--repeat=101"}, `--repeat: "101" is not a whole number from 1 to 100`},
		{[]string{"cpu", "--repeat", "2", "--repeat", "3"}, "--repeat given twice"},
		{[]string{"setup", "files-rw", "--repeat", "2"}, "--repeat is for a run, not for setup"},
		{[]string{"cpu", "--stretch", "0.95"}, `--stretch: "0.95" is not a number from 1 to 2`},
		{[]string{"cpu", "--stretch=NaN"}, `--stretch: "NaN" is not a number from 1 to 2`},
		{[]string{"cpu", "--stretch", "x"}, `--stretch: "x" is not a number from 1 to 2`},
		{[]string{"cpu", "--stretch", "1.1", "--stretch", "1.2"}, "--stretch given twice"},
		{[]string{"setup", "files-rw", "--stretch", "1.1"}, "--stretch is for a run, not for setup"},
	}
	if buildTags == "" {
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"sqlite", "--variant", "goroutines"}, "it is in gobench-sql"})
	}
	for _, c := range cases {
		r := runBench(t, nil, c.args...)
		lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
		if r.code != exitUsage || len(lines) != 1 || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("gobench %v: exit %d, stdout %q, stderr %q; want exit 2 and one line containing %q",
				c.args, r.code, r.stdout, r.stderr, c.want)
		}
		if !strings.HasPrefix(r.stderr, programName+": ") {
			t.Errorf("gobench %v: stderr %q does not start with the program name", c.args, r.stderr)
		}
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	r := runBench(t, nil, "list")
	if r.code != 0 {
		t.Fatalf("list: exit %d: %s", r.code, r.stderr)
	}
	var l struct {
		Program   string `json:"program"`
		Lang      string `json:"lang"`
		Toolchain string `json:"toolchain"`
		Scenarios map[string]struct {
			Variants []string                  `json:"variants"`
			Params   map[string]map[string]any `json:"params"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &l); err != nil {
		t.Fatalf("list is not JSON: %v", err)
	}
	if l.Program != programName || l.Lang != "go" || !strings.HasPrefix(l.Toolchain, "go") {
		t.Errorf("list header = %+v", l)
	}
	// Every scenario of the catalogue (scenarios.go) whose program this is, and in the
	// split program (gobench-sql) every one: a scenario without its file fails here.
	want := map[string][]string{}
	for _, c := range catalogue {
		if c.program == programName || buildTags == "sql" {
			want[c.name] = c.variants
		}
	}
	if len(l.Scenarios) != len(want) {
		t.Errorf("list has %d scenarios, want %d (%v)", len(l.Scenarios), len(want), want)
	}
	for name, variants := range want {
		if got := l.Scenarios[name].Variants; strings.Join(got, ",") != strings.Join(variants, ",") {
			t.Errorf("%s variants = %v, want %v", name, got, variants)
		}
	}
	if d := l.Scenarios["hashmap"].Params["workers"]["default"]; d != "cpus" {
		t.Errorf("hashmap workers default = %v, want \"cpus\"", d)
	}
	if !strings.Contains(r.stdout, `"rate":{"type":"float","min":0.001,"max":1000000.0,"default":10.0}`) {
		t.Errorf("hashmap rate is not listed as float min 0.001 default 10.0: %s", r.stdout)
	}
}

func TestSetupWithoutStateIsANoOp(t *testing.T) {
	t.Parallel()
	// hashmap has four variants: setup must not ask which one.
	for _, sc := range []string{"cpu", "hashmap"} {
		r := runBench(t, nil, "setup", sc, "--tasks", "3")
		if r.code != 0 || r.stdout != "" {
			t.Fatalf("setup %s: exit %d, stdout %q, stderr %q", sc, r.code, r.stdout, r.stderr)
		}
	}
}

// The lean program must not link what only the SQL scenarios use: Go runs every linked
// package's initialisers, and cgo's start-up, in every run (about 5 MB of resident
// memory here), which would be counted in every other scenario's peak memory.
func TestLeanProgramLinksNoDatabaseDriverNorCgo(t *testing.T) {
	if buildTags != "" {
		t.Skip("the lean program is the build without tags")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "database/sql" || dep == "runtime/cgo" || dep == "net" || strings.Contains(dep, "sqlite") || strings.Contains(dep, "mysql") || strings.Contains(dep, "pgx") {
			t.Errorf("the lean gobench links %s", dep)
		}
	}
}
