//go:build !sql

package main

// The lean program: every scenario but those the catalogue marks `split = true` (the
// SQL ones), whose files need the build tag `sql`. Go runs every linked package's
// initialisers, and cgo's start-up, whether a scenario uses them or not: the database
// drivers and cgo (for SQLite) would add about 5 MB of resident memory to every other
// scenario's run.
const (
	programName = "gobench"
	buildTags   = ""
)
