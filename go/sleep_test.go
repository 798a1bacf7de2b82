package main

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestSleepChecksum(t *testing.T) {
	t.Parallel()
	const spin, maxSleep = 1000, 50
	// The article's loop: even i divides and adds one, odd i multiplies.
	x := 0.0
	for i := 1; i < spin; i++ {
		if i%2 == 0 {
			x = x/float64(i) + 1.0
		} else {
			x *= float64(i)
		}
	}
	fold := uint64(math.Floor(x * 1e3))
	for _, tasks := range []int{10, 100} {
		t.Run(fmt.Sprintf("tasks=%d", tasks), func(t *testing.T) {
			t.Parallel()
			want := uint64(tasks) * fold
			var maxMs uint64
			for _, d := range minstd(tasks) {
				want += d % maxSleep
				maxMs = max(maxMs, d%maxSleep)
			}
			rec := benchRecord(t, nil, "sleep", "--tasks", fmt.Sprint(tasks), "--spin", fmt.Sprint(spin),
				"--max_sleep_ms", fmt.Sprint(maxSleep))
			if got := uintField(t, rec, "checksum"); got != want {
				t.Errorf("checksum = %d, want %d", got, want)
			}
			// Every task sleeps in parallel: the run takes about the longest sleep.
			if got := floatField(t, rec, "elapsed_s"); got < float64(maxMs)/1e3 {
				t.Errorf("elapsed_s = %v, shorter than the longest sleep %d ms", got, maxMs)
			}
			if got := floatField(t, rec, "latency_us", "sojourn", "max"); got < float64(maxMs)*1e3 {
				t.Errorf("max sojourn %v µs, shorter than the longest sleep %d ms", got, maxMs)
			}
			if uintField(t, rec, "metrics", "baseline_rss_bytes") == 0 {
				t.Error("baseline_rss_bytes is 0")
			}
			floatField(t, rec, "metrics", "memory_per_task_bytes")
		})
	}
}

// A build whose tasks do not sleep fails the run instead of passing with a checksum the
// spawner made up: the tasks report what they slept after waking.
func TestSleepSkippedFails(t *testing.T) {
	t.Setenv("BENCH_TEST_SKIP_SLEEP", "1")
	var stdout, stderr strings.Builder
	code := run([]string{"sleep", "--tasks", "20", "--spin", "100", "--max_sleep_ms", "50"}, &stdout, &stderr)
	if code != exitFailed || !strings.Contains(stderr.String(), "woke early") {
		t.Fatalf("exit %d, stderr %q: want exit 1 naming tasks that woke early", code, stderr.String())
	}
}
