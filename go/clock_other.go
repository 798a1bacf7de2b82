//go:build !windows

package main

import "time"

var clockOrigin = time.Now()

// now reads the monotonic clock (clock_gettime(CLOCK_MONOTONIC) and the like).
func now() instant { return instant(time.Since(clockOrigin)) }
