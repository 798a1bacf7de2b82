package main

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// sqrtSum stores sqrt(x) for x in 0..items in a fresh slice, as the seed does (the
// memory traffic is part of the workload), then sums it in index order.
func sqrtSum(items int) float64 {
	v := make([]float64, items)
	for x := range v {
		v[x] = math.Sqrt(float64(x))
	}
	var sum float64
	for _, s := range v {
		sum += s
	}
	return sum
}

func runCPU(variant string, p params) (*result, error) {
	if variant != "goroutines" {
		return nil, fmt.Errorf("variant %q not implemented", variant)
	}
	tasks, items, threads := p.int("tasks"), p.int("items"), p.int("threads")
	runtime.GOMAXPROCS(threads)

	// One goroutine per task, but a task takes one of `threads` permits before it
	// allocates, so at most `threads` vectors are live at once, as with Rust's tasks,
	// which never yield. Without it Go would hold every task's vector together.
	sem := newSemaphore(threads)
	lat := newLatencies(tasks)
	var total atomic.Uint64
	var wg sync.WaitGroup

	win := openWindow()
	start := win.start
	for t := range tasks {
		wg.Go(func() {
			defer exitOnPanic()
			sem.acquire()
			defer sem.release()
			// Service starts with the work, as a Rust task's first poll does.
			started := now()
			total.Add(uint64(math.Floor(sqrtSum(items))))
			lat.record(t, start, started, now())
		})
	}
	wg.Wait()
	wt := win.close()

	return &result{
		checksum: total.Load(),
		window:   wt,
		latency:  lat.summary(),
		metrics:  map[string]any{"parallel_threads": threads},
	}, nil
}
