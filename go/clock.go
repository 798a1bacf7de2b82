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

func (w window) close() windowTimes {
	elapsed := since(w.start)
	user, sys, _ := cpuTimes()
	return windowTimes{elapsed: elapsed, user: user - w.user, sys: sys - w.sys}
}
