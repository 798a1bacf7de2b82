package main

import (
	"runtime"
	"strings"
	"testing"
)

func TestParseDefaultsAndForms(t *testing.T) {
	inv, err := parseInvocation([]string{"hashmap", "--variant=pool", "--tasks", "7", "--rate=2.5"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if inv.variant != "pool" {
		t.Errorf("variant = %q", inv.variant)
	}
	p := inv.params
	if p.int("tasks") != 7 || p.float("rate") != 2.5 || p.int("items") != 10000 ||
		p.str("shape") != "burst" || p.int("workers") != runtime.NumCPU() {
		t.Errorf("params = %v", p)
	}
}

func TestParseSingleVariantIsImplied(t *testing.T) {
	inv, err := parseInvocation([]string{"sleep"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if inv.variant != "goroutines" || len(inv.params) != 3 {
		t.Errorf("variant %q, params %v", inv.variant, inv.params)
	}
}

func TestParseErrorsAreUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"x"}, {"cpu", "--tasks", "1.5"}, {"cpu", "--variant", "tokio"}, {"fanout"}} {
		if _, err := parseInvocation(args, true); err == nil || !isUsageError(err) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
}

func TestJSONFloat(t *testing.T) {
	for f, want := range map[float64]string{10: "10.0", 0.001: "0.001", 2.5: "2.5", 0: "0.0"} {
		b, _ := jsonFloat(f).MarshalJSON()
		if string(b) != want {
			t.Errorf("jsonFloat(%v) = %s, want %s", f, b, want)
		}
	}
}

func TestParseRefusesValuesAboveTheMax(t *testing.T) {
	for args, want := range map[string]string{
		"cpu --variant goroutines --threads 100000":            "--threads must be <= 1024",
		"hashmap --variant spawn --tasks 9223372036854775807":  "--tasks must be <= 10000000",
		"hashmap --variant spawn --rate 1e9":                   "--rate must be <= 1000000",
		"hashmap --variant spawn --tasks 99999999999999999999": "is not a positive integer",
	} {
		_, err := parseInvocation(strings.Fields(args), true)
		if err == nil || !isUsageError(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a usage error with %q", args, err, want)
		}
	}
}
