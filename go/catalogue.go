package main

import "slices"

// The scenarios this program runs. Their names, programs, variants and parameters are
// ci-scripts/catalogue.toml's (lang go), in the table `catalogue` of scenarios.go,
// which is generated from it (`ci-scripts/bench catalogue --write-programs`; a test
// fails when it is stale). Each scenario's own file registers its code with
// implement(), so a new scenario is its catalogue entry and one file here.

//go:generate sh -c "cd .. && ci-scripts/bench catalogue --write-programs"

type paramType string

const (
	typeInt   paramType = "int"
	typeFloat paramType = "float"
	typeEnum  paramType = "enum"
	typePath  paramType = "path"
)

// defaultCPUs as a default stands for the number of logical CPUs at run time.
const defaultCPUs = "cpus"

type param struct {
	name    string
	typ     paramType
	min     float64 // int and float parameters
	max     float64 // int and float parameters: larger values are refused
	def     any     // int, float64, string, or defaultCPUs
	choices []string
}

// catalogueScenario is one scenario of the catalogue: what scenarios.go declares.
type catalogueScenario struct {
	name     string
	program  string // the program that runs it: gobench, or gobench-sql (split = true)
	variants []string
	params   []param
}

type scenario struct {
	catalogueScenario
	setup func(params) error // nil: the scenario needs no setup
	run   func(variant string, p params) (*result, error)
}

func (s *scenario) param(name string) *param {
	for i := range s.params {
		if s.params[i].name == name {
			return &s.params[i]
		}
	}
	return nil
}

// implementations: scenario name -> its code, registered by the scenario's own file.
var implementations = map[string]*scenario{}

// implement registers a scenario's code (from an init function of its file). setup
// may be nil. A name the catalogue does not declare is a bug that must not make a
// program: it panics at start, and every test fails. The split program (gobench-sql,
// build tag sql) runs every scenario; the lean one those whose program it is, as the
// build tags of the scenarios' files see to.
func implement(name string, run func(variant string, p params) (*result, error), setup func(params) error) {
	i := slices.IndexFunc(catalogue, func(c catalogueScenario) bool { return c.name == name })
	if i < 0 || implementations[name] != nil {
		panic("implement(" + name + "): not a scenario of scenarios.go, or registered twice")
	}
	implementations[name] = &scenario{catalogue[i], setup, run}
}

// scenarios is what this program runs, in catalogue order.
func scenarios() []*scenario {
	var out []*scenario
	for _, c := range catalogue {
		if s := implementations[c.name]; s != nil {
			out = append(out, s)
		}
	}
	return out
}

func findScenario(name string) *scenario { return implementations[name] }

// otherProgram names the program that runs a catalogue scenario this one does not
// ("" for any other name).
func otherProgram(name string) string {
	for _, c := range catalogue {
		if c.name == name && implementations[name] == nil {
			return c.program
		}
	}
	return ""
}

func scenarioNames() []string {
	var names []string
	for _, s := range scenarios() {
		names = append(names, s.name)
	}
	return names
}

// listing is what `gobench list` prints.
type listing struct {
	Program   string                  `json:"program"`
	Lang      string                  `json:"lang"`
	Build     string                  `json:"build"`
	Toolchain string                  `json:"toolchain"`
	Scenarios map[string]listScenario `json:"scenarios"`
}

type listScenario struct {
	Variants []string             `json:"variants"`
	Params   map[string]listParam `json:"params"`
}

type listParam struct {
	Type    paramType `json:"type"`
	Min     any       `json:"min,omitempty"`
	Max     any       `json:"max,omitempty"`
	Default any       `json:"default"`
	Choices []string  `json:"choices,omitempty"`
}

func newListing() listing {
	l := listing{
		Program:   programName,
		Lang:      "go",
		Build:     "go",
		Toolchain: toolchain(),
		Scenarios: map[string]listScenario{},
	}
	for _, s := range scenarios() {
		ps := make(map[string]listParam, len(s.params))
		for _, p := range s.params {
			lp := listParam{Type: p.typ, Default: jsonValue(p.def), Choices: p.choices}
			switch p.typ {
			case typeInt:
				lp.Min, lp.Max = int(p.min), int(p.max)
			case typeFloat:
				lp.Min, lp.Max = jsonFloat(p.min), jsonFloat(p.max)
			}
			ps[p.name] = lp
		}
		l.Scenarios[s.name] = listScenario{Variants: s.variants, Params: ps}
	}
	return l
}
