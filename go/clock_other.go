//go:build !windows

package main

import "time"

var clockOrigin = time.Now()

// now reads the monotonic clock (clock_gettime(CLOCK_MONOTONIC) and the like).
func now() instant { return instant(time.Since(clockOrigin)) }

// sleepSlack is how late a short time.Sleep may end (Linux's default timer slack is
// 50 µs; the Go scheduler adds its own).
const sleepSlack = 200 * time.Microsecond
