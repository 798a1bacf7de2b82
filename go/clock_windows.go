//go:build windows

package main

import (
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	kernel32                      = windows.NewLazySystemDLL("kernel32.dll")
	procQueryPerformanceCounter   = kernel32.NewProc("QueryPerformanceCounter")
	procQueryPerformanceFrequency = kernel32.NewProc("QueryPerformanceFrequency")
	qpcFrequency                  = queryPerformance(procQueryPerformanceFrequency)
)

// queryPerformance calls QueryPerformanceCounter or QueryPerformanceFrequency, which
// cannot fail on Windows XP and later.
func queryPerformance(proc *windows.LazyProc) int64 {
	var v int64
	proc.Call(uintptr(unsafe.Pointer(&v)))
	return v
}

// now reads QueryPerformanceCounter (typically 100 ns ticks), in nanoseconds,
// without overflowing the product of counter and 1e9.
func now() instant {
	c := queryPerformance(procQueryPerformanceCounter)
	return instant(c/qpcFrequency*1e9 + c%qpcFrequency*1e9/qpcFrequency)
}

// sleepSlack is how late a short time.Sleep may end: Windows timers tick at 0.5 to
// 15.6 ms unless a high-resolution timer is granted, which Go asks for.
const sleepSlack = 2 * time.Millisecond
