package main

import (
	"fmt"
	"math"
	"time"
)

// spinFold is the work before the sleep: x = x/i + 1 for i in 1..=spin, folded to a
// fixed-precision integer so that the loop cannot be optimised away.
func spinFold(spin int) uint64 {
	x := 0.0
	for i := 1; i <= spin; i++ {
		x = x/float64(i) + 1.0
	}
	return uint64(math.Floor(x * 1e6))
}

func runSleep(variant string, p params) (*result, error) {
	if variant != "goroutines" {
		return nil, fmt.Errorf("variant %q not implemented", variant)
	}
	tasks, spin, maxSleep := p.int("tasks"), p.int("spin"), uint64(p.int("max_sleep_ms"))

	lat := newLatencies(tasks)
	// Each goroutine gets its own buffered channel (the article's final version), so
	// none blocks on the collector and results come back in task order.
	results := make([]chan uint64, tasks)
	g := newLCG()
	baseline, err := peakRSSBytes()
	if err != nil {
		return nil, err
	}

	start := now()
	var sleptMs uint64
	for t := range tasks {
		ms := g.next() % maxSleep
		sleptMs += ms
		ch := make(chan uint64, 1)
		results[t] = ch
		go func() {
			defer exitOnPanic()
			started := now()
			fold := spinFold(spin)
			time.Sleep(time.Duration(ms) * time.Millisecond)
			lat.record(t, start, started, now())
			ch <- fold
		}()
	}
	var folds uint64
	for _, ch := range results {
		folds += <-ch
	}
	elapsed := since(start)

	peak, err := peakRSSBytes()
	if err != nil {
		return nil, err
	}
	return &result{
		checksum: sleptMs + folds,
		elapsed:  elapsed,
		latency:  lat.summary(),
		metrics: map[string]any{
			"baseline_rss_bytes":    baseline,
			"memory_per_task_bytes": float64(peak-baseline) / float64(tasks),
		},
	}, nil
}
