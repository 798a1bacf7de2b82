package main

import "time"

// instant is a monotonic clock reading in nanoseconds from an arbitrary origin. The
// scenarios time themselves with it instead of time.Now because Go's monotonic clock
// on Windows advances only with the timer tick (0.5 to 15.6 ms), far too coarse for
// task latencies; there clock_windows.go reads QueryPerformanceCounter, as Rust's
// Instant does.
type instant int64

func (a instant) sub(b instant) time.Duration { return time.Duration(a - b) }

func (a instant) add(d time.Duration) instant { return a + instant(d) }

func since(a instant) time.Duration { return now().sub(a) }

// window is a scenario's timed window: its wall time and the process CPU time spent
// inside it (setup, runtime start and connection opening stay outside). CPU inside the
// window is what the pipeline compares, because the whole process's CPU time also
// counts the runtime's and the driver's start-up.
type window struct {
	start     instant
	user, sys time.Duration
}

// windowTimes is what a closed window measured.
type windowTimes struct {
	elapsed   time.Duration
	user, sys time.Duration
}

// openWindow and close ignore a failure to read the CPU times: newRecord reads them
// again and fails the run on the same error, as Rust's Usage does.
func openWindow() window {
	user, sys, _ := cpuTimes()
	return window{start: now(), user: user, sys: sys}
}

// maxStretch bounds --stretch: a doubling is more than any calibration needs.
const maxStretch = 2

// windowStretch is --stretch, set once by main before the scenario runs: close holds
// every window open, spinning on the clock, until it has lasted this many times what
// the scenario took. It injects an exact slowdown of the window (and CPU time spent
// spinning, as slower code would spend it) for `bench calibrate`: scaling a size
// parameter instead grows some windows by less than the factor (a part of them does
// not grow with the size). 1: the window closes when the work is done.
var windowStretch = 1.0

func (w window) close() windowTimes { return w.closeStretched(windowStretch) }

func (w window) closeStretched(stretch float64) windowTimes {
	elapsed := since(w.start)
	if stretch > 1 {
		target := time.Duration(float64(elapsed) * stretch)
		for since(w.start) < target {
		}
		elapsed = since(w.start)
	}
	user, sys, _ := cpuTimes()
	return windowTimes{elapsed: elapsed, user: user - w.user, sys: sys - w.sys}
}
