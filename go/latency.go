package main

import (
	"slices"
	"time"
)

// latencies holds each task's sojourn and service time in slots allocated before the
// timed window: a task writes only its own slot, so recording takes no lock and no
// allocation.
type latencies struct {
	sojourn []time.Duration
	service []time.Duration
}

func newLatencies(tasks int) *latencies {
	return &latencies{
		sojourn: make([]time.Duration, tasks),
		service: make([]time.Duration, tasks),
	}
}

// record stores task t's times: sojourn runs from its scheduled arrival, service from
// its first instruction, both to done.
func (l *latencies) record(t int, scheduled, started, done instant) {
	l.sojourn[t] = done.sub(scheduled)
	l.service[t] = done.sub(started)
}

// latencyStats is one distribution in microseconds, as the record carries it.
type latencyStats struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

type latencySummary struct {
	Sojourn latencyStats `json:"sojourn"`
	Service latencyStats `json:"service"`
}

// summary sorts the slots in place; call it once, after every task has finished.
func (l *latencies) summary() *latencySummary {
	return &latencySummary{Sojourn: summarize(l.sojourn), Service: summarize(l.service)}
}

func summarize(d []time.Duration) latencyStats {
	if len(d) == 0 {
		return latencyStats{}
	}
	slices.Sort(d)
	var total float64
	for _, v := range d {
		total += float64(v)
	}
	return latencyStats{
		N:    len(d),
		Mean: total / float64(len(d)) / 1e3,
		P50:  micros(percentile(d, 50)),
		P99:  micros(percentile(d, 99)),
		Max:  micros(d[len(d)-1]),
	}
}

// percentile is the nearest-rank percentile of sorted: sorted[ceil(p/100*n) - 1],
// in integer arithmetic so that no rounding can pick a neighbour.
func percentile(sorted []time.Duration, p int) time.Duration {
	rank := (p*len(sorted) + 99) / 100
	return sorted[max(rank, 1)-1]
}

func micros(d time.Duration) float64 { return float64(d) / 1e3 }
