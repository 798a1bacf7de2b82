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

func init() { implement("postgres", postgresServer.run, postgresServer.setup) }

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

// postgresServerName names the server in messages: host:port/dbname.
func postgresServerName(cfg *pgx.ConnConfig) string {
	return net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))) + "/" + cfg.Database
}

// postgresServer is the scenario: the shared setup and run (sqlServer) on PostgreSQL,
// the new table analysed after setup.
var postgresServer = sqlServer{
	scenario: "postgres",
	dialect:  dialectDollar,
	create:   sqlCreateUsers,
	analyze:  postgresAnalyze,
	module:   postgresModule,
	open:     openPostgres,
	facts:    postgresFacts,
}

// openPostgres returns a pool of up to pool connections through database/sql (pgx's
// stdlib), with one connection open.
func openPostgres(pool int) (*sql.DB, string, error) {
	cfg, err := postgresConfig()
	if err != nil {
		return nil, "", err
	}
	return openPool(stdlib.GetConnector(*cfg), postgresServerName(cfg), pool)
}

// postgresFacts is the server's version and settings as a connection reports them
// (postgresSettingsSQL), by their PostgreSQL names.
func postgresFacts(db *sql.DB) (map[string]any, error) {
	const what = "reading the server settings: %w"
	rs, err := db.Query(postgresSettingsSQL)
	if err != nil {
		return nil, fmt.Errorf(what, err)
	}
	defer rs.Close()
	facts := map[string]any{}
	for rs.Next() {
		var name, value string
		if err := rs.Scan(&name, &value); err != nil {
			return nil, fmt.Errorf(what, err)
		}
		facts[name] = value
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf(what, err)
	}
	return facts, nil
}
