package main

import "time"

// machineReading is the machine's CPUs at one moment (machine_linux.go): ok is false
// where the platform does not say.
type machineReading struct {
	ok          bool
	cpus        int
	busy, steal time.Duration // summed over the CPUs; busy: every process's, ours included
}

// machineTimes is what the machine's CPUs did during a window: a difference of two
// readings.
type machineTimes machineReading

func (a machineReading) during(b machineReading) machineTimes {
	if !a.ok || !b.ok || a.cpus != b.cpus {
		return machineTimes{}
	}
	return machineTimes{ok: true, cpus: a.cpus, busy: max(0, b.busy-a.busy), steal: max(0, b.steal-a.steal)}
}

// windowMachine is the record's window_machine.
type windowMachine struct {
	BusyS  float64 `json:"busy_s"`
	StealS float64 `json:"steal_s"`
	CPUs   int     `json:"cpus"`
}

func (m machineTimes) record() *windowMachine {
	if !m.ok {
		return nil
	}
	return &windowMachine{BusyS: m.busy.Seconds(), StealS: m.steal.Seconds(), CPUs: m.cpus}
}
