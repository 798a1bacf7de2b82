package main

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// usageError is a problem with the command line: exit status 2 instead of 1.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

func isUsageError(err error) bool {
	var u *usageError
	return errors.As(err, &u)
}

// params holds every parameter of a scenario with its resolved value: int, float64
// or string.
type params map[string]any

// The accessors panic on a name or type the catalogue does not declare: that is a
// bug in this program, not bad input.
func (p params) int(name string) int       { return p[name].(int) }
func (p params) float(name string) float64 { return p[name].(float64) }
func (p params) str(name string) string    { return p[name].(string) }

// invocation is a parsed `gobench <scenario> ...` or `gobench setup <scenario> ...`.
type invocation struct {
	sc      *scenario
	variant string
	params  params
	repeat  int     // --repeat: runs of the scenario in this process (1: the default)
	stretch float64 // --stretch: each window held open to this multiple of its length (0 or 1: not)
}

// parseInvocation parses `<scenario> [--variant v] [--name value | --name=value]...`.
// Every parameter of the scenario ends up in params, defaults filled in. A run needs
// its variant; `setup` does not (the state it makes is the same for every variant).
func parseInvocation(args []string, needVariant bool) (*invocation, error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return nil, usagef("missing scenario (one of %s)", strings.Join(scenarioNames(), ", "))
	}
	sc := findScenario(args[0])
	if other := otherProgram(args[0]); sc == nil && other != "" {
		return nil, usagef("unknown scenario %q: it is in %s (go build -tags sql)", args[0], other)
	}
	if sc == nil {
		return nil, usagef("unknown scenario %q (one of %s)", args[0], strings.Join(scenarioNames(), ", "))
	}
	inv := &invocation{sc: sc, params: params{}}
	for i := 1; i < len(args); i++ {
		arg := args[i]
		if !strings.HasPrefix(arg, "--") || len(arg) == 2 {
			return nil, usagef("unexpected argument %q", arg)
		}
		name, value, hasValue := strings.Cut(arg[2:], "=")
		if (name == "repeat" || name == "stretch") && !needVariant {
			return nil, usagef("--%s is for a run, not for setup", name)
		}
		if name != "variant" && name != "repeat" && name != "stretch" && sc.param(name) == nil {
			return nil, usagef("unknown parameter --%s for %s", name, sc.name)
		}
		if !hasValue {
			if i+1 == len(args) {
				return nil, usagef("--%s needs a value", name)
			}
			i++
			value = args[i]
		}
		if name == "repeat" {
			if inv.repeat != 0 {
				return nil, usagef("--repeat given twice")
			}
			k, err := strconv.Atoi(value)
			if err != nil || k < 1 || k > maxRepeat {
				return nil, usagef("--repeat: %q is not a whole number from 1 to %d", value, maxRepeat)
			}
			inv.repeat = k
			continue
		}
		if name == "stretch" {
			if inv.stretch != 0 {
				return nil, usagef("--stretch given twice")
			}
			f, err := strconv.ParseFloat(value, 64)
			if err != nil || !(f >= 1 && f <= maxStretch) {
				return nil, usagef("--stretch: %q is not a number from 1 to %d", value, maxStretch)
			}
			inv.stretch = f
			continue
		}
		if name == "variant" {
			if inv.variant != "" {
				return nil, usagef("--variant given twice")
			}
			if !slices.Contains(sc.variants, value) {
				return nil, usagef("unknown variant %q for %s (one of %s)", value, sc.name, strings.Join(sc.variants, ", "))
			}
			inv.variant = value
			continue
		}
		if _, dup := inv.params[name]; dup {
			return nil, usagef("--%s given twice", name)
		}
		v, err := sc.param(name).parse(value)
		if err != nil {
			return nil, err
		}
		inv.params[name] = v
	}
	if inv.variant == "" && needVariant {
		if len(sc.variants) != 1 {
			return nil, usagef("%s needs --variant (one of %s)", sc.name, strings.Join(sc.variants, ", "))
		}
		inv.variant = sc.variants[0]
	}
	for _, p := range sc.params {
		if _, given := inv.params[p.name]; !given {
			inv.params[p.name] = p.defaultValue()
		}
	}
	return inv, nil
}

func (p *param) parse(s string) (any, error) {
	switch p.typ {
	case typeInt:
		v, err := strconv.Atoi(s)
		if err != nil {
			if p.min >= 1 {
				return nil, usagef("--%s: %q is not a positive integer", p.name, s)
			}
			return nil, usagef("--%s: %q is not an integer", p.name, s)
		}
		if float64(v) < p.min {
			return nil, usagef("--%s must be >= %d", p.name, int(p.min))
		}
		if float64(v) > p.max {
			return nil, usagef("--%s must be <= %d", p.name, int(p.max))
		}
		return v, nil
	case typeFloat:
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, usagef("--%s: %q is not a number", p.name, s)
		}
		if v < p.min {
			return nil, usagef("--%s must be >= %s", p.name, strconv.FormatFloat(p.min, 'f', -1, 64))
		}
		if v > p.max {
			return nil, usagef("--%s must be <= %s", p.name, strconv.FormatFloat(p.max, 'f', -1, 64))
		}
		return v, nil
	case typeEnum:
		if !slices.Contains(p.choices, s) {
			return nil, usagef("--%s: %q is not one of %s", p.name, s, strings.Join(p.choices, ", "))
		}
		return s, nil
	default: // typePath
		if s == "" {
			return nil, usagef("--%s: empty path", p.name)
		}
		return s, nil
	}
}

func (p *param) defaultValue() any {
	if p.def == defaultCPUs {
		return runtime.NumCPU()
	}
	return p.def
}
