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

func init() { implement("mysql", runMySQL, setupMySQL) }

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

// openMySQL returns a pool of up to pool connections with every one of them open.
func openMySQL(pool int) (*sql.DB, *mysql.Config, error) {
	cfg, err := mysqlConfig()
	if err != nil {
		return nil, nil, err
	}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, nil, err
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(pool)
	db.SetMaxIdleConns(pool)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("cannot connect to %s/%s: %w", cfg.Addr, cfg.DBName, err)
	}
	return db, cfg, nil
}

// setupMySQL drops and recreates the table users with --rows rows.
func setupMySQL(p params) error {
	db, cfg, err := openMySQL(1)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec("DROP TABLE IF EXISTS users"); err != nil {
		return fmt.Errorf("%s/%s: %w", cfg.Addr, cfg.DBName, err)
	}
	if err := fillUsers(db, dialectQuestion, sqlCreateUsers+" ENGINE=InnoDB", p.int("rows")); err != nil {
		return fmt.Errorf("%s/%s: %w", cfg.Addr, cfg.DBName, err)
	}
	return nil
}

func runMySQL(variant string, p params) (*result, error) {
	if variant != "goroutines" {
		return nil, fmt.Errorf("variant %q not implemented", variant)
	}
	tasks, rows, pool := p.int("tasks"), p.int("rows"), p.int("pool")
	db, cfg, err := openMySQL(pool)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var version string
	if err := db.QueryRow("SELECT VERSION()").Scan(&version); err != nil {
		return nil, fmt.Errorf("%s: reading the server version: %w", cfg.Addr, err)
	}
	hint := fmt.Sprintf("run `%s setup mysql --rows %d` first", programName, rows)
	res, err := runUsers(db, dialectQuestion, hint, tasks, rows, pool)
	if err != nil {
		return nil, fmt.Errorf("%s/%s: %w", cfg.Addr, cfg.DBName, err)
	}
	res.runtime = map[string]any{
		"server_version": version,
		"pool":           pool,
		"checkout":       sqlCheckout,
		"driver":         moduleVersion(mysqlModule),
	}
	return res, nil
}
