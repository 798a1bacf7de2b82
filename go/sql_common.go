//go:build sql

package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// The table and the statements every SQL scenario shares, with bound parameters
// written `?` (sqlDialect.sql rewrites them for PostgreSQL).
//
// No statement needs a cast on any server: the INT columns are PostgreSQL's int4 and
// every scan below reads into int64, which database/sql fills from any integer;
// COUNT(*) and SUM(salary) are bigint in PostgreSQL (the SUM of int4 is int8), an
// integer in SQLite, and in MySQL a DECIMAL the driver hands over as digits.
const (
	sqlCreateUsers  = "CREATE TABLE users (id INTEGER PRIMARY KEY, salary INT NOT NULL, age INT NOT NULL, address CHAR(50))"
	sqlUpdateSalary = "UPDATE users SET salary = salary + 1 WHERE id = ?"
	sqlSelectByID   = "SELECT salary FROM users WHERE id = ?"
	sqlSelectByAge  = "SELECT salary FROM users WHERE age = ? ORDER BY id"
	sqlCountUsers   = "SELECT COUNT(*) FROM users"
	sqlSumSalary    = "SELECT SUM(salary) FROM users"

	// insertChunk rows go into one INSERT during setup: 2000 bound parameters, well
	// under SQLite's and MySQL's limits.
	insertChunk = 500
)

// sqlDialect is what the servers do not share in these statements: how a bound
// parameter is written. One rewrite here rather than a second copy of the statements.
type sqlDialect int

const (
	dialectQuestion sqlDialect = iota // SQLite, MySQL: ?
	dialectDollar                     // PostgreSQL: $1, $2, ...
)

// sql is q with its `?` placeholders written for the dialect. The shared statements
// hold no `?` anywhere else (no string literals).
func (d sqlDialect) sql(q string) string {
	if d != dialectDollar {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r != '?' {
			b.WriteRune(r)
			continue
		}
		n++
		b.WriteString("$" + strconv.Itoa(n))
	}
	return b.String()
}

// fillUsers creates the users table (createSQL) and inserts rows from a fresh LCG
// stream in one transaction: row id gets salary = next() % 201, then age =
// next() % 100, and address "address <id>".
func fillUsers(db *sql.DB, d sqlDialect, createSQL string, rows int) error {
	if _, err := db.Exec(createSQL); err != nil {
		return fmt.Errorf("creating table users: %w", err)
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback() // a no-op after Commit

	stmts := map[int]*sql.Stmt{} // by rows per INSERT: the full chunk and the rest
	defer func() {
		for _, s := range stmts {
			s.Close()
		}
	}()
	args := make([]any, 0, 4*insertChunk)
	g := newLCG()
	for id := 1; id <= rows; {
		n := min(insertChunk, rows-id+1)
		args = args[:0]
		for range n {
			salary, age := setupRow(g)
			args = append(args, id, salary, age, "address "+strconv.Itoa(id))
			id++
		}
		stmt, ok := stmts[n]
		if !ok {
			q := "INSERT INTO users (id, salary, age, address) VALUES " +
				strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?), ", n), ", ")
			if stmt, err = tx.Prepare(d.sql(q)); err != nil {
				return err
			}
			stmts[n] = stmt
		}
		if _, err := stmt.Exec(args...); err != nil {
			return fmt.Errorf("inserting rows: %w", err)
		}
	}
	return tx.Commit()
}

// sqlCheckout is how both languages hand out connections, stated in the record.
const sqlCheckout = "one per task, first come first served, prepared statements per connection"

// sqlConn is one pool connection, checked out of database/sql for the whole run,
// with the task statements prepared on it (sqlx caches its statements per
// connection the same way).
type sqlConn struct {
	conn                *sql.Conn
	update, byID, byAge *sql.Stmt
}

func (c *sqlConn) close() {
	for _, s := range []*sql.Stmt{c.update, c.byID, c.byAge} {
		if s != nil {
			s.Close()
		}
	}
	c.conn.Close()
}

// connGate is the pool both languages share: n connections opened and prepared
// before the timed window, handed out first come, first served (a channel's waiting
// receivers are served in order), one checkout per task. database/sql's own pool
// wakes a random waiter and, like sqlx's, would check a connection out per statement.
type connGate struct {
	idle chan *sqlConn
	all  []*sqlConn
}

