//go:build unix

package main

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// peakRSSBytes is the process's peak resident set size. On Linux it is VmHWM of
// /proc/self/status: ru_maxrss survives execve, so it starts at the RSS of whatever
// forked us (hyperfine, a shell, a 200 MiB Python: measured) and would count the
// parent's memory as ours. Elsewhere ru_maxrss, in bytes on macOS and in KiB on the
// BSDs.
func peakRSSBytes() (uint64, error) {
	if runtime.GOOS == "linux" {
		if v, ok := vmHWM(); ok {
			return v, nil
		}
	}
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return maxrssBytes(int64(ru.Maxrss), runtime.GOOS), nil
}

// maxrssBytes converts ru_maxrss to bytes: it is in bytes on Apple systems and in KiB
// on Linux and the BSDs.
func maxrssBytes(maxrss int64, goos string) uint64 {
	if goos == "darwin" || goos == "ios" {
		return uint64(maxrss)
	}
	return uint64(maxrss) * 1024
}

// vmHWM reads the peak resident set of this process image from /proc/self/status.
func vmHWM() (uint64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	return parseVmHWM(string(b))
}

// parseVmHWM finds "VmHWM: <n> kB" in the text of /proc/<pid>/status, in bytes.
func parseVmHWM(status string) (uint64, bool) {
	for _, line := range strings.Split(status, "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest) // "2076 kB"
			if len(f) == 2 && f[1] == "kB" {
				if kb, err := strconv.ParseUint(f[0], 10, 64); err == nil {
					return kb * 1024, true
				}
			}
		}
	}
	return 0, false
}

// cpuTimes is the user and system CPU time of the whole process so far.
func cpuTimes() (user, sys time.Duration, err error) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, err
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano()), nil
}

// raiseOpenFileLimit raises the soft open-files limit to the hard limit. macOS
// refuses an unlimited soft limit; there the Go runtime has already raised it as far
// as the kernel allows, which openFileLimit then reports.
func raiseOpenFileLimit() error {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		return err
	}
	if rl.Cur >= rl.Max {
		return nil
	}
	rl.Cur = rl.Max
	return unix.Setrlimit(unix.RLIMIT_NOFILE, &rl)
}

// openFileLimit is the current soft open-files limit, 0 if unknown.
func openFileLimit() uint64 {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	return uint64(rl.Cur)
}
