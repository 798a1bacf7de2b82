package main

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"
)

func expectedCPUChecksum(tasks, items int) uint64 {
	var sum float64
	for x := 0; x < items; x++ {
		sum += math.Sqrt(float64(x))
	}
	return uint64(tasks) * uint64(math.Floor(sum))
}

func TestCPUChecksum(t *testing.T) {
	t.Parallel()
	for _, threads := range []int{1, 2} {
		t.Run(fmt.Sprintf("threads=%d", threads), func(t *testing.T) {
			t.Parallel()
			rec := benchRecord(t, nil, "cpu", "--tasks", "4", "--items", "20000", "--threads", fmt.Sprint(threads))
			if got, want := uintField(t, rec, "checksum"), expectedCPUChecksum(4, 20000); got != want {
				t.Errorf("checksum = %d, want %d", got, want)
			}
			if got := uintField(t, rec, "runtime", "gomaxprocs"); got != uint64(threads) {
				t.Errorf("gomaxprocs = %d, want %d", got, threads)
			}
			if got := uintField(t, rec, "metrics", "parallel_threads"); got != uint64(threads) {
				t.Errorf("parallel_threads = %d, want %d", got, threads)
			}
		})
	}
}

func TestCPUChecksumDependsOnItems(t *testing.T) {
	t.Parallel()
	a := uintField(t, benchRecord(t, nil, "cpu", "--tasks", "2", "--items", "1000", "--threads", "1"), "checksum")
	b := uintField(t, benchRecord(t, nil, "cpu", "--tasks", "2", "--items", "1001", "--threads", "1"), "checksum")
	if a == b {
		t.Fatalf("items 1000 and 1001 give the same checksum %d", a)
	}
}

// The work must really be done: eight times the items must take clearly more CPU
// time in the window. Only a ratio within one test run is compared, never an absolute
// time; CPU time, not elapsed, so that a busy machine (a window waiting for a core)
// does not disturb it (as the Rust counterpart, which cargo runs beside other tests).
// Elapsed on Windows, which counts CPU time in 15.6 ms ticks, longer than these windows.
func TestCPUWindowGrowsWithItems(t *testing.T) {
	const n = 250000
	work := func(items int) float64 {
		var runs []float64
		for range 3 {
			rec := benchRecord(t, nil, "cpu", "--tasks", "4", "--items", fmt.Sprint(items), "--threads", "1")
			if runtime.GOOS == "windows" {
				runs = append(runs, floatField(t, rec, "elapsed_s"))
			} else {
				runs = append(runs, floatField(t, rec, "window_cpu_s", "user")+floatField(t, rec, "window_cpu_s", "sys"))
			}
		}
		return slices.Min(runs)
	}
	small, large := work(n), work(8*n)
	if large < 2*small {
		t.Fatalf("window work (CPU time; elapsed on Windows) for %d items %.6fs, for %d items %.6fs: ratio %.2f, want > 2", n, small, 8*n, large, large/small)
	}
	t.Logf("items %d: %.6fs, %d: %.6fs, ratio %.2f", n, small, 8*n, large, large/small)
}
