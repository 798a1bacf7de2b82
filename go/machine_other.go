//go:build !linux

package main

// machineNow: only Linux says what the machine's CPUs did (machine_linux.go); elsewhere
// the record has no window_machine.
func machineNow() machineReading { return machineReading{} }
