//go:build sql

package main

// Every scenario, the SQL ones included (their files have the build tag `sql`).
const (
	programName = "gobench-sql"
	buildTags   = "sql"
)
