//go:build sql

package main

import "testing"

// usersExpectation is what the SQL scenarios must report for a fresh setup of rows
// rows and tasks tasks, worked out from the MINSTD draws alone.
type usersExpectation struct {
	updates, selected, finalSum, checksum uint64
}

func expectUsers(tasks, rows int) usersExpectation {
	setup := minstd(2 * rows)
	var initialSum uint64
	perAge := map[uint64]uint64{}
	for id := range rows {
		initialSum += setup[2*id] % 201
		perAge[setup[2*id+1]%100]++
	}
	var e usersExpectation
	run := minstd(2 * tasks)
	for t := range tasks {
		if age := run[2*t+1] % 100; age%2 == 0 {
			e.updates++
		} else {
			e.selected += perAge[age]
		}
	}
	e.finalSum = initialSum + e.updates
	e.checksum = e.finalSum + e.selected
	return e
}

func checkUsersRecord(t *testing.T, rec map[string]any, want usersExpectation) {
	t.Helper()
	for _, c := range []struct {
		path []string
		want uint64
	}{
		{[]string{"checksum"}, want.checksum},
		{[]string{"metrics", "updates"}, want.updates},
		{[]string{"metrics", "selected_rows"}, want.selected},
		{[]string{"metrics", "final_salary_sum"}, want.finalSum},
	} {
		if got := uintField(t, rec, c.path...); got != c.want {
			t.Errorf("%v = %d, want %d", c.path, got, c.want)
		}
	}
}

func TestExpectUsersSmallCase(t *testing.T) {
	// One row, one task: the row's age is draw 2 % 100, the task's draw 4 % 100.
	d := minstd(4)
	e := expectUsers(1, 1)
	if d[3]%100%2 == 0 {
		if e.updates != 1 || e.finalSum != d[0]%201+1 {
			t.Fatalf("%+v", e)
		}
	} else if e.updates != 0 {
		t.Fatalf("%+v", e)
	}
}

func TestDialectPlaceholders(t *testing.T) {
	for _, c := range []struct {
		d       sqlDialect
		q, want string
	}{
		{dialectDollar, sqlUpdateSalary, "UPDATE users SET salary = salary + 1 WHERE id = $1"},
		{dialectDollar, "INSERT INTO users (id, salary) VALUES (?, ?), (?, ?)", "INSERT INTO users (id, salary) VALUES ($1, $2), ($3, $4)"},
		{dialectDollar, sqlSumSalary, sqlSumSalary},
		{dialectQuestion, sqlSelectByAge, sqlSelectByAge},
	} {
		if got := c.d.sql(c.q); got != c.want {
			t.Errorf("%v.sql(%q) = %q, want %q", c.d, c.q, got, c.want)
		}
	}
}
