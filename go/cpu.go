package main

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

func init() { implement("cpu", runCPU, nil) }

// sqrtSum stores sqrt(x) for x in 0..len(v) in v, as the seed does (the memory
// traffic is part of the workload), then sums it in index order.
func sqrtSum(v []float64) float64 {
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

	// One goroutine per task, but a task takes one of `threads` buffers before it
	// works, so at most `threads` tasks run at once, as with Rust's tasks, which never
	// yield. The buffers are reused: a fresh 80 MB vector per task (full size) would
	// measure the allocator and the kernel's page faults, not the computation (Rust
	// does the same, one buffer per worker). They are allocated before the window
	// opens (setup; their pages are still first touched inside it, on both sides):
	// allocated by a task, the heap grew inside the window or before it as the
	// runtime's timing had it, and the window's instruction count (Valgrind) came in
	// two modes beside a busy neighbour (0.2 % apart at the pass's size on one thread).
	buffers := make(chan []float64, threads)
	for range threads {
		buffers <- make([]float64, items)
	}
	lat := newLatencies(tasks)
	var total atomic.Uint64
	var wg sync.WaitGroup

	win := openWindow()
	start := win.start
	for t := range tasks {
		wg.Go(func() {
			defer exitOnPanic()
			buf := <-buffers
			defer func() { buffers <- buf }()
			// Service starts with the work, as a Rust task's first poll does.
			started := now()
			total.Add(uint64(math.Floor(sqrtSum(buf))))
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
