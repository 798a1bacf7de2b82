//go:build linux

package main

import (
	"testing"
	"time"
)

func TestParseProcStat(t *testing.T) {
	text := "cpu  610976 358 84101 177006 3136 7 904 413 0 0\n" +
		"cpu0 305000 179 42000 88000 1500 3 450 200 0 0\n" +
		"cpu1 305976 179 42101 89006 1636 4 454 213 0 0\n" +
		"intr 1 2 3\nctxt 99\n"
	r := parseProcStat(text)
	busy := time.Duration(610976+358+84101+7+904) * 10 * time.Millisecond
	if !r.ok || r.cpus != 2 || r.busy != busy || r.steal != 4130*time.Millisecond {
		t.Errorf("parseProcStat = %+v", r)
	}
	for _, bad := range []string{"", "cpu 1 2 3\ncpu0 1 2 3 4 5 6 7 8\n", "cpu a b c d e f g h\ncpu0 0\n", "cpu 1 2 3 4 5 6 7 8\n"} {
		if parseProcStat(bad).ok {
			t.Errorf("parseProcStat(%q) gave a reading", bad)
		}
	}
	if !machineNow().ok {
		t.Error("no machine reading on Linux")
	}
}
