//go:build linux

package main

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// machineNow reads what the whole machine's CPUs have done so far, from /proc/stat's
// aggregate "cpu" line: their busy time (user, nice, system, irq, softirq: every
// process's, ours included) and the time the hypervisor took from them (steal). A
// window's difference of two readings, less the process's own CPU time, is what else
// ran on the machine meanwhile (issue 39: a busy neighbour halved cpu's throughput and
// nothing said so). The kernel counts in clock ticks of 10 ms, so a reading is exact to
// 10 ms per CPU: a short window's figure is coarse, a benchmark's sum over its runs is
// not. (cpuidle's residency counters, in microseconds, leave out an idle period until it
// ends: a CPU idle through a whole window looked busy.) Mirrors rust/src/machine.rs.
func machineNow() machineReading {
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return machineReading{}
	}
	return parseProcStat(string(stat))
}

// clockTick is USER_HZ, the unit of /proc/stat: 100 on every Linux the kernel's ABI
// documents (sysconf(_SC_CLK_TCK) needs cgo, which the lean program does without).
const clockTick = 10 * time.Millisecond

// parseProcStat reads the aggregate "cpu" line and counts the per-CPU lines.
func parseProcStat(text string) machineReading {
	var r machineReading
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		if f[0] != "cpu" {
			r.cpus++
			continue
		}
		if len(f) < 9 {
			return machineReading{}
		}
		var ticks [8]uint64 // user nice system idle iowait irq softirq steal
		for i := range ticks {
			v, err := strconv.ParseUint(f[i+1], 10, 64)
			if err != nil {
				return machineReading{}
			}
			ticks[i] = v
		}
		r.busy = time.Duration(ticks[0]+ticks[1]+ticks[2]+ticks[5]+ticks[6]) * clockTick
		r.steal = time.Duration(ticks[7]) * clockTick
		r.ok = true
	}
	r.ok = r.ok && r.cpus > 0
	return r
}
