package main

import (
	"math"
	"slices"
	"testing"
	"time"
)

// --repeat K runs the scenario K times in one process, setup between runs: files-rw
// appends to its files, so without the setup between them the checksum (the files'
// total size) would grow from run to run and the run would fail.
func TestRepeat(t *testing.T) {
	t.Parallel()
	dir := setupFilesDir(t, "files-rw")
	single := benchRecord(t, nil, "files-rw", "--tasks", "200", "--dir", dir)
	if _, has := single["repeat"]; has {
		t.Errorf("a run without --repeat has a repeat field: %v", single["repeat"])
	}
	if r := runBench(t, nil, "setup", "files-rw", "--dir", dir); r.code != 0 {
		t.Fatalf("setup: %s", r.stderr)
	}
	rec := benchRecord(t, nil, "files-rw", "--tasks", "200", "--dir", dir, "--repeat", "4")
	if got, want := uintField(t, rec, "checksum"), uintField(t, single, "checksum"); got != want {
		t.Errorf("checksum with --repeat 4 = %d, a single run %d", got, want)
	}
	rep := rec["repeat"].(map[string]any)
	if uintField(t, rep, "count") != 4 {
		t.Errorf("repeat.count = %v, want 4", rep["count"])
	}
	windows := rep["windows"].([]any)
	if len(windows) != 4 {
		t.Fatalf("%d windows, want 4", len(windows))
	}
	// The record's window is the median of the windows after the first (the warm-up).
	var elapsed, user []float64
	for _, w := range windows[1:] {
		w := w.(map[string]any)
		e := floatField(t, w, "elapsed_s")
		if e <= 0 {
			t.Errorf("a window of %v s", e)
		}
		elapsed = append(elapsed, e)
		user = append(user, floatField(t, w, "cpu_s", "user"))
	}
	slices.Sort(elapsed)
	slices.Sort(user)
	if got := floatField(t, rec, "elapsed_s"); math.Abs(got-elapsed[1]) > 1e-6 {
		t.Errorf("elapsed_s = %v, want the median of windows 2-4 = %v", got, elapsed[1])
	}
	if got := floatField(t, rec, "window_cpu_s", "user"); math.Abs(got-user[1]) > 1e-6 {
		t.Errorf("window_cpu_s.user = %v, want the median of windows 2-4 = %v", got, user[1])
	}
}

// One window in a slow mode (a scheduling hiccup) cannot move the median; an even
// count takes the mean of the middle two.
func TestMedianWindow(t *testing.T) {
	t.Parallel()
	ms := func(e, u int) windowTimes {
		return windowTimes{elapsed: time.Duration(e) * time.Millisecond, user: time.Duration(u) * time.Millisecond}
	}
	got := medianWindow([]windowTimes{ms(26, 50), ms(65, 120), ms(25, 49), ms(27, 52), ms(26, 51)})
	if want := ms(26, 51); got != want {
		t.Errorf("median of five = %+v, want %+v", got, want)
	}
	got = medianWindow([]windowTimes{ms(20, 4), ms(10, 2)})
	if want := ms(15, 3); got != want {
		t.Errorf("median of two = %+v, want %+v", got, want)
	}
}
