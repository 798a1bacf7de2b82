//go:build windows

package main

import (
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// processMemoryCounters is PROCESS_MEMORY_COUNTERS from psapi.h.
type processMemoryCounters struct {
	cb                         uint32
	PageFaultCount             uint32
	PeakWorkingSetSize         uintptr
	WorkingSetSize             uintptr
	QuotaPeakPagedPoolUsage    uintptr
	QuotaPagedPoolUsage        uintptr
	QuotaPeakNonPagedPoolUsage uintptr
	QuotaNonPagedPoolUsage     uintptr
	PagefileUsage              uintptr
	PeakPagefileUsage          uintptr
}

var procGetProcessMemoryInfo = windows.NewLazySystemDLL("psapi.dll").NewProc("GetProcessMemoryInfo")

// peakRSSBytes is the process's peak working set, Windows' counterpart of ru_maxrss.
func peakRSSBytes() (uint64, error) {
	var c processMemoryCounters
	c.cb = uint32(unsafe.Sizeof(c))
	ok, _, err := procGetProcessMemoryInfo.Call(uintptr(windows.CurrentProcess()), uintptr(unsafe.Pointer(&c)), uintptr(c.cb))
	if ok == 0 {
		return 0, err
	}
	return uint64(c.PeakWorkingSetSize), nil
}

// cpuTimes is the user and kernel CPU time of the whole process so far.
func cpuTimes() (user, sys time.Duration, err error) {
	var creation, exit, kernel, usr windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &usr); err != nil {
		return 0, 0, err
	}
	return filetimeDuration(usr), filetimeDuration(kernel), nil
}

// filetimeDuration converts a FILETIME interval (100 ns units) to a Duration.
func filetimeDuration(f windows.Filetime) time.Duration {
	return time.Duration(uint64(f.HighDateTime)<<32|uint64(f.LowDateTime)) * 100
}

// Windows has no per-process open-files limit to raise.
func raiseOpenFileLimit() error { return nil }

func openFileLimit() uint64 { return 0 }
