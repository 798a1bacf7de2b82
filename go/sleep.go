package main

import (
	"fmt"
	"math"
	"os"
	"time"
)

func init() { implement("sleep", runSleep, nil) }

// spinFold is the work before the sleep, the article's loop: x = 0; for i in
// 1..spin (exclusive): even i divides and adds one, odd i multiplies. x is folded to
// a fixed-precision integer so that the loop cannot be optimised away.
func spinFold(spin int) uint64 {
	x := 0.0
	for i := 1; i < spin; i++ {
		if i%2 == 0 {
			x = x / float64(i)
			x = x + 1.0
		} else {
			x = x * float64(i)
		}
	}
	return uint64(math.Floor(x * 1e3))
}

// sleepTask spins, sleeps ms milliseconds and returns what it slept (ms, only if its
// own clock shows at least that long, else 0) plus its fold: a build whose tasks do
// not really sleep gives a smaller checksum.
//
// skip (env BENCH_TEST_SKIP_SLEEP) makes the task skip its sleep, so a test can check
// that such a build fails.
func sleepTask(spin int, ms uint64, skip bool) uint64 {
	fold := spinFold(spin)
	// The sleep is judged by the clock time.Sleep keeps, Go's monotonic time, not by
	// the precise now() of the latencies: on Windows Go's clock advances with the timer
	// tick, so a sleep it ends on time can be a tick short by QueryPerformanceCounter
	// (seen under Wine: 100 tasks, 3.5 s "early" in all). Rust's tokio sleeps on the
	// same Instant it is judged by.
	began := time.Now()
	if !skip {
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
	if time.Since(began) < time.Duration(ms)*time.Millisecond {
		return fold
	}
	return fold + ms
}

func runSleep(variant string, p params) (*result, error) {
	if variant != "goroutines" {
		return nil, fmt.Errorf("variant %q not implemented", variant)
	}
	tasks, spin, maxSleep := p.int("tasks"), p.int("spin"), uint64(p.int("max_sleep_ms"))

	skip := os.Getenv("BENCH_TEST_SKIP_SLEEP") != ""
	lat := newLatencies(tasks)
	// Each goroutine gets its own buffered channel (the article's final version), so
	// none blocks on the collector and results come back in task order.
	results := make([]chan uint64, tasks)
	g := newLCG()
	baseline, err := peakRSSBytes()
	if err != nil {
		return nil, err
	}

	win := openWindow()
	start := win.start
	var scheduled uint64
	for t := range tasks {
		ms := g.next() % maxSleep
		scheduled += ms
		ch := make(chan uint64, 1)
		results[t] = ch
		go func() {
			defer exitOnPanic()
			started := now()
			v := sleepTask(spin, ms, skip)
			lat.record(t, start, started, now())
			ch <- v
		}()
	}
	var checksum uint64
	for _, ch := range results {
		checksum += <-ch
	}
	wt := win.close()

	// The run checks itself: every task must have slept what it was given.
	if want := scheduled + uint64(tasks)*spinFold(spin); checksum != want {
		return nil, fmt.Errorf("tasks woke early: they returned %d, expected %d (sleeps %d ms + folds)", checksum, want, scheduled)
	}
	peak, err := peakRSSBytes()
	if err != nil {
		return nil, err
	}
	return &result{
		checksum: checksum,
		window:   wt,
		latency:  lat.summary(),
		metrics: map[string]any{
			"baseline_rss_bytes":    baseline,
			"memory_per_task_bytes": float64(peak-baseline) / float64(tasks),
			"slept_ms":              scheduled,
		},
	}, nil
}
