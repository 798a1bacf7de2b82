//go:build unix

package main

import "testing"

// The per-OS units of peak memory, checked on whatever OS runs the tests.
func TestMaxrssUnitsPerOS(t *testing.T) {
	for _, c := range []struct {
		goos string
		want uint64
	}{{"darwin", 2048}, {"ios", 2048}, {"linux", 2048 * 1024}, {"freebsd", 2048 * 1024}, {"netbsd", 2048 * 1024}} {
		if got := maxrssBytes(2048, c.goos); got != c.want {
			t.Errorf("maxrssBytes(2048, %s) = %d, want %d", c.goos, got, c.want)
		}
	}
}

func TestParseVmHWM(t *testing.T) {
	status := "Name:\tgobench\nVmPeak:\t  10000 kB\nVmHWM:\t    2076 kB\nVmRSS:\t    2000 kB\n"
	if got, ok := parseVmHWM(status); !ok || got != 2076*1024 {
		t.Errorf("parseVmHWM = %d, %v; want %d", got, ok, 2076*1024)
	}
	for _, bad := range []string{"", "VmRSS:\t2000 kB\n", "VmHWM:\t2076 MB\n", "VmHWM:\tlots kB\n", "VmHWM:\n"} {
		if got, ok := parseVmHWM(bad); ok {
			t.Errorf("parseVmHWM(%q) = %d, true; want not found", bad, got)
		}
	}
}

// On this machine the figure is real: non-zero and at least the current heap.
func TestPeakRSSIsPositive(t *testing.T) {
	if v, err := peakRSSBytes(); err != nil || v == 0 {
		t.Fatalf("peakRSSBytes() = %d, %v", v, err)
	}
}
