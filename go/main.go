// gobench is the Go half of the Go-vs-Rust concurrency benchmarks: one scenario per
// run, one JSON result record as the last line on stdout (see
// ci-scripts/schemas/README.md, Contract 1).
//
//	gobench <scenario> [--variant v] [--repeat K] [--stretch F] [--param value ...]
//	gobench setup <scenario> [--param value ...]
//	gobench list
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// Exit statuses of Contract 1.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) (code int) {
	// A panic on the main goroutine is a failed run, not the runtime's exit status 2,
	// which would read as a usage error.
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "%s: panic: %v\n", programName, r)
			code = exitFailed
		}
	}()
	// Go raises the soft limit itself since 1.19; doing it here too keeps the rule
	// explicit and the same as in Rust. A failure leaves a lower limit, which the
	// open-file permits then respect.
	_ = raiseOpenFileLimit()
	baselineRSS, _ = peakRSSBytes()

	err := dispatch(args, stdout, stderr)
	switch {
	case err == nil:
		return exitOK
	case isUsageError(err):
		fmt.Fprintf(stderr, "%s: %s\n", programName, oneLine(err.Error()))
		return exitUsage
	default:
		fmt.Fprintf(stderr, "%s: %s\n", programName, oneLine(err.Error()))
		return exitFailed
	}
}

func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("missing scenario; usage: %s <scenario> [--variant v] [--param value ...] | setup <scenario> ... | list", programName)
	}
	switch args[0] {
	case "list":
		if len(args) > 1 {
			return usagef("list takes no arguments")
		}
		return writeJSONLine(stdout, newListing())
	case "setup":
		inv, err := parseInvocation(args[1:], false)
		if err != nil {
			return err
		}
		if inv.sc.setup == nil {
			return nil
		}
		if err := inv.sc.setup(inv.params); err != nil {
			return fmt.Errorf("setup %s: %w", inv.sc.name, err)
		}
		fmt.Fprintf(stderr, "%s: setup %s done\n", programName, inv.sc.name)
		return nil
	case "help", "-h", "--help":
		fmt.Fprintf(stdout, "usage: %s <scenario> [--variant v] [--repeat K] [--stretch F] [--param value ...]\n       %s setup <scenario> [--param value ...]\n       %s list\nscenarios: %s\n",
			programName, programName, programName, strings.Join(scenarioNames(), ", "))
		return nil
	}
	inv, err := parseInvocation(args, true)
	if err != nil {
		return err
	}
	if inv.stretch > 1 {
		windowStretch = inv.stretch
	}
	res, repeat, err := runRepeated(inv)
	if err != nil {
		return fmt.Errorf("%s: %w", inv.sc.name, err)
	}
	rec, err := newRecord(inv, res)
	if err != nil {
		return fmt.Errorf("%s: reading resource usage: %w", inv.sc.name, err)
	}
	rec.Repeat = repeat
	if inv.stretch > 1 {
		rec.Stretch = inv.stretch
	}
	return writeJSONLine(stdout, rec)
}

// oneLine keeps a message to the single stderr line the contract promises.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
