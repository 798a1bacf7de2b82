package main

import (
	"fmt"
	"sync"
)

func init() { implement("fanout", runFanout, nil) }

// fanoutInputs is pre: ten LCG values mapped to 1..10; value i of the stream is
// pre[i % 10].
func fanoutInputs() [10]int64 {
	var pre [10]int64
	g := newLCG()
	for j := range pre {
		pre[j] = int64(1 + g.next()%10)
	}
	return pre
}

func runFanout(variant string, p params) (*result, error) {
	values, workers, buffer, batch := p.int("values"), p.int("workers"), p.int("buffer"), p.int("batch")
	pre := fanoutInputs()
	counts := make([]uint64, workers)

	win := openWindow()
	var sum uint64
	switch variant {
	case "channels":
		sum = fanoutChannels(&pre, values, buffer, counts)
	case "batched":
		sum = fanoutBatched(&pre, values, buffer, batch, counts)
	default:
		return nil, fmt.Errorf("variant %q not implemented", variant)
	}
	wt := win.close()
	elapsed := wt.elapsed
	cpu := (wt.user + wt.sys).Seconds()
	return &result{
		checksum: sum,
		window:   wt,
		metrics: map[string]any{
			"values_per_s":      perSecond(float64(values), elapsed),
			"cpu_s_per_million": cpu / (float64(values) / 1e6),
			"per_worker_values": counts,
		},
	}, nil
}

// fanoutChannels: producer -> in -> len(counts) squaring consumers -> out -> this
// goroutine, which sums. Each consumer counts what it received in counts[w].
func fanoutChannels(pre *[10]int64, values, buffer int, counts []uint64) uint64 {
	in := make(chan int64, buffer)
	out := make(chan int64, buffer)
	go func() {
		defer exitOnPanic()
		for i := range values {
			in <- pre[i%10]
		}
		close(in)
	}()
	var wg sync.WaitGroup
	for w := range counts {
		wg.Go(func() {
			defer exitOnPanic()
			var n uint64
			for v := range in {
				out <- v * v
				n++
			}
			counts[w] = n
		})
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	var sum uint64
	for sq := range out {
		sum += uint64(sq)
	}
	return sum
}

// fanoutBatched is fanoutChannels with slices of up to batch values per message. A
// slice belongs to whoever last received it, so the summer can recycle it to the
// producer through a sync.Pool without a race.
func fanoutBatched(pre *[10]int64, values, buffer, batch int, counts []uint64) uint64 {
	free := sync.Pool{New: func() any {
		s := make([]int64, 0, batch)
		return &s
	}}
	in := make(chan *[]int64, buffer)
	out := make(chan *[]int64, buffer)
	go func() {
		defer exitOnPanic()
		for i := 0; i < values; {
			bp := free.Get().(*[]int64)
			b := (*bp)[:0]
			for n := min(batch, values-i); n > 0; n-- {
				b = append(b, pre[i%10])
				i++
			}
			*bp = b
			in <- bp
		}
		close(in)
	}()
	var wg sync.WaitGroup
	for w := range counts {
		wg.Go(func() {
			defer exitOnPanic()
			var n uint64
			for bp := range in {
				b := *bp
				for k, v := range b {
					b[k] = v * v
				}
				n += uint64(len(b))
				out <- bp
			}
			counts[w] = n
		})
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	var sum uint64
	for bp := range out {
		for _, sq := range *bp {
			sum += uint64(sq)
		}
		free.Put(bp)
	}
	return sum
}
