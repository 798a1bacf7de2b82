package main

import (
	"encoding/json"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

const recordSchema = "gorust-bench.record/1"

// result is what a scenario hands back; the record adds what every run shares.
type result struct {
	checksum uint64
	window   windowTimes     // the scenario's own timed window
	latency  *latencySummary // nil where the scenario has no tasks
	runtime  map[string]any  // scenario facts (SQLite version, pool, ...)
	metrics  map[string]any
}

// record is the result record (Contract 1), the last line on stdout.
type record struct {
	Schema       string          `json:"schema"`
	Lang         string          `json:"lang"`
	Program      string          `json:"program"`
	Build        string          `json:"build"`
	Toolchain    string          `json:"toolchain"`
	Scenario     string          `json:"scenario"`
	Variant      string          `json:"variant"`
	Params       map[string]any  `json:"params"`
	Checksum     uint64          `json:"checksum"`
	ElapsedS     float64         `json:"elapsed_s"`
	WindowCPUS   windowCPU       `json:"window_cpu_s"`
	WindowMach   *windowMachine  `json:"window_machine,omitempty"` // Linux: what the machine's CPUs did in the window
	LatencyUS    *latencySummary `json:"latency_us"`
	PeakRSSBytes uint64          `json:"peak_rss_bytes"`
	BaselineRSS  uint64          `json:"baseline_rss_bytes"`
	CPUUserS     float64         `json:"cpu_user_s"`
	CPUSysS      float64         `json:"cpu_sys_s"`
	Runtime      map[string]any  `json:"runtime"`
	Metrics      map[string]any  `json:"metrics"`
	Repeat       *repeatInfo     `json:"repeat,omitempty"`
	Stretch      float64         `json:"stretch,omitempty"` // --stretch F > 1: every window held open to F times its length
}

// windowCPU is the CPU time the process spent inside the timed window.
type windowCPU struct {
	User float64 `json:"user"`
	Sys  float64 `json:"sys"`
}

func (w windowTimes) cpu() windowCPU {
	return windowCPU{User: w.user.Seconds(), Sys: w.sys.Seconds()}
}

// baselineRSS is the peak resident set when main starts, before any scenario code:
// what the program itself costs. Reports subtract it where memory per unit of work
// is shown.
var baselineRSS uint64

func toolchain() string { return runtime.Version() }

func newRecord(inv *invocation, res *result) (*record, error) {
	peak, err := peakRSSBytes()
	if err != nil {
		return nil, err
	}
	user, sys, err := cpuTimes()
	if err != nil {
		return nil, err
	}
	ps := make(map[string]any, len(inv.params))
	for k, v := range inv.params {
		ps[k] = jsonValue(v)
	}
	rt := runtimeFacts()
	for k, v := range res.runtime {
		rt[k] = v
	}
	metrics := res.metrics
	if metrics == nil {
		metrics = map[string]any{}
	}
	return &record{
		Schema:       recordSchema,
		Lang:         "go",
		Program:      programName,
		Build:        "go",
		Toolchain:    toolchain(),
		Scenario:     inv.sc.name,
		Variant:      inv.variant,
		Params:       ps,
		Checksum:     res.checksum,
		ElapsedS:     res.window.elapsed.Seconds(),
		WindowCPUS:   res.window.cpu(),
		WindowMach:   res.window.machine.record(),
		LatencyUS:    res.latency,
		PeakRSSBytes: peak,
		BaselineRSS:  baselineRSS,
		CPUUserS:     user.Seconds(),
		CPUSysS:      sys.Seconds(),
		Runtime:      rt,
		Metrics:      metrics,
	}, nil
}

// runtimeFacts are the Go runtime's settings that shape every result.
func runtimeFacts() map[string]any {
	gogc := os.Getenv("GOGC")
	if gogc == "" {
		gogc = "100"
	}
	return map[string]any{
		"os":         osName(runtime.GOOS),
		"arch":       archName(runtime.GOARCH),
		"num_cpu":    runtime.NumCPU(),
		"gomaxprocs": runtime.GOMAXPROCS(0),
		"gogc":       gogc,
		"go_version": runtime.Version(),
	}
}

func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// jsonFloat prints a float the way Rust's serde_json does, always with a decimal
// point (10.0, not 10), so both programs write the same parameter values.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	s := strconv.FormatFloat(float64(f), 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return []byte(s), nil
}

func jsonValue(v any) any {
	if f, ok := v.(float64); ok {
		return jsonFloat(f)
	}
	return v
}

// perSecond is n per second of d, or 0 when the clock did not advance (coarse
// timers), because JSON has no infinity.
func perSecond(n float64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return n / d.Seconds()
}

// osName and archName use the vocabulary of the rest of the project (Rust's std and
// the results files: macos, x86_64, aarch64), so records compare across languages.
func osName(goos string) string {
	if goos == "darwin" {
		return "macos"
	}
	return goos
}

func archName(goarch string) string {
	switch goarch {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	case "386":
		return "x86"
	}
	return goarch
}
