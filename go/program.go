//go:build !sql

package main

// The lean program: every scenario but the SQL ones, which need the build tag `sql`
// (catalogue_sql.go says why).
const (
	programName = "gobench"
	buildTags   = ""
)
