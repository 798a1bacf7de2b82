//go:build sql

package main

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	_ "github.com/mattn/go-sqlite3" // cgo: links the C SQLite, as the Rust side does
)

func init() { implement("sqlite", runSQLite, setupSQLite) }

const (
	sqliteDriver        = "sqlite3"
	sqliteModule        = "github.com/mattn/go-sqlite3"
	sqliteBusyTimeoutMs = 5000
	sqliteSynchronous   = "normal"
	// busyTimeoutEnv lowers the busy timeout for the tests only; the value used is
	// stated in the record.
	busyTimeoutEnv = "BENCH_SQLITE_BUSY_TIMEOUT_MS"
)

// sqliteDSN is a file: URI for path. mode=rw makes a missing file an error instead
// of a new empty database; the _-prefixed options are the driver's and are applied
// on every connection it opens.
func sqliteDSN(path, mode string, busyTimeoutMs int) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows: file:///C:/...
	}
	p = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(p)
	q := url.Values{
		"mode":          {mode},
		"_journal_mode": {"WAL"},
		"_synchronous":  {sqliteSynchronous},
		"_busy_timeout": {strconv.Itoa(busyTimeoutMs)},
		// As sqlx opens its connections: multi-thread mode (each connection is used by
		// one goroutine at a time, so SQLite's own mutexes are not needed) and
		// foreign keys on. mattn's defaults are FULLMUTEX and off.
		"_mutex":        {"no"},
		"_foreign_keys": {"1"},
	}
	return "file://" + p + "?" + q.Encode(), nil
}

// setupSQLite makes the database file --db afresh with --rows users.
func setupSQLite(p params) error {
	path := p.str("db")
	if err := checkReplaceable(path); err != nil {
		return err
	}
	for _, f := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	dsn, err := sqliteDSN(path, "rwc", sqliteBusyTimeoutMs)
	if err != nil {
		return err
	}
	db, err := sql.Open(sqliteDriver, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := fillUsers(db, dialectQuestion, sqlCreateUsers, p.int("rows")); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return db.Close()
}

// checkReplaceable refuses to delete a file that is not an SQLite database, so a
// mistaken --db cannot destroy other data.
func checkReplaceable(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	header := make([]byte, 16)
	n, err := io.ReadFull(f, header)
	if n == 0 && (err == io.EOF || err == nil) {
		return nil // empty file
	}
	if !bytes.Equal(header[:n], []byte("SQLite format 3\x00")[:n]) || n < len(header) {
		return fmt.Errorf("refusing to replace %s: it is not an SQLite database", path)
	}
	return nil
}

func sqliteBusyTimeout() (int, error) {
	s := os.Getenv(busyTimeoutEnv)
	if s == "" {
		return sqliteBusyTimeoutMs, nil
	}
	ms, err := strconv.Atoi(s)
	if err != nil || ms < 0 {
		return 0, fmt.Errorf("%s=%q is not a number of milliseconds", busyTimeoutEnv, s)
	}
	return ms, nil
}

func runSQLite(variant string, p params) (*result, error) {
	if variant != "goroutines" {
		return nil, fmt.Errorf("variant %q not implemented", variant)
	}
	path, tasks, rows, pool := p.str("db"), p.int("tasks"), p.int("rows"), p.int("pool")
	hint := fmt.Sprintf("run `%s setup sqlite --db %s --rows %d` first", programName, path, rows)
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("database %s not found (%s)", path, hint)
		}
		return nil, err
	}
	busy, err := sqliteBusyTimeout()
	if err != nil {
		return nil, err
	}
	dsn, err := sqliteDSN(path, "rw", busy)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open(sqliteDriver, dsn)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(pool)
	db.SetMaxIdleConns(pool)
	facts, err := sqliteFacts(db)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	facts["pool"] = pool

	res, err := runUsers(db, dialectQuestion, hint, tasks, rows, pool)
	if err != nil {
		// SQLITE_BUSY's text; the driver's error type exists only in cgo builds.
		if strings.Contains(err.Error(), "database is locked") {
			return nil, fmt.Errorf("%s: %w (another connection held the lock longer than the busy timeout of %d ms)", path, err, busy)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	res.runtime = facts
	return res, nil
}

// sqliteFacts reads back the library version and the settings a connection
// actually has, rather than repeating what was asked for.
func sqliteFacts(db *sql.DB) (map[string]any, error) {
	var version, journal string
	var synchronous, busy, foreignKeys int
	for _, q := range []struct {
		sql  string
		dest any
	}{
		{"SELECT sqlite_version()", &version},
		{"PRAGMA journal_mode", &journal},
		{"PRAGMA synchronous", &synchronous},
		{"PRAGMA busy_timeout", &busy},
		{"PRAGMA foreign_keys", &foreignKeys},
	} {
		if err := db.QueryRow(q.sql).Scan(q.dest); err != nil {
			return nil, fmt.Errorf("%s: %w", q.sql, err)
		}
	}
	options, err := sqliteCompileOptions(db)
	if err != nil {
		return nil, err
	}
	syncNames := []string{"off", "normal", "full", "extra"}
	syncName := strconv.Itoa(synchronous)
	if synchronous >= 0 && synchronous < len(syncNames) {
		syncName = syncNames[synchronous]
	}
	return map[string]any{
		"sqlite_version":         version,
		"sqlite_compile_options": options,
		"journal_mode":           journal,
		"synchronous":            syncName,
		"busy_timeout_ms":        busy,
		"foreign_keys":           foreignKeys == 1,
		"threading_mode":         "multi-thread",
		"checkout":               sqlCheckout,
		"driver":                 moduleVersion(sqliteModule),
	}, nil
}

// sqliteCompileOptions is how the linked library was built (PRAGMA compile_options),
// so two records show whether they ran the same SQLite.
func sqliteCompileOptions(db *sql.DB) ([]string, error) {
	rs, err := db.Query("PRAGMA compile_options")
	if err != nil {
		return nil, fmt.Errorf("PRAGMA compile_options: %w", err)
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		var o string
		if err := rs.Scan(&o); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rs.Err()
}
