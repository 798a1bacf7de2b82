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
	machine   machineReading
}

// windowTimes is what a closed window measured: its wall time, the process's CPU time
// in it, and what the whole machine's CPUs did meanwhile (machine.go).
type windowTimes struct {
	elapsed   time.Duration
	user, sys time.Duration
	machine   machineTimes
}

// openWindow and close ignore a failure to read the CPU times: newRecord reads them
// again and fails the run on the same error, as Rust's Usage does. The machine is read
// just outside the window's clock. Under Callgrind (--instr-atstart=no) only the
// instructions between the window's clock readings are counted (valgrind.go).
func openWindow() window {
	m := machineNow()
	user, sys, _ := cpuTimes()
	startInstrumentation()
	return window{start: now(), user: user, sys: sys, machine: m}
}

// maxStretch bounds --stretch: a doubling is more than any calibration needs.
const maxStretch = 2

// windowStretch is --stretch, set once by main before the scenario runs (1: none).
var windowStretch = 1.0

func (w window) close() windowTimes { return w.closeStretched(windowStretch) }

func (w window) closeStretched(stretch float64) windowTimes {
	elapsed := since(w.start)
	stopInstrumentation() // before the stretch: it is not the scenario's work
	if stretch > 1 {
		w.holdOpen(elapsed, stretch)
		elapsed = since(w.start)
	}
	user, sys, _ := cpuTimes()
	m := w.machine.during(machineNow())
	return windowTimes{elapsed: elapsed, user: user - w.user, sys: sys - w.sys, machine: m}
}

// holdOpen injects an exact slowdown for `bench calibrate --inject window` (scaling a
// size parameter instead lengthens some windows by less: a part of them does not grow
// with the size). The window closes after stretch x work, and its CPU time grows by
// the same factor as far as one thread can add it: the thread spins until the process
// has used (stretch - 1) x the window's CPU time so far, counted in CPU time rather than
// on the clock (a thread that loses its core to another process spins longer), but not
// past the end of the extension (a program that kept more than one core busy gets less
// than the factor in CPU time; where the OS counts CPU time in ticks, Windows' 15.6 ms,
// the spin runs on to the next tick), and sleeps the rest. Spinning it all would add
// (stretch - 1) x the window in CPU time: +30 % for a client that mostly waits on its
// database. Mirrors Window::hold_open in rust/src/window.rs.
func (w window) holdOpen(work time.Duration, stretch float64) {
	user, sys, _ := cpuTimes()
	extra := time.Duration(float64(work) * (stretch - 1))
	target := work + extra
	enough := user + sys + time.Duration(float64(user-w.user+sys-w.sys)*(stretch-1))
	for since(w.start) < target {
		if u, s, _ := cpuTimes(); u+s >= enough {
			break
		}
	}
	// A sleep ends late by up to sleepSlack: wake before the end and spin to it.
	if d := target - since(w.start) - sleepSlack; d > 0 {
		time.Sleep(d)
	}
	spinUntil(w.start.add(target))
}

func spinUntil(t instant) {
	for now() < t {
	}
}
