//go:build sql

package main

// The SQL scenarios, built only with the tag `sql` (the program gobench-sql). Go runs
// every linked package's initialisers, and cgo's start-up, whether a scenario uses
// them or not: the database drivers and cgo (for SQLite) would add about 5 MB of
// resident memory to every other scenario's run. So the lean gobench leaves them out.

func init() {
	scenarios = append(scenarios, sqlScenarios...)
}

var sqlScenarios = []*scenario{
	{
		name:     "sqlite",
		variants: []string{"goroutines"},
		params: []param{
			intParam("tasks", 10000, 10_000_000),
			intParam("rows", 10000, 10_000_000),
			intParam("pool", 8, 1_024),
			pathParam("db", "bench.sqlite"),
		},
		setup: setupSQLite,
		run:   runSQLite,
	},
	{
		name:     "mysql",
		variants: []string{"goroutines"},
		params: []param{
			intParam("tasks", 100000, 10_000_000),
			intParam("rows", 10000, 10_000_000),
			intParam("pool", 8, 1_024),
		},
		setup: setupMySQL,
		run:   runMySQL,
	},
}
