package main

import (
	"testing"
	"time"
)

func TestPercentileNearestRank(t *testing.T) {
	us := func(vs ...int) []time.Duration {
		d := make([]time.Duration, len(vs))
		for i, v := range vs {
			d[i] = time.Duration(v) * time.Microsecond
		}
		return d
	}
	cases := []struct {
		values   []time.Duration
		p        int
		wantUsec float64
	}{
		{us(7), 50, 7},
		{us(7), 99, 7},
		{us(1, 2), 50, 1},                        // ceil(1.0) = 1
		{us(1, 2, 3), 50, 2},                     // ceil(1.5) = 2
		{us(1, 2, 3, 4), 50, 2},                  // ceil(2.0) = 2
		{us(1, 2, 3, 4), 99, 4},                  // ceil(3.96) = 4
		{us(make100()...), 99, 99},               // ceil(99) = 99
		{us(make100()...), 50, 50},               // ceil(50) = 50
		{us(append(make100(), 101)...), 99, 100}, // ceil(99.99) = 100
	}
	for _, c := range cases {
		if got := micros(percentile(c.values, c.p)); got != c.wantUsec {
			t.Errorf("p%d of %d values = %v, want %v", c.p, len(c.values), got, c.wantUsec)
		}
	}
}

func make100() []int {
	v := make([]int, 100)
	for i := range v {
		v[i] = i + 1
	}
	return v
}

func TestSummarize(t *testing.T) {
	d := []time.Duration{3000, 1000, 2000, 10000} // ns, unsorted on purpose
	s := summarize(d)
	want := latencyStats{N: 4, Mean: 4, P50: 2, P99: 10, Max: 10}
	if s != want {
		t.Fatalf("summarize = %+v, want %+v", s, want)
	}
}

func TestRecordSojournAndService(t *testing.T) {
	l := newLatencies(1)
	t0 := now()
	l.record(0, t0, t0.add(2*time.Millisecond), t0.add(5*time.Millisecond))
	s := l.summary()
	if s.Sojourn.Max != 5000 || s.Service.Max != 3000 {
		t.Fatalf("sojourn %v µs, service %v µs; want 5000 and 3000", s.Sojourn.Max, s.Service.Max)
	}
}
