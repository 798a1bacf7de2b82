//go:build amd64 || arm64

package main

import "testing"

// Outside Valgrind a client request is a no-op that returns its default, so the
// programs issue them always (valgrind.go).
func TestValgrindRequestsAreNoOpsOutsideValgrind(t *testing.T) {
	if runningOnValgrind() != 0 {
		t.Skip("running under Valgrind")
	}
	args := [6]uintptr{requestStartInstrumentation + 100, 1, 2, 3, 4, 5}
	if got := clientRequest(&args, 42); got != 42 {
		t.Fatalf("a request outside Valgrind returned %d, want its default 42", got)
	}
	startInstrumentation()
	stopInstrumentation()
	w := openWindow()
	if wt := w.close(); wt.elapsed < 0 {
		t.Fatalf("window of %v", wt.elapsed)
	}
}
