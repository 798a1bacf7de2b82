//go:build unix

package main

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// peakRSSBytes is the process's peak resident set size. ru_maxrss is in bytes on
// macOS and in KiB on Linux and the BSDs.
func peakRSSBytes() (uint64, error) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return uint64(ru.Maxrss), nil
	}
	return uint64(ru.Maxrss) * 1024, nil
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
