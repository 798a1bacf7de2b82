//go:build sql

package main

import (
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// mysqlDSN is the server the MySQL tests use: BENCH_MYSQL_DSN, or a skip unless
// BENCH_REQUIRE_SERVICES=1 says a server must be there.
func mysqlDSN(t *testing.T) {
	t.Helper()
	if os.Getenv(mysqlDSNEnv) != "" {
		return
	}
	if os.Getenv("BENCH_REQUIRE_SERVICES") == "1" {
		t.Fatal("BENCH_MYSQL_DSN not set, and BENCH_REQUIRE_SERVICES=1")
	}
	t.Skip("BENCH_MYSQL_DSN not set")
}

// The subtests share the server's users table, so they run one after another.
func TestMySQL(t *testing.T) {
	mysqlDSN(t)
	setup := func(t *testing.T, rows int) {
		t.Helper()
		if r := runBench(t, nil, "setup", "mysql", "--rows", fmt.Sprint(rows)); r.code != 0 {
			t.Fatalf("setup mysql: exit %d: %s", r.code, r.stderr)
		}
	}
	for _, c := range []struct{ tasks, rows, pool int }{{10, 1000, 8}, {100, 1000, 8}, {300, 50, 2}} {
		t.Run(fmt.Sprintf("checksum/tasks=%d/rows=%d/pool=%d", c.tasks, c.rows, c.pool), func(t *testing.T) {
			setup(t, c.rows)
			rec := benchRecord(t, nil, "mysql", "--tasks", fmt.Sprint(c.tasks), "--rows", fmt.Sprint(c.rows), "--pool", fmt.Sprint(c.pool))
			checkUsersRecord(t, rec, expectUsers(c.tasks, c.rows))
			rt := rec["runtime"].(map[string]any)
			if v, _ := rt["server_version"].(string); v == "" || uintField(t, rec, "runtime", "pool") != uint64(c.pool) {
				t.Errorf("runtime = %v", rt)
			}
		})
	}
	t.Run("setup state", func(t *testing.T) {
		setup(t, 300)
		cfg, err := mysqlConfig()
		if err != nil {
			t.Fatal(err)
		}
		connector, err := mysql.NewConnector(cfg)
		if err != nil {
			t.Fatal(err)
		}
		db := sql.OpenDB(connector)
		defer db.Close()
		d := minstd(600)
		var salary, age int64
		var address, engine string
		if err := db.QueryRow("SELECT salary, age, address FROM users WHERE id = 300").Scan(&salary, &age, &address); err != nil {
			t.Fatal(err)
		}
		if uint64(salary) != d[598]%201 || uint64(age) != d[599]%100 || address != "address 300" {
			t.Errorf("row 300 = (%d, %d, %q), want (%d, %d, \"address 300\")", salary, age, address, d[598]%201, d[599]%100)
		}
		if err := db.QueryRow("SELECT engine FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'users'").Scan(&engine); err != nil || engine != "InnoDB" {
			t.Errorf("engine = %q (%v), want InnoDB", engine, err)
		}
	})
	t.Run("rows mismatch", func(t *testing.T) {
		setup(t, 100)
		r := runBench(t, nil, "mysql", "--tasks", "5", "--rows", "200")
		if r.code != exitFailed || !strings.Contains(r.stderr, "100 rows") {
			t.Fatalf("exit %d, stderr %q; want exit 1 about the row count", r.code, r.stderr)
		}
	})
}

func TestMySQLWithoutDSNFails(t *testing.T) {
	t.Parallel()
	r := runBench(t, []string{mysqlDSNEnv + "="}, "mysql", "--tasks", "5")
	if r.code != exitFailed || r.stderr != programName+": mysql: BENCH_MYSQL_DSN is not set\n" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	r = runBench(t, []string{mysqlDSNEnv + "="}, "setup", "mysql")
	if r.code != exitFailed || !strings.Contains(r.stderr, "BENCH_MYSQL_DSN is not set") {
		t.Fatalf("setup: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestMySQLBadDSNFails(t *testing.T) {
	t.Parallel()
	for _, dsn := range []string{
		"postgres://u:s3cret@127.0.0.1:5432/db",
		"mysql://u:s3cret@127.0.0.1:3306/",
		"mysql://u:s3cret@127.0.0.1:3306/db?tls=true",
		"u:s3cret@tcp(127.0.0.1:3306)/db",
	} {
		r := runBench(t, []string{mysqlDSNEnv + "=" + dsn}, "mysql", "--tasks", "5")
		if r.code != exitFailed || !strings.Contains(r.stderr, "BENCH_MYSQL_DSN") || strings.Contains(r.stderr, "s3cret") {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 naming BENCH_MYSQL_DSN without the password", dsn, r.code, r.stderr)
		}
	}
}

func TestMySQLUnreachableServerFails(t *testing.T) {
	t.Parallel()
	// Nothing listens on port 1 of the loopback: the connection is refused at once.
	r := runBench(t, []string{mysqlDSNEnv + "=mysql://bench:s3cret@127.0.0.1:1/bench"}, "mysql", "--tasks", "5")
	if r.code != exitFailed || !strings.Contains(r.stderr, "cannot connect to 127.0.0.1:1") ||
		strings.Contains(r.stderr, "s3cret") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q; want exit 1 and one line saying it cannot connect", r.code, r.stderr)
	}
}

func TestMySQLConfigFromURL(t *testing.T) {
	t.Setenv(mysqlDSNEnv, "mysql://bench:p%40ss@db.example:3307/benchdb")
	cfg, err := mysqlConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.User != "bench" || cfg.Passwd != "p@ss" || cfg.Addr != "db.example:3307" || cfg.DBName != "benchdb" || cfg.Net != "tcp" {
		t.Fatalf("config = %+v", cfg)
	}
	t.Setenv(mysqlDSNEnv, "mysql://bench@[::1]/benchdb")
	if cfg, err = mysqlConfig(); err != nil || cfg.Addr != "[::1]:3306" {
		t.Fatalf("default port: %+v, %v", cfg, err)
	}
}
