//go:build sql

package main

import (
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

func init() { implement("postgres", runPostgres, setupPostgres) }

const (
	postgresDSNEnv      = "BENCH_POSTGRES_DSN"
	postgresModule      = "github.com/jackc/pgx/v5"
	postgresDefaultPort = 5432
	postgresDialTimeout = 5 * time.Second

	// postgresSettingsSQL reads, on one connection before the window, the server's
	// version and the settings that change the numbers: how a commit waits for its WAL
	// (synchronous_commit, fsync, wal_sync_method, full_page_writes, wal_level), the
	// buffer cache, the connection limit, whether prepared statements switch to a
	// generic plan (plan_cache_mode), and autovacuum. The Rust program sends the same
	// statement; both records carry every name as a runtime key.
	postgresSettingsSQL = "SELECT name, current_setting(name) FROM unnest(ARRAY['server_version', " +
		"'synchronous_commit', 'fsync', 'wal_sync_method', 'full_page_writes', 'wal_level', " +
		"'shared_buffers', 'max_connections', 'plan_cache_mode', 'autovacuum']) AS s(name)"

	// postgresAnalyze gives the new table its planner statistics, visibility map and
	// hint bits during setup, rather than whenever autovacuum next wakes (every minute):
	// otherwise the plan of the age select, and which run pays for the first reads,
	// would depend on how long after setup a run starts.
	postgresAnalyze = "VACUUM ANALYZE users"
)

// postgresConfig turns BENCH_POSTGRES_DSN, a URL postgres://user:password@host:port/dbname,
// into pgx's configuration: plain TCP (sslmode=disable, as the mysql scenario) and a
// connect timeout. Messages never repeat the password.
func postgresConfig() (*pgx.ConnConfig, error) {
	raw := os.Getenv(postgresDSNEnv)
	if raw == "" {
		return nil, errors.New(postgresDSNEnv + " is not set")
	}
	// The messages never echo the value: it holds a password.
	const want = " is not of the form postgres://user:password@host:port/dbname"
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New(postgresDSNEnv + want)
	}
	dbName := strings.TrimPrefix(u.Path, "/")
	if (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Opaque != "" || u.Hostname() == "" ||
		u.User == nil || u.User.Username() == "" || dbName == "" || strings.Contains(dbName, "/") {
		return nil, errors.New(postgresDSNEnv + want)
	}
	if u.RawQuery != "" {
		return nil, errors.New(postgresDSNEnv + ": query parameters are not supported")
	}
	port := postgresDefaultPort
	if s := u.Port(); s != "" {
		if port, err = strconv.Atoi(s); err != nil || port < 1 || port > 65535 {
			return nil, errors.New(postgresDSNEnv + want)
		}
	}
	password, _ := u.User.Password()
	// Keyword/value form with every value quoted, so pgx takes these and only reads the
	// environment (PGAPPNAME, PGOPTIONS, ...) for what is not said, as sqlx does.
	quote := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace
	conn := fmt.Sprintf("host='%s' port=%d user='%s' password='%s' dbname='%s' sslmode=disable connect_timeout=%d",
		quote(u.Hostname()), port, quote(u.User.Username()), quote(password), quote(dbName),
		int(postgresDialTimeout/time.Second))
	cfg, err := pgx.ParseConfig(conn)
	if err != nil {
		return nil, errors.New(postgresDSNEnv + want)
	}
	return cfg, nil
}

// postgresServer names the server in messages: host:port/dbname.
func postgresServer(cfg *pgx.ConnConfig) string {
	return net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))) + "/" + cfg.Database
}

// openPostgres returns a pool of up to pool connections through database/sql (pgx's
// stdlib), with one connection open.
func openPostgres(pool int) (*sql.DB, string, error) {
	cfg, err := postgresConfig()
	if err != nil {
		return nil, "", err
	}
	server := postgresServer(cfg)
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(pool)
	db.SetMaxIdleConns(pool)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, "", fmt.Errorf("cannot connect to %s: %w", server, err)
	}
	return db, server, nil
}

// setupPostgres drops and recreates the table users with --rows rows.
func setupPostgres(p params) error {
	db, server, err := openPostgres(1)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec("DROP TABLE IF EXISTS users"); err != nil {
		return fmt.Errorf("%s: %w", server, err)
	}
	if err := fillUsers(db, dialectDollar, sqlCreateUsers, p.int("rows")); err != nil {
		return fmt.Errorf("%s: %w", server, err)
	}
	if _, err := db.Exec(postgresAnalyze); err != nil {
		return fmt.Errorf("%s: %s: %w", server, postgresAnalyze, err)
	}
	return nil
}

func runPostgres(variant string, p params) (*result, error) {
	if variant != "goroutines" {
		return nil, fmt.Errorf("variant %q not implemented", variant)
	}
	tasks, rows, pool := p.int("tasks"), p.int("rows"), p.int("pool")
	db, server, err := openPostgres(pool)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	facts, err := postgresFacts(db)
	if err != nil {
		return nil, fmt.Errorf("%s: reading the server settings: %w", server, err)
	}
	hint := fmt.Sprintf("run `%s setup postgres --rows %d` first", programName, rows)
	res, err := runUsers(db, dialectDollar, hint, tasks, rows, pool)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", server, err)
	}
	facts["pool"] = pool
	facts["checkout"] = sqlCheckout
	facts["driver"] = moduleVersion(postgresModule)
	res.runtime = facts
	return res, nil
}

// postgresFacts is the server's version and settings as a connection reports them
// (postgresSettingsSQL), by their PostgreSQL names.
func postgresFacts(db *sql.DB) (map[string]any, error) {
	rs, err := db.Query(postgresSettingsSQL)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	facts := map[string]any{}
	for rs.Next() {
		var name, value string
		if err := rs.Scan(&name, &value); err != nil {
			return nil, err
		}
		facts[name] = value
	}
	return facts, rs.Err()
}
