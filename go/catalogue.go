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

func intParam(name string, def any) param { return param{name: name, typ: typeInt, min: 1, def: def} }

func pathParam(name, def string) param { return param{name: name, typ: typePath, def: def} }

var scenarios = []*scenario{
	{
		name:     "hashmap",
		variants: []string{"spawn", "spawn-sem", "spawn-limited", "pool"},
		params: []param{
			intParam("tasks", 100000),
			intParam("items", 10000),
			{name: "shape", typ: typeEnum, choices: []string{"burst", "rate"}, def: "burst"},
			{name: "rate", typ: typeFloat, min: 0.001, def: 10.0},
			intParam("workers", defaultCPUs),
		},
		run: runHashmap,
	},
	{
		name:     "fanout",
		variants: []string{"channels", "batched"},
		params: []param{
			intParam("values", 50000000),
			intParam("workers", 3),
			intParam("buffer", 1000),
			intParam("batch", 1000),
		},
		run: runFanout,
	},
	{
		name:     "cpu",
		variants: []string{"goroutines"},
		params: []param{
			intParam("tasks", 200),
			intParam("items", 10000000),
			intParam("threads", defaultCPUs),
		},
		run: runCPU,
	},
	{
		name:     "sleep",
		variants: []string{"goroutines"},
		params: []param{
			intParam("tasks", 1000000),
			intParam("spin", 100000),
			intParam("max_sleep_ms", 300),
		},
		run: runSleep,
	},
	{
		name:     "files-read",
		variants: []string{"goroutines"},
		params: []param{
			intParam("tasks", 1000000),
			pathParam("dir", "bench-files"),
		},
		setup: setupFiles,
		run:   runFilesRead,
	},
	{
		name:     "files-rw",
		variants: []string{"goroutines"},
		params: []param{
			intParam("tasks", 100000),
			pathParam("dir", "bench-files"),
		},
		setup: setupFiles,
		run:   runFilesRW,
	},
	{
		name:     "sqlite",
		variants: []string{"goroutines"},
		params: []param{
			intParam("tasks", 10000),
			intParam("rows", 10000),
			intParam("pool", 8),
			pathParam("db", "bench.sqlite"),
		},
		setup: setupSQLite,
		run:   runSQLite,
	},
	{
		name:     "mysql",
		variants: []string{"goroutines"},
		params: []param{
			intParam("tasks", 100000),
			intParam("rows", 10000),
			intParam("pool", 8),
		},
		setup: setupMySQL,
		run:   runMySQL,
	},
}

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
				lp.Min = int(p.min)
			case typeFloat:
				lp.Min = jsonFloat(p.min)
			}
			ps[p.name] = lp
		}
		l.Scenarios[s.name] = listScenario{Variants: s.variants, Params: ps}
	}
	return l
}
