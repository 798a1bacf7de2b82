//go:build sql

package main

// Every scenario, the SQL ones included (catalogue_sql.go).
const (
	programName = "gobench-sql"
	buildTags   = "sql"
)
