// The SQLite driver needs cgo; without it the scenario fails with a clear message
// and these tests do not apply.

//go:build sql && cgo

package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func setupSQLiteDB(t *testing.T, rows int) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "bench.sqlite")
	if r := runBench(t, nil, "setup", "sqlite", "--db", db, "--rows", fmt.Sprint(rows)); r.code != 0 {
		t.Fatalf("setup sqlite: exit %d: %s", r.code, r.stderr)
	}
	return db
}

func TestSQLiteChecksum(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ tasks, rows, pool int }{{10, 1000, 8}, {100, 1000, 8}, {200, 50, 1}} {
		t.Run(fmt.Sprintf("tasks=%d/rows=%d/pool=%d", c.tasks, c.rows, c.pool), func(t *testing.T) {
			t.Parallel()
			db := setupSQLiteDB(t, c.rows)
			rec := benchRecord(t, nil, "sqlite", "--db", db, "--tasks", fmt.Sprint(c.tasks),
				"--rows", fmt.Sprint(c.rows), "--pool", fmt.Sprint(c.pool))
			checkUsersRecord(t, rec, expectUsers(c.tasks, c.rows))
			rt := rec["runtime"].(map[string]any)
			if rt["journal_mode"] != "wal" || rt["synchronous"] != "normal" || !strings.HasPrefix(fmt.Sprint(rt["sqlite_version"]), "3.") {
				t.Errorf("runtime = %v", rt)
			}
			if uintField(t, rec, "runtime", "busy_timeout_ms") != 5000 || uintField(t, rec, "runtime", "pool") != uint64(c.pool) {
				t.Errorf("runtime = %v", rt)
			}
		})
	}
}

func TestSQLiteSetupState(t *testing.T) {
	t.Parallel()
	path := setupSQLiteDB(t, 300)
	db, err := sql.Open(sqliteDriver, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d := minstd(600)
	var salary, age int64
	var address string
	if err := db.QueryRow("SELECT salary, age, address FROM users WHERE id = 300").Scan(&salary, &age, &address); err != nil {
		t.Fatal(err)
	}
	if uint64(salary) != d[598]%201 || uint64(age) != d[599]%100 || address != "address 300" {
		t.Errorf("row 300 = (%d, %d, %q), want (%d, %d, \"address 300\")", salary, age, address, d[598]%201, d[599]%100)
	}
}

func TestSQLiteBusyTimeoutOverrideIsRecorded(t *testing.T) {
	t.Parallel()
	db := setupSQLiteDB(t, 100)
	rec := benchRecord(t, []string{busyTimeoutEnv + "=1234"}, "sqlite", "--db", db, "--tasks", "5", "--rows", "100")
	if got := uintField(t, rec, "runtime", "busy_timeout_ms"); got != 1234 {
		t.Fatalf("busy_timeout_ms = %d, want 1234", got)
	}
}

func TestSQLiteMissingDatabaseFails(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "none.sqlite")
	r := runBench(t, nil, "sqlite", "--db", missing, "--tasks", "5", "--rows", "10")
	if r.code != exitFailed || !strings.Contains(r.stderr, "not found") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q; want exit 1 and one line saying not found", r.code, r.stderr)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Fatalf("the run created %s", missing)
	}
}

func TestSQLiteRowsMismatchFails(t *testing.T) {
	t.Parallel()
	db := setupSQLiteDB(t, 100)
	r := runBench(t, nil, "sqlite", "--db", db, "--tasks", "5", "--rows", "200")
	if r.code != exitFailed || !strings.Contains(r.stderr, "100 rows") {
		t.Fatalf("exit %d, stderr %q; want exit 1 about the row count", r.code, r.stderr)
	}
}

// Another process holds the write lock longer than the busy timeout: the run must
// fail with status 1 and say so, not report fewer updates.
func TestSQLiteLockedDatabaseFails(t *testing.T) {
	t.Parallel()
	path := setupSQLiteDB(t, 100)
	dsn, err := sqliteDSN(path, "rw", 5000)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open(sqliteDriver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(t.Context(), "ROLLBACK")

	r := runBench(t, []string{busyTimeoutEnv + "=200"}, "sqlite", "--db", path, "--tasks", "50", "--rows", "100")
	msg := strings.ToLower(r.stderr)
	if r.code != exitFailed || !(strings.Contains(msg, "locked") || strings.Contains(msg, "busy")) || strings.Count(msg, "\n") != 1 || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and one line about a locked database", r.code, r.stdout, r.stderr)
	}
}

func TestSQLiteSetupRefusesOtherFiles(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(path, []byte("not a database, keep me"), 0o644)
	r := runBench(t, nil, "setup", "sqlite", "--db", path, "--rows", "10")
	if r.code != exitFailed || !strings.Contains(r.stderr, "not an SQLite database") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(path); string(b) != "not a database, keep me" {
		t.Fatal("setup replaced a file that was not a database")
	}
}
