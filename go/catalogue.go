package main

// The scenarios, variants and parameters this program implements. They mirror
// ci-scripts/catalogue.toml (lang go) exactly; `gobench list` prints this table and
// the pipeline's tests compare it with the catalogue.

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

type scenario struct {
	name     string
	variants []string
	params   []param
	setup    func(params) error // nil: the scenario needs no setup
	run      func(variant string, p params) (*result, error)
}

func (s *scenario) param(name string) *param {
	for i := range s.params {
		if s.params[i].name == name {
			return &s.params[i]
		}
	}
	return nil
}

func intParam(name string, def any, max float64) param {
	return param{name: name, typ: typeInt, min: 1, max: max, def: def}
}

func pathParam(name, def string) param { return param{name: name, typ: typePath, def: def} }

var scenarios = []*scenario{
	{
		name:     "hashmap",
		variants: []string{"spawn", "spawn-sem", "spawn-limited", "pool"},
		params: []param{
			intParam("tasks", 100000, 10_000_000),
			intParam("items", 10000, 1_000_000),
			{name: "shape", typ: typeEnum, choices: []string{"burst", "rate"}, def: "burst"},
			{name: "rate", typ: typeFloat, min: 0.001, max: 1_000_000, def: 10.0},
			intParam("workers", defaultCPUs, 4_096),
		},
		run: runHashmap,
	},
	{
		name:     "fanout",
		variants: []string{"channels", "batched"},
		params: []param{
			intParam("values", 50000000, 10_000_000_000),
			intParam("workers", 3, 4_096),
			intParam("buffer", 1000, 10_000_000),
			intParam("batch", 1000, 10_000_000),
		},
		run: runFanout,
	},
	{
		name:     "cpu",
		variants: []string{"goroutines"},
		params: []param{
			intParam("tasks", 200, 1_000_000),
			intParam("items", 10000000, 200_000_000),
			intParam("threads", defaultCPUs, 1_024),
		},
		run: runCPU,
	},
	{
		name:     "sleep",
		variants: []string{"goroutines"},
		params: []param{
			intParam("tasks", 1000000, 10_000_000),
			intParam("spin", 100000, 1_000_000_000),
			intParam("max_sleep_ms", 300, 3_600_000),
		},
		run: runSleep,
	},
	{
		name:     "files-read",
		variants: []string{"goroutines"},
		params: []param{
			intParam("tasks", 1000000, 10_000_000),
			pathParam("dir", "bench-files"),
		},
		setup: setupFiles,
		run:   runFilesRead,
	},
	{
		name:     "files-rw",
		variants: []string{"goroutines"},
		params: []param{
			intParam("tasks", 100000, 10_000_000),
			pathParam("dir", "bench-files"),
		},
		setup: setupFiles,
		run:   runFilesRW,
	},
}

// sqlScenarioNames are the scenarios only gobench-sql has (catalogue_sql.go).
var sqlScenarioNames = []string{"sqlite", "mysql"}

func findScenario(name string) *scenario {
	for _, s := range scenarios {
		if s.name == name {
			return s
		}
	}
	return nil
}

func scenarioNames() []string {
	names := make([]string, len(scenarios))
	for i, s := range scenarios {
		names[i] = s.name
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
		Scenarios: make(map[string]listScenario, len(scenarios)),
	}
	for _, s := range scenarios {
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