func openGate(db *sql.DB, d sqlDialect, n int) (*connGate, error) {
	ctx := context.Background()
	g := &connGate{idle: make(chan *sqlConn, n)}
	for range n {
		conn, err := db.Conn(ctx)
		if err != nil {
			g.close()
			return nil, err
		}
		c := &sqlConn{conn: conn}
		g.all = append(g.all, c)
		for _, s := range []struct {
			dest **sql.Stmt
			q    string
		}{{&c.update, sqlUpdateSalary}, {&c.byID, sqlSelectByID}, {&c.byAge, sqlSelectByAge}} {
			if *s.dest, err = conn.PrepareContext(ctx, d.sql(s.q)); err != nil {
				g.close()
				return nil, fmt.Errorf("preparing %q: %w", d.sql(s.q), err)
			}
		}
		g.idle <- c
	}
	return g, nil
}

func (g *connGate) close() {
	for _, c := range g.all {
		c.close()
	}
}

// runUsers is the timed workload of every SQL scenario. One goroutine per task, all
// spawned at once; a task waits its turn at the gate, which counts in its service
// time, and does all its statements on the one connection it checked out. Task t
// draws id = 1 + next() % rows, then age = next() % 100: an even age raises that
// user's salary and reads it back, an odd one reads every user of that age.
func runUsers(db *sql.DB, d sqlDialect, setupHint string, tasks, rows, pool int) (*result, error) {
	var have int
	if err := db.QueryRow(sqlCountUsers).Scan(&have); err != nil {
		return nil, fmt.Errorf("reading table users (%s): %w", setupHint, err)
	}
	if have != rows {
		return nil, fmt.Errorf("table users has %d rows, --rows is %d (%s with the same --rows)", have, rows, setupHint)
	}
	gate, err := openGate(db, d, pool)
	if err != nil {
		return nil, err
	}
	base := setupSalaries(rows)

	lat := newLatencies(tasks)
	var updates, selected, checkouts atomic.Uint64
	var failed failure
	var wg sync.WaitGroup
	g := newLCG()

	win := openWindow()
	start := win.start
	for t := range tasks {
		id := int64(1 + g.next()%uint64(rows))
		age := int64(g.next() % 100)
		wg.Go(func() {
			defer exitOnPanic()
			started := now()
			c := <-gate.idle
			defer func() { gate.idle <- c }()
			if failed.stopped() {
				return
			}
			checkouts.Add(1)
			if age%2 == 0 {
				if err := raiseSalary(c, id, base[id]); err != nil {
					failed.set(err)
					return
				}
				updates.Add(1)
			} else {
				n, err := salariesByAge(c, age)
				if err != nil {
					failed.set(err)
					return
				}
				selected.Add(n)
			}
			lat.record(t, start, started, now())
		})
	}
	wg.Wait()
	wt := win.close()
	gate.close() // gives the pool its connections back for the sum
	if err := failed.get(); err != nil {
		return nil, err
	}

	var sum int64
	if err := db.QueryRow(sqlSumSalary).Scan(&sum); err != nil {
		return nil, fmt.Errorf("summing salaries: %w", err)
	}
	finalSum, sel := uint64(sum), selected.Load()
	return &result{
		checksum: finalSum + sel,
		window:   wt,
		latency:  lat.summary(),
		metrics: map[string]any{
			"updates":          updates.Load(),
			"selected_rows":    sel,
			"final_salary_sum": finalSum,
			"checkouts":        checkouts.Load(),
		},
	}, nil
}

// setupSalaries is every row's salary as setup made it (index = id), from the same
// stream, so a task can check the salary it reads back.
func setupSalaries(rows int) []int64 {
	g := newLCG()
	base := make([]int64, rows+1)
	for id := 1; id <= rows; id++ {
		base[id], _ = setupRow(g)
	}
	return base
}

// setupRow draws the next row's salary (next() % 201) and age (next() % 100).
func setupRow(g *lcg) (salary, age int64) {
	salary = int64(g.next() % 201)
	return salary, int64(g.next() % 100)
}

