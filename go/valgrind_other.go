//go:build !amd64 && !arm64

package main

// Valgrind's client requests are written only for amd64 and arm64 (valgrind_amd64.s,
// valgrind_arm64.s); elsewhere they do nothing, as they do outside Valgrind.

func startInstrumentation() {}

func stopInstrumentation() {}

func runningOnValgrind() int { return 0 }
