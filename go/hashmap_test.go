package main

import (
	"fmt"
	"testing"
)

func TestHashmapChecksum(t *testing.T) {
	t.Parallel()
	const tasks, items = 200, 100
	want := uint64(tasks * items * (items - 1) / 2)
	for _, variant := range []string{"spawn", "spawn-sem", "spawn-limited", "pool"} {
		for _, shape := range []string{"burst", "rate"} {
			t.Run(variant+"/"+shape, func(t *testing.T) {
				t.Parallel()
				rec := benchRecord(t, nil, "hashmap", "--variant", variant, "--shape", shape, "--rate", "20",
					"--tasks", fmt.Sprint(tasks), "--items", fmt.Sprint(items), "--workers", "3")
				if got := uintField(t, rec, "checksum"); got != want {
					t.Errorf("checksum = %d, want %d", got, want)
				}
				if n := uintField(t, rec, "latency_us", "sojourn", "n"); n != tasks {
					t.Errorf("latency n = %d, want %d", n, tasks)
				}
				if uintField(t, rec, "params", "workers") != 3 {
					t.Error("params.workers is not 3")
				}
				floatField(t, rec, "metrics", "spawn_s")
				if shape == "rate" {
					if got := floatField(t, rec, "metrics", "offered_rate_per_ms"); got != 20 {
						t.Errorf("offered_rate_per_ms = %v, want 20", got)
					}
					// 200 tasks at 20/ms are due over 9.95 ms: the spawner cannot be faster.
					if got := floatField(t, rec, "metrics", "achieved_spawn_rate_per_ms"); got <= 0 || got > 20.2 {
						t.Errorf("achieved_spawn_rate_per_ms = %v, want in (0, 20.1]", got)
					}
					if s := floatField(t, rec, "metrics", "spawn_s"); s < 0.00995 {
						t.Errorf("spawn_s = %v, want >= 9.95 ms", s)
					}
				}
			})
		}
	}
}

func TestHashmapWorkersDefaultsToCPUs(t *testing.T) {
	t.Parallel()
	rec := benchRecord(t, nil, "hashmap", "--variant", "pool", "--tasks", "4", "--items", "10")
	if got, want := uintField(t, rec, "params", "workers"), uintField(t, rec, "runtime", "num_cpu"); got != want {
		t.Errorf("params.workers = %d, want num_cpu %d", got, want)
	}
}

func TestHashmapTask(t *testing.T) {
	if got := hashmapTask(1000); got != 1000*999/2 {
		t.Fatalf("hashmapTask(1000) = %d", got)
	}
}
