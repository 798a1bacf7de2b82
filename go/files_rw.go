package main

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
)

func init() { implement("files-rw", runFilesRW, setupFiles) }

// appendLine appends one line to path. The file is opened with write access (the
// original opened it append-only, read-only, and lost every append), and the error
// of Close is checked because that is where a failed write can surface.
func appendLine(path string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(appendedLine); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func runFilesRW(variant string, p params) (*result, error) {
	if variant != "goroutines" {
		return nil, fmt.Errorf("variant %q not implemented", variant)
	}
	tasks := p.int("tasks")
	paths, err := benchFilePaths("files-rw", p.str("dir"))
	if err != nil {
		return nil, err
	}
	permits := openPermits()
	sem := newSemaphore(permits)
	lat := newLatencies(tasks)
	var appends, bytesRead atomic.Uint64
	var fail failure
	var wg sync.WaitGroup
	g := newLCG()

	win := openWindow()
	start := win.start
	for t := range tasks {
		k := g.next() % benchFiles
		path := paths[k]
		wg.Go(func() {
			defer exitOnPanic()
			if fail.stopped() {
				return
			}
			// One permit covers the task: it has at most one file open at a time.
			started := now() // before the permit wait, as in Rust
			sem.acquire()
			defer sem.release()
			if k%2 == 0 {
				if err := appendLine(path); err != nil {
					fail.set(err)
					return
				}
				appends.Add(1)
			}
			data, err := os.ReadFile(path)
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

	size, err := benchFilesSize(paths)
	if err != nil {
		return nil, err
	}
	return &result{
		checksum: size,
		window:   wt,
		latency:  lat.summary(),
		runtime:  map[string]any{"open_permits": permits},
		metrics:  map[string]any{"appends": appends.Load(), "bytes_read": bytesRead.Load()},
	}, nil
}
