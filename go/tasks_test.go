package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// A panic in a task goroutine must end the process with status 1 and a message, not
// the runtime's status 2. The test runs itself as the panicking child.
const panicChildEnv = "GOBENCH_PANIC_CHILD"

func TestTaskPanicExitsWithStatus1(t *testing.T) {
	if os.Getenv(panicChildEnv) == "1" {
		var wg sync.WaitGroup
		wg.Go(func() {
			defer exitOnPanic()
			panic("boom")
		})
		wg.Wait()
		os.Exit(0) // not reached
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTaskPanicExitsWithStatus1$")
	cmd.Env = append(os.Environ(), panicChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitFailed {
		t.Fatalf("child: %v, want exit status 1; output:\n%s", err, out)
	}
	if !strings.Contains(string(out), programName+": task panicked: boom") {
		t.Fatalf("child output %q does not name the panic", out)
	}
}

func TestFailureKeepsFirstError(t *testing.T) {
	var f failure
	if f.stopped() || f.get() != nil {
		t.Fatal("fresh failure is set")
	}
	first := errors.New("first")
	f.set(first)
	f.set(errors.New("second"))
	if !f.stopped() || f.get() != first {
		t.Fatalf("get = %v, want first", f.get())
	}
}

func TestArrivals(t *testing.T) {
	t0 := now()
	burst := newArrivals(t0, false, 10)
	if burst.at(99) != t0 {
		t.Error("burst: task 99 is not due at the start")
	}
	rate := newArrivals(t0, true, 10) // 10 per ms: task t due at t*100µs
	if got := rate.at(25).sub(t0); got != 2500*time.Microsecond {
		t.Errorf("rate 10/ms: task 25 due after %v, want 2.5ms", got)
	}
	if got := rate.wait(20); now() < got {
		t.Error("wait returned before the task was due")
	}
}

func TestClockMeasuresASleep(t *testing.T) {
	a := now()
	time.Sleep(2 * time.Millisecond)
	b := now()
	if d := b.sub(a); d < 2*time.Millisecond || d > time.Second {
		t.Fatalf("2 ms sleep measured as %v", d)
	}
}
