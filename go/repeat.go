package main

import (
	"fmt"
	"runtime"
	"slices"
	"time"
)

// maxRepeat bounds --repeat: more windows than this belong in more processes.
const maxRepeat = 100

// repeatInfo is the record's `repeat`: every window of a run that executed the scenario
// more than once (`--repeat K`), in order, the first being the warm-up.
type repeatInfo struct {
	Count   int            `json:"count"`
	Windows []repeatWindow `json:"windows"`
}

type repeatWindow struct {
	ElapsedS float64   `json:"elapsed_s"`
	CPUS     windowCPU `json:"cpu_s"`
}

// runRepeated runs the scenario inv.repeat times in this process. Before every run
// after the first, outside the windows, it makes the scenario's state afresh (its
// setup) and collects the garbage the run before left (as Go's testing.B does before
// each benchmark), so that no run pays for another's work.
//
// Why: a short window measured once per process carries that process's start-up noise
// (a cold heap, threads started for the first time), and a short run that falls into
// a slow scheduling mode stays in it; the windows after the first are cheaper samples
// of the same work (issue 13). The result is the last run's, its window replaced by the
// median of the windows after the first (elapsed, user and system CPU each: one window
// in a slow mode cannot move it); every run must give the same checksum.
// Mirrors rust/src/repeat.rs.
func runRepeated(inv *invocation) (*result, *repeatInfo, error) {
	if inv.repeat <= 1 {
		res, err := inv.sc.run(inv.variant, inv.params)
		return res, nil, err
	}
	info := &repeatInfo{Count: inv.repeat}
	var last *result
	var later []windowTimes
	for i := 1; i <= inv.repeat; i++ {
		if i > 1 {
			if inv.sc.setup != nil {
				if err := inv.sc.setup(inv.params); err != nil {
					return nil, nil, fmt.Errorf("setup before run %d of %d: %w", i, inv.repeat, err)
				}
			}
			runtime.GC()
		}
		res, err := inv.sc.run(inv.variant, inv.params)
		if err != nil {
			return nil, nil, fmt.Errorf("run %d of %d: %w", i, inv.repeat, err)
		}
		if last != nil && res.checksum != last.checksum {
			return nil, nil, fmt.Errorf("run %d of %d printed checksum %d, run 1 %d", i, inv.repeat, res.checksum, last.checksum)
		}
		info.Windows = append(info.Windows, repeatWindow{ElapsedS: res.window.elapsed.Seconds(), CPUS: res.window.cpu()})
		if i > 1 {
			later = append(later, res.window)
		}
		last = res
	}
	last.window = medianWindow(later)
	return last, info, nil
}

// medianWindow is the median of each of elapsed, user and system time (the mean of
// the middle two for an even count).
func medianWindow(ws []windowTimes) windowTimes {
	median := func(get func(windowTimes) time.Duration) time.Duration {
		xs := make([]time.Duration, len(ws))
		for i, w := range ws {
			xs[i] = get(w)
		}
		slices.Sort(xs)
		n := len(xs)
		return (xs[(n-1)/2] + xs[n/2]) / 2
	}
	out := windowTimes{
		elapsed: median(func(w windowTimes) time.Duration { return w.elapsed }),
		user:    median(func(w windowTimes) time.Duration { return w.user }),
		sys:     median(func(w windowTimes) time.Duration { return w.sys }),
	}
	if ws[0].machine.ok {
		out.machine = ws[0].machine
		out.machine.busy = median(func(w windowTimes) time.Duration { return w.machine.busy })
		out.machine.steal = median(func(w windowTimes) time.Duration { return w.machine.steal })
	}
	return out
}
