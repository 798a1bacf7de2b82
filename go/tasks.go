package main

import (
	"fmt"
	"os"
	"sync/atomic"
	"time"
)

// exitOnPanic, deferred first thing in every task goroutine, turns a panic into a
// failed run: exit 1 with one line on stderr. Unrecovered, the Go runtime would exit
// with status 2, which the harness reads as a usage error.
func exitOnPanic() {
	if r := recover(); r != nil {
		fmt.Fprintf(os.Stderr, "%s: task panicked: %s\n", programName, oneLine(fmt.Sprint(r)))
		os.Exit(exitFailed)
	}
}

// failure keeps the first error of a group of tasks; the others check stopped() and
// give up early instead of each running into the same fault. It is cheaper than a
// cancellable context, which makes some drivers start a goroutine per query.
type failure struct{ err atomic.Pointer[error] }

// set records err if it is the first and reports whether it was.
func (f *failure) set(err error) bool { return f.err.CompareAndSwap(nil, &err) }

func (f *failure) stopped() bool { return f.err.Load() != nil }

func (f *failure) get() error {
	if p := f.err.Load(); p != nil {
		return *p
	}
	return nil
}

// arrivals gives each task its scheduled arrival time. Under burst every task is due
// at the start of the window; under rate task t is due t/rate ms after it (open
// loop: the spawner sleeps only when it is early, so a late spawner catches up in a
// batch and the offered rate holds).
type arrivals struct {
	start     instant
	paced     bool
	nsPerTask float64
}

func newArrivals(start instant, paced bool, ratePerMs float64) arrivals {
	return arrivals{start: start, paced: paced, nsPerTask: 1e6 / ratePerMs}
}

func (a arrivals) at(t int) instant {
	if !a.paced {
		return a.start
	}
	return a.start.add(time.Duration(float64(t) * a.nsPerTask))
}

// wait sleeps until task t is due and returns its scheduled time.
func (a arrivals) wait(t int) instant {
	at := a.at(t)
	if d := at.sub(now()); d > 0 {
		time.Sleep(d)
	}
	return at
}
