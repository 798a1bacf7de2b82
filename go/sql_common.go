package main

import (
	"context"
	"database/sql"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// The table and the statements both SQL scenarios share, with bound parameters.
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

// fillUsers creates the users table (createSQL) and inserts rows from a fresh LCG
// stream in one transaction: row id gets salary = next() % 201, then age =
// next() % 100, and address "address <id>".
func fillUsers(db *sql.DB, createSQL string, rows int) error {
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
			salary := int64(g.next() % 201)
			age := int64(g.next() % 100)
			args = append(args, id, salary, age, "address "+strconv.Itoa(id))
			id++
		}
		stmt, ok := stmts[n]
		if !ok {
			q := "INSERT INTO users (id, salary, age, address) VALUES " +
				strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?), ", n), ", ")
			if stmt, err = tx.Prepare(q); err != nil {
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

// openConnections opens and pings n pool connections before the timed window. It
// holds them all at once, or database/sql would hand back the same one each time;
// released, they stay idle in the pool (MaxIdleConns = n).
func openConnections(db *sql.DB, n int) error {
	conns := make([]*sql.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, err := db.Conn(context.Background())
		if err != nil {
			return err
		}
		conns = append(conns, c)
		if err := c.PingContext(context.Background()); err != nil {
			return err
		}
	}
	return nil
}

// runUsers is the timed workload of both SQL scenarios. One goroutine per task, all
// spawned at once; a task waits for a pool connection inside database/sql, which
// counts in its service time. Task t draws id = 1 + next() % rows, then age =
// next() % 100: an even age raises that user's salary and reads it back, an odd one
// reads every user of that age.
func runUsers(db *sql.DB, setupHint string, tasks, rows int) (*result, error) {
	var have int
	if err := db.QueryRow(sqlCountUsers).Scan(&have); err != nil {
		return nil, fmt.Errorf("reading table users (%s): %w", setupHint, err)
	}
	if have != rows {
		return nil, fmt.Errorf("table users has %d rows, --rows is %d (%s with the same --rows)", have, rows, setupHint)
	}
	// Prepared here on one connection; database/sql prepares them on each other
	// pool connection at its first use, as sqlx's per-connection cache does.
	var stmts [3]*sql.Stmt
	defer func() {
		for _, s := range stmts {
			if s != nil {
				s.Close()
			}
		}
	}()
	for i, q := range []string{sqlUpdateSalary, sqlSelectByID, sqlSelectByAge} {
		s, err := db.Prepare(q)
		if err != nil {
			return nil, fmt.Errorf("preparing %q: %w", q, err)
		}
		stmts[i] = s
	}
	update, byID, byAge := stmts[0], stmts[1], stmts[2]

	lat := newLatencies(tasks)
	var updates, selected atomic.Uint64
	var failed failure
	// On the first error, closing the pool fails every task still waiting for a
	// connection at once; otherwise each would sit out its own busy timeout.
	fail := func(err error) {
		if failed.set(err) {
			go db.Close()
		}
	}
	var wg sync.WaitGroup
	g := newLCG()

	win := openWindow()
	start := win.start
	for t := range tasks {
		id := int64(1 + g.next()%uint64(rows))
		age := int64(g.next() % 100)
		wg.Go(func() {
			defer exitOnPanic()
			if failed.stopped() {
				return
			}
			started := now()
			if age%2 == 0 {
				if err := raiseSalary(update, byID, id); err != nil {
					fail(err)
					return
				}
				updates.Add(1)
			} else {
				n, err := salariesByAge(byAge, age)
				if err != nil {
					fail(err)
					return
				}
				selected.Add(n)
			}
			lat.record(t, start, started, now())
		})
	}
	wg.Wait()
	wt := win.close()
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
		},
	}, nil
}

func raiseSalary(update, byID *sql.Stmt, id int64) error {
	res, err := update.Exec(id)
	if err != nil {
		return fmt.Errorf("update of id %d: %w", id, err)
	}
	// A missing row would silently be less work.
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("update of id %d changed %d rows (%v), want 1", id, n, err)
	}
	var salary int64
	if err := byID.QueryRow(id).Scan(&salary); err != nil {
		return fmt.Errorf("select of id %d: %w", id, err)
	}
	return nil
}

// salariesByAge reads every row of the age = ? select and returns how many there were.
func salariesByAge(byAge *sql.Stmt, age int64) (uint64, error) {
	rs, err := byAge.Query(age)
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
