package main

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
)

func init() { implement("files-read", runFilesRead, setupFiles) }

func runFilesRead(variant string, p params) (*result, error) {
	if variant != "goroutines" {
		return nil, fmt.Errorf("variant %q not implemented", variant)
	}
	tasks := p.int("tasks")
	paths, err := benchFilePaths("files-read", p.str("dir"))
	if err != nil {
		return nil, err
	}
	permits := openPermits()
	sem := newSemaphore(permits)
	lat := newLatencies(tasks)
	var bytesRead atomic.Uint64
	var fail failure
	var wg sync.WaitGroup
	g := newLCG()

	win := openWindow()
	start := win.start
	for t := range tasks {
		path := paths[g.next()%benchFiles]
		wg.Go(func() {
			defer exitOnPanic()
			if fail.stopped() {
				return
			}
			started := now() // before the permit wait, as in Rust
			sem.acquire()
			data, err := os.ReadFile(path)
			sem.release()
			if err != nil {
				fail.set(err)
				return
			}
			bytesRead.Add(uint64(len(data)))
			lat.record(t, start, started, now())
		})
	}
	wg.Wait()
	wt := win.close()
	if err := fail.get(); err != nil {
		return nil, err
	}

	n := bytesRead.Load()
	return &result{
		checksum: n,
		window:   wt,
		latency:  lat.summary(),
		runtime:  map[string]any{"open_permits": permits},
		metrics:  map[string]any{"bytes_read": n},
	}, nil
}
