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