// raiseSalary updates row id and reads its salary back on the same connection. The
// value read must include this task's raise (more than setup's salary), so the read
// cannot be skipped; the sum itself depends on the order of concurrent raises of the
// same row, so it stays out of the checksum.
func raiseSalary(c *sqlConn, id, setupSalary int64) error {
	ctx := context.Background()
	res, err := c.update.ExecContext(ctx, id)
	if err != nil {
		return fmt.Errorf("update of id %d: %w", id, err)
	}
	// A missing row would silently be less work.
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("update of id %d changed %d rows (%v), want 1", id, n, err)
	}
	var salary int64
	if err := c.byID.QueryRowContext(ctx, id).Scan(&salary); err != nil {
		return fmt.Errorf("select of id %d: %w", id, err)
	}
	if salary <= setupSalary {
		return fmt.Errorf("select of id %d read salary %d after its raise, setup's was %d", id, salary, setupSalary)
	}
	return nil
}

// salariesByAge reads every row of the age = ? select and returns how many there were.
func salariesByAge(c *sqlConn, age int64) (uint64, error) {
	rs, err := c.byAge.QueryContext(context.Background(), age)
	if err != nil {
		return 0, fmt.Errorf("select of age %d: %w", age, err)
	}
	defer rs.Close()
	var n uint64
	for rs.Next() {
		var salary int64
		if err := rs.Scan(&salary); err != nil {
			return 0, fmt.Errorf("select of age %d: %w", age, err)
		}
		n++
	}
	if err := rs.Err(); err != nil {
		return 0, fmt.Errorf("select of age %d: %w", age, err)
	}
	return n, nil
}

// moduleVersion names a dependency as built into this binary, e.g.
// "github.com/mattn/go-sqlite3 v1.14.53".
func moduleVersion(path string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == path {
				return m.Path + " " + m.Version
			}
		}
	}
	return path
}

// sqlServer is what a client/server scenario (mysql, postgres) brings of its own; the
// setup and the run around it are the same for every server (setup, run).
type sqlServer struct {
	scenario string
	dialect  sqlDialect
	create   string // CREATE TABLE users, as this server takes it
	analyze  string // run once the rows are in ("": nothing)
	module   string // the driver's Go module
	// open returns a pool of up to pool connections with one open, and the server's
	// name for messages (host:port/dbname, never the password).
	open func(pool int) (*sql.DB, string, error)
	// facts reads the server's version and settings for the record.
	facts func(db *sql.DB) (map[string]any, error)
}

// setup drops and recreates the table users with --rows rows.
func (s sqlServer) setup(p params) error {
	db, server, err := s.open(1)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec("DROP TABLE IF EXISTS users"); err != nil {
		return fmt.Errorf("%s: %w", server, err)
	}
	if err := fillUsers(db, s.dialect, s.create, p.int("rows")); err != nil {
		return fmt.Errorf("%s: %w", server, err)
	}
	if s.analyze != "" {
		if _, err := db.Exec(s.analyze); err != nil {
			return fmt.Errorf("%s: %s: %w", server, s.analyze, err)
		}
	}
	return nil
}

// run runs the tasks (runUsers) on a pool of --pool connections.
func (s sqlServer) run(variant string, p params) (*result, error) {
	if variant != "goroutines" {
		return nil, fmt.Errorf("variant %q not implemented", variant)
	}
	tasks, rows, pool := p.int("tasks"), p.int("rows"), p.int("pool")
	db, server, err := s.open(pool)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	facts, err := s.facts(db)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", server, err)
	}
	hint := fmt.Sprintf("run `%s setup %s --rows %d` first", programName, s.scenario, rows)
	res, err := runUsers(db, s.dialect, hint, tasks, rows, pool)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", server, err)
	}
	facts["pool"] = pool
	facts["checkout"] = sqlCheckout
	facts["driver"] = moduleVersion(s.module)
	res.runtime = facts
	return res, nil
}

// openPool is a pool of up to pool connections, all kept once open, through connector,
// after checking that the server answers.
func openPool(connector driver.Connector, server string, pool int) (*sql.DB, string, error) {
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(pool)
	db.SetMaxIdleConns(pool)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, "", fmt.Errorf("cannot connect to %s: %w", server, err)
	}
	return db, server, nil
}
