//go:build sql

package main

import (
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
)

// postgresDSN is the server the PostgreSQL tests use: BENCH_POSTGRES_DSN, or a skip
// unless BENCH_REQUIRE_SERVICES=1 says a server must be there.
func postgresDSN(t *testing.T) {
	t.Helper()
	if os.Getenv(postgresDSNEnv) != "" {
		return
	}
	if os.Getenv("BENCH_REQUIRE_SERVICES") == "1" {
		t.Fatal("BENCH_POSTGRES_DSN not set, and BENCH_REQUIRE_SERVICES=1")
	}
	t.Skip("BENCH_POSTGRES_DSN not set")
}

// The subtests share the server's users table, so they run one after another.
func TestPostgres(t *testing.T) {
	postgresDSN(t)
	setup := func(t *testing.T, rows int) {
		t.Helper()
		if r := runBench(t, nil, "setup", "postgres", "--rows", fmt.Sprint(rows)); r.code != 0 {
			t.Fatalf("setup postgres: exit %d: %s", r.code, r.stderr)
		}
	}
	for _, c := range []struct{ tasks, rows, pool int }{{10, 1000, 8}, {100, 1000, 8}, {300, 50, 2}} {
		t.Run(fmt.Sprintf("checksum/tasks=%d/rows=%d/pool=%d", c.tasks, c.rows, c.pool), func(t *testing.T) {
			setup(t, c.rows)
			rec := benchRecord(t, nil, "postgres", "--tasks", fmt.Sprint(c.tasks), "--rows", fmt.Sprint(c.rows), "--pool", fmt.Sprint(c.pool))
			checkUsersRecord(t, rec, expectUsers(c.tasks, c.rows))
			if got := uintField(t, rec, "metrics", "checkouts"); got != uint64(c.tasks) {
				t.Errorf("checkouts = %d, want one per task (%d)", got, c.tasks)
			}
			rt := rec["runtime"].(map[string]any)
			if uintField(t, rec, "runtime", "pool") != uint64(c.pool) || rt["checkout"] != sqlCheckout ||
				!strings.HasPrefix(fmt.Sprint(rt["driver"]), postgresModule+" v5.") {
				t.Errorf("runtime = %v", rt)
			}
			for _, name := range []string{"server_version", "synchronous_commit", "fsync", "wal_sync_method",
				"full_page_writes", "wal_level", "shared_buffers", "max_connections", "plan_cache_mode", "autovacuum"} {
				if v, _ := rt[name].(string); v == "" {
					t.Errorf("runtime %s = %v, want the server's setting", name, rt[name])
				}
			}
		})
	}
	t.Run("setup state", func(t *testing.T) {
		setup(t, 300)
		cfg, err := postgresConfig()
		if err != nil {
			t.Fatal(err)
		}
		db := stdlib.OpenDB(*cfg)
		defer db.Close()
		d := minstd(600)
		var salary, age int64
		var address string
		if err := db.QueryRow("SELECT salary, age, address FROM users WHERE id = 300").Scan(&salary, &age, &address); err != nil {
			t.Fatal(err)
		}
		// CHAR(50) pads with blanks, as in MySQL's storage; only the text counts.
		if uint64(salary) != d[598]%201 || uint64(age) != d[599]%100 || strings.TrimRight(address, " ") != "address 300" {
			t.Errorf("row 300 = (%d, %d, %q), want (%d, %d, \"address 300\")", salary, age, address, d[598]%201, d[599]%100)
		}
		// Setup analysed the table: the planner knows its 300 rows before any run.
		var tuples float64
		var analysed sql.NullTime
		if err := db.QueryRow("SELECT c.reltuples, s.last_analyze FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid "+
			"WHERE c.oid = 'users'::regclass").Scan(&tuples, &analysed); err != nil {
			t.Fatal(err)
		}
		if tuples != 300 || !analysed.Valid {
			t.Errorf("reltuples = %v, last_analyze = %v; want 300 and a time", tuples, analysed)
		}
	})
	t.Run("rows mismatch", func(t *testing.T) {
		setup(t, 100)
		r := runBench(t, nil, "postgres", "--tasks", "5", "--rows", "200")
		if r.code != exitFailed || !strings.Contains(r.stderr, "100 rows") {
			t.Fatalf("exit %d, stderr %q; want exit 1 about the row count", r.code, r.stderr)
		}
	})
}

func TestPostgresWithoutDSNFails(t *testing.T) {
	t.Parallel()
	r := runBench(t, []string{postgresDSNEnv + "="}, "postgres", "--tasks", "5")
	if r.code != exitFailed || r.stderr != programName+": postgres: BENCH_POSTGRES_DSN is not set\n" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	r = runBench(t, []string{postgresDSNEnv + "="}, "setup", "postgres")
	if r.code != exitFailed || !strings.Contains(r.stderr, "BENCH_POSTGRES_DSN is not set") {
		t.Fatalf("setup: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestPostgresBadDSNFails(t *testing.T) {
	t.Parallel()
	for _, dsn := range []string{
		"mysql://u:s3cret@127.0.0.1:3306/db",
		"postgres://u:s3cret@127.0.0.1:5432/",
		"postgres://u:s3cret@127.0.0.1:5432/db?sslmode=require",
		"postgres://u:s3cret@127.0.0.1:99999/db",
		"postgres://:s3cret@127.0.0.1:5432/db",
		"host=127.0.0.1 user=u password=s3cret dbname=db",
	} {
		r := runBench(t, []string{postgresDSNEnv + "=" + dsn}, "postgres", "--tasks", "5")
		if r.code != exitFailed || !strings.Contains(r.stderr, "BENCH_POSTGRES_DSN") || strings.Contains(r.stderr, "s3cret") ||
			strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and one line naming BENCH_POSTGRES_DSN without the password", dsn, r.code, r.stderr)
		}
	}
}

func TestPostgresUnreachableServerFails(t *testing.T) {
	t.Parallel()
	// Nothing listens on port 1 of the loopback: the connection is refused at once.
	start := time.Now()
	r := runBench(t, []string{postgresDSNEnv + "=postgres://bench:s3cret@127.0.0.1:1/bench"}, "postgres", "--tasks", "5")
	if r.code != exitFailed || !strings.Contains(r.stderr, "cannot connect to 127.0.0.1:1/bench") ||
		strings.Contains(r.stderr, "s3cret") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q; want exit 1 and one line saying it cannot connect", r.code, r.stderr)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v to say so", d)
	}
}

func TestPostgresConfigFromURL(t *testing.T) {
	t.Setenv(postgresDSNEnv, "postgres://bench:p%40ss%27w@db.example:5433/benchdb")
	cfg, err := postgresConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.User != "bench" || cfg.Password != "p@ss'w" || cfg.Host != "db.example" || cfg.Port != 5433 ||
		cfg.Database != "benchdb" || cfg.TLSConfig != nil || len(cfg.Fallbacks) != 0 || cfg.ConnectTimeout != postgresDialTimeout {
		t.Fatalf("config = %+v", cfg.Config)
	}
	if got := postgresServerName(cfg); got != "db.example:5433/benchdb" {
		t.Errorf("server = %q", got)
	}
	t.Setenv(postgresDSNEnv, "postgresql://bench@[::1]/benchdb")
	if cfg, err = postgresConfig(); err != nil || cfg.Host != "::1" || cfg.Port != 5432 || postgresServerName(cfg) != "[::1]:5432/benchdb" {
		t.Fatalf("default port: %+v, %v", cfg, err)
	}
}
