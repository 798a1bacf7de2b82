//go:build sql

package main

import (
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

func init() { implement("mysql", mysqlServer.run, mysqlServer.setup) }

const (
	mysqlDSNEnv      = "BENCH_MYSQL_DSN"
	mysqlModule      = "github.com/go-sql-driver/mysql"
	mysqlDefaultPort = "3306"
	mysqlDialTimeout = 5 * time.Second
)

// mysqlConfig turns BENCH_MYSQL_DSN, a URL mysql://user:password@host:port/dbname,
// into the driver's configuration. Messages never repeat the password.
func mysqlConfig() (*mysql.Config, error) {
	raw := os.Getenv(mysqlDSNEnv)
	if raw == "" {
		return nil, errors.New(mysqlDSNEnv + " is not set")
	}
	// The messages never echo the value: it holds a password.
	const want = " is not of the form mysql://user:password@host:port/dbname"
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New(mysqlDSNEnv + want)
	}
	dbName := strings.TrimPrefix(u.Path, "/")
	if u.Scheme != "mysql" || u.Opaque != "" || u.Hostname() == "" || dbName == "" || strings.Contains(dbName, "/") {
		return nil, errors.New(mysqlDSNEnv + want)
	}
	if u.RawQuery != "" {
		return nil, errors.New(mysqlDSNEnv + ": query parameters are not supported")
	}
	port := u.Port()
	if port == "" {
		port = mysqlDefaultPort
	}
	cfg := mysql.NewConfig()
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	cfg.Net = "tcp"
	cfg.Addr = net.JoinHostPort(u.Hostname(), port)
	cfg.DBName = dbName
	cfg.Timeout = mysqlDialTimeout
	return cfg, nil
}

// mysqlServer is the scenario: the shared setup and run (sqlServer) on a
// MySQL-compatible server, InnoDB tables.
var mysqlServer = sqlServer{
	scenario: "mysql",
	dialect:  dialectQuestion,
	create:   sqlCreateUsers + " ENGINE=InnoDB",
	module:   mysqlModule,
	open:     openMySQL,
	facts:    mysqlFacts,
}

// openMySQL returns a pool of up to pool connections with one of them open.
func openMySQL(pool int) (*sql.DB, string, error) {
	cfg, err := mysqlConfig()
	if err != nil {
		return nil, "", err
	}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, "", err
	}
	return openPool(connector, cfg.Addr+"/"+cfg.DBName, pool)
}

// mysqlFacts is the server's version.
func mysqlFacts(db *sql.DB) (map[string]any, error) {
	var version string
	if err := db.QueryRow("SELECT VERSION()").Scan(&version); err != nil {
		return nil, fmt.Errorf("reading the server version: %w", err)
	}
	return map[string]any{"server_version": version}, nil
}
