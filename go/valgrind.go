//go:build amd64 || arm64

package main

// Valgrind client requests (valgrind.h, callgrind.h). The pipeline counts a window's
// instructions under Callgrind with --instr-atstart=no: the window turns counting on
// when it opens and off when it closes, so that start-up, setup and the record are not
// counted. Outside Valgrind a request is a no-op that returns its default, so the
// programs issue them always. Mirrors rust/src/valgrind.rs.

const (
	requestRunningOnValgrind    = 0x1001
	requestStartInstrumentation = 0x43540004 // VG_USERREQ_TOOL_BASE('C','T') + 4
	requestStopInstrumentation  = 0x43540005
)

// clientRequest issues the request args[0] with the arguments args[1:] and returns
// its result, or def outside Valgrind (valgrind_amd64.s, valgrind_arm64.s).
//
//go:noescape
func clientRequest(args *[6]uintptr, def uintptr) uintptr

func request(code uintptr) uintptr {
	args := [6]uintptr{code}
	return clientRequest(&args, 0)
}

// startInstrumentation is CALLGRIND_START_INSTRUMENTATION.
func startInstrumentation() { request(requestStartInstrumentation) }

// stopInstrumentation is CALLGRIND_STOP_INSTRUMENTATION.
func stopInstrumentation() { request(requestStopInstrumentation) }

// runningOnValgrind is RUNNING_ON_VALGRIND: how many Valgrinds the program runs under
// (0: none).
func runningOnValgrind() int { return int(request(requestRunningOnValgrind)) }
