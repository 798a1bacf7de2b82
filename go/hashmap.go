package main

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
)

func init() { implement("hashmap", runHashmap, nil) }

type person struct {
	Name string
	Age  uint32
}

// hashmapTask builds a map of items people and reads each back; the sum of the ages
// found is the task's share of the checksum. One string allocation per item: the key
// doubles as the name.
func hashmapTask(items int) uint64 {
	m := make(map[string]person) // not pre-sized, as the seed
	var sum uint64
	for j := range items {
		key := strconv.Itoa(j)
		m[key] = person{Name: key, Age: uint32(j)}
		if p, ok := m[key]; ok && p.Name == key {
			sum += uint64(p.Age)
		}
	}
	return sum
}

func runHashmap(variant string, p params) (*result, error) {
	tasks, items, workers := p.int("tasks"), p.int("items"), p.int("workers")
	rate := p.float("rate")
	paced := p.str("shape") == "rate"

	lat := newLatencies(tasks)
	var total atomic.Uint64
	// Service runs from the task's first instruction, so for spawn-sem it includes
	// the wait for a permit, as in Rust.
	work := func(t int, scheduled, started instant) {
		total.Add(hashmapTask(items))
		lat.record(t, scheduled, started, now())
	}
	var wg sync.WaitGroup

	win := openWindow()
	start := win.start
	arr := newArrivals(start, paced, rate)
	switch variant {
	case "spawn":
		for t := range tasks {
			at := arr.wait(t)
			wg.Go(func() {
				defer exitOnPanic()
				work(t, at, now())
			})
		}
	case "spawn-sem":
		// Every task gets its goroutine at once; only W of them work at a time.
		sem := newSemaphore(workers)
		for t := range tasks {
			at := arr.wait(t)
			wg.Go(func() {
				defer exitOnPanic()
				started := now()
				sem.acquire()
				defer sem.release()
				work(t, at, started)
			})
		}
	case "spawn-limited":
		// The spawner takes the permit, so at most W goroutines exist; under rate
		// the arrivals queue here and their sojourn keeps counting.
		sem := newSemaphore(workers)
		for t := range tasks {
			at := arr.wait(t)
			sem.acquire()
			wg.Go(func() {
				defer exitOnPanic()
				defer sem.release()
				work(t, at, now())
			})
		}
	case "pool":
		// A bounded queue, as the original pool: under rate a full queue holds the
		// spawner back, the arrivals queue up and their sojourn keeps counting (as
		// for spawn-limited).
		queue := make(chan int, workers)
		for range workers {
			wg.Go(func() {
				defer exitOnPanic()
				for t := range queue {
					work(t, arr.at(t), now())
				}
			})
		}
		for t := range tasks {
			arr.wait(t)
			queue <- t
		}
		close(queue)
	default:
		return nil, fmt.Errorf("variant %q not implemented", variant)
	}
	spawn := since(start)
	wg.Wait()
	wt := win.close()

	metrics := map[string]any{"spawn_s": spawn.Seconds()}
	if paced {
		metrics["offered_rate_per_ms"] = jsonFloat(rate)
		metrics["achieved_spawn_rate_per_ms"] = perSecond(float64(tasks), spawn) / 1e3
	}
	return &result{
		checksum: total.Load(),
		window:   wt,
		latency:  lat.summary(),
		metrics:  metrics,
		// Go's map has one hasher: the runtime's, AES-based where the CPU has AES
		// (Rust's is the `hasher` parameter).
		runtime: map[string]any{"hasher": "runtime map hash (AES where available, randomly seeded)"},
	}, nil
}
