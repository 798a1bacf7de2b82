//go:build sql && !cgo

package main

// gobench-sql links the C SQLite through cgo. Without cgo, go-sqlite3 quietly becomes a
// stub that fails only when a benchmark runs; refuse to build instead (the compiler
// names the identifier below as undefined, which says what to do).
var _ = gobenchSQLNeedsCgo_setCGO_ENABLED1AndACCompiler
