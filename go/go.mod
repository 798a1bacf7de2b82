module gorust-bench/go

go 1.25.0

require (
	github.com/go-sql-driver/mysql v1.10.1
	github.com/mattn/go-sqlite3 v1.14.53
	golang.org/x/sys v0.47.0
)

require filippo.io/edwards25519 v1.2.0 // indirect
