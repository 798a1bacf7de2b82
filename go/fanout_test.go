package main

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestFanoutChecksum(t *testing.T) {
	t.Parallel()
	d := minstd(10)
	expected := func(values int) uint64 {
		var sum uint64
		for i := range values {
			v := 1 + d[i%10]%10
			sum += v * v
		}
		return sum
	}
	cases := []struct {
		variant                        string
		values, workers, buffer, batch int
	}{
		{"channels", 20000, 3, 1000, 1000},
		{"channels", 1001, 1, 1, 1000},
		{"batched", 20000, 3, 1000, 1000},
		{"batched", 20003, 4, 2, 7}, // a short last batch, tiny buffer
		{"batched", 5, 2, 1, 1000},  // fewer values than one batch
	}
	for _, c := range cases {
		name := fmt.Sprintf("%s/values=%d/workers=%d/batch=%d", c.variant, c.values, c.workers, c.batch)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec := benchRecord(t, nil, "fanout", "--variant", c.variant, "--values", fmt.Sprint(c.values),
				"--workers", fmt.Sprint(c.workers), "--buffer", fmt.Sprint(c.buffer), "--batch", fmt.Sprint(c.batch))
			if got, want := uintField(t, rec, "checksum"), expected(c.values); got != want {
				t.Errorf("checksum = %d, want %d", got, want)
			}
			m := rec["metrics"].(map[string]any)
			counts, ok := m["per_worker_values"].([]any)
			if !ok || len(counts) != c.workers {
				t.Fatalf("per_worker_values = %v, want %d counts", m["per_worker_values"], c.workers)
			}
			var total int64
			for _, n := range counts {
				v, _ := n.(json.Number).Int64()
				total += v
			}
			if total != int64(c.values) {
				t.Errorf("per_worker_values sum to %d, want %d", total, c.values)
			}
			if floatField(t, rec, "metrics", "values_per_s") <= 0 {
				t.Error("values_per_s is not positive")
			}
			floatField(t, rec, "metrics", "cpu_s_per_million")
			if rec["latency_us"] != nil {
				t.Error("fanout has no tasks, latency_us must be null")
			}
		})
	}
}
