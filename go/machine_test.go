package main

import (
	"testing"
	"time"
)

func TestMachineDuringAWindow(t *testing.T) {
	a := machineReading{ok: true, cpus: 2, busy: 3 * time.Second, steal: time.Second}
	b := machineReading{ok: true, cpus: 2, busy: 3500 * time.Millisecond, steal: 1010 * time.Millisecond}
	m := a.during(b)
	if !m.ok || m.busy != 500*time.Millisecond || m.steal != 10*time.Millisecond || m.cpus != 2 {
		t.Errorf("during = %+v", m)
	}
	if r := m.record(); r.BusyS != 0.5 || r.StealS != 0.01 || r.CPUs != 2 {
		t.Errorf("record = %+v", r)
	}
	// A platform that does not say, or a CPU brought online in between: no figure.
	if (machineReading{}).during(b).ok || a.during(machineReading{ok: true, cpus: 3}).ok {
		t.Error("a reading that cannot be compared gave a figure")
	}
	if (machineTimes{}).record() != nil {
		t.Error("no figure must leave window_machine out")
	}
}
